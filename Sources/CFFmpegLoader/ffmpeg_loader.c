#define _GNU_SOURCE
#include "ffmpeg_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libavutil/mathematics.h>
#include <libswresample/swresample.h>

enum { AVUTIL, SWRESAMPLE, AVCODEC, AVFORMAT, LIBRARY_COUNT };

#define SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)

static const char *const library_names[LIBRARY_COUNT] = {
    SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
    SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR),
    SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
};

const char *audiograph_ffmpeg_library(int index) {
    return index >= 0 && index < LIBRARY_COUNT ? library_names[index] : NULL;
}

/*
 * Every function audiograph calls: X(library, return type, name, (parameters), (arguments)), and V(...) for
 * those that return nothing.
 */
#define FFMPEG_FUNCTIONS(X, V) \
    X(AVUTIL, int, av_channel_layout_compare, (const AVChannelLayout *chl, const AVChannelLayout *chl1), (chl, chl1)) \
    X(AVUTIL, int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src)) \
    V(AVUTIL, av_channel_layout_default, (AVChannelLayout *ch_layout, int nb_channels), (ch_layout, nb_channels)) \
    X(AVUTIL, int, av_channel_layout_from_string, (AVChannelLayout *channel_layout, const char *str), (channel_layout, str)) \
    V(AVUTIL, av_channel_layout_uninit, (AVChannelLayout *channel_layout), (channel_layout)) \
    V(AVUTIL, av_dict_free, (AVDictionary **m), (m)) \
    X(AVUTIL, int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags), (pm, key, value, flags)) \
    X(AVUTIL, AVFrame *, av_frame_alloc, (void), ()) \
    V(AVUTIL, av_frame_free, (AVFrame **frame), (frame)) \
    X(AVUTIL, int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align)) \
    X(AVUTIL, int, av_frame_make_writable, (AVFrame *frame), (frame)) \
    V(AVUTIL, av_frame_unref, (AVFrame *frame), (frame)) \
    V(AVUTIL, av_log_set_level, (int level), (level)) \
    X(AVUTIL, int64_t, av_rescale_q, (int64_t a, AVRational bq, AVRational cq), (a, bq, cq)) \
    X(AVUTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size)) \
    X(SWRESAMPLE, int, swr_alloc_set_opts2, \
      (struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, \
       int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, \
       int in_sample_rate, int log_offset, void *log_ctx), \
      (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, \
       log_offset, log_ctx)) \
    X(SWRESAMPLE, int, swr_convert, (struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count), \
      (s, out, out_count, in, in_count)) \
    V(SWRESAMPLE, swr_free, (struct SwrContext **s), (s)) \
    X(SWRESAMPLE, int, swr_get_out_samples, (struct SwrContext *s, int in_samples), (s, in_samples)) \
    X(SWRESAMPLE, int, swr_init, (struct SwrContext *s), (s)) \
    X(AVCODEC, AVPacket *, av_packet_alloc, (void), ()) \
    V(AVCODEC, av_packet_free, (AVPacket **pkt), (pkt)) \
    V(AVCODEC, av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst)) \
    V(AVCODEC, av_packet_unref, (AVPacket *pkt), (pkt)) \
    X(AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec)) \
    X(AVCODEC, const AVCodecDescriptor *, avcodec_descriptor_get, (enum AVCodecID id), (id)) \
    X(AVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name)) \
    V(AVCODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx)) \
    X(AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), \
      (avctx, codec, options)) \
    X(AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec)) \
    X(AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par)) \
    X(AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame)) \
    X(AVCODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt)) \
    X(AVCODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame)) \
    X(AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt)) \
    X(AVFORMAT, int, av_find_best_stream, \
      (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, \
       const AVCodec **decoder_ret, int flags), \
      (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags)) \
    X(AVFORMAT, const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name)) \
    X(AVFORMAT, int, av_interleaved_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt)) \
    X(AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt)) \
    X(AVFORMAT, int, av_write_trailer, (AVFormatContext *s), (s)) \
    X(AVFORMAT, AVFormatContext *, avformat_alloc_context, (void), ()) \
    X(AVFORMAT, int, avformat_alloc_output_context2, \
      (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename), \
      (ctx, oformat, format_name, filename)) \
    V(AVFORMAT, avformat_close_input, (AVFormatContext **s), (s)) \
    X(AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options)) \
    V(AVFORMAT, avformat_free_context, (AVFormatContext *s), (s)) \
    X(AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c)) \
    X(AVFORMAT, int, avformat_open_input, \
      (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), \
      (ps, url, fmt, options)) \
    X(AVFORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options)) \
    X(AVFORMAT, int, avio_closep, (AVIOContext **s), (s)) \
    X(AVFORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))

/* The real functions, filled once by load_once. */
#define DECLARE_POINTER(library, type, name, parameters, arguments) static type (*real_##name) parameters;
#define DECLARE_VOID_POINTER(library, name, parameters, arguments) static void (*real_##name) parameters;
FFMPEG_FUNCTIONS(DECLARE_POINTER, DECLARE_VOID_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
/* Set once by load_once: 0 when every library and function was found. */
static int load_status = -1;
static char load_error[512] = "FFmpeg's libraries were not loaded";

/* The function `name` of `library`; NULL (with load_error saying which, for the first one missing) if absent. */
static void *find(void *const *handles, int library, const char *name, int *missing) {
    void *symbol = dlsym(handles[library], name);
    if (!symbol && !*missing) {
        snprintf(load_error, sizeof load_error,
                 "FFmpeg's %s has no %s (not the FFmpeg version audiograph was built with?)", library_names[library], name);
        *missing = 1;
    }
    return symbol;
}

static void load_once(void) {
    void *handles[LIBRARY_COUNT] = {0};
    for (int library = 0; library < LIBRARY_COUNT; library++) {
        /* In dependency order; RTLD_LOCAL keeps their symbols out of the process's global scope. */
        handles[library] = dlopen(library_names[library], RTLD_NOW | RTLD_LOCAL);
        if (!handles[library]) {
            const char *reason = dlerror();
            snprintf(load_error, sizeof load_error, "cannot load FFmpeg's %s: %s", library_names[library],
                     reason ? reason : "unknown error");
            while (library-- > 0) dlclose(handles[library]);
            return;
        }
    }
    int missing = 0;
#define FIND(library, type, name, parameters, arguments) \
    real_##name = (type (*) parameters)find(handles, library, #name, &missing);
#define FIND_VOID(library, name, parameters, arguments) \
    real_##name = (void (*) parameters)find(handles, library, #name, &missing);
    FFMPEG_FUNCTIONS(FIND, FIND_VOID)
    load_status = missing ? -1 : 0;
}

int audiograph_ffmpeg_load(char *error, size_t size) {
    pthread_once(&once, load_once);
    if (load_status == 0) return 0;
    if (error && size > 0) snprintf(error, size, "%s", load_error);
    return -1;
}

/* A forwarder called although loading failed: the caller skipped audiograph_ffmpeg_load. */
static void require_loaded(void) {
    char error[512];
    if (audiograph_ffmpeg_load(error, sizeof error) != 0) {
        fprintf(stderr, "audiograph: %s\n", error);
        abort();
    }
}

#define FORWARD(library, type, name, parameters, arguments) \
    type name parameters { require_loaded(); return real_##name arguments; }
#define FORWARD_VOID(library, name, parameters, arguments) \
    void name parameters { require_loaded(); real_##name arguments; }
FFMPEG_FUNCTIONS(FORWARD, FORWARD_VOID)
