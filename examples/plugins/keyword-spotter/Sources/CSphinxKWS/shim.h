/* pocketsphinx for the keyword-spotter plugin. A plugin package cannot use the audiograph package's C targets
 * (they are not products), so it declares its own system library target, like Sources/CPocketSphinx there. */
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <stdio.h>

/* cmd_ln_init is variadic and does not import: build a config from an argv instead. */
static inline cmd_ln_t *kws_plugin_config(int argc, char **argv) {
    return cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1);
}

/* Silence (or restore) sphinxbase's log, which goes to stderr by default. */
static inline void kws_plugin_quiet(int quiet) {
    err_set_logfp(quiet ? NULL : stderr);
}
