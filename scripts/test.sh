#!/usr/bin/env bash
# The test command (what .ci/run calls). Stages, each timed (the table at the end):
#   1. deps      scripts/install-deps.sh --test
#   2. gcc       GCC Release build of the daemon, the tests and the fuzz harnesses (replay mode) in
#                build/, then the whole suite (ctest), including the seed-corpus replays
#   3. asan      clang-14 build in build-asan/ with AddressSanitizer + UndefinedBehaviorSanitizer
#                (UB is fatal) and libFuzzer coverage on all code (ADJUTANT_SANITIZE, ADJUTANT_FUZZ)
#   4. asan-test the whole suite again in build-asan/ (ASAN_OPTIONS/UBSAN_OPTIONS halt on error,
#                leaks checked with tests/sanitizer/lsan.supp)
#   5. fuzz      each harness of tests/fuzz for FUZZ_SECONDS (default 25) from its seed corpus;
#                a crash, leak, timeout or out-of-memory fails the stage (input saved in
#                build-asan/fuzz/artifacts/)
# Every stage runs even when an earlier independent one failed; the exit status is non-zero when
# any stage failed. Environment: FUZZ_SECONDS, and CMAKE_CXX_COMPILER_LAUNCHER=ccache (with
# CMAKE_C_COMPILER_LAUNCHER) to compile through ccache.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-25}
JOBS=${JOBS:-2}

# Sanitizer settings for every instrumented process (tests, the adjutant subprocesses they start,
# the fuzzers). detect_leaks stays on: the suppressions file lists the libraries' one-time
# allocations and says why each is there.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1"
export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizer/lsan.supp:print_suppressions=0"
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)}

names=()
times=()
results=()
failed=0
stage() {  # stage NAME COMMAND...: runs and times one stage
  local name=$1
  shift
  echo "=== stage $name: $*"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  names+=("$name")
  times+=($((SECONDS - t0)))
  if [ $rc -eq 0 ]; then results+=(ok); else results+=("FAILED ($rc)"); failed=1; fi
  echo "=== stage $name: ${results[-1]} in $((SECONDS - t0)) s"
  return $rc
}

gcc_build_and_test() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build build -j"$JOBS" --target adj_tests &&
    ctest --test-dir build -j"$JOBS" --output-on-failure --timeout 900
}

asan_build() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_BUILD_TESTS=ON \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DADJUTANT_SANITIZE=ON -DADJUTANT_FUZZ=ON >/dev/null &&
    cmake --build build-asan -j"$JOBS" --target adj_tests
}

asan_test() {
  ctest --test-dir build-asan -j"$JOBS" --output-on-failure --timeout 1800
}

fuzz_all() {
  local rc=0 h work art="$ROOT/build-asan/fuzz/artifacts"
  mkdir -p "$art"
  for h in "$ROOT"/tests/fuzz/corpus/*/; do
    h=$(basename "$h")
    # New inputs go to a scratch copy: the committed corpus changes only by hand.
    work=$(mktemp -d)
    cp "$ROOT/tests/fuzz/corpus/$h/"* "$work/"
    echo "--- fuzz_$h: ${FUZZ_SECONDS} s"
    if "$ROOT/build-asan/fuzz/fuzz_$h" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
      -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$art/$h-" "$work" >"$art/$h.log" 2>&1; then
      grep -aE '^#[0-9]+.*DONE' "$art/$h.log" | tail -1
    else
      rc=1
      echo "fuzz_$h FAILED (log: $art/$h.log):"
      grep -aE 'FUZZ_CHECK|ERROR|SUMMARY|^    #[0-9]+ .* in adj::|Test unit written' "$art/$h.log" | head -20
    fi
    rm -rf "$work"
  done
  return $rc
}

T0=$SECONDS
stage deps scripts/install-deps.sh --test || exit 1
stage gcc gcc_build_and_test
if stage asan asan_build; then
  stage asan-test asan_test
  stage fuzz fuzz_all
fi

echo
echo "Stage times (s):"
for i in "${!names[@]}"; do
  printf '  %-10s %6d  %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
done
printf '  %-10s %6d\n' total $((SECONDS - T0))
exit $failed
