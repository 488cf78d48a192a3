#!/usr/bin/env bash
# The test command (what .ci/run calls). Stages, each timed (the table at the end):
#   1. deps       scripts/install-deps.sh --test
#      checks     scripts/check-layers.sh (no include crosses the layer rules of
#                 docs/architecture.md), scripts/check-format.sh (every .cc and .h as clang-format
#                 14 writes it), scripts/check-doc-links.sh (README and docs/ links) and
#                 scripts/check-unity-names.py (no two files of a target define one local name,
#                 which a unity batch would make a redefinition)
#   2. gcc        GCC Release build at -O1 (unity batches, -Werror) of the daemon, the tests and
#                 the fuzz harnesses (replay mode) in build/
#   3. gcc-test   the whole suite there (ctest: every label, TEST_JOBS at once), including the
#                 seed-corpus replays
#   4. asan       clang-14 build in build-asan/ with AddressSanitizer + UndefinedBehaviorSanitizer
#                 (UB is fatal) at -O0, libFuzzer coverage on the libraries the harnesses reach,
#                 linked with lld; at nice 10 while gcc-test runs beside it
#   5. asan-test  the labels unit, storage, service and sanitize-e2e (an end-to-end daemon test),
#                 ASAN_TEST_JOBS at once
#                 (beside gcc-test at nice 10 when the build is done first, as with a warm cache)
#                 in build-asan/, each label of each test binary in ADJ_SANITIZE_SHARDS processes
#                 (ASAN_OPTIONS/UBSAN_OPTIONS halt on error, leaks checked with
#                 tests/sanitizer/lsan.supp); e2e, browser and stats run in gcc-test only
#   6. fuzz       each harness of tests/fuzz for FUZZ_SECONDS (default 25) from its seed corpus,
#                 two at a time; a crash, leak, timeout or out-of-memory fails the stage (input
#                 saved in build-asan/fuzz/artifacts/)
# gcc-test runs alongside asan, and asan-test too when it can start before gcc-test is done
# (ADJUTANT_TEST_OVERLAP=0: one after the other), so the stages' times
# add up to more than the total. Every stage runs even when an earlier independent one failed; the
# exit status is non-zero when any stage failed. Both builds compile through ccache when it is installed (install-deps --test
# installs it; the cache is ccache's default, ~/.cache/ccache): set ADJUTANT_CCACHE=0 to compile
# without it. Environment: FUZZ_SECONDS, JOBS (default 2: compile jobs, sanitizer-suite jobs, fuzzers
# at once), TEST_JOBS (default 4 x JOBS: GCC-suite jobs), ASAN_TEST_JOBS (default JOBS + 1:
# sanitizer-suite jobs), ADJUTANT_CCACHE, ADJUTANT_TEST_OVERLAP.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-25}
JOBS=${JOBS:-2}
# The GCC suite waits more than it computes (daemons, sockets, Chromium; alone at -j4 it used 0.73
# of the two cores): four times as many at once.
TEST_JOBS=${TEST_JOBS:-$((JOBS * 4))}
# The sanitizer suite computes more than it waits, but not all the time: alone at -j2 it used
# 1.73 of the two cores and took 194 s, at -j3 179 s (2026-12-01).
ASAN_TEST_JOBS=${ASAN_TEST_JOBS:-$((JOBS + 1))}

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
record() {  # record NAME RC SECONDS: one row of the stage table
  names+=("$1")
  times+=("$3")
  if [ "$2" -eq 0 ]; then results+=(ok); else results+=("FAILED ($2)"); failed=1; fi
  echo "=== stage $1: ${results[-1]} in $3 s"
}
stage() {  # stage NAME COMMAND...: runs and times one stage
  local name=$1
  shift
  echo "=== stage $name: $*"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  record "$name" $rc $((SECONDS - t0))
  return $rc
}
# A stage in the background, its output kept in LOG until stage_join prints it (so two stages'
# lines do not interleave).
stage_bg() {  # stage_bg NAME LOG COMMAND...; sets BG_PID
  local name=$1 log=$2
  shift 2
  echo "=== stage $name (alongside the next stage): $*"
  (
    t0=$SECONDS
    rc=0
    "$@" >"$log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - t0))" >"$log.result"
  ) &
  BG_PID=$!
}
stage_join() {  # stage_join NAME LOG PID: waits for a stage_bg, prints its output, records it
  local rc secs
  wait "$3"
  read -r rc secs <"$2.result"
  cat "$2"
  record "$1" "$rc" "$secs"
  return "$rc"
}

# The compiler cache: on unless ADJUTANT_CCACHE=0 or ccache is missing. Sloppiness: __DATE__ /
# __TIME__ are not used here, and the unity files CMake writes are compared by content. Decided
# after the deps stage, which installs ccache: on a fresh machine the first run fills the cache.
launcher=()
asan_nice=()
use_ccache() {
  if [ "${ADJUTANT_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros,include_file_mtime,include_file_ctime}
    ccache --zero-stats >/dev/null 2>&1 || true
  fi
}

gcc_build() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_BUILD_TESTS=ON \
    -DADJUTANT_WERROR=ON -DADJUTANT_OPT=-O1 "${launcher[@]}" >/dev/null &&
    cmake --build build -j"$JOBS" --target adj_tests
}

gcc_test() {
  ctest --test-dir build -j"$TEST_JOBS" --output-on-failure --timeout 900
}

asan_build() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_BUILD_TESTS=ON \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DADJUTANT_SANITIZE=ON -DADJUTANT_FUZZ=ON -DADJUTANT_WERROR=ON \
    -DADJUTANT_LD_PATH="$(command -v ld.lld-14 || true)" "${launcher[@]}" >/dev/null &&
    "${asan_nice[@]}" cmake --build build-asan -j"$JOBS" --target adj_tests
}

asan_test() {  # the labels' tests in shards (tests/CMakeLists.txt); then how many ran
  local rc=0
  rm -rf build-asan/shards
  ctest --test-dir build-asan -j"$ASAN_TEST_JOBS" --output-on-failure --timeout 1800 \
    -L '^(unit|storage|service|sanitize-e2e)$' || rc=$?
  python3 - build-asan/shards <<'PY'
import glob, sys, xml.etree.ElementTree as ET
files = glob.glob(sys.argv[1] + "/*.xml")
n = {"tests": 0, "failures": 0, "disabled": 0}
for f in files:
    root = ET.parse(f).getroot()
    for k in n:
        n[k] += int(root.get(k, 0))
print("asan-test: %d tests run in %d shards, %d failed" % (n["tests"] - n["disabled"], len(files), n["failures"]))
PY
  return $rc
}

asan_test_niced() {  # asan_test at nice 10 (this subshell and what it starts)
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
  asan_test
}

fuzz_one() {  # fuzz_one HARNESS: runs it for FUZZ_SECONDS on a scratch copy of its corpus
  local h=$1 work art="$ROOT/build-asan/fuzz/artifacts"
  # New inputs go to a scratch copy: the committed corpus changes only by hand.
  work=$(mktemp -d)
  cp "$ROOT/tests/fuzz/corpus/$h/"* "$work/"
  if "$ROOT/build-asan/fuzz/fuzz_$h" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$art/$h-" "$work" >"$art/$h.log" 2>&1; then
    echo "--- fuzz_$h: ${FUZZ_SECONDS} s: $(grep -aE '^#[0-9]+.*DONE' "$art/$h.log" | tail -1)"
    rm -rf "$work"
    return 0
  fi
  echo "--- fuzz_$h FAILED (log: $art/$h.log):"
  grep -aE 'FUZZ_CHECK|ERROR|SUMMARY|^    #[0-9]+ .* in adj::|Test unit written' "$art/$h.log" | head -20
  rm -rf "$work"
  return 1
}

fuzz_all() {  # every harness, two at a time (one core each)
  local rc=0 h pids=() names=() i
  mkdir -p "$ROOT/build-asan/fuzz/artifacts"
  for h in "$ROOT"/tests/fuzz/corpus/*/; do
    h=$(basename "$h")
    fuzz_one "$h" &
    pids+=($!)
    names+=("$h")
    if [ ${#pids[@]} -ge "$JOBS" ]; then
      wait "${pids[0]}" || rc=1
      pids=("${pids[@]:1}")
    fi
  done
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  return $rc
}

checks_all() {  # the layer rules of the includes, the format, and the links of the documentation
  local rc=0
  scripts/check-layers.sh || rc=1
  scripts/check-format.sh || rc=1
  scripts/check-doc-links.sh || rc=1
  python3 scripts/check-unity-names.py || rc=1
  return $rc
}

T0=$SECONDS
stage deps scripts/install-deps.sh --test || exit 1
use_ccache
stage checks checks_all
# The GCC suite runs alongside the sanitizer build: about half of its time is spent waiting (on
# daemons, sockets, Chromium), which the build fills. ADJUTANT_TEST_OVERLAP=0 runs them one after
# the other.
LOGS=$(mktemp -d)
if stage gcc gcc_build; then
  if [ "${ADJUTANT_TEST_OVERLAP:-1}" != 0 ]; then
    stage_bg gcc-test "$LOGS/gcc-test.log" gcc_test
    gcc_test_pid=$BG_PID
  else
    stage gcc-test gcc_test
  fi
fi
asan_ok=0
# Beside the suite, the build yields the CPU to it (so its timing tests keep their margins) and
# takes what the suite leaves idle.
[ -n "${gcc_test_pid:-}" ] && asan_nice=(nice -n 10)
stage asan asan_build && asan_ok=1
# When the build is done before the GCC suite (a warm cache), the sanitizer suite starts at once
# beside it, at nice 10 as the build was; alone it has the machine whatever its nice value.
if [ $asan_ok = 1 ] && [ -n "${gcc_test_pid:-}" ] && kill -0 "$gcc_test_pid" 2>/dev/null; then
  stage_bg asan-test "$LOGS/asan-test.log" asan_test_niced
  asan_test_pid=$BG_PID
fi
if [ -n "${gcc_test_pid:-}" ]; then stage_join gcc-test "$LOGS/gcc-test.log" "$gcc_test_pid"; fi
if [ $asan_ok = 1 ]; then
  if [ -n "${asan_test_pid:-}" ]; then
    stage_join asan-test "$LOGS/asan-test.log" "$asan_test_pid"
  else
    stage asan-test asan_test
  fi
  # The fuzzers run alone: each harness gets FUZZ_SECONDS of a whole core.
  stage fuzz fuzz_all
fi
rm -rf "$LOGS"

echo
echo "Stage times (s):"
for i in "${!names[@]}"; do
  printf '  %-10s %6d  %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
done
printf '  %-10s %6d\n' total $((SECONDS - T0))
if [ ${#launcher[@]} -gt 0 ]; then
  echo "ccache: $(ccache --print-stats 2>/dev/null | awk -F'\t' '/^(direct_cache_hit|preprocessed_cache_hit|cache_miss)\t/{printf "%s %s  ", $1, $2}')"
fi
exit $failed
