#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <stdio.h>

/* cmd_ln_init is variadic and does not import: build a config from an argv instead. */
static inline cmd_ln_t *audiograph_ps_config(int argc, char **argv) {
    return cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1);
}

/* Silence (or restore) sphinxbase's log, which goes to stderr by default. */
static inline void audiograph_ps_quiet(int quiet) {
    if (quiet) {
        err_set_logfp(NULL);
    } else {
        err_set_logfp(stderr);
    }
}

#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/ckd_alloc.h>

/* The cepstra of a whole utterance exactly as pocketsphinx's full-utterance path (ps_process_raw with full_utt)
 * computes them for a model with batch CMN (audiograph_ps_uses_batch_cmn): the decoder's front end from a fresh
 * start, the tail frame fe_end_utt makes, then batch CMN (sphinxbase's own cmn(), the same arithmetic). The last frame is then
 * repeated for the dynamic-feature window, as the full-utterance path pads the end: fed to a decoder whose
 * feature CMN is off (audiograph_ps_disable_cmn) through ps_process_cep in pieces, the search sees exactly the
 * full-utterance path's features (the padding stays in the feature window: a cepstra-fed utterance's end does
 * not flush it), and can be stopped between pieces. Returns the number of rows to feed (the frames in *out,
 * free them with audiograph_ps_free_cepstra), or -1. */
static inline int audiograph_ps_utterance_cepstra(ps_decoder_t *ps, const int16 *samples, size_t count,
                                                  mfcc_t ***out) {
    fe_t *fe = ps_get_fe(ps);
    feat_t *feat = ps_get_feat(ps);
    int32 frames = 0, tail = 0, window = feat_window_size(feat), size = fe_get_output_size(fe);
    size_t remaining = count;
    *out = NULL;
    if (fe_process_frames(fe, NULL, &remaining, NULL, &frames, NULL) < 0) return -1;
    mfcc_t **cepstra = (mfcc_t **)ckd_calloc_2d(frames + 1 + window, size, sizeof(mfcc_t));
    remaining = count;
    const int16 *cursor = samples;
    fe_start_utt(fe);
    if (fe_process_frames(fe, &cursor, &remaining, cepstra, &frames, NULL) < 0) {
        ckd_free_2d(cepstra);
        return -1;
    }
    fe_end_utt(fe, cepstra[frames], &tail);
    frames += tail;
    if (frames == 0) {
        *out = cepstra;
        return 0;
    }
    cmn_t *normalizer = cmn_init(feat_cepsize(feat));
    cmn(normalizer, cepstra, feat->varnorm, frames);
    cmn_free(normalizer);
    for (int32 i = 0; i < window; i++) memcpy(cepstra[frames + i], cepstra[frames - 1], size * sizeof(mfcc_t));
    *out = cepstra;
    return frames + window;
}

/* Whether the decoder's features are mean-normalized per utterance (the model's -cmn batch / current). */
static inline int audiograph_ps_uses_batch_cmn(ps_decoder_t *ps) {
    return ps_get_feat(ps)->cmn == CMN_BATCH;
}

/* Turns the decoder's own CMN off: its cepstra come normalized from audiograph_ps_utterance_cepstra. */
static inline void audiograph_ps_disable_cmn(ps_decoder_t *ps) {
    ps_get_feat(ps)->cmn = CMN_NONE;
}

/* Frames [first, first + count) of cepstra, fed to the search (not the end of the utterance). */
static inline int audiograph_ps_process_cepstra(ps_decoder_t *ps, mfcc_t **cepstra, int first, int count) {
    return ps_process_cep(ps, cepstra + first, count, 0, 0);
}

static inline void audiograph_ps_free_cepstra(mfcc_t **cepstra) {
    ckd_free_2d(cepstra);
}
