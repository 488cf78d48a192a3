#!/usr/bin/env bash
# Installs Adjutant's Debian packages. Idempotent: when every package asked for is already
# installed it does nothing (no apt-get update).
#   scripts/install-deps.sh         what building and running needs (scripts/quickstart.sh), and
#                                   nginx and wrk for scripts/bench-web.sh
#   scripts/install-deps.sh --test  that plus what only the tests need (scripts/test.sh): GoogleTest
#                                   and Google Benchmark, the mail peers, Chromium and Python's
#                                   WebSocket client (the DevTools driver) for the browser tests,
#                                   clang with the sanitizer and libFuzzer runtimes, lld and the
#                                   symbolizer for the ASan/UBSan pass and the fuzzers,
#                                   clang-format-14 (scripts/check-format.sh), and ccache
#                                   (scripts/test.sh compiles through it), iproute2 (the IPv6
#                                   /64 tests make a /64 local to lo), and Postfix (the tests run a
#                                   private instance of it as the MX and relay in front of the
#                                   daemon, tests/mail/postfix_peer_test.cc). Postfix is installed
#                                   as debconf's "No configuration": no system instance is set up,
#                                   started or left listening on port 25.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config git
  libboost-dev nlohmann-json3-dev libsqlite3-dev libspdlog-dev libcli11-dev
  libvalijson-dev libkainjow-mustache-dev libcurl4-openssl-dev libgmime-3.0-dev libsodium-dev
  librsvg2-dev fonts-dejavu-core
  sqlite3 curl
  zlib1g-dev libbrotli-dev
  libpq-dev liblua5.4-dev libmimalloc-dev libssl-dev
  nginx-light wrk
)
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-aiosmtpd swaks libnet-ssleay-perl openssl
  chromium python3-websocket
  clang-14 libclang-rt-14-dev llvm-14 lld-14 clang-format-14
  postgresql ccache iproute2 postfix
)
case "${1:-}" in
  "") ;;
  --test) packages+=("${test_packages[@]}") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
new_postfix=no
for p in "${missing[@]}"; do
  if [ "$p" = postfix ]; then new_postfix=yes; fi
done
if [ "$new_postfix" = yes ]; then
  # Only the binaries: no /etc/postfix/main.cf, so no system Postfix runs.
  echo "postfix postfix/main_mailer_type select No configuration" | $SUDO debconf-set-selections
fi
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
if [ "$new_postfix" = yes ] && [ -d /run/systemd/system ]; then
  $SUDO systemctl disable --now postfix >/dev/null 2>&1 || true
fi
