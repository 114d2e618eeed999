#!/usr/bin/env bash
# Configures and builds MQSS-Selector into build/ (Ninja, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir
fi
echo "build: $JOBS parallel jobs into $BUILD_DIR/"
cmake --build "$BUILD_DIR" -j "$JOBS"
