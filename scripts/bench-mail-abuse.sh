#!/usr/bin/env bash
# Anonymous abuse of the mail path, against `adjutant serve` on loopback (Python smtplib as the
# client): (1) N messages (default 150) from N forged senders with wrong secrets: how many
# answers are sent, and how many carry the attacker's Subject or display name, or go to the
# forged From; (2) one refused order file of ~230 KB by mail: the bytes the database keeps of it.
# Usage: scripts/bench-mail-abuse.sh [BINARY] [N]. Prints the figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/adjutant}")
count=${2:-150}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
port() { /usr/bin/python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
http=$(port)
smtp=$(port)
ADJUTANT_GM_TOKEN=bench-gm "$bin" --db "$tmp/db.sqlite" serve --http "127.0.0.1:$http" \
  --smtp "127.0.0.1:$smtp" --tick 0 --outbox "$tmp/out" --mail-from orders@pbm.example.net \
  >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 150); do curl -s -m 1 "http://127.0.0.1:$http/healthz" | grep -q ok && break; sleep 0.1; done
curl -s -m 10 -X POST -H 'Authorization: Bearer bench-gm' -H 'Content-Type: application/json' \
  --data '{"bundled": "dark-age-britain", "seed": 1}' "http://127.0.0.1:$http/api/games" >/dev/null

/usr/bin/python3 - "$smtp" "$count" <<'PY'
import smtplib, sys
port = int(sys.argv[1])
s = smtplib.SMTP('127.0.0.1', port, timeout=60)
for i in range(int(sys.argv[2])):
    msg = ('From: "Victim %d" <victim%d@victims.example>\r\n'
           'Subject: ATTACKER SUBJECT %d\r\nMessage-ID: <forged%d@attacker.example>\r\n\r\n'
           'GAME britain-1\r\nPLAYER WSX guess%d\r\n') % (i, i, i, i, i)
    s.sendmail('bounce%d@attacker.example' % i, ['orders@pbm.example.net'], msg)
filler = ''.join('# filler line %06d of a refused order file\r\n' % i for i in range(5000))
msg = ('From: big@example.org\r\nMessage-ID: <bigrefused@example.org>\r\n\r\n'
       'GAME britain-1\r\nPLAYER WSX not-the-secret\r\n' + filler)
s.sendmail('big@example.org', ['orders@pbm.example.net'], msg)
s.quit()
print("refused file sent: %d bytes of text" % (len(filler) + 45))  # under the 256 KiB order-file limit
PY
# Wait until every message is answered (or refused without an answer).
for _ in $(seq 300); do
  n=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM inbox WHERE state = 'new'" 2>/dev/null || echo 1)
  [ "$n" = 0 ] && break
  sleep 0.2
done
for _ in $(seq 300); do  # delivery of what was queued
  n=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')" 2>/dev/null || echo 1)
  [ "$n" = 0 ] && break
  sleep 0.2
done
answers=$(ls "$tmp/out/new" 2>/dev/null | wc -l)
with_subject=$(grep -l "ATTACKER SUBJECT" "$tmp/out/new/"* 2>/dev/null | wc -l || true)
with_name=$(grep -l "Victim" "$tmp/out/new/"* 2>/dev/null | wc -l || true)
to_forged=$(grep -l "^To:.*victims.example" "$tmp/out/new/"* 2>/dev/null | wc -l || true)
kept=$(sqlite3 "$tmp/db.sqlite" "SELECT coalesce(sum(length(CAST(raw_text AS BLOB)) + length(CAST(ack_json AS BLOB))), 0) FROM submissions WHERE source LIKE '%bigrefused%'")
to_envelope=$(grep -l "^To:.*attacker.example" "$tmp/out/new/"* 2>/dev/null | wc -l || true)
echo "forged senders: $count messages + 1 refused file -> $answers answers; $with_subject carry the attacker's subject, $with_name the display name, $to_forged go to the forged From, $to_envelope to the envelope sender"
echo "refused order file by mail: $kept bytes kept in the database (raw text + acknowledgement)"
