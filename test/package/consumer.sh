#!/usr/bin/env bash
# Installs MQSS-Selector from the build tree into a scratch prefix, builds
# examples/consumer against the installed CMake package (find_package(MQSS),
# MQSS::Selector) and runs it on a kernel with the installed model.
#   consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$build/package-test
prefix=$work/install
rm -rf "$work"
cmake --install "$build" --prefix "$prefix" > "$work.install.log" 2>&1 || {
  cat "$work.install.log"; exit 1; }
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src/examples/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" > /dev/null
cmake --build "$work/consumer"
out=$(MQSS_MODEL="$prefix/share/mqss/models/default.pt" \
  "$work/consumer/mqss-consumer" "$src/examples/matmul.mlir" x86-avx2)
grep -q '^// @matmul: ' <<< "$out" || { echo "no decision printed:"; echo "$out"; exit 1; }
grep -q 'func.func @matmul' <<< "$out" || { echo "no IR printed"; exit 1; }
grep -v '^//' <<< "$out" | grep -q 'linalg.matmul' && { echo "the matmul was not transformed"; exit 1; }
# A bad target is an error, not a crash.
if "$work/consumer/mqss-consumer" "$src/examples/matmul.mlir" riscv 2> "$work/err.txt"; then
  echo "an unknown target was accepted"; exit 1
fi
grep -q "unknown target 'riscv'" "$work/err.txt"
echo "consumer built against the installed package and selected: $(grep '^// @matmul' <<< "$out")"
