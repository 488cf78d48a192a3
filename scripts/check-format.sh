#!/usr/bin/env bash
# Fails when a tracked C++ file (*.cc, *.h) is not as clang-format 14 with the repository's
# .clang-format would write it; prints each offending place (clang-format's own warnings). Run by
# scripts/test.sh before it builds (install-deps --test installs clang-format-14). To fix a file:
# clang-format -i FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$fmt" ] || { echo "check-format: clang-format-14 is not installed (scripts/install-deps.sh --test)" >&2; exit 1; }
out=$(git ls-files -z '*.cc' '*.h' | xargs -0 -P2 -n 50 "$fmt" --dry-run --Werror 2>&1 || true)
if grep -q 'warning\|error' <<<"$out"; then
  grep 'warning\|error' <<<"$out" >&2
  echo "check-format: not clang-formatted in $(grep -c 'warning\|error' <<<"$out") places" >&2
  exit 1
fi
echo "check-format: $(git ls-files '*.cc' '*.h' | wc -l) files formatted"
