#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test
# (GoogleTest unit tests and lit tests, through ctest).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
./scripts/build.sh

cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
