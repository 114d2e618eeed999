#!/usr/bin/env python3
"""Developer aid: run registry modules with mlir-cpu-runner (stdlib only).

Independent of the mqss harness. For each module it appends a `main` that
allocates the entry's arguments, fills them with seeded pseudo-random values
(floats in [-1,1), integers in [1,8], i1 in {0,1}, integer scalars from the
registry `args`, dynamic sizes from `shapes`), calls the entry once, prints a
checksum (sum and sum of |x| of every memref argument and result) and then
times REPEAT more calls with rtclock. It does this under the naive and the
affine-tiled pipelines and reports times, NaN/Inf and checksum mismatches.

Usage: python3 benchmarks/gen/timeit.py [-O2] [--repeat=3] [--naive-only] [name-substring ...]
"""
import sys
sys.dont_write_bytecode = True
import json
import math
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from check import PIPELINES, OPT  # noqa: E402

RUNNER = os.environ.get("MLIR_CPU_RUNNER", "mlir-cpu-runner-19")
LIBDIR = os.environ.get("MLIR_LIBDIR", "/usr/lib/llvm-19/lib")
FLOAT_SCALARS = [0.75, -0.4, 0.3, 0.9, -0.6]


def split_top(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


def signature(text, entry):
    m = re.search(r"func\.func @%s\(" % re.escape(entry), text)
    assert m, entry
    i = m.end()
    depth = 1
    j = i
    while depth:
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
        j += 1
    args = [a.split(":", 1)[1].strip() for a in split_top(text[i:j - 1])]
    rest = text[j:j + 2000]
    res = []
    mm = re.match(r"\s*->\s*", rest)
    if mm:
        rest = rest[mm.end():]
        if rest.startswith("("):
            k = rest.index(")")
            res = split_top(rest[1:k])
        else:
            res = [split_top(rest.split("{", 1)[0])[0].strip()]
    return args, res


def parse_shaped(ty):
    m = re.match(r"(memref|tensor)<(.*)>$", ty)
    if not m:
        return None
    parts = m.group(2).split("x")
    return m.group(1), parts[:-1], parts[-1]


def flat_ty(kind_et):
    return "memref<?x%s>" % kind_et


def wrapper(args, res, shapes, sargs, entry, repeat):
    lines = []
    ets = set()
    call_args = []
    chk = []  # (memref value, type) to checksum
    fi = 0
    body = []
    for n, ty in enumerate(args):
        name = "arg%d" % n
        sh = parse_shaped(ty)
        if sh is None:
            if ty.startswith("f") or ty == "bf16":
                v = FLOAT_SCALARS[fi % len(FLOAT_SCALARS)]
                fi += 1
                body.append("%%s%d = arith.constant %r : %s" % (n, v, ty))
            else:
                v = sargs.get(name)
                assert v is not None, "integer scalar %s needs registry args" % name
                body.append("%%s%d = arith.constant %d : %s" % (n, v, ty))
            call_args.append(("%%s%d" % n, ty))
            continue
        kind, dims, et = sh
        ets.add(et)
        dyn = list(shapes.get(name, []))
        mty = "memref<%s>" % "x".join(dims + [et])
        ops = []
        real = []
        for d in dims:
            if d == "?":
                sz = dyn.pop(0)
                body.append("%%d%d_%d = arith.constant %d : index" % (n, len(ops), sz))
                ops.append("%%d%d_%d" % (n, len(ops)))
                real.append(sz)
            else:
                real.append(int(d))
        body.append("%%m%d = memref.alloc(%s) : %s" % (n, ", ".join(ops), mty))
        flat = "%%f%d" % n
        if len(dims) == 1:
            body.append("%s = memref.cast %%m%d : %s to memref<?x%s>" % (flat, n, mty, et))
        else:
            total = 1
            for r in real:
                total *= r
            allstatic = "?" not in dims
            cty = "memref<%sx%s>" % (total if allstatic else "?", et)
            body.append("%%c%d = memref.collapse_shape %%m%d [[%s]] : %s into %s" % (
                n, n, ", ".join(str(i) for i in range(len(dims))), mty, cty))
            body.append("%s = memref.cast %%c%d : %s to memref<?x%s>" % (flat, n, cty, et))
        body.append("%%seed%d = arith.constant %d : i64" % (n, 1000 + 7919 * n))
        body.append("func.call @__fill_%s(%s, %%seed%d) : (memref<?x%s>, i64) -> ()" % (et, flat, n, et))
        if kind == "tensor":
            body.append("%%t%d = bufferization.to_tensor %%m%d restrict : %s" % (n, n, mty))
            call_args.append(("%%t%d" % n, ty))
        else:
            call_args.append(("%%m%d" % n, ty))
            chk.append((flat, et))
    cargs = ", ".join(a for a, _ in call_args)
    ctys = ", ".join(t for _, t in call_args)
    rtys = ", ".join(res)
    rsig = "(%s)" % rtys if len(res) != 1 else rtys
    if not res:
        rsig = "()"

    def call(tag):
        if res:
            names = ", ".join("%%r%s_%d" % (tag, i) for i in range(len(res)))
            if len(res) > 1:
                return "%%r%s:%d = func.call @%s(%s) : (%s) -> %s" % (
                    tag, len(res), entry, cargs, ctys, rsig), ["%%r%s#%d" % (tag, i) for i in range(len(res))]
            return "%%r%s_0 = func.call @%s(%s) : (%s) -> %s" % (tag, entry, cargs, ctys, rsig), ["%%r%s_0" % tag]
        return "func.call @%s(%s) : (%s) -> ()" % (entry, cargs, ctys), []

    c, rnames = call("w")
    body.append(c)
    for i, (rn, rt) in enumerate(zip(rnames, res)):
        kind, dims, et = parse_shaped(rt)
        ets.add(et)
        mty = "memref<%s>" % "x".join(dims + [et])
        body.append("%%rm%d = bufferization.to_memref %s : %s" % (i, rn, mty))
        src = "%%rm%d" % i
        if len(dims) != 1:
            cty = "memref<%sx%s>" % ("?" if "?" in dims else str(math.prod(int(d) for d in dims)), et)
            body.append("%%rc%d = memref.collapse_shape %%rm%d [[%s]] : %s into %s" % (
                i, i, ", ".join(str(k) for k in range(len(dims))), mty, cty))
            src = "%%rc%d" % i
            mty = cty
        body.append("%%rf%d = memref.cast %s : %s to memref<?x%s>" % (i, src, mty, et))
        chk.append(("%%rf%d" % i, et))
    for k, (v, et) in enumerate(chk):
        body.append("%%s_%d:2 = func.call @__sum_%s(%s) : (memref<?x%s>) -> (f64, f64)" % (k, et, v, et))
        body.append("vector.print %%s_%d#0 : f64" % k)
        body.append("vector.print %%s_%d#1 : f64" % k)
    for r in range(repeat):
        body.append("%%t0_%d = func.call @rtclock() : () -> f64" % r)
        c, _ = call("t%d" % r)
        body.append(c)
        body.append("%%t1_%d = func.call @rtclock() : () -> f64" % r)
        body.append("%%dt_%d = arith.subf %%t1_%d, %%t0_%d : f64" % (r, r, r))
        body.append("vector.print %%dt_%d : f64" % r)
    lines.append("func.func private @rtclock() -> f64")
    for et in sorted(ets):
        lines.append(helpers(et))
    lines.append("func.func @main() {\n  " + "\n  ".join(body) + "\n  return\n}")
    return "\n".join(lines) + "\n", len(chk)


def helpers(et):
    isf = et in ("f64", "f32", "f16", "bf16")
    if isf:
        conv = "%v = arith.truncf %vd : f64 to {et}" if et != "f64" else "%v = arith.addf %vd, %zf : f64"
        gen = """      %hf = arith.uitofp %h : i64 to f64
      %u = arith.mulf %hf, %inv : f64
      %u2 = arith.mulf %u, %twof : f64
      %vd = arith.subf %u2, %onef : f64
      """ + conv
        ext = "%x = arith.extf %e : {et} to f64" if et != "f64" else "%x = arith.addf %e, %zf : f64"
    else:
        bits = int(et[1:])
        mod, add = (2, 0) if bits == 1 else (8, 1)
        gen = ("      %modc = arith.constant MOD : i64\n"
               "      %hm = arith.remui %h, %modc : i64\n"
               "      %addc = arith.constant ADD : i64\n"
               "      %vi = arith.addi %hm, %addc : i64\n"
               "      %v = arith.trunci %vi : i64 to {et}").replace("MOD", str(mod)).replace("ADD", str(add))
        ext = "%x0 = arith.extui %e : {et} to i64\n      %x = arith.uitofp %x0 : i64 to f64" if bits == 1 else \
            "%x0 = arith.extsi %e : {et} to i64\n      %x = arith.sitofp %x0 : i64 to f64"
    return ("""func.func private @__fill_{et}(%m: memref<?x{et}>, %seed: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?x{et}>
  %mul = arith.constant 6364136223846793005 : i64
  %inc = arith.constant 1442695040888963407 : i64
  %mask = arith.constant 4294967295 : i64
  %s32 = arith.constant 32 : i64
  %inv = arith.constant 2.3283064365386963e-10 : f64
  %twof = arith.constant 2.0 : f64
  %onef = arith.constant 1.0 : f64
  %zf = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i64
      %a = arith.addi %ii, %seed : i64
      %b = arith.muli %a, %mul : i64
      %c = arith.addi %b, %inc : i64
      %d = arith.muli %c, %mul : i64
      %e1 = arith.shrui %d, %s32 : i64
      %h = arith.andi %e1, %mask : i64
""" + gen + """
      memref.store %v, %m[%i] : memref<?x{et}>
  }
  return
}
func.func private @__sum_{et}(%m: memref<?x{et}>) -> (f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zf = arith.constant 0.0 : f64
  %n = memref.dim %m, %c0 : memref<?x{et}>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zf, %sa = %zf) -> (f64, f64) {
      %e = memref.load %m[%i] : memref<?x{et}>
      """ + ext + """
      %s1 = arith.addf %s, %x : f64
      %ax = math.absf %x : f64
      %sa1 = arith.addf %sa, %ax : f64
      scf.yield %s1, %sa1 : f64, f64
  }
  return %r#0, %r#1 : f64, f64
}""").replace("{et}", et)


def run_one(e, pipeline, opt, repeat):
    path = os.path.join(ROOT, e["path"])
    text = open(path).read()
    args, res = signature(text, e["entry"])
    w, nchk = wrapper(args, res, e["shapes"], e["args"], e["entry"], repeat)
    with tempfile.TemporaryDirectory() as td:
        src = os.path.join(td, "w.mlir")
        open(src, "w").write(text + "\n" + w)
        p = subprocess.run([OPT, src, "--pass-pipeline=" + PIPELINES[pipeline]],
                           capture_output=True, text=True)
        if p.returncode:
            return {"error": "lower: " + p.stderr[:1500]}
        low = os.path.join(td, "w.ll.mlir")
        open(low, "w").write(p.stdout)
        p = subprocess.run([RUNNER, opt, "-e", "main", "-entry-point-result=void",
                            "-shared-libs=%s/libmlir_c_runner_utils.so" % LIBDIR,
                            "-shared-libs=%s/libmlir_runner_utils.so" % LIBDIR, low],
                           capture_output=True, text=True, timeout=600)
        if p.returncode:
            return {"error": "run: " + p.stderr[:1500]}
    vals = [float(x) for x in p.stdout.split()]
    sums = vals[:2 * nchk]
    times = [v * 1000 for v in vals[2 * nchk:]]
    return {"sums": sums, "times": times}


def close(a, b):
    return all(math.isclose(x, y, rel_tol=1e-5, abs_tol=1e-6 * max(1.0, abs(z)))
               for x, y, z in zip(a, b, a))


def main():
    opt = "-O2"
    repeat = 3
    naive_only = False
    pats = []
    for a in sys.argv[1:]:
        if re.match(r"-O[0-3]$", a):
            opt = a
        elif a.startswith("--repeat="):
            repeat = int(a.split("=")[1])
        elif a == "--naive-only":
            naive_only = True
        else:
            pats.append(a)
    reg = json.load(open(os.path.join(ROOT, "registry.json")))
    for e in reg:
        if pats and not any(p in e["name"] for p in pats):
            continue
        r1 = run_one(e, "naive", opt, repeat)
        if "error" in r1:
            print("%-32s ERROR %s" % (e["name"], r1["error"]), flush=True)
            continue
        bad = [x for x in r1["sums"] if not math.isfinite(x)]
        med = sorted(r1["times"])[len(r1["times"]) // 2] if r1["times"] else float("nan")
        line = "%-32s naive %8.2f ms" % (e["name"], med)
        if not naive_only:
            r2 = run_one(e, "tiled", opt, repeat)
            if "error" in r2:
                line += "  tiled ERROR %s" % r2["error"]
            else:
                med2 = sorted(r2["times"])[len(r2["times"]) // 2]
                line += "  tiled %8.2f ms  %s" % (med2, "match" if close(r1["sums"], r2["sums"]) else
                                                  "MISMATCH %s vs %s" % (r1["sums"], r2["sums"]))
        if bad:
            line += "  NONFINITE %s" % r1["sums"]
        print(line + "  sums=%s" % ["%.4g" % x for x in r1["sums"][:6]], flush=True)


if __name__ == "__main__":
    main()
