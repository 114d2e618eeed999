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
# Without $MQSS_MODEL, the installed model is the default of the library
# linked into the consumer and of the installed executables (the library,
# configured for another prefix, looked in that one).
model=$(realpath "$prefix/share/mqss/models/default.pt")
out=$(env -u MQSS_MODEL "$work/consumer/mqss-consumer" "$src/examples/matmul.mlir" x86-avx2)
used=$(sed -n 's|^// model: ||p' <<< "$out")
[ "$(realpath "$used")" = "$model" ] || { echo "the consumer used the model $used, not $model"; exit 1; }
used=$(env -u MQSS_MODEL "$prefix/bin/mqss" select "$src/examples/matmul.mlir" --emit=json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["model"])')
[ "$(realpath "$used")" = "$model" ] || { echo "the installed mqss used the model $used, not $model"; exit 1; }
grep -q '^// @matmul: ' <<< "$out" || { echo "no decision printed:"; echo "$out"; exit 1; }
grep -q 'func.func @matmul' <<< "$out" || { echo "no IR printed"; exit 1; }
grep -v '^//' <<< "$out" | grep -q 'linalg.matmul' && { echo "the matmul was not transformed"; exit 1; }
# A bad target is an error, not a crash.
if "$work/consumer/mqss-consumer" "$src/examples/matmul.mlir" riscv 2> "$work/err.txt"; then
  echo "an unknown target was accepted"; exit 1
fi
grep -q "unknown target 'riscv'" "$work/err.txt"
# The installed executables run from the prefix: they find MLIR's shared
# libraries, `mqss train` finds mqss-train beside mqss, and selecting with
# the installed model loads no libtorch.
installed=$(MQSS_MODEL="$prefix/share/mqss/models/default.pt" \
  "$prefix/bin/mqss" select "$src/examples/matmul.mlir" --target=x86-avx2)
grep -q 'transform-interpreter' <<< "$installed" || {
  echo "the installed mqss selected nothing:"; echo "$installed"; exit 1; }
"$prefix/bin/mqss" train --help | grep -q "SUBCOMMAND 'train'" || {
  echo "the installed mqss train did not run mqss-train"; exit 1; }
"$prefix/bin/mqss-opt" --pass-pipeline='builtin.module(mqss-select{target=x86-avx2})' \
  "$src/examples/matmul.mlir" -o /dev/null
if ldd "$prefix/bin/mqss" "$prefix/bin/mqss-opt" | grep -q libtorch; then
  echo "mqss or mqss-opt links libtorch"; exit 1
fi
echo "consumer built against the installed package and selected: $(grep '^// @matmul' <<< "$out")"
echo "installed mqss, mqss train and mqss-opt run from $prefix"
