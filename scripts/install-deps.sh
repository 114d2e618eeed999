#!/usr/bin/env bash
# Installs the Debian 12 packages MQSS-Selector builds and tests with; skips what is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache git pkg-config
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  libtorch-dev libsqlite3-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev python3
  zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev libxml2-dev libffi-dev
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The dashboard build installs Chart.js with npm. Checked by command, not by
# package: NodeSource's nodejs ships its own npm and conflicts with Debian's.
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
