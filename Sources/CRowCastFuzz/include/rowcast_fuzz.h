#ifndef ROWCAST_FUZZ_H
#define ROWCAST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/// The function libFuzzer calls with each input.
typedef int (*rowcast_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver with `argc`/`argv` (libFuzzer's flags and corpus directories) and
/// `callback`; returns its exit status, or -1 when this build does not link libFuzzer
/// (build with `make fuzz`, which passes -sanitize=fuzzer and -DROWCAST_FUZZ).
int rowcast_fuzz_run_driver(int *argc, char ***argv, rowcast_fuzz_callback callback);

#endif
