#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <errno.h>

/* Macros that do not import into Swift. */
static inline int audiograph_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int audiograph_averror_eof(void) { return AVERROR_EOF; }
static inline int audiograph_averror_enospc(void) { return AVERROR(ENOSPC); }
static inline int64_t audiograph_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int audiograph_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int audiograph_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int audiograph_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int audiograph_averror_enoent(void) { return AVERROR(ENOENT); }
