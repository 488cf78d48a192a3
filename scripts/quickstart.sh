#!/usr/bin/env bash
# Fresh machine -> running demo: installs what is missing, builds the binary (Release), and runs
# the main job on the embedded default: the bundled demo game played for two turns.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target adjutant
exec build/adjutant demo "$@"
