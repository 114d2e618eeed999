#!/usr/bin/env python3
"""Runs every registry module through the mqss harness (stdlib only).

For each module: `mqss run --pipeline=naive --json` (naive runtime and output
check), then the same with --baseline=<affine-tiled pipeline> (output check of
the baseline). Prints one line per module and a summary; exit 1 on any
failure or naive median outside [1, 200] ms.

Usage: python3 benchmarks/gen/harness_check.py [--mqss=PATH] [--naive-only] [--json=OUT] [name-substring ...]
"""
import sys
sys.dont_write_bytecode = True
import json
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REPO = os.path.dirname(ROOT)
BASELINE = ("func.func(convert-linalg-to-affine-loops),"
            "func.func(affine-loop-tile{tile-size=32})")
LO_MS, HI_MS = 1.0, 200.0


def mqss_cmd(mqss, e, extra):
    cmd = [mqss, "run", os.path.join(ROOT, e["path"]), "--entry=" + e["entry"],
           "--json"] + extra
    for a, dims in e["shapes"].items():
        cmd.append("--shape=%s=%s" % (a, "x".join(str(d) for d in dims)))
    for a, v in e["args"].items():
        cmd.append("--arg=%s=%s" % (a, v))
    return cmd


def run(cmd):
    # The mqss binary may be being relinked by a concurrent build: wait for it.
    for attempt in range(40):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            break
        except OSError:
            if attempt == 39:
                raise
            time.sleep(15)
    try:
        return json.loads(p.stdout), p
    except ValueError:
        return None, p


def main():
    mqss = os.path.join(REPO, "build", "bin", "mqss")
    naive_only = False
    out_json = None
    pats = []
    for a in sys.argv[1:]:
        if a.startswith("--mqss="):
            mqss = a.split("=", 1)[1]
        elif a == "--naive-only":
            naive_only = True
        elif a.startswith("--json="):
            out_json = a.split("=", 1)[1]
        else:
            pats.append(a)
    reg = json.load(open(os.path.join(ROOT, "registry.json")))
    results = []
    bad = 0
    for e in reg:
        if pats and not any(p in e["name"] for p in pats):
            continue
        r = {"name": e["name"]}
        d, p = run(mqss_cmd(mqss, e, ["--pipeline=naive"]))
        problems = []
        if d is None:
            problems.append("naive: no JSON (rc=%d) %s" % (p.returncode, (p.stderr or p.stdout)[-600:]))
        else:
            r["status"] = d.get("status")
            r["check"] = d.get("output", {}).get("check")
            r["median"] = d.get("runtime_ms", {}).get("median")
            if r["status"] != "ok" or r["check"] != "pass":
                problems.append("naive: status=%s check=%s %s" % (
                    r["status"], r["check"], json.dumps({k: d[k] for k in d if k in ("message", "phase", "notes", "output")})[:600]))
            if r["median"] is None or not (LO_MS <= r["median"] <= HI_MS):
                problems.append("naive median %s ms outside [%g, %g]" % (r["median"], LO_MS, HI_MS))
        if not naive_only:
            d2, p2 = run(mqss_cmd(mqss, e, ["--pipeline=naive", "--baseline=" + BASELINE]))
            if d2 is None:
                problems.append("baseline: no JSON (rc=%d) %s" % (p2.returncode, (p2.stderr or p2.stdout)[-600:]))
            else:
                b = d2.get("baseline", {})
                r["b_status"] = d2.get("status")
                r["b_check"] = b.get("output", {}).get("check")
                r["b_median"] = d2.get("baseline_runtime_ms", {}).get("median")
                if r["b_status"] != "ok" or r["b_check"] != "pass":
                    problems.append("baseline: status=%s check=%s %s" % (
                        r["b_status"], r["b_check"], json.dumps(b)[:600]))
        r["problems"] = problems
        results.append(r)
        bad += bool(problems)
        print("%-30s %-4s %-5s naive %8s ms  baseline %-5s %8s ms  %s" % (
            e["name"], r.get("status"), r.get("check"),
            "%.2f" % r["median"] if r.get("median") is not None else "-",
            r.get("b_check"), "%.2f" % r["b_median"] if r.get("b_median") is not None else "-",
            "; ".join(problems)), flush=True)
    meds = [r["median"] for r in results if r.get("median") is not None]
    print("%d modules, %d with problems; naive median range %.2f-%.2f ms" % (
        len(results), bad, min(meds) if meds else 0, max(meds) if meds else 0))
    if out_json:
        json.dump(results, open(out_json, "w"), indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
