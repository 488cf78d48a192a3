#!/usr/bin/env bash
# Issue 32's aim: a 500-player generated world generated, validated and drawn (SVG and the mail's
# PNG) in under 2 s, for every engine; and `adjutant world generate` as a whole process. Prints
# figures; asserts nothing about speed.
#   scripts/bench-world.sh [BUILD_DIR] (env PLAYERS=500)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
players=${PLAYERS:-500}
cmake --build "$build" -j2 --target adjutant adjutant_world_bench >/dev/null
. scripts/lib/bench-common.sh
warn_unless_o2 "$build"
echo "== in one process (rules/world + server/render), $players players"
"$build"/adjutant_world_bench "$players"
echo "== adjutant world generate as a whole process (wall s, peak RSS KiB)"
for e in dark-age path-of-war crt virtuti-militari exalted-mass-combat; do
  /usr/bin/time -f "$e %e s %M KiB" "$build"/adjutant world generate --engine "$e" \
    --players "$players" --seed 2026 -o /dev/null 2>&1 | grep KiB
done
