#!/usr/bin/env bash
# Installs what Adjutant needs to build, test and run, from Debian's packages. Idempotent: when
# every package is already installed it does nothing (no apt-get update).
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config git
  libboost-dev nlohmann-json3-dev libsqlite3-dev libspdlog-dev libcli11-dev
  libvalijson-dev libkainjow-mustache-dev libcurl4-openssl-dev libgmime-3.0-dev libsodium-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  sqlite3 python3 curl
  python3-aiosmtpd swaks
  chromium
)
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
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
