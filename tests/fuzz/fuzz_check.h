// What every harness in tests/fuzz shares: FUZZ_CHECK, an invariant that stops the fuzzer with a
// message (libFuzzer then saves the input as a crash file). Not assert(): it must also fire in
// builds with NDEBUG.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
