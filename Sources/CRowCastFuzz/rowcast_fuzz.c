#include "rowcast_fuzz.h"

#ifdef ROWCAST_FUZZ
// libFuzzer's entry point for programs with their own main (libclang_rt.fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int rowcast_fuzz_run_driver(int *argc, char ***argv, rowcast_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
#else
int rowcast_fuzz_run_driver(int *argc, char ***argv, rowcast_fuzz_callback callback) {
    (void)argc;
    (void)argv;
    (void)callback;
    return -1;
}
#endif
