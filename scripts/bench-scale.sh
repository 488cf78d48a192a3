#!/usr/bin/env bash
# One big game on one machine: for each player count (default 1000 2500 5000 10000) builds the
# grid world (tests/support/grid_world.h: 5 areas and 16 order lines of every kind per player),
# stores one accepted order file per player, then times `adjutant turn run` as a whole process
# (wall time, CPU time (user + system) and peak RSS from /usr/bin/time -v), with its phases
# (--timings) and, beside it, the SQLite floor: a plain bulk insert of the rows that commit wrote,
# in the same run.
# Prints figures; asserts nothing about speed.
#   scripts/bench-scale.sh [--db DB] [--no-build] [--engine-script LUA] [PLAYERS...]
# --db: a database for every size (a connection string is passed through as it is); default a
# fresh SQLite file per size in a temporary directory. Each size is game "scaleN". ADJUTANT_BIN:
# the adjutant binary to time (default build/adjutant).
# --engine-script LUA: instead, for each size, the same world and orders run once on the built-in
# Dark Age and once on the Lua script LUA (e.g. rules/combat/scripts/dark_age.lua), each in a
# fresh SQLite file; prints both turns' wall and CPU (user+sys) time, peak RSS and digest, the
# Lua/C++ ratios, and whether the two turns left the same state and battles (the state's engine
# object aside: the digest hashes it, so the digests differ by the engine's name alone).
set -euo pipefail
cd "$(dirname "$0")/.."
db="" build=1 sizes=() script=""
while (($#)); do
  case "$1" in
    --db) db="$2"; shift 2 ;;
    --db=*) db="${1#--db=}"; shift ;;
    --no-build) build=0; shift ;;
    --engine-script) script="$2"; shift 2 ;;
    --engine-script=*) script="${1#--engine-script=}"; shift ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
((${#sizes[@]})) || sizes=(1000 2500 5000 10000)
if ((build)); then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_OPT=-O2 >/dev/null
  cmake --build build -j2 --target adjutant adjutant_scale_world >/dev/null
fi
bin=${ADJUTANT_BIN:-build/adjutant} tool=build/adjutant_scale_world
. scripts/lib/bench-common.sh
warn_unless_o2 "$(dirname "$bin")"
tmp=$(mktemp -d /tmp/adjutant-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [[ -n "$script" ]]; then
  [[ -r "$script" ]] || { echo "cannot read $script" >&2; exit 1; }
  printf '%-8s %-6s %8s %8s %8s %8s %-18s\n' players engine wall_s cpu_s rss_MB resolve digest
  for n in "${sizes[@]}"; do
    game="scale$n"
    declare -A cpu=() wl=()
    for e in cpp lua; do
      d="$tmp/$e$n.db"
      if [[ $e == lua ]]; then
        "$tool" make --db "$d" --players "$n" --game "$game" --engine-script "$script" >"$tmp/make.$e"
      else
        "$tool" make --db "$d" --players "$n" --game "$game" >"$tmp/make.$e"
      fi
      /usr/bin/time -v "$bin" --db "$d" turn run "$game" --timings >"$tmp/run.$e" 2>"$tmp/time.$e" || {
        cat "$tmp/run.$e" "$tmp/time.$e" >&2; exit 1; }
      wl[$e]=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/time.$e")
      cpu[$e]=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.2f", u+s}' "$tmp/time.$e")
      r=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$tmp/time.$e")
      res=$(sed -n 's/.* resolve \([0-9]*\) ms.*/\1/p' "$tmp/run.$e")
      dig=$(grep -o 'digest [0-9a-f]*' "$tmp/run.$e" | head -1 | cut -d' ' -f2)
      printf '%-8s %-6s %8.2f %8s %8s %8s %-18s\n' "$n" "$e" "${wl[$e]}" "${cpu[$e]}" "$r" "$res" "$dig"
    done
    same=$("$tool" same --db "$tmp/cpp$n.db" --other "$tmp/lua$n.db" --game "$game" --turn 1 | tr '\n' ' ')
    awk -v n="$n" -v wc="${wl[cpp]}" -v wl="${wl[lua]}" -v cc="${cpu[cpp]}" -v cl="${cpu[lua]}" -v s="$same" \
      'BEGIN{printf "%d players: Lua/C++ wall x%.2f, CPU x%.2f; %s\n", n, wl/(wc>0?wc:1), cl/(cc>0?cc:1), s}'
    rm -f "$tmp"/cpp$n.db* "$tmp"/lua$n.db*
  done
  exit 0
fi

printf '%-8s %-7s %8s %8s %8s %8s %8s %8s %8s %8s %9s %8s %6s %7s\n' players areas wall_s rss_MB \
  load orders resolve reports commit floor commit/fl battles us/pl cpu_s
declare -A wall rss
for n in "${sizes[@]}"; do
  game="scale$n"
  d="${db:-$tmp/scale$n.db}"
  "$tool" make --db "$d" --players "$n" --game "$game" >"$tmp/make.$n"
  /usr/bin/time -v "$bin" --db "$d" turn run "$game" --timings >"$tmp/run.$n" 2>"$tmp/time.$n" || {
    cat "$tmp/run.$n" "$tmp/time.$n" >&2; exit 1; }
  w=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/time.$n")
  r=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$tmp/time.$n")
  c=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.2f", u+s}' "$tmp/time.$n")
  phase() { sed -n "s/.* $1 \([0-9]*\) ms.*/\1/p" "$tmp/run.$n"; }
  battles=$(sed -n 's/.* \([0-9]*\) battles,.*/\1/p' "$tmp/run.$n")
  floor=n/a ratio=n/a
  if [[ "$d" != postgres* ]]; then
    floor=$("$tool" floor --db "$d" --turn 1 --game "$game" --out "$tmp/plain.db" |
      awk '/^floor_ms/{printf "%.0f", $2}')
    ratio=$(awk -v c="$(phase commit)" -v f="$floor" 'BEGIN{printf "%.2f", c/(f>0?f:1)}')
  fi
  wall[$n]=$w rss[$n]=$r
  printf '%-8s %-7s %8.2f %8s %8s %8s %8s %8s %8s %8s %9s %8s %6.0f %7s\n' "$n" $((n * 5)) "$w" "$r" \
    "$(phase load)" "$(phase orders)" "$(phase resolve)" "$(phase reports)" "$(phase commit)" \
    "$floor" "$ratio" "$battles" "$(awk -v w="$w" -v n="$n" 'BEGIN{print w*1e6/n}')" "$c"
  [[ -n "$db" ]] || rm -f "$d" "$d-wal" "$d-shm"
done
echo "(phases and floor in ms; us/pl = wall microseconds per player; cpu_s = user + system time)"
first=${sizes[0]} last=${sizes[-1]}
if [[ "$first" != "$last" ]]; then
  awk -v a="$first" -v b="$last" -v wa="${wall[$first]}" -v wb="${wall[$last]}" \
    -v ra="${rss[$first]}" -v rb="${rss[$last]}" 'BEGIN{
    printf "growth %d -> %d players (x%.1f): wall x%.2f (%.0f -> %.0f us/player), peak RSS x%.2f (%.1f -> %.1f kB/player)\n",
      a, b, b/a, wb/wa, wa*1e6/a, wb*1e6/b, rb/ra, ra*1024/a, rb*1024/b }'
fi
