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
