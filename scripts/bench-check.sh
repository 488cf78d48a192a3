#!/usr/bin/env bash
# The cost of checking and submitting ONE order file as the game grows: the grid world of
# tests/support/grid_world.h at 1,000 and 10,000 players (5,000 and 50,000 areas), every player's
# file on file. Times `adjutant orders check|submit` as whole processes (median of REPS runs, peak
# RSS from GNU time) and Services::check_orders/submit_orders in one process (what the daemon's
# web and mail paths pay). Prints figures; asserts nothing about speed.
#   scripts/bench-check.sh [BUILD_DIR] (env SIZES="1000 10000", REPS=7)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sizes=${SIZES:-"1000 10000"}
reps=${REPS:-7}
cmake --build "$build" -j2 --target adjutant adjutant_check_bench >/dev/null
. scripts/lib/bench-common.sh
warn_unless_o2 "$build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A cli_check cli_submit cli_mem inp

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Runs a command, appending "<wall seconds> <peak RSS KiB>" to $tmp/t (GNU time's %e is too coarse).
timed() {
  local t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$tmp/rss" "$@"
  local rc=$?
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v m="$(cat "$tmp/rss")" 'BEGIN {print b - a, m}' >>"$tmp/t"
  return $rc
}

for n in $sizes; do
  db=$tmp/bench-$n.db
  "$build"/adjutant_check_bench setup "$db" "$n" "$tmp/orders-$n.txt"
  # The floor of any command: start the process, open the database, print one line.
  : >"$tmp/t"
  for ((i = 0; i < reps; i++)); do
    timed "$build"/adjutant --db "$db" game list >/dev/null
  done
  printf 'cli    players=%-6s game list     %8.1f ms  peak %6.1f MB  (process floor)\n' "$n" \
    "$(awk '{print $1 * 1000}' "$tmp/t" | median)" "$(awk '{print $2 / 1024}' "$tmp/t" | median)"
  for cmd in check submit; do
    : >"$tmp/t"
    for ((i = 0; i < reps; i++)); do
      timed "$build"/adjutant --db "$db" orders "$cmd" bench "$tmp/orders-$n.txt" >"$tmp/ack-$cmd" ||
        { echo "adjutant orders $cmd failed" >&2; exit 1; }
    done
    ms=$(awk '{print $1 * 1000}' "$tmp/t" | median)
    mb=$(awk '{print $2 / 1024}' "$tmp/t" | median)
    if [[ $cmd == check ]]; then cli_check[$n]=$ms; else cli_submit[$n]=$ms; fi
    cli_mem[$n]=$mb
    printf 'cli    players=%-6s orders %-6s %8.1f ms  peak %6.1f MB\n' "$n" "$cmd" "$ms" "$mb"
  done
  line=$("$build"/adjutant_check_bench inproc "$db" "$n" "$reps")
  echo "$line"
  inp[$n]=$line
done
set -- $sizes
if [[ $# -ge 2 ]]; then
  a=$1 b=${!#}
  awk -v a="${cli_check[$a]}" -v b="${cli_check[$b]}" -v na="$a" -v nb="$b" \
    'BEGIN {printf "ratio %s/%s players: cli check %.2f\n", nb, na, b / a}'
  awk -v a="${cli_submit[$a]}" -v b="${cli_submit[$b]}" -v na="$a" -v nb="$b" \
    'BEGIN {printf "ratio %s/%s players: cli submit %.2f\n", nb, na, b / a}'
  ca=$(sed 's/.*check_ms=\([0-9.]*\).*/\1/' <<<"${inp[$a]}")
  cb=$(sed 's/.*check_ms=\([0-9.]*\).*/\1/' <<<"${inp[$b]}")
  sa=$(sed 's/.*submit_ms=\([0-9.]*\).*/\1/' <<<"${inp[$a]}")
  sb=$(sed 's/.*submit_ms=\([0-9.]*\).*/\1/' <<<"${inp[$b]}")
  awk -v ca="$ca" -v cb="$cb" -v sa="$sa" -v sb="$sb" -v na="$a" -v nb="$b" \
    'BEGIN {printf "ratio %s/%s players: in-process check %.2f, submit %.2f\n", nb, na, cb / ca, sb / sa}'
fi
