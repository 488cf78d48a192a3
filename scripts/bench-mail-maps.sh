#!/usr/bin/env bash
# Issue 33: the time to queue every report mail of one turn, with its map, of a generated Dark
# Age world (20 and 200 players by default), before (each player's map drawn whole, as the code
# before issue 33) and after (the map prepared once per game and turn), alternately in one run;
# then cairo's PNG writer against ours on the turn's map. Prints figures; asserts nothing about
# speed.
#   scripts/bench-mail-maps.sh [BUILD_DIR] (env ROUNDS=2 PLAYERS="20 200")
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j2 --target adjutant_mail_map_bench >/dev/null
. scripts/lib/bench-common.sh
warn_unless_o2 "$build"
# shellcheck disable=SC2086
"$build"/adjutant_mail_map_bench "${ROUNDS:-2}" ${PLAYERS:-20 200}
