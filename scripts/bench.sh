#!/usr/bin/env bash
# Builds and runs the benchmarks (Release); prints figures, asserts nothing about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test  # Google Benchmark, the SMTP peers
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DADJUTANT_OPT=-O2 >/dev/null
cmake --build build -j2 --target adjutant_bench adjutant adjutant_smtp_load
build/adjutant_bench "$@"
scripts/bench-smtp.sh build/adjutant
