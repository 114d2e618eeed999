#!/usr/bin/env python3
"""Writes every benchmark module and benchmarks/registry.json.

Usage: python3 benchmarks/gen/generate.py [--check-only]
  --check-only  do not write; exit 1 if any file on disk differs.

python3 standard library only. The product never runs this script; the
generated .mlir files and registry.json are committed.
"""
import sys
sys.dont_write_bytecode = True
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # benchmarks/
sys.path.insert(0, HERE)

import polybench  # noqa: E402
import rodinia  # noqa: E402
import dl  # noqa: E402
from splits import SPLIT  # noqa: E402

FAMILIES = {"matmul-like", "conv", "elementwise", "reduction", "normalization",
            "pooling", "stencil", "solver", "dynamic-programming",
            "data-mining", "attention"}
KEYS = ["name", "kernel", "path", "entry", "family", "size", "split", "source",
        "shapes", "args"]


def all_modules():
    mods = []
    for suite in (polybench, rodinia, dl):
        for k in suite.KERNELS:
            for mod in k.modules():
                mods.append(mod)
    return mods


README_HEAD = """# MQSS-Selector benchmark kernels

MLIR modules (upstream MLIR 19 syntax) that MQSS-Selector trains and evaluates
on. Each module holds one kernel at one problem size; its single public
function is the entry named in `registry.json`.

* `polybench/` - the 30 PolyBench/C 4.2 kernels, ported by hand (f64 memrefs,
  destination-passing style; linalg for contractions, affine loops for
  triangular loops, time-stepped stencils and solvers).
* `rodinia/` - Rodinia-style kernels (f32 / i32 memrefs).
* `dl/` - deep-learning operators on tensors as torch-mlir / IREE emit them
  (f32, and bf16 with f32 accumulation).
* `registry.json` - one entry per module: name, kernel, path, entry, family,
  size, split, source, shapes (sizes of dynamic dimensions), args (integer
  scalar arguments).
* `gen/` - the generators (python3, standard library only) and developer
  checks; see `docs/AddingKernels.md`.

**Do not edit the `.mlir` files or `registry.json` by hand**: change the
generator in `gen/` and run `python3 benchmarks/gen/generate.py`.

Inputs are the harness's seeded pseudo-random values (floats in [-1, 1),
integers in [1, 8]). Solvers make their input well-conditioned in a cheap
prologue inside the kernel (documented in each file), so no NaN/Inf appears.

Checks (all from the repository root):

    python3 benchmarks/gen/generate.py --check-only   # files match the generators
    python3 benchmarks/gen/check.py                    # verify + naive/tiled lowering to LLVM IR
    python3 benchmarks/gen/harness_check.py            # mqss run: status, output check, naive runtime
    python3 benchmarks/gen/timeit.py NAME              # mlir-cpu-runner timing/NaN check without mqss

Split is assigned per kernel (all sizes of a kernel share it): %(ntrain)d train,
%(nval)d validation, %(ntest)d test kernels; every family has kernels in train and
in test. %(nmod)d modules, %(nker)d kernels.
"""


def readme(registry, descs):
    kernels = {}
    for e in registry:
        k = kernels.setdefault(e["kernel"], {"e": e, "sizes": []})
        k["sizes"].append(e["size"])
    counts = {"train": 0, "validation": 0, "test": 0}
    for k in kernels.values():
        counts[k["e"]["split"]] += 1
    out = [README_HEAD % dict(ntrain=counts["train"], nval=counts["validation"],
                              ntest=counts["test"], nmod=len(registry), nker=len(kernels))]
    for fam in sorted({k["e"]["family"] for k in kernels.values()}):
        out.append("\n## %s\n" % fam)
        for split in ("train", "validation", "test"):
            ks = sorted((n, k) for n, k in kernels.items()
                        if k["e"]["family"] == fam and k["e"]["split"] == split)
            if not ks:
                continue
            out.append("\n%s:\n\n" % split.capitalize())
            for n, k in ks:
                dyn = " Dynamic shapes." if k["e"]["shapes"] else ""
                out.append("* `%s` (%s; %s) - %s.%s\n" % (
                    n, os.path.dirname(os.path.dirname(k["e"]["path"])), "/".join(k["sizes"]),
                    descs[n], dyn))
    return "".join(out)


def write_if_changed(path, text, check_only, stale, label):
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        stale.append(label)
        if not check_only:
            with open(path, "w") as f:
                f.write(text)


def main():
    check_only = "--check-only" in sys.argv
    mods = all_modules()
    names = set()
    registry = []
    stale = []
    for mod in mods:
        assert mod["name"] not in names, mod["name"]
        names.add(mod["name"])
        assert mod["family"] in FAMILIES, mod
        if mod["kernel"] not in SPLIT:
            raise SystemExit("no split for kernel %s" % mod["kernel"])
        mod["split"] = SPLIT[mod["kernel"]]
        public = re.findall(r"func\.func @([\w$.]+)", mod["_text"])
        if public != [mod["entry"]]:
            raise SystemExit("%s: public functions %s, entry %s" % (mod["name"], public, mod["entry"]))
        registry.append({k: mod[k] for k in KEYS})
        path = os.path.join(ROOT, mod["path"])
        old = open(path).read() if os.path.exists(path) else None
        if old != mod["_text"]:
            stale.append(mod["path"])
            if not check_only:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(mod["_text"])
    unused = set(SPLIT) - {m["kernel"] for m in mods}
    if unused:
        raise SystemExit("splits.py names unknown kernels: %s" % sorted(unused))
    # Split rule: per kernel; every family in train and in test.
    fam_splits = {}
    for e in registry:
        fam_splits.setdefault(e["family"], set()).add(e["split"])
    for fam, sp in sorted(fam_splits.items()):
        if not {"train", "test"} <= sp:
            raise SystemExit("family %s lacks train or test kernels: %s" % (fam, sorted(sp)))
    reg_text = json.dumps(registry, indent=1) + "\n"
    write_if_changed(os.path.join(ROOT, "registry.json"), reg_text, check_only, stale,
                     "registry.json")
    descs = {}
    for suite in (polybench, rodinia, dl):
        for k in suite.KERNELS:
            descs[k.kernel] = k.desc
    write_if_changed(os.path.join(ROOT, "README.md"), readme(registry, descs), check_only,
                     stale, "README.md")
    print("%d modules, %d kernels; %d file(s) %s" % (
        len(registry), len({m["kernel"] for m in registry}), len(stale),
        "stale" if check_only else "written"))
    if check_only and stale:
        for s in stale:
            print("  stale:", s)
        sys.exit(1)


if __name__ == "__main__":
    main()
