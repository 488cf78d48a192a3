#!/usr/bin/env bash
# Concurrent commands on one database: PROCS `adjutant` processes started at once on a fresh
# database (`game list`, which creates and migrates it), then on an existing one (`game show` and
# `orders submit`, which write). Counts the commands that failed with "database is locked" (or
# busy). Usage: scripts/bench-db-locked.sh [BINARY] [PROCS] [ROUNDS]. Prints the figures;
# asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/adjutant}")
procs=${2:-12}
rounds=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
orders=schemas/scenarios/dark-age-britain
players=(WSX MRC NUM EAN GWN)

fresh_locked=0 existing_locked=0
for r in $(seq "$rounds"); do
  db="$tmp/fresh-$r.db"
  for i in $(seq "$procs"); do "$bin" --db "$db" game list > /dev/null 2> "$tmp/f-$r-$i.err" & done
  wait || true
  n=$(cat "$tmp"/f-"$r"-*.err | grep -ciE 'locked|busy' || true)
  fresh_locked=$((fresh_locked + n))

  db="$tmp/existing-$r.db"
  "$bin" --db "$db" game create bundled:dark-age-britain --seed 7 > /dev/null
  for i in $(seq "$procs"); do
    if [ $((i % 3)) = 0 ]; then
      "$bin" --db "$db" game show britain-1 > /dev/null 2> "$tmp/e-$r-$i.err" &
    else
      "$bin" --db "$db" orders submit britain-1 "$orders/turn1-${players[$((i % 5))]}.txt" \
        > /dev/null 2> "$tmp/e-$r-$i.err" &
    fi
  done
  wait || true
  n=$(cat "$tmp"/e-"$r"-*.err | grep -ciE 'locked|busy' || true)
  existing_locked=$((existing_locked + n))
done
total=$((procs * rounds))
echo "db-locked: fresh database: $fresh_locked of $total commands failed with a locked database"
echo "db-locked: existing database: $existing_locked of $total commands failed with a locked database"
cat "$tmp"/*.err | grep -iE 'locked|busy' | sort | uniq -c | head -5 || true
