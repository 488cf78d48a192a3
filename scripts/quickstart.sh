#!/usr/bin/env bash
# Fresh machine -> running daemon: installs what is missing, builds the binary (Release), and
# starts `adjutant serve --demo` on http://127.0.0.1:8080: the bundled demo game (britain-1, the
# README's id), played for two turns, is created when the database has no game yet, and the URLs
# to open are printed (game list, demo game, a player's sign-in link, GM desk). Without
# ADJUTANT_GM_TOKEN the GM token is made once and kept in adjutant.db.gm-token (0600). Ctrl-C stops it; extra arguments go to
# `serve` (e.g. --http 127.0.0.1:9090). `build/adjutant demo` still prints the reports instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_OPT=-O2 >/dev/null
cmake --build build -j2 --target adjutant
exec build/adjutant serve --demo "$@"
