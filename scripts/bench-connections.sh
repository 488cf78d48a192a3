#!/usr/bin/env bash
# One client cannot starve the others: figures for `adjutant serve` on loopback.
#  1. Idle HTTP connections it takes to make GET /healthz (from 127.0.0.1) fail, with the idle
#     connections from one address (127.0.0.2) and from 100 addresses (127.0.0.2..101).
#  2. The daemon's RSS added by 40 SMTP sessions each holding 10 MB of unfinished DATA.
# The daemon starts with a soft file limit of FDSOFT (default 1024, the usual default; the hard
# limit is left as it is) so that raising it at start is measured too.
# Usage: scripts/bench-connections.sh [BINARY] [EXTRA SERVE FLAGS...]. Asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/adjutant}
shift || true
fdsoft=${FDSOFT:-1024}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 100); do
    python3 -c "import socket;socket.create_connection(('127.0.0.1',$1),1)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "bench-connections: nothing listens on $1" >&2
  return 1
}
start() {
  local id=$1
  shift
  h=$(port); a=$(port)
  (ulimit -Sn "$fdsoft"; exec "$bin" --db "$tmp/b$id.db" serve --http "127.0.0.1:$h" \
     --smtp "127.0.0.1:$a" --tick 0 "$@") >"$tmp/out$id" 2>"$tmp/log$id" &
  pid=$!
  wait_port "$h"; wait_port "$a"
}
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; }

start 1 "$@"
echo "daemon_nofile=$(awk '/Max open files/{print $4"/"$5}' /proc/$pid/limits)"
python3 scripts/bench-connections.py idle --http "$h" --from-addrs 1 --max 5000
stop
start 2 "$@"
python3 scripts/bench-connections.py idle --http "$h" --from-addrs 100 --max 5000
stop
start 3 "$@"
python3 scripts/bench-connections.py smtp-data --smtp "$a" --pid "$pid" --sessions 40 --bytes 10000000
stop
