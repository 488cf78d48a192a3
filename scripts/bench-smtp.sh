#!/usr/bin/env bash
# SMTP to durable storage, messages per second: Adjutant's listener (`adjutant serve`, stored in
# SQLite before each 250) and, in the same run, aiosmtpd writing the same messages to a Maildir.
# One client for both: tests/bench/smtp_load.py (/usr/bin/python3 smtplib, several connections).
# Usage: scripts/bench-smtp.sh [BINARY] [COUNT] [CONNS]. Prints both figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/adjutant}
count=${2:-2000}
conns=${3:-4}
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

a=$(port); h=$(port)
"$bin" --db "$tmp/bench.db" serve --http "127.0.0.1:$h" --smtp "127.0.0.1:$a" --tick 0 \
  >"$tmp/serve.out" 2>"$tmp/serve.log" &
pids+=($!)
wait_port "$a"
adj=$(/usr/bin/python3 tests/bench/smtp_load.py --port "$a" --count "$count" --conns "$conns" --prefix adj)

b=$(port)
(cd "$tmp" && exec /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$b" -c aiosmtpd.handlers.Mailbox "$tmp/aiosmtpd") \
  >"$tmp/aiosmtpd.log" 2>&1 &
pids+=($!)
wait_port "$b"
aio=$(/usr/bin/python3 tests/bench/smtp_load.py --port "$b" --count "$count" --conns "$conns" --prefix aio)

echo "SMTP to durable storage, $count messages over $conns connections:"
echo "  adjutant serve (SQLite): $adj"
echo "  aiosmtpd (Maildir):      $aio"
