#!/usr/bin/env bash
# Delivery behind answering: `adjutant serve` gets a burst of COUNT messages by SMTP (default
# 2000, tests/bench/smtp_load.py), then the GM runs a turn at once; printed: the seconds from the
# turn run until its first report is in the outbox Maildir, and how many received messages were
# waiting to be answered at the turn run and at that moment.
# Usage: [SERVE_ARGS="..."] scripts/bench-mail-delivery.sh [BINARY] [COUNT]. SERVE_ARGS are
# added to `serve` (e.g. "--mail-refusals-total 100000", so that a binary with the global budget
# of refusals answers every message as one without it does). Prints the figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/adjutant}")
count=${2:-2000}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; [ -n "${KEEP_LOG:-}" ] && cp "$tmp/serve.log" "$KEEP_LOG"; rm -rf "$tmp"; }
trap cleanup EXIT
port() { /usr/bin/python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
http=$(port)
smtp=$(port)
gm=(-H 'Authorization: Bearer bench-gm')
ADJUTANT_GM_TOKEN=bench-gm "$bin" --db "$tmp/db.sqlite" serve --http "127.0.0.1:$http" \
  --smtp "127.0.0.1:$smtp" --tick 0 --outbox "$tmp/out" ${SERVE_ARGS:-} >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 150); do curl -s -m 1 "http://127.0.0.1:$http/healthz" | grep -q ok && break; sleep 0.1; done
curl -s -m 10 -X POST "${gm[@]}" -H 'Content-Type: application/json' \
  --data '{"bundled": "dark-age-britain", "seed": 1}' "http://127.0.0.1:$http/api/games" >/dev/null
/usr/bin/python3 tests/bench/smtp_load.py --port "$smtp" --count "$count" --conns 4 --prefix d >/dev/null
at_run=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM inbox WHERE state = 'new'")
t0=$(date +%s.%N)
curl -s -m 60 -X POST "${gm[@]}" "http://127.0.0.1:$http/api/games/britain-1/turns/run" >/dev/null
t_ran=$(date +%s.%N)
after_run=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM inbox WHERE state = 'new'")
waiting=
for _ in $(seq 3000); do
  if grep -qls "report for" "$tmp/out/new/"* 2>/dev/null; then
    waiting=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM inbox WHERE state = 'new'")
    break
  fi
  sleep 0.1
done
t1=$(date +%s.%N)
if [ -z "$waiting" ]; then
  echo "no report delivered within 300 s of the turn run"
else
  printf 'turn run took %.1f s; first report delivered %.1f s after it returned; received messages waiting to be answered: %s of %s before the run, %s after it, %s at the delivery\n' \
    "$(echo "$t_ran - $t0" | bc)" "$(echo "$t1 - $t_ran" | bc)" "$at_run" "$count" "$after_run" "$waiting"
fi
