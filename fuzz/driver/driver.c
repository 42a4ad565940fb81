#include "audiograph_fuzz_driver.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int audiograph_fuzz_main(int argc, char **argv, audiograph_fuzz_target target) {
    return LLVMFuzzerRunDriver(&argc, &argv, target);
}
