// whisper.cpp's C API (whisper.h, v1.8.5). `whisper_full_params` is passed by value: this header must be the one
// of the library that is linked (scripts/install-whisper.sh builds and installs both from one source).
#include <whisper.h>
// zlib (Debian's zlib1g-dev): the whisper engine's compression-ratio test on decoded text, as OpenAI's Whisper does.
#include <zlib.h>
