#!/usr/bin/env bash
# One client's slow pages do not hold up another client's requests (server/http/fair_queue.h).
# The game page of a world of PLAYERS players (default 10,000: each make takes about a second) is
# served by `adjutant serve --trusted-proxy 127.0.0.1`. Client A (X-Forwarded-For 10.9.9.1) asks
# for it with a new query each time (each a cache miss, so each a make) on CONNS connections
# (default 32) from 5 s before B's first request until B's last; client B (10.9.9.2) asks for
# /healthz ROUNDS times (default 5), one after the other, first alone and then during A's flood.
# Prints B's median and slowest answer in both (and each during A), and how many pages A got.
# Asserts nothing.
#   scripts/bench-fair-workers.sh [BINARY]     (BINARY: default build/adjutant)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-build/adjutant}")
TOOL=$(realpath build/adjutant_scale_world)
PLAYERS=${PLAYERS:-10000} CONNS=${CONNS:-32} ROUNDS=${ROUNDS:-5}
. scripts/lib/bench-common.sh
warn_unless_o2 "$(dirname "$BIN")"
bench_begin fair
"$TOOL" make --db "$work/fair.db" --players "$PLAYERS" --game fair >/dev/null
port=$(free_port)
"$BIN" --db "$work/fair.db" serve --http "127.0.0.1:$port" --smtp off --tick 0 \
  --trusted-proxy 127.0.0.1 >"$work/serve.log" 2>&1 &
pids+=($!)
base="http://127.0.0.1:$port"
for _ in $(seq 300); do curl -fs "$base/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
b_rounds() {  # B's answers: seconds and status, one a line
  for _ in $(seq "$ROUNDS"); do
    curl -s -o /dev/null -H 'X-Forwarded-For: 10.9.9.2' -w '%{time_total} %{http_code}\n' "$base/healthz"
  done
}
summary() {
  sort -n | awk '{ v[NR] = $1; if ($2 != 200) bad++ }
    END { printf "median %.3f s, slowest %.3f s, %d of %d not 200", v[int((NR + 1) / 2)], v[NR], bad, NR }'
}
echo "== $BIN: $PLAYERS players, A on $CONNS connections"
echo "B alone:        $(b_rounds | summary)"
wrk -t1 -c"$CONNS" -d3600s --timeout 120s -H 'X-Forwarded-For: 10.9.9.1' \
  -s tests/bench/fair_workers/flood.lua "$base/games/fair" >"$work/wrk.out" 2>&1 &
wrk_pid=$!
sleep 5
b_rounds >"$work/b_during"
echo "B during A:     $(summary <"$work/b_during")   (in order: $(awk '{ printf "%.2f ", $1 }' "$work/b_during"))"
kill -INT "$wrk_pid"
wait "$wrk_pid" || true
echo "A's pages:      $(awk '/requests in/ { print $1, $2, $3, $4 }' "$work/wrk.out")"
