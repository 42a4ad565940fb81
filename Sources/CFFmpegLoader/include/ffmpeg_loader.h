#ifndef AUDIOGRAPH_FFMPEG_LOADER_H
#define AUDIOGRAPH_FFMPEG_LOADER_H

#include <stddef.h>

/*
 * FFmpeg's libraries (libavutil, libswresample, libavcodec, libavformat), loaded when first needed.
 *
 * The audiograph binary does not link them: with their dependencies they are about 130 shared libraries and
 * 24 MB of resident memory in every process, and most runs (WAV or FLAC in, no AAC out) never call them. This
 * target defines each FFmpeg function audiograph calls, with FFmpeg's own prototype (the headers are included,
 * so the compiler checks them), as a forwarder to the real one, found with dlopen and dlsym on first use.
 *
 * Call audiograph_ffmpeg_load before the first FFmpeg call and report its error; a forwarder called when the
 * libraries cannot be loaded prints the reason and aborts.
 */

/// Loads the four libraries and every function audiograph uses, once per process (thread-safe). Returns 0, or
/// -1 with the reason (dlerror's text, naming the library or the function) in `error`.
int audiograph_ffmpeg_load(char *error, size_t size);

/// The file name (soname) of library `index` (0: libavutil, 1: libswresample, 2: libavcodec, 3: libavformat),
/// from the major versions of the headers this was built with; NULL past the last.
const char *audiograph_ffmpeg_library(int index);

#endif
