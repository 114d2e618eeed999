#!/usr/bin/env python3
"""Static checks of every module in benchmarks/registry.json (stdlib only).

For each module: (1) mlir-opt verifies it, (2) the naive pipeline lowers it to
the LLVM dialect and mlir-translate emits LLVM IR, (3) the same with the
affine-tiled prefix. Runs one process at a time.

Usage: python3 benchmarks/gen/check.py [name-substring ...]
"""
import sys
sys.dont_write_bytecode = True
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OPT = os.environ.get("MLIR_OPT", "mlir-opt-19")
TRANSLATE = os.environ.get("MLIR_TRANSLATE", "mlir-translate-19")

BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map}")
LOWER = ("func.func(convert-linalg-to-loops),convert-vector-to-scf,"
         "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
         "convert-vector-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
         "convert-arith-to-llvm,convert-index-to-llvm,finalize-memref-to-llvm,"
         "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts")
TILE = ("func.func(convert-linalg-to-affine-loops),"
        "func.func(affine-loop-tile{tile-size=32})")
PIPELINES = {
    "naive": "builtin.module(%s,%s)" % (BUFFERIZE, LOWER),
    "tiled": "builtin.module(%s,%s,%s)" % (BUFFERIZE, TILE, LOWER),
}


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def check(path):
    errs = []
    rc, _, err = run([OPT, path, "-o", os.devnull])
    if rc:
        return ["verify: " + err.strip()[:800]]
    for name, pipe in PIPELINES.items():
        rc, out, err = run([OPT, path, "--pass-pipeline=" + pipe])
        if rc:
            errs.append("%s lower: %s" % (name, err.strip()[:800]))
            continue
        rc, _, err = run([TRANSLATE, "--mlir-to-llvmir", "-o", os.devnull], out)
        if rc:
            errs.append("%s translate: %s" % (name, err.strip()[:800]))
        elif err.strip():
            errs.append("%s warnings: %s" % (name, err.strip()[:300]))
    return errs


def main():
    reg = json.load(open(os.path.join(ROOT, "registry.json")))
    pats = sys.argv[1:]
    n_ok = n_bad = 0
    for e in reg:
        if pats and not any(p in e["name"] for p in pats):
            continue
        errs = check(os.path.join(ROOT, e["path"]))
        if errs:
            n_bad += 1
            print("FAIL %s" % e["name"])
            for x in errs:
                print("   ", x.replace("\n", "\n    "))
        else:
            n_ok += 1
    print("%d ok, %d failed" % (n_ok, n_bad))
    sys.exit(1 if n_bad else 0)


if __name__ == "__main__":
    main()
