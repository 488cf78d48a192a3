#!/usr/bin/env bash
# Builds and runs the whole test suite (what .ci/run calls).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target adj_tests
ctest --test-dir build -j2 --output-on-failure --timeout 900
