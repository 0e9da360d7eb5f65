// libFuzzer's driver entry point (the toolchain's libFuzzer, linked by -sanitize=fuzzer).
// Declared here because SwiftPM gives Linux executables their own main, so the fuzz targets call the
// driver from top-level code instead of letting libFuzzer's main run.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
