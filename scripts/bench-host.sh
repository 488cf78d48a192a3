#!/usr/bin/env bash
# A host's busiest minute: GAMES generated worlds of 7-30 players (engines mixed, most players
# with an order file on record; tests/bench/host_world) all due in the same minute, with
# `adjutant serve` running its scheduler, mailing every report (with its map) to a relay (aiosmtpd
# on loopback, tests/bench/host_world/relay.py) and answering web readers (wrk on 50 games' pages
# and maps) all the while. Prints the turns per second, the reports mailed per second, the time
# from the deadline to the last turn run and to the last report handed to the relay, the page
# rates and p99 in windows before, during and after (each window beside one of nginx serving the
# same bytes, measured right after it, under the same load; a row in which turns ran during one
# half and not the other is marked, as that pair saw two loads), the daemon's peak memory, and
# where the CPU went from the deadline to the last report (tests/bench/host_world/cpu_share.py).
# Prints figures; asserts nothing about speed. p99 is wrk's, which corrects for coordinated
# omission: an answer slower than twice a connection's mean interval adds samples at that interval
# below it, so a few answers of half a second (0.1% of them) can make p99 200 ms.
#   scripts/bench-host.sh [--games N] [--db URL] [--tick S] [--window S] [--max-wait S]
#                         [--no-build]
# --games: default 1000. --db: a PostgreSQL URL for an empty database (default a fresh SQLite
# file). --tick: the scheduler's period (default 10). --window: seconds per wrk window (default 8;
# nginx gets half as long). --max-wait: seconds after the deadline to wait for the last report
# (default 900); past it the figures so far are printed. Environment: BIN (the adjutant binary),
# CONNS (wrk connections, 16), SERVE_ARGS (added to `serve`), KEEP_WORK=1 (keep the work
# directory: the daemon's log, the relay's, the database).
set -euo pipefail
cd "$(dirname "$0")/.."
games=1000 db="" tick=10 window=8 max_wait=900 build=1
while (($#)); do
  case "$1" in
    --games) games="$2"; shift 2 ;;
    --db) db="$2"; shift 2 ;;
    --tick) tick="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    --max-wait) max_wait="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
CONNS=${CONNS:-16}
if ((build)); then
  scripts/install-deps.sh --test >/dev/null  # nginx, wrk, python3-aiosmtpd
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_OPT=-O2 >/dev/null
  cmake --build build -j2 --target adjutant adjutant_host_world >/dev/null
fi
BIN=$(realpath "${BIN:-build/adjutant}")
TOOL=$(realpath build/adjutant_host_world)

. scripts/lib/bench-common.sh
warn_unless_o2 "$(dirname "$BIN")"
bench_begin host
[ -n "$db" ] || db="$work/host.db"

echo "== set-up: $games games"
"$TOOL" make --db "$db" --games "$games" | tee "$work/make.out"
players=$(awk '$1 == "players" { print $2 }' "$work/make.out")

relay_port=$(free_port) http_port=$(free_port) ngx_port=$(free_port)
/usr/bin/python3 tests/bench/host_world/relay.py "$relay_port" "$work/relay.log" \
  >"$work/relay.out" 2>&1 &
relay_pid=$!
pids+=($relay_pid)
# Reminders off: on a real host they went out a day before; here the deadline moves from a day
# away to a few seconds away.
ADJUTANT_GM_TOKEN=bench-host-gm "$BIN" --db "$db" serve --http "127.0.0.1:$http_port" \
  --smtp off --tick "$tick" --relay "smtp://127.0.0.1:$relay_port" --reminder-hours 0 \
  ${SERVE_ARGS:-} >"$work/serve.log" 2>&1 &
serve_pid=$!
pids+=($serve_pid)
base="http://127.0.0.1:$http_port"
for _ in $(seq 300); do curl -fs "$base/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$base/healthz" >/dev/null || { echo "the daemon did not start:"; cat "$work/serve.log"; exit 1; }
# Where the CPU goes (the daemon's threads by name, the relay, nginx, PostgreSQL), every second.
/usr/bin/python3 tests/bench/host_world/cpu_share.py sample "$work/cpu" "$serve_pid" "$relay_pid" &
pids+=($!)
( while kill -0 "$serve_pid" 2>/dev/null; do
    awk '/VmRSS/ { print $2 }' "/proc/$serve_pid/status" 2>/dev/null; sleep 0.5
  done ) >"$work/rss" &
pids+=($!)

# The readers' pages: 50 games spread over the host, each game page and its map; nginx serves
# the bytes the daemon gave before the deadline.
: >"$work/paths"
step=$(( games > 50 ? games / 50 : 1 ))
for ((g = 1; g <= games; g += step)); do
  printf '/games/host-%d\n/games/host-%d/map.svg\n' "$g" "$g" >>"$work/paths"
done
sed 's/$/|/' "$work/paths" | nginx_mirror "$ngx_port" "$base"
page_bytes=$(cat "$work"/www/* | wc -c)
export PATHS_FILE="$work/paths"

# One wrk window over the listed paths in turn: "requests/s p99_ms".
measure() {  # base seconds
  wrk_figures -t2 -c"$CONNS" -d"$2s" -s tests/bench/host_world/pages.lua "$1"
}
reports() { grep -c 'report for' "$work/relay.log" 2>/dev/null || true; }
turns_ran() { grep -c 'action=ran' "$work/serve.log" || true; }
# A window of Adjutant then one of nginx, printed as a row. A row in which turns ran during one
# half and not the other (the turns beginning or ending between them) is marked: its ratio
# compares two different loads.
window_row() {  # phase
  local t0 r0 r1 r2 mark=""
  t0=$(date +%s.%N) r0=$(turns_ran)
  read -r a_rps a_p99 <<<"$(measure "$base" "$window")"
  r1=$(turns_ran)
  read -r n_rps n_p99 <<<"$(measure "http://127.0.0.1:$ngx_port" $(( (window + 1) / 2 )))"
  r2=$(turns_ran)
  if (((r1 > r0) != (r2 > r1))); then mark="  (turns ran in one half only)"; fi
  printf '%-7s %7.0f %9.0f %8.2f %9.0f %8.2f %6.2fx %8s %8s%s\n' "$1" \
    "$(awk -v t="$t0" -v d="$deadline" 'BEGIN { print t - d }')" "$a_rps" "$a_p99" "$n_rps" \
    "$n_p99" "$(awk -v a="$a_rps" -v n="$n_rps" 'BEGIN { print (n > 0 ? a / n : 0) }')" \
    "$r2" "$(reports)" "$mark"
}

echo "== the busiest minute: $games games, $players players, scheduler tick ${tick}s," \
  "wrk -t2 -c$CONNS over $(wc -l <"$work/paths") pages ($page_bytes bytes), $(nproc) cores"
printf '%-7s %7s %9s %8s %9s %8s %7s %8s %8s\n' phase t_s adj_rps p99_ms nginx_rps p99_ms ratio \
  turns reports
# The deadlines move first (every game's pages change with its schedule), the readers' pages are
# made again, and only then the "before" window: at the deadline itself nothing else changes.
deadline=$(( $(date +%s) + window + window / 2 + 45 ))
"$TOOL" due --db "$db" --at "$deadline" >/dev/null
while read -r path; do curl -fs -o /dev/null "$base$path"; done <"$work/paths"
window_row before
while (( $(date +%s) < deadline )); do sleep 0.2; done
# Until every player's report is at the relay, or (a game may be held by its NMR guard, as
# designed) nothing more ran or arrived in two windows, or max_wait.
settled=0 last=""
while :; do
  window_row during
  r=$(reports) now="$(grep -c 'action=ran' "$work/serve.log" || true) $(reports)"
  if [ "$now" = "$last" ]; then settled=$((settled + 1)); else settled=0; fi
  last=$now
  if (( r >= players || settled >= 2 )) || (( $(date +%s) - deadline > max_wait )); then break; fi
done
window_row after

# The figures from the daemon's log and the relay's.
ran=$(grep -c 'action=ran' "$work/serve.log" || true)
# The log's times are UTC (ts=...Z): the Z stays, so that date reads them as UTC. A grep that
# finds nothing must not stop the script (pipefail) before the figures so far are printed.
last_ran=$(grep 'action=ran' "$work/serve.log" | tail -1 | sed -E 's/^ts=([^ ]*Z).*/\1/' || true)
last_ran_s=$( [ -n "$last_ran" ] && date -d "$last_ran" +%s.%N || echo "$deadline")
# When the last game's reports were in the outbox: set beside the last one at the relay, it
# tells making the reports from sending them.
last_queued=$(grep 'event=reports_queued' "$work/serve.log" | tail -1 |
  sed -E 's/^ts=([^ ]*Z).*/\1/' || true)
last_queued_s=$( [ -n "$last_queued" ] && date -d "$last_queued" +%s.%N || echo 0)
r=$(reports)
awk -F'\t' '/report for/ { if (!f) f = $1; l = $1; b += $2 } END { printf "%s %s %s\n", f, l, b }' \
  "$work/relay.log" >"$work/mails"
read -r first_mail last_mail mail_bytes <"$work/mails" || true
peak_kb=$(sort -n "$work/rss" | tail -1)
hwm_kb=$(awk '/VmHWM/ { print $2 }' "/proc/$serve_pid/status" 2>/dev/null || echo "$peak_kb")
echo "== figures"
awk -v g="$games" -v ran="$ran" -v d="$deadline" -v lr="$last_ran_s" -v r="$r" -v p="$players" \
    -v fm="${first_mail:-0}" -v lm="${last_mail:-0}" -v mb="${mail_bytes:-0}" \
    -v hwm="${hwm_kb:-0}" -v lq="$last_queued_s" 'BEGIN {
  printf "turns run: %d of %d; the last %.1f s after the deadline (%.1f turns/s)\n", ran, g, lr - d, (lr > d ? ran / (lr - d) : 0)
  if (lq > 0) printf "the last game'"'"'s reports queued in the outbox %.1f s after the deadline\n", lq - d
  printf "reports handed to the relay: %d of %d (%.0f MB)\n", r, p, mb / 1e6
  if (r > 0) {
    printf "first report %.1f s after the deadline, last %.1f s (%.1f reports/s from the first)\n", fm - d, lm - d, (lm > fm ? r / (lm - fm) : r)
    if (r < p) printf "at that rate the last would be %.0f s after the deadline\n", fm - d + p / (lm > fm ? r / (lm - fm) : 1)
  }
  printf "daemon peak memory (VmHWM): %.0f MB\n", hwm / 1024
}'
/usr/bin/python3 tests/bench/host_world/cpu_share.py report "$work/cpu" "$deadline" \
  "$( ((r > 0)) && echo "$last_mail" || date +%s.%N)"
grep -E 'level=(warn|error)' "$work/serve.log" | sed -E 's/ts=[^ ]* //' | sort | uniq -c | sort -rn | head -5 || true
