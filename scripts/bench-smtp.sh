#!/usr/bin/env bash
# SMTP to durable storage, messages per second: Adjutant's listener (`adjutant serve`, stored in
# SQLite before each 250) and, in the same run, aiosmtpd writing the same messages to a Maildir.
# One client for both: build/adjutant_smtp_load (C++, one thread, CONNS connections), which
# pipelines MAIL/RCPT/DATA only when the server offers PIPELINING (Adjutant does, aiosmtpd does
# not); Adjutant is also measured with pipelining turned off in the client.
# Usage: scripts/bench-smtp.sh [BINARY] [COUNT] [CONNS] [LOADER]. Prints the figures and the
# ratios; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/adjutant}
count=${2:-10000}
conns=${3:-16}
load=${4:-$(dirname "$bin")/adjutant_smtp_load}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
port() { /usr/bin/python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 100); do
    /usr/bin/python3 -c "import socket;socket.create_connection(('127.0.0.1',$1),1)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "bench-smtp: nothing listens on $1" >&2
  return 1
}

# Each server runs alone: aiosmtpd first, then Adjutant (whose mail thread goes on answering the
# stored messages after the client is done; it is stopped before the next server starts).
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

b=$(port)
(cd "$tmp" && exec /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$b" -c aiosmtpd.handlers.Mailbox "$tmp/aiosmtpd") \
  >"$tmp/aiosmtpd.log" 2>&1 &
aio_pid=$!
pids+=($aio_pid)
wait_port "$b"
aio=$("$load" --port "$b" --count "$count" --conns "$conns" --prefix aio --pipeline)
stop "$aio_pid"

run_adjutant() {  # $1: extra client flag (or none); prints the client's line
  local a h pid
  a=$(port); h=$(port)
  "$bin" --db "$tmp/bench$2.db" serve --http "127.0.0.1:$h" --smtp "127.0.0.1:$a" --tick 0 \
    >"$tmp/serve$2.out" 2>"$tmp/serve$2.log" &
  pid=$!
  pids+=($pid)
  wait_port "$a"
  local line
  line=$("$load" --port "$a" --count "$count" --conns "$conns" --prefix "adj$2" $1)
  # Answering (parse, refuse or acknowledge, queue the reply) goes on in the background on the
  # mail thread: how long until no message is left "new".
  local t0 left
  t0=$(date +%s.%N)
  for _ in $(seq 1200); do
    left=$(sqlite3 "$tmp/bench$2.db" "SELECT count(*) FROM inbox WHERE state = 'new'" 2>/dev/null || echo "?")
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  awk -v t0="$t0" -v t1="$(date +%s.%N)" -v l="$line" \
    'BEGIN { printf "%s answered=+%.1fs\n", l, t1 - t0 }'
  stop "$pid"
}
adj=$(run_adjutant --pipeline 1)
adj_np=$(run_adjutant "" 2)

rate() { sed -n 's/.*rate=\([0-9.]*\).*/\1/p' <<<"$1"; }
echo "SMTP to durable storage, $count messages over $conns connections"
echo "(answered=+S: all messages answered S seconds after the last 250):"
echo "  adjutant serve (SQLite), pipelined:     $adj"
echo "  adjutant serve (SQLite), not pipelined: $adj_np"
echo "  aiosmtpd (Maildir), not pipelined:      $aio"
awk -v a="$(rate "$adj")" -v n="$(rate "$adj_np")" -v b="$(rate "$aio")" \
  'BEGIN { printf "  ratio to aiosmtpd: %.1fx pipelined, %.1fx not pipelined\n", a / b, n / b }'
