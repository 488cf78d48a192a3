#!/usr/bin/env bash
# Guesses per second one client (one address, CONNS keep-alive connections) can make at a secret
# or token, per channel: order file check, HTTP Basic, the sign-in form, a player bearer token and
# the GM bearer token. For each channel, starts `adjutant serve --demo` on a fresh database and a
# free port (so no channel inherits another's lockouts), runs scripts/bench-guessing.py against
# it for SECONDS, stops it. A 429 answer is not a guess (nothing was checked).
# Usage: scripts/bench-guessing.sh [BINARY] [SECONDS] [CONNS] [-- extra serve flags].
# Prints the figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/adjutant}
secs=${2:-10}
conns=${3:-4}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift
tmp=$(mktemp -d)
pid=
stop() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; pid=; }
trap 'stop; rm -rf "$tmp"' EXIT
free_port() { /usr/bin/python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

echo "Wrong-secret guesses per second, one client address, $conns connections, ${secs}s per channel:"
for channel in orders basic signin bearer gm; do
  port=$(free_port)
  rm -f "$tmp"/bench.db*
  ADJUTANT_GM_TOKEN=bench-gm-token-$$ "$bin" --db "$tmp/bench.db" serve --demo --tick 0 --smtp off \
    --http "127.0.0.1:$port" "$@" >"$tmp/serve.out" 2>"$tmp/serve.log" &
  pid=$!
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null ||
    { echo "serve did not start" >&2; cat "$tmp/serve.log" >&2; exit 1; }
  /usr/bin/python3 scripts/bench-guessing.py "$port" britain-1 WSX "$secs" "$conns" "$channel"
  if curl -sf -H "Authorization: Bearer bench-gm-token-$$" "http://127.0.0.1:$port/metrics" | grep -q '^adjutant_auth_'; then
    curl -sf -H "Authorization: Bearer bench-gm-token-$$" "http://127.0.0.1:$port/metrics" | grep '^adjutant_auth_' | sed 's/^/    /'
  fi
  stop
done
