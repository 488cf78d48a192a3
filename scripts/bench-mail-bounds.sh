#!/usr/bin/env bash
# Mail that could stall the host, time and peak memory of `adjutant ingest` (store + parse +
# answer one message) for: an HTML part of 200 KB and of 10 MB of '<' characters (HTML to text),
# and 10 MB of tiny MIME parts (MIME parsing). Each run is cut off after LIMIT seconds (then the
# figure printed is ">LIMIT s").
# Usage: scripts/bench-mail-bounds.sh [BINARY] [LIMIT]. Prints the figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/adjutant}")
limit=${2:-120}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
head = ("From: Mallory <mallory@example.org>\r\nTo: orders@pbm.example.org\r\n"
        "Subject: bench\r\nMIME-Version: 1.0\r\n")
def html(n):
    return (head + "Message-ID: <html-%d@example.org>\r\nContent-Type: text/html\r\n\r\n" % n
            + "<" * n + "\r\n")
open(d + "/lt-200k.eml", "w").write(html(200_000))
open(d + "/lt-10m.eml", "w").write(html(10_000_000))
parts = []
size = 0
i = 0
while size < 10_000_000:
    p = "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n"
    parts.append(p)
    size += len(p)
    i += 1
open(d + "/parts-10m.eml", "w").write(
    head + "Message-ID: <parts@example.org>\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
    + "".join(parts) + "--b--\r\n")
print("tiny parts: %d" % i, file=sys.stderr)
PY

run() {  # name file
  rm -f "$tmp/db.sqlite"*
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  timeout "$limit" /usr/bin/time -v -o "$tmp/time.txt" "$bin" --db "$tmp/db.sqlite" ingest \
    --sender mallory@example.org --recipient orders@pbm.example.org --max-bytes 20000000 \
    <"$2" >"$tmp/out.txt" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if [ "$rc" = 124 ]; then
    printf '%-34s  >%s s (killed)\n' "$1" "$limit"
    return
  fi
  local rss
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/time.txt")
  printf '%-34s  %8.2f s  peak RSS %7.1f MB  exit %s  %s\n' "$1" "$(echo "$t1 - $t0" | bc)" \
    "$(echo "$rss / 1024" | bc -l)" "$rc" "$(head -c 150 "$tmp/out.txt" | tr '\n' ' ')"
}

run "HTML 200 KB of '<'" "$tmp/lt-200k.eml"
run "HTML 10 MB of '<'" "$tmp/lt-10m.eml"
run "10 MB of tiny MIME parts" "$tmp/parts-10m.eml"
