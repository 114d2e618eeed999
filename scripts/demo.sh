#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job: measure
# a transform-dialect schedule against the naive lowering on a 256^3 matmul, then
# let the shipped policy select a pipeline for a sample kernel and measure it
# against `default`.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
./scripts/build.sh

echo
echo "== mqss run: linalg.matmul 256x256x256 f32, tile [8,32,1] + vectorize vs naive"
./build/bin/mqss run examples/matmul.mlir \
  --pipeline='transform-preload-library{transform-library-paths=examples/matmul_schedule.mlir},transform-interpreter' \
  --baseline=naive

echo
echo "== mqss run: the shipped policy (models/default.pt) on an unseen test kernel, vs default"
./build/bin/mqss run benchmarks/dl/gelu-bf16/gelu_bf16_small.mlir \
  --pipeline=policy --baseline=default
