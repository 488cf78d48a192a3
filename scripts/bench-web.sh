#!/usr/bin/env bash
# Web pages against nginx, in one run on this machine: `adjutant serve --demo` (Release) answers
# the public pages, a player's report page and a player's report through the JSON API; nginx
# serves the very same bytes as static files; wrk loads each URL on both and the ratio of
# requests per second and the p99 latencies are printed. Then the game page again while another
# game's turns run without a pause (`turn run` / `turn rollback` in a loop, from the command line,
# so every run is a commit the page cache sees). Prints figures; asserts nothing about speed.
#   scripts/bench-web.sh [seconds per URL, default 10]
# Environment: THREADS (wrk threads, 2), CONNS (connections, 32), BIN (the adjutant binary,
# default build/adjutant built here in Release).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
THREADS=${THREADS:-2}
CONNS=${CONNS:-32}
scripts/install-deps.sh >/dev/null  # nginx and wrk are in the base list
if [ -z "${BIN:-}" ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_OPT=-O2 >/dev/null
  cmake --build build -j2 --target adjutant >/dev/null
  BIN=build/adjutant
fi
BIN=$(realpath "$BIN")

. scripts/lib/bench-common.sh
warn_unless_o2 "$(dirname "$BIN")"
bench_begin web
ADJ_PORT=$(free_port)
NGX_PORT=$(free_port)
export ADJUTANT_GM_TOKEN=bench-web-gm-token
"$BIN" --db "$work/adj.db" serve --demo --http "127.0.0.1:$ADJ_PORT" --smtp off \
  >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$ADJ_PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
link=$(grep -o "http://[^ ]*/p/[0-9a-f]*" "$work/serve.log" | head -1)
token=${link##*/}
player=$(grep -o "Player [A-Z]* link" "$work/serve.log" | head -1 | cut -d' ' -f2)
# The player's session cookie, as a browser gets it from the sign-in link.
curl -fs -o /dev/null -c "$work/cookies" "$link"
cookie=$(awk '$6 == "adj_player" { print "adj_player=" $7 }' "$work/cookies")
game=britain-1
base="http://127.0.0.1:$ADJ_PORT"

# name | path | extra header for wrk and curl
pages=(
  "index|/|"
  "game page with map|/games/$game|"
  "map.svg|/games/$game/map.svg|"
  "archive|/games/$game/archive|"
  "archive turn 1|/games/$game/archive/1|"
  "standings|/games/$game/standings|"
  "api game|/api/games/$game|"
  "report page (player)|/games/$game/me/reports/1|Cookie: $cookie"
  "api report (player)|/api/games/$game/reports/$player|Authorization: Bearer $token"
)

# nginx: every URL an exact location aliasing a file with the daemon's bytes and content type.
for entry in "${pages[@]}"; do
  IFS='|' read -r name path header <<<"$entry"
  echo "$path|$header"
done | nginx_mirror "$NGX_PORT" "$base"

# wrk's figures: requests/s and the p99 latency in ms.
measure() {  # url [header]
  if [ -n "${2:-}" ]; then
    wrk_figures -t"$THREADS" -c"$CONNS" -d"${DURATION}s" -H "$2" "$1"
  else
    wrk_figures -t"$THREADS" -c"$CONNS" -d"${DURATION}s" "$1"
  fi
}

echo "Adjutant against nginx $(nginx -v 2>&1 | cut -d/ -f2), wrk -t$THREADS -c$CONNS -d${DURATION}s, $(nproc) cores"
printf '%-24s %8s %12s %9s %12s %9s %7s\n' page bytes adjutant "p99 ms" nginx "p99 ms" ratio
i=0
for entry in "${pages[@]}"; do
  IFS='|' read -r name path header <<<"$entry"
  read -r a_rps a_p99 <<<"$(measure "$base$path" "$header")"
  read -r n_rps n_p99 <<<"$(measure "http://127.0.0.1:$NGX_PORT$path" "$header")"
  printf '%-24s %8s %12.0f %9.2f %12.0f %9.2f %6.2fx\n' "$name" "$(stat -c %s "$work/www/$i")" \
    "$a_rps" "$a_p99" "$n_rps" "$n_p99" "$(awk -v a="$a_rps" -v n="$n_rps" 'BEGIN { print a / n }')"
  i=$((i + 1))
done

# The game page while another game's turns run back to back, on both servers (the turns take
# their share of the two cores from each alike).
"$BIN" --db "$work/adj.db" game create bundled:dark-age-britain --id busy-1 >/dev/null
(
  while true; do
    "$BIN" --db "$work/adj.db" turn run busy-1 >/dev/null 2>&1 || true
    "$BIN" --db "$work/adj.db" turn rollback busy-1 1 >/dev/null 2>&1 || true
    echo run >>"$work/runs"
  done
) &
pids+=($!)
read -r a_rps a_p99 <<<"$(measure "$base/games/$game")"
read -r n_rps n_p99 <<<"$(measure "http://127.0.0.1:$NGX_PORT/games/$game")"
kill "${pids[-1]}" 2>/dev/null || true
runs=$(wc -l <"$work/runs" 2>/dev/null || echo 0)
printf '%-24s %8s %12.0f %9.2f %12.0f %9.2f %6.2fx\n' "game page, turns running" \
  "$(stat -c %s "$work/www/1")" "$a_rps" "$a_p99" "$n_rps" "$n_p99" "$(awk -v a="$a_rps" -v n="$n_rps" 'BEGIN { print a / n }')"
echo "(another game's turn run + rollback cycles, from the command line, during both measurements: $runs)"
curl -fs -H "Authorization: Bearer $ADJUTANT_GM_TOKEN" "$base/metrics" | grep '^adjutant_http_cache' || true
