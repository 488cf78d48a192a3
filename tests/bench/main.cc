// The one main() of adjutant_bench: every other file in tests/bench/ only registers benchmarks.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
