#ifndef AUDIOGRAPH_FUZZ_DRIVER_H
#define AUDIOGRAPH_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// One fuzz input: libFuzzer's LLVMFuzzerTestOneInput signature.
typedef int (*audiograph_fuzz_target)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver (LLVMFuzzerRunDriver) on `target` with the process's arguments. The fuzz targets'
/// main.swift calls it: SwiftPM names an executable's entry point itself, so libFuzzer's own main cannot be used.
int audiograph_fuzz_main(int argc, char **argv, audiograph_fuzz_target target);

#endif
