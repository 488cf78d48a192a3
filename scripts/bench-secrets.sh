#!/usr/bin/env bash
# Secrets at rest and the secret-guessing oracle, against a real `adjutant serve` on loopback:
#   1. leak: one anonymous POST /api/games/G/orders?check=1 whose order lines are 2,000 candidate
#      words (one of them WSX's real secret) under a wrong PLAYER secret. Prints how many
#      candidates the answer rules out or reveals ("revealed: yes" when a line comes back masked,
#      i.e. the answer depends on the real secret).
#   2. wrong-secret checks per second one client gets through HTTP Basic (sequential curl
#      requests for SECONDS seconds; each is one secret check: Argon2id verify after the fix).
#   3. at rest: whether the database file holds any bundled secret in clear after a game was
#      created and one order file stored.
# Usage: scripts/bench-secrets.sh [BINARY] [SECONDS]. Prints figures; asserts nothing. The game
# keeps the README secrets (demo_secrets, ignored by binaries that predate it) so the same
# request works on old and new binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/adjutant}
secs=${2:-5}
tmp=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
port=$(/usr/bin/python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
export ADJUTANT_GM_TOKEN=bench-gm-token
"$bin" --db "$tmp/b.db" serve --http "127.0.0.1:$port" --smtp off --tick 0 >"$tmp/serve.log" 2>&1 &
pid=$!
B="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$B/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
create() {
  curl -sf -H "Authorization: Bearer $ADJUTANT_GM_TOKEN" -H 'Content-Type: application/json' \
    -d "$1" "$B/api/games" >/dev/null
}
create '{"bundled": "dark-age-britain", "demo_secrets": true}' || create '{"bundled": "dark-age-britain"}'

# 1. The oracle.
{
  echo "GAME britain-1"
  echo "PLAYER WSX not-the-secret"
  for i in $(seq 1 2000); do
    if [ "$i" = 1234 ]; then echo "DEFEND cerdic"; else echo "DEFEND guess$i"; fi
  done
} >"$tmp/guesses.txt"
curl -s -H 'Content-Type: text/plain' --data-binary @"$tmp/guesses.txt" \
  "$B/api/games/britain-1/orders?check=1" >"$tmp/answer.json"
if grep -q 'DEFEND \*\*\*\*\*\*\*\*' "$tmp/answer.json"; then
  echo "leak: candidates tested in one anonymous request: 2000; revealed: yes"
else
  echo "leak: candidates tested in one anonymous request: 0 (answer independent of the secret); revealed: no"
fi

# 2. Wrong-secret checks per second, one client (one keep-alive connection, sequential).
/usr/bin/python3 - "$port" "$secs" <<'PY'
import base64, http.client, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
n, codes, end = 0, {}, time.monotonic() + secs
start = time.monotonic()
while time.monotonic() < end:
    auth = base64.b64encode(f"WSX:guess{n}".encode()).decode()
    c.request("GET", "/api/games/britain-1/reports/WSX", headers={"Authorization": "Basic " + auth})
    r = c.getresponse(); r.read()
    codes[r.status] = codes.get(r.status, 0) + 1
    n += 1
    if r.getheader("connection", "").lower() == "close":
        c.close(); c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
took = time.monotonic() - start
print(f"guessing: {n} wrong-secret checks in {took:.1f}s over HTTP Basic, one client: "
      f"{n / took:.0f}/s (statuses {codes})")
PY

# 3. At rest.
curl -s -H 'Content-Type: text/plain' \
  --data-binary @schemas/scenarios/dark-age-britain/turn1-WSX.txt "$B/api/games/britain-1/orders" >/dev/null
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
found=0
for s in cerdic penda oswald raedwald cadwallon; do
  if grep -aqs "$s" "$tmp/b.db" "$tmp/b.db-wal"; then found=$((found + 1)); fi
done
echo "at rest: bundled secrets found in clear in the database file: $found of 5"
