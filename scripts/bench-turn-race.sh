#!/usr/bin/env bash
# Order files that arrive while a turn is being resolved: a 1,000-player game (the world of
# tests/bench/turn_bench.cc, 500 players with orders on file) runs its turn with `adjutant turn
# run` while other `adjutant orders submit` processes keep sending files for players without
# orders, one after another, until the run ends (and once more after it). Counts the files that
# were acknowledged as accepted but never used: acknowledged for the resolved turn yet listed
# under "No orders from", or acknowledged for the next turn yet not its current file.
# Usage: scripts/bench-turn-race.sh [BINARY] [ROUNDS]. Prints the figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/adjutant}")
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
W, H, P, E = 100, 50, 1000, 5
area = lambda i: "A%04d" % i
player = lambda i: "P%04d" % i
players = [{"code": player(p), "name": "Kingdom " + player(p), "secret": "s", "bp": 40} for p in range(P)]
areas, adj = [], []
for i in range(W * H):
    areas.append({"code": area(i), "kind": "land", "terrain": "forest" if i % 7 == 0 else "lowlands",
                  "population": 2, "armies": 6, "owner": player(i // E), "x": i % W, "y": i // W})
    if i % W + 1 < W: adj.append([area(i), area(i + 1)])
    if i + W < W * H: adj.append([area(i), area(i + W)])
json.dump({"id": "race", "name": "race", "seed": "7", "engine": {"name": "dark-age"},
           "players": players, "areas": areas, "adjacency": adj}, open(d + "/race.json", "w"))
with open(d + "/prefill.sql", "w") as f:
    f.write("BEGIN;\n")
    for p in range(P):
        a0 = p * E
        text = "GAME race\nPLAYER %s s\nLEVY %s 2\nMOVE %s %s 2\nDEFEND %s\n" % (
            player(p), area(a0), area(a0), area(a0 + 1), area(a0 + 2))
        open("%s/orders-%d.txt" % (d, p), "w").write(text)
        if p >= P // 2:
            f.write("INSERT INTO submissions(game_id, player, turn, source, received_at, raw_text, "
                    "ack_json, accepted, current) VALUES ('race', '%s', 1, 'bench', 0, '%s', '{}', 1, 1);\n"
                    % (player(p), text))
    f.write("COMMIT;\n")
PY

total_sent=0 total_acked=0 total_lost=0 total_refused=0
for r in $(seq "$rounds"); do
  db="$tmp/race-$r.db"
  "$bin" --db "$db" game create "$tmp/race.json" > /dev/null
  sqlite3 "$db" < "$tmp/prefill.sql"
  "$bin" --db "$db" turn run race > "$tmp/run-$r.out" 2>&1 &
  runner=$!
  p=0
  : > "$tmp/acks-$r"
  submit() {
    local out
    if out=$("$bin" --db "$db" orders submit race "$tmp/orders-$p.txt" 2>&1); then
      # "Orders for game race, turn N, player PXXXX"
      echo "$(printf 'P%04d' "$p") $(echo "$out" | sed -n 's/^Orders for game race, turn \([0-9]*\).*/\1/p' | head -1)" >> "$tmp/acks-$r"
    else
      echo "$(printf 'P%04d' "$p") refused" >> "$tmp/acks-$r"
    fi
    p=$((p + 1))
  }
  submit
  while kill -0 "$runner" 2>/dev/null; do submit; done
  wait "$runner"
  submit
  without=$(sed -n 's/^No orders from://p' "$tmp/run-$r.out" | tr ' ,' '\n\n')
  current2=$(sqlite3 "$db" "SELECT player FROM submissions WHERE game_id='race' AND turn=2 AND current=1")
  sent=0 acked=0 lost=0 refused=0
  while read -r who turn; do
    sent=$((sent + 1))
    if [ "$turn" = refused ]; then refused=$((refused + 1)); continue; fi
    acked=$((acked + 1))
    if [ "$turn" = 1 ] && grep -qx "$who" <<< "$without"; then lost=$((lost + 1)); fi
    if [ "$turn" = 2 ] && ! grep -qx "$who" <<< "$current2"; then lost=$((lost + 1)); fi
  done < "$tmp/acks-$r"
  echo "round $r: $sent files sent during the run, $acked acknowledged as accepted, $refused refused with a reason, $lost acknowledged but never used"
  total_sent=$((total_sent + sent)); total_acked=$((total_acked + acked))
  total_lost=$((total_lost + lost)); total_refused=$((total_refused + refused))
done
echo "turn-race: $total_lost of $total_acked acknowledged files never used ($total_sent sent, $total_refused refused with a reason) over $rounds rounds"
