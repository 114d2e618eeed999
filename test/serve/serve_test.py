#!/usr/bin/env python3
"""Integration tests of `mqss serve`: a real server on a free loopback port.

    serve_test.py --build-dir BUILD --source-dir SRC

Covers every endpoint, each bad input (malformed JSON, invalid IR with
line:col, an oversized body, an unknown target or pass, a slow client),
authentication on and off, a module that crashes its child followed by a
normal request, the safety net switching a target to its fallback and back,
reload (endpoint, SIGHUP, a refused model, under load) and the metrics.
"""
import argparse
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import shutil
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return condition


class Server:
    def __init__(self, mqss, db, *extra):
        self.proc = subprocess.Popen([mqss, "serve", "--port=0", "--db=" + db, *extra],
                                     stderr=subprocess.PIPE, text=True)
        self.log = []
        deadline = time.time() + 60
        self.port = None
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            raise RuntimeError("server did not start:\n" + "".join(self.log))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def request(self, method, path, body=None, token=None, raw=None, timeout=120,
                content_type="application/json"):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data,
                                     method=method)
        if content_type and data is not None:
            req.add_header("Content-Type", content_type)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                payload = r.read()
                status = r.status
                ctype = r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            payload, status, ctype = e.read(), e.code, e.headers.get("Content-Type", "")
        if "json" in ctype:
            return status, json.loads(payload)
        return status, payload.decode(errors="replace")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def select_chain(server, ir, token, limit):
    """Follows /v1/select from the module's start to a finish action (at most
    limit passes); returns the chain and the last reply."""
    chain, body = [], {}
    for _ in range(limit):
        status, body = server.request("POST", "/v1/select", {"ir": ir, "target": "x86-avx2", "prev_passes": chain}, token)
        if status != 200:
            break
        chain.append(body["pass"])
        if body["pass"].startswith("finish"):
            break
    return chain, body


def fallback_count(server, token):
    """The sum of mqss_fallbacks_total over its targets."""
    status, text = server.request("GET", "/metrics", token=token)
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("mqss_fallbacks_total{"))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read(path):
    with open(path) as f:
        return f.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    mqss = os.path.join(args.build_dir, "bin", "mqss")
    src = args.source_dir
    matmul = read(os.path.join(src, "examples", "matmul.mlir"))
    small = read(os.path.join(src, "test", "Inputs", "small_matmul.mlir"))
    oob = read(os.path.join(src, "test", "Inputs", "null_store.mlir"))
    failing = read(os.path.join(src, "test", "Inputs", "condbr_same_successor.mlir"))
    tosa = read(os.path.join(src, "test", "Inputs", "tosa_dense_relu.mlir"))
    unlowerable = read(os.path.join(src, "test", "Inputs", "dynamic_vector_insert.mlir"))
    unbufferizable = read(os.path.join(src, "test", "Inputs", "global_load_const.mlir"))
    sparse = read(os.path.join(src, "test", "Inputs", "sparse_csr_scale.mlir"))
    mixed = read(os.path.join(src, "test", "Inputs", "two_kernels.mlir"))
    # Two public functions and no @main: which one to run is not said.
    several = ("func.func @f(%a: memref<4xf32>) {\n  return\n}\n"
               "func.func @g(%a: memref<4xf32>) {\n  return\n}\n")
    # @once scales a dynamically sized buffer, @repeated does so %n times.
    scaling = read(os.path.join(src, "test", "Inputs", "scale_entries.mlir"))
    work = tempfile.mkdtemp(prefix="mqss-serve-test-")
    db = os.path.join(work, "serve.db")
    token = "s3cret"

    served_model = os.path.join(work, "served.pt")
    shipped = os.path.join(src, "models", "default.pt")
    with open(shipped, "rb") as f, open(served_model, "wb") as g:
        g.write(f.read())
    # The policy plays small modules too (--small-kernels=policy): the safety
    # net, its recovery and retraining are driven by their episodes. The
    # small-kernel rule is checked on a server of its own below.
    server = Server(mqss, db, "--token=" + token, "--max-body-mb=1", "--read-timeout-s=1",
                    "--explore=0", "--measure-reps=3", "--model=" + served_model,
                    "--small-kernels=policy")
    try:
        # Authentication: only /healthz is open.
        status, body = server.request("GET", "/healthz")
        check(status == 200 and body["status"] == "ok", "healthz without token: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", {"ir": small})
        check(status == 401 and "token" in body["error"], "select without token is 401: %s" % status)
        status, _ = server.request("POST", "/v1/select", {"ir": small}, token="wrong")
        check(status == 401, "a wrong token is 401")
        status, _ = server.request("GET", "/metrics", token="wrong")
        check(status == 401, "metrics need the token")
        status, _ = server.request("GET", "/made-up/path-4711")
        check(status == 401, "an unknown path without the token is 401 too")
        # The scheme's name is case-insensitive (RFC 7235).
        lower = urllib.request.Request("http://127.0.0.1:%d/metrics" % server.port,
                                       headers={"Authorization": "bearer " + token})
        with urllib.request.urlopen(lower, timeout=30) as r:
            check(r.status == 200, "a lower-case bearer scheme: %s" % r.status)
        # Of two Authorization headers neither counts, the right token first
        # or second.
        for tokens in ((token, "wrong"), ("wrong", token)):
            twice = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            twice.putrequest("GET", "/metrics")
            for given in tokens:
                twice.putheader("Authorization", "Bearer " + given)
            twice.endheaders()
            reply = twice.getresponse()
            text = reply.read().decode()
            check(reply.status == 401 and "several Authorization headers" in text,
                  "two Authorization headers are 401: %s %s" % (reply.status, text))
            twice.close()

        # /v1/select: the first decision in-process, later ones after prev_passes.
        status, body = server.request("POST", "/v1/select", {"ir": matmul, "target": "x86-avx2"}, token)
        check(status == 200, "select: %s %s" % (status, body))
        check(set(body) >= {"pass", "confidence", "stage", "features_hash"}, "select fields: %s" % body)
        check(body.get("stage") == "linalg" and 0 < body.get("confidence", 0) <= 1, "select values: %s" % body)
        first = body.get("pass")
        check(body.get("cached") is False, "a new module is decided, not cached")
        status, again = server.request("POST", "/v1/select", {"ir": matmul, "target": "x86-avx2"}, token)
        check(again.get("cached") is True and again.get("pass") == first,
              "the same module again comes from the decision cache: %s" % again)
        status, other = server.request("POST", "/v1/select", {"ir": matmul, "target": "x86-avx512"}, token)
        check(other.get("cached") is False, "another target is decided anew")
        status, body = server.request("POST", "/v1/select",
                                      {"ir": matmul, "target": "x86-avx2", "prev_passes": [first]}, token)
        check(status == 200 and body.get("stage") == "loops", "select after prev_passes: %s %s" % (status, body))

        # A module that needs preparing first (elementwise ops on whole
        # tensors): the reply says what to run before the pass, and the
        # server replays it before the previous passes.
        elementwise = read(os.path.join(src, "test", "Inputs", "elementwise_tensors.mlir"))
        status, body = server.request("POST", "/v1/select", {"ir": elementwise, "target": "x86-avx2"}, token)
        check(status == 200 and "convert-elementwise-to-linalg" in body.get("preparation", ""),
              "select names the preparation: %s %s" % (status, body))
        status, after = server.request("POST", "/v1/select",
                                       {"ir": elementwise, "target": "x86-avx2",
                                        "prev_passes": [body.get("pass")]}, token)
        check(status == 200 and after.get("pass"), "select after a prepared pass: %s %s" % (status, after))

        # /v1/pipeline agrees with `mqss select`.
        status, body = server.request("POST", "/v1/pipeline", {"ir": matmul, "target": "x86-avx2"}, token)
        check(status == 200 and body.get("actions") and body.get("pipeline"), "pipeline: %s %s" % (status, body))
        cli = json.loads(subprocess.run([mqss, "select", os.path.join(src, "examples", "matmul.mlir"),
                                         "--target=x86-avx2", "--emit=json"],
                                        capture_output=True, text=True, check=True).stdout)
        check(body.get("actions") == cli["functions"][0]["actions"], "pipeline matches mqss select")
        check(("transform-preload-library{" in body.get("pipeline", ""))
              == ("schedule library from a path on the server" in body.get("pipeline_note", "")),
              "a preloaded library's server path is noted: %s" % body.get("pipeline_note"))
        check(body.get("actions", [None])[0] == first, "pipeline starts with select's pass")

        # /v1/optimize, unmeasured and measured.
        status, body = server.request("POST", "/v1/optimize", {"ir": small, "target": "x86-avx2"}, token)
        check(status == 200 and "func.func @matmul" in body.get("ir", "") and "measured" not in body,
              "optimize: %s" % status)
        status, body = server.request("POST", "/v1/optimize",
                                      {"ir": small, "target": "x86-avx2", "measure": True}, token)
        m = body.get("measured", {})
        check(status == 200 and m.get("status") == "ok" and m.get("runtime_ms", 0) > 0
              and m.get("baseline_ms", 0) > 0 and m.get("speedup", 0) > 0,
              "measured optimize: %s %s" % (status, m))

        # How to run the kernel, as --entry, --shape and --arg say on the
        # command line. The same module run from another function is another
        # measurement, not a cache hit.
        status, body = server.request("POST", "/v1/optimize", {"ir": scaling, "target": "x86-avx2", "measure": True}, token)
        m = body.get("measured", {})
        check(status == 200 and m.get("status") == "invalid-input" and '"entry"' in m.get("message", ""),
              "a measured optimize says which request field is missing: %s" % m)
        # The client's input at fault says nothing of the policy: no reward.
        check("reward" not in m, "no reward for the client's input at fault: %s" % m)
        runs = {}
        for entry in ("repeated", "once"):
            status, body = server.request("POST", "/v1/optimize",
                                          {"ir": scaling, "target": "x86-avx2", "measure": True, "entry": entry,
                                           "shapes": {"arg0": [4096]}, "args": {"arg1": 200, "arg2": 1.5}}, token)
            runs[entry] = body.get("measured", {})
            check(status == 200 and runs[entry].get("status") == "ok" and runs[entry].get("cached") is False,
                  "measured optimize of @%s with shapes and args: %s %s" % (entry, status, runs[entry]))
        status, body = server.request("POST", "/v1/optimize", {"ir": scaling, "target": "x86-avx2", "entry": "once"}, token)
        check(status == 400 and "need \"measure\": true" in body.get("error", ""), "entry without measure: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", {"ir": scaling, "target": "x86-avx2", "measure": True}, token)
        check(status == 400 and "is for /v1/optimize" in body.get("error", ""), "measure on select: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/optimize", {"ir": scaling, "target": "x86-avx2", "measure": True,
                                                               "shapes": {"a0": [4]}}, token)
        check(status == 400 and "keys are argN" in body.get("error", ""), "a key that is no argument: %s %s" % (status, body))
        # Inputs no memory holds are the client's doing, as an invalid one is:
        # measured, but neither a reward for the safety net nor a trajectory.
        status, body = server.request("POST", "/v1/optimize",
                                      {"ir": scaling, "target": "x86-avx2", "measure": True, "entry": "once",
                                       "shapes": {"arg0": [2 ** 62]}, "args": {"arg1": 1, "arg2": 1.5}}, token)
        m = body.get("measured", {})
        check(status == 200 and m.get("status") == "invalid-input" and "out-of-memory in making its inputs" in m.get("message", ""),
              "inputs too big for memory: %s %s" % (status, m))
        check("--memory-limit-mb" not in m.get("message", ""),
              "the harness's flag is not named to a client: %s" % m.get("message"))
        # Scalars no double holds exactly are refused, as --arg refuses them
        # (2^64 - 1 is past what json's int64 holds; 1e400 reads as infinity).
        for value, said in (("18446744073709551615", "passed exactly up to 2^53"),
                            ("1e400", "a finite one")):
            raw = '{"ir": %s, "measure": true, "entry": "once", "args": {"arg1": %s}}' % (json.dumps(scaling), value)
            status, body = server.request("POST", "/v1/optimize", raw=raw.encode(), token=token)
            check(status == 400 and said in body.get("error", ""), "args %s: %s %s" % (value, status, body))
        status, body = server.request("POST", "/v1/optimize", {"ir": scaling, "target": "x86-avx2", "measure": True,
                                                               "shapes": {"arg0": ["many"]}}, token)
        check(status == 400 and "not a whole number" in body.get("error", ""), "a malformed size: %s %s" % (status, body))

        # Bad input.
        status, body = server.request("POST", "/v1/select", raw=b"{not json", token=token)
        check(status == 400 and "malformed JSON" in body["error"], "malformed JSON: %s" % body)
        status, body = server.request("POST", "/v1/select", {"ir": "func.func @f() {\n  %0 = arith.addi %a, %a : i32\n}"}, token)
        check(status == 400 and re.search(r"request\.mlir:2:\d+: error", body.get("diagnostics", "")),
              "invalid IR gives line:col: %s" % body)
        status, body = server.request("POST", "/v1/select", {"ir": small, "target": "riscv"}, token)
        check(status == 400 and "unknown target 'riscv'" in body["error"], "unknown target: %s" % body)
        status, body = server.request("POST", "/v1/select", {"ir": small, "prev_passes": ["no.such.pass"]}, token)
        check(status == 400 and 'unknown action "no.such.pass"' in body["error"], "unknown pass: %s" % body)
        status, body = server.request("POST", "/v1/select", {"ir": small, "prev_passes": ["loops.canonicalize", "finish-O3"]}, token)
        check(status == 400 and "ends a chain" in body["error"], "nothing after a finish: %s" % body)
        status, body = server.request("POST", "/v1/select", {"ir": small, "prev_passes": ["loops.canonicalize"] * 9}, token)
        check(status == 400 and "ends a chain with finish-O3 after 8" in body.get("error", ""),
              "a chain longer than any the server leads: %s %s" % (status, body))
        # A module one-shot bufferization cannot take (tensor.bitcast has no
        # bufferization in MLIR 19) is decided in a child, where a proposal
        # is tried first: not tensor.bufferize, which would fail next step.
        bitcast = ("func.func @main(%a: tensor<4xi32>) -> tensor<4xf32> {\n"
                   "  %b = tensor.bitcast %a : tensor<4xi32> to tensor<4xf32>\n"
                   "  return %b : tensor<4xf32>\n}\n")
        status, body = server.request("POST", "/v1/select", {"ir": bitcast}, token)
        check(status == 200 and body.get("pass") not in (None, "tensor.bufferize"),
              "no proposal that fails on the module: %s %s" % (status, body))
        # A chain replays only what /v1/select proposes: a schedule out of its
        # stage (upstream's patterns can run on for a minute where no
        # decision leads) is refused, not run.
        status, body = server.request("POST", "/v1/select", {"ir": small, "prev_passes": ["tensor.block-pack-matmul"]}, token)
        check(status == 422 and "is not one /v1/select proposes" in body.get("error", "")
              and "the tensor stage, where the IR is in the linalg stage" in body.get("error", ""),
              "an action no decision leads to is not replayed: %s %s" % (status, body))
        # MLIR's advice for an op of an unregistered dialect names a flag;
        # the note after it says what the server does instead.
        status, body = server.request("POST", "/v1/select", {"ir": "func.func @f() {\n  \"foo.bar\"() : () -> ()\n  return\n}"}, token)
        diagnostics = body.get("diagnostics", "")
        check(status == 400 and "the server takes no ops of an unregistered dialect" in diagnostics
              and "mqss-opt` take" not in diagnostics, "an unregistered dialect: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", {"target": "host"}, token)
        check(status == 400 and "missing \"ir\"" in body["error"], "missing ir: %s" % body)
        # JSON nested past any request's shape is refused before the parser
        # recurses (100,000 levels overflowed a worker's stack).
        status, body = server.request("POST", "/v1/select", raw=b'{"ir": "x", "target": ' + b"[" * 100000 + b"]" * 100000 + b"}", token=token)
        check(status == 400 and "nested deeper than" in body.get("error", ""), "deep JSON: %s %s" % (status, body))
        status, body = server.request("GET", "/healthz")
        check(status == 200, "alive after deep JSON: %s" % status)
        # A misspelled field is refused, not ignored (the client would get a
        # decision for the module without its previous passes).
        status, body = server.request("POST", "/v1/select", {"ir": small, "prevpasses": ["loops.canonicalize"]}, token)
        check(status == 400 and 'unknown field "prevpasses"' in body.get("error", ""), "misspelled field: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", {"ir": 5}, token)
        check(status == 400 and '"ir" must be' in body.get("error", ""), "ir not a string: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", raw=b'{"ir": "' + b"x" * (2 << 20) + b'"}', token=token)
        check(status == 413 and "the limit is" in body.get("error", ""), "oversized body is 413: %s %s" % (status, body))
        # Sent as a form (urllib's and curl -d's default), a JSON body over
        # 8 KiB (the HTTP library's limit for forms it parses) is served: the
        # server reads bodies itself.
        status, body = server.request("POST", "/v1/select", {"ir": "// " + "x" * 9000 + "\n" + small},
                                      token, content_type=None)
        check(status == 200 and "pass" in body, "form body over 8 KiB: %s %s" % (status, body))
        # Nesting too deep for the parser is refused with its place; brackets
        # in comments do not count.
        deep = "func.func @f(%c: i1) {\n" + "  scf.if %c {\n" * 300 + "  }\n" * 300 + "  return\n}\n"
        status, body = server.request("POST", "/v1/select", {"ir": deep}, token)
        check(status == 400 and re.search(r"request\.mlir:257:13: error: brackets nested deeper than 256",
                                          body.get("diagnostics", "")), "deep nesting: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", {"ir": "// for (k = 0; k < n; k++) { (\n" * 300 + small}, token)
        check(status == 200 and "pass" in body, "brackets in comments: %s %s" % (status, body))
        # So is a number literal the parser would spend minutes on (it runs
        # in the worker, where no timeout applies).
        literal = "func.func @f() -> i32 {\n  %x = arith.constant " + "9" * 100000 + " : i32\n  return %x : i32\n}\n"
        started = time.time()
        status, body = server.request("POST", "/v1/select", {"ir": literal}, token)
        check(status == 400 and "a number literal of 100000 characters" in body.get("diagnostics", "")
              and time.time() - started < 10, "a long literal: %s %.1f s" % (status, time.time() - started))
        # MLIR 19's verifier crashes on a rank-0 linalg.transpose: refused
        # before it runs, and the server goes on serving.
        rank0 = ("func.func @t(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
                 "  %r = linalg.transpose ins(%a : tensor<f32>) outs(%b : tensor<f32>) permutation = []\n"
                 "  return %r : tensor<f32>\n}\n")
        status, body = server.request("POST", "/v1/select", {"ir": rank0}, token)
        check(status == 400 and "verifier crashes on it" in body.get("diagnostics", ""),
              "rank-0 transpose: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/select", {"ir": small}, token)
        check(status == 200 and "pass" in body, "served after a rank-0 transpose: %s %s" % (status, body))
        # /v1/select proposes only what can run: never a bufferization that
        # fails on a called declaration returning a tensor.
        bodiless = read(os.path.join(src, "test", "Inputs", "called_tensor_declaration.mlir"))
        status, body = server.request("POST", "/v1/select", {"ir": bodiless, "target": "x86-avx2"}, token)
        check(status == 200 and body.get("pass") != "tensor.bufferize", "bodiless callee: %s %s" % (status, body))
        status, body = server.request("GET", "/v1/nothing", token=token)
        check(status == 404, "unknown endpoint is 404")
        # An endpoint asked with the wrong method says which one it takes.
        status, body = server.request("GET", "/v1/select", token=token)
        check(status == 405 and "takes POST" in body.get("error", ""), "GET /v1/select: %s %s" % (status, body))
        # A client trickling its body (a byte a second) is cut off once the
        # read timeout (1 s here) has passed since its body began, not after
        # each byte's wait.
        trickle = socket.create_connection(("127.0.0.1", server.port))
        trickle.sendall(("POST /v1/select HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                         "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n" % token).encode())
        trickle.settimeout(0.1)
        start, data = time.time(), b""
        while time.time() - start < 12 and b"\r\n\r\n" not in data:
            try:
                trickle.sendall(b" ")
                data += trickle.recv(4096)
            except socket.timeout:
                pass
            except OSError:
                break
            time.sleep(0.2)
        check(data.startswith(b"HTTP/1.1 408") and time.time() - start < 5,
              "a trickling client is cut off: %r after %.1f s" % (data[:60], time.time() - start))
        trickle.close()
        # A body that stops short of its length, the client waiting, is late
        # as well (it was a 400 saying the request could not be read).
        stalled = socket.create_connection(("127.0.0.1", server.port))
        stalled.sendall(("POST /v1/select HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                         "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"ir\"" % token).encode())
        stalled.settimeout(10)
        try:
            data = stalled.recv(4096)
        except socket.timeout:
            data = b""
        check(data.startswith(b"HTTP/1.1 408"), "a stalled body is 408: %r" % data[:60])
        stalled.close()
        # A slow client: headers never finished; the server drops it after the read timeout.
        slow = socket.create_connection(("127.0.0.1", server.port))
        slow.sendall(b"POST /v1/select HTTP/1.1\r\nHost: x\r\n")
        slow.settimeout(10)
        start = time.time()
        try:
            data = slow.recv(4096)
        except socket.timeout:
            data = None
        check(data is not None and time.time() - start < 8, "a slow client is dropped after the read timeout")
        slow.close()
        # A POST that gives no length (curl -X POST without -d) waits out the
        # timeout too; the reply says what the request lacked.
        bare = socket.create_connection(("127.0.0.1", server.port))
        bare.sendall(("POST /v1/admin/reload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n"
                      % token).encode())
        bare.settimeout(10)
        data = b""
        try:
            while b"Content-Length: 0" not in data:  # headers and body may come apart
                chunk = bare.recv(4096)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            pass
        bare.close()
        data = data.decode(errors="replace")
        check(" 400 " in data and "Content-Length: 0" in data, "a POST without a length: %r" % data[-300:])

        # A module whose generated code crashes its child; the server stays up.
        # Its naive reference crashes as well: the module's fault, not the
        # policy's, so it is answered as invalid input.
        status, body = server.request("POST", "/v1/optimize", {"ir": oob, "target": "x86-avx2", "measure": True}, token)
        check(status in (200, 422), "crashing module answered: %s" % status)
        if status == 200:
            m = body["measured"]
            check(m["status"] == "invalid-input" and "crash in its naive reference lowering" in m.get("message", ""),
                  "crash reported: %s" % m)
            # The kernel's own fault says nothing against the policy: its
            # unmeasured choice is served, not the fallback, and the decision
            # record says so as the reply does.
            con = sqlite3.connect(db)
            row = con.execute("SELECT fallback FROM served ORDER BY rowid DESC LIMIT 1").fetchone()
            con.close()
            check(body["fallback"] is False and row == (0,) and body.get("pipeline"),
                  "served row's fallback: %s %s" % (body["fallback"], row))
        status, body = server.request("POST", "/v1/select", {"ir": small, "target": "x86-avx2"}, token)
        check(status == 200, "a normal request after the crash is served")

        # A module no pipeline lowers, `default` included, is the module's
        # fault too: invalid input, so no trajectory, and the safety net
        # does not move however often it is sent.
        before = fallback_count(server, token)
        # (The policy's episode may fail on a pass, tensor.bufferize, before
        # any lowering: that too is the module's fault when `default` fails.)
        for ir in (unlowerable, unbufferizable, unbufferizable):
            status, body = server.request("POST", "/v1/optimize", {"ir": ir, "target": "x86-avx2", "measure": True}, token)
            m = body.get("measured", {})
            check(status == 200 and m.get("status") == "invalid-input"
                  and "lowering-failed in `default`" in m.get("message", "") and body["fallback"] is False,
                  "a module no pipeline lowers: %s %s" % (status, m or body))
        status, text = server.request("GET", "/metrics", token=token)
        check('mqss_fallback_active{target="x86-avx2"} 1' not in text and fallback_count(server, token) == before,
              "the safety net did not move for a module no pipeline lowers")

        # A measured episode is prepared as a selection is: TOSA is lowered
        # first, and the served pipeline begins with that lowering.
        status, body = server.request("POST", "/v1/optimize", {"ir": tosa, "target": "x86-avx2", "measure": True}, token)
        check(status == 200 and body["measured"]["status"] == "ok" and body["pipeline"].startswith("func.func(tosa-"),
              "measured TOSA optimize: %s %s" % (status, body.get("measured") or body))

        # A module whose functions get different plans: per function, as
        # /v1/pipeline answers.
        status, body = server.request("POST", "/v1/optimize", {"ir": mixed, "target": "x86-avx2"}, token)
        check(status == 200 and len(body.get("functions", [])) == 3 and body.get("actions") is None and
              all(f["actions"] for f in body["functions"]),
              "optimize per function: %s" % {k: v for k, v in body.items() if k != "ir"})

        # Diagnostics from the children name the module as the client sent it.
        status, body = server.request("POST", "/v1/pipeline", {"ir": sparse, "target": "x86-avx2"}, token)
        check(status == 422 and "request.mlir:" in body.get("error", "") and "/tmp/" not in body.get("error", ""),
              "child diagnostics name request.mlir: %s %s" % (status, body))

        # A module without a function to decide has no next pass either.
        status, body = server.request("POST", "/v1/select", {"ir": "func.func private @f(i32) -> i32", "target": "x86-avx2"}, token)
        check(status == 422 and "no function with a body" in body.get("error", ""), "select on declarations: %s %s" % (status, body))

        # A module the harness cannot run as sent is the client's doing: it
        # moves neither the safety net nor the store's trajectories.
        for _ in range(3):
            status, body = server.request("POST", "/v1/optimize", {"ir": several, "target": "x86-avx2", "measure": True}, token)
            check(status == 200 and body["measured"]["status"] == "invalid-input", "several public functions: %s" % body.get("measured"))
            check(body.get("fallback") is False and body.get("pipeline"),
                  "an input fault serves the policy's choice, not the fallback: %s" % body.get("fallback"))
        fallbacks_before = fallback_count(server, token)
        status, body = server.request("POST", "/v1/optimize", {"ir": small, "target": "x86-avx2", "measure": True,
                                                               "entry": "nosuch"}, token)
        check(status == 200 and body["measured"]["status"] == "invalid-input" and "nosuch" in body["measured"].get("message", "")
              and body.get("fallback") is False, "a wrong entry: %s" % {k: v for k, v in body.items() if k != "ir"})
        check(fallback_count(server, token) == fallbacks_before, "input faults are not counted as fallbacks")
        status, body = server.request("POST", "/v1/pipeline", {"ir": small, "target": "x86-avx2"}, token)
        check(body.get("fallback") is False, "input faults do not switch the target: %s" % body)

        # Safety net: 3 measured rewards below -0.5 in a row -> fallback. The
        # policy's episode proposes tensor.bufferize, which fails here (a
        # branch with two identical successors, before canonicalization).
        for _ in range(3):
            status, body = server.request("POST", "/v1/optimize", {"ir": failing, "target": "x86-avx2", "measure": True}, token)
            check(status == 200 and body["measured"]["status"] == "pass-failed", "a failing proposal: %s" % body.get("measured"))
        status, body = server.request("POST", "/v1/pipeline", {"ir": small, "target": "x86-avx2"}, token)
        check(status == 200 and body.get("fallback") is True, "target falls back after 3 bad rewards: %s" % body)
        plan = body.get("actions") or []
        # A /v1/select chain follows the fallback's plan to its finish action.
        chain, body = select_chain(server, small, token, len(plan) + 1)
        check(chain == plan and body.get("fallback") is True and body.get("chosen") != "policy",
              "the select chain under fallback is the plan %s: %s (last %s)" % (plan, chain, body))
        status, metrics = server.request("GET", "/metrics", token=token)
        check('mqss_fallback_active{target="x86-avx2"} 1' in metrics, "fallback shown in metrics")
        status, body = server.request("POST", "/v1/pipeline", {"ir": small, "target": "x86-avx512"}, token)
        check(body.get("fallback") is False, "other targets keep the policy")
        # ... and back after two measured rewards at or above 0 (the policy is still measured).
        for _ in range(2):
            status, body = server.request("POST", "/v1/optimize", {"ir": small, "target": "x86-avx2", "measure": True}, token)
        status, body = server.request("POST", "/v1/pipeline", {"ir": small, "target": "x86-avx2"}, token)
        check(body.get("fallback") is False, "target recovers: %s" % body)
        log = "".join(server.log)
        check("safety net: target x86-avx2 falls back" in log and "recovered" in log, "switch and recovery logged")

        # Stats agree with the store.
        status, stats = server.request("GET", "/v1/stats", token=token)
        con = sqlite3.connect(db)
        rows = con.execute("SELECT status, speedup, trajectory_id FROM served").fetchall()
        measured = [s for st, s, played in rows if st == "ok" and s and s > 0 and played is not None]
        check(stats["requests"] == len(rows) and stats["measured"] == len(measured), "stats counts: %s" % stats)
        trajectories = con.execute("SELECT count(*) FROM trajectories WHERE policy LIKE 'serve:%'").fetchone()[0]
        check(trajectories == 9, "every measured episode the input allowed is a trajectory: %d" % trajectories)
        # A reward is stored where the reply carried one: not for the client's input.
        unrewarded = con.execute("SELECT count(*) FROM served WHERE status = 'invalid-input' "
                                 "AND reward IS NOT NULL").fetchone()[0]
        inputs_at_fault = con.execute("SELECT count(*) FROM served WHERE status = 'invalid-input'").fetchone()[0]
        check(inputs_at_fault > 0 and unrewarded == 0,
              "no reward stored for the client's input: %d of %d" % (unrewarded, inputs_at_fault))
        con.close()

        # Reload: endpoint, refused model, SIGHUP, under load.
        status, body = server.request("POST", "/v1/admin/reload", token=token)
        check(status == 200 and body["model_version"] == 2, "reload: %s" % body)
        bad = os.path.join(work, "bad.pt")
        with open(bad, "w") as f:
            f.write("garbage")
        status, body = server.request("POST", "/v1/admin/reload", {"model": bad}, token)
        check(status == 422 and "current one stays" in body["error"], "a bad model is refused: %s" % body)
        # A copy damaged where its weights stay finite numbers: one flipped bit.
        damaged = os.path.join(work, "damaged.pt")
        with open(shipped, "rb") as f:
            raw = bytearray(f.read())
        raw[-7] ^= 0x01
        with open(damaged, "wb") as f:
            f.write(raw)
        status, body = server.request("POST", "/v1/admin/reload", {"model": damaged}, token)
        check(status == 422 and "do not match the digest" in body.get("error", ""),
              "a damaged model is refused: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/admin/reload", {"model": 5}, token)
        check(status == 400 and '"model" must be' in body.get("error", ""), "a model that is no path: %s %s" % (status, body))
        server.proc.send_signal(signal.SIGHUP)
        time.sleep(1)
        _, health = server.request("GET", "/healthz")
        check(health["model_version"] == 3, "SIGHUP reloads: %s" % health)
        errors = []
        stop = threading.Event()

        def hammer():
            while not stop.is_set():
                s, b = server.request("POST", "/v1/select", {"ir": small, "target": "x86-avx2"}, token)
                if s != 200:
                    errors.append((s, b))
        workers = [threading.Thread(target=hammer) for _ in range(3)]
        for w in workers:
            w.start()
        for _ in range(4):
            status, _ = server.request("POST", "/v1/admin/reload", token=token)
            check(status == 200, "reload under load")
            time.sleep(0.3)
        stop.set()
        for w in workers:
            w.join()
        check(not errors, "no errors under reload: %s" % errors[:3])
        # Workers make their selectors from the model as it was loaded, not
        # from its file: removed after its reload, it is not needed again.
        original = health["model"]
        moved = os.path.join(work, "moved.pt")
        shutil.copy(original, moved)
        status, body = server.request("POST", "/v1/admin/reload", {"model": moved}, token)
        check(status == 200, "reload from a copy: %s %s" % (status, body))
        os.remove(moved)
        status, body = server.request("POST", "/v1/select", {"ir": small, "target": "x86-avx2"}, token)
        check(status == 200 and "pass" in body, "the model's file removed after its reload: %s %s" % (status, body))
        status, body = server.request("POST", "/v1/admin/reload", {"model": original}, token)
        check(status == 200, "reload back: %s %s" % (status, body))

        # Metrics in the Prometheus format; the dashboard's files count too.
        status, _ = server.request("GET", "/static/no-such-file.js", token=token)
        check(status == 404, "a missing dashboard file: %s" % status)
        status, metrics = server.request("GET", "/metrics", token=token)
        for needle in ["# TYPE mqss_requests_total counter",
                       'mqss_requests_total{endpoint="/v1/select",code="200"}',
                       'mqss_request_duration_seconds_bucket{endpoint="/v1/select",le="+Inf"}',
                       "mqss_decisions_total{action=", 'mqss_errors_total{endpoint="/v1/select",kind="bad_request"}',
                       'mqss_errors_total{endpoint="/v1/select",kind="too_large"}',
                       'mqss_requests_total{endpoint="/static",code="404"} 1',
                       'mqss_errors_total{endpoint="/static",kind="not_found"} 1',
                       'mqss_errors_total{endpoint="/v1/select",kind="timeout"}',
                       'mqss_errors_total{endpoint="/v1/select",kind="method_not_allowed"}',
                       'mqss_errors_total{endpoint="/v1/select",kind="unauthorized"}',
                       'mqss_errors_total{endpoint="other",kind="unauthorized"}',
                       'mqss_fallback_switches_total{target="x86-avx2",direction="recovered"} 1',
                       "mqss_model_reloads_total 8", "mqss_select_cache_hits_total"]:
            check(needle in metrics, "metrics contain %s" % needle)
        # Paths a client makes up do not become series of their own.
        check("path-4711" not in metrics, "an unknown path is labelled 'other' in the metrics")
        # Every sample parses, and no series appears twice (bucket bounds such
        # as 0.0005 and 0.001 once both printed as "0.00").
        series = set()
        for line in metrics.splitlines():
            if not line or line.startswith("#"):
                continue
            match = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)', line)
            check(match is not None, "a Prometheus sample line: %r" % line)
            if match:
                float(match.group(2))
                check(match.group(1) not in series, "one sample per series: %s" % match.group(1))
                series.add(match.group(1))
        check('mqss_request_duration_seconds_bucket{endpoint="/v1/select",le="0.0005"}' in metrics,
              "bucket bounds keep their digits")
        check('mqss_requests_total{endpoint="/v1/select",code="413"} 1' in metrics,
              "a body over the limit is counted")
        # Every request counted is timed: per endpoint, the histogram's count
        # is the requests' sum over codes (pages, 401s, 404s and 405s too).
        requests, timed = {}, {}
        for name, endpoint, value in re.findall(
                r'^(mqss_requests_total|mqss_request_duration_seconds_count)\{endpoint="([^"]*)"[^}]*\} (\S+)$',
                metrics, re.M):
            table = requests if name == "mqss_requests_total" else timed
            table[endpoint] = table.get(endpoint, 0) + float(value)
        check(requests == timed and {"/static", "/metrics", "other"} <= set(timed),
              "requests counted and timed alike: %s %s" % (requests, timed))
        check(server.proc.poll() is None, "the server is still up")

        # Retrain: fine-tune on the logged trajectories, A/B on a validation
        # kernel, promote only without regression, then reload the server.
        url = "http://127.0.0.1:%d" % server.port
        common = ["--db=" + db, "--model=" + served_model, "--kernel=batch-matmul-bias-relu",
                  "--targets=x86-avx2", "--server=" + url, "--token=" + token, "--json"]
        before = read_bytes(served_model)
        # A split that selects nothing is refused before a candidate is made.
        out = subprocess.run([mqss, "retrain", "--since=1h", "--split=bogus", *common],
                             capture_output=True, text=True)
        check(out.returncode != 0 and "bogus" in out.stdout
              and not os.path.exists(served_model + ".candidate"),
              "a bad split is refused before fine-tuning: %s %s" % (out.returncode, out.stdout[-300:]))
        out = subprocess.run([mqss, "retrain", "--since=1h", *common], capture_output=True, text=True)
        check(out.returncode == 0, "retrain runs: %s" % out.stderr[-500:])
        if out.returncode == 0:
            r = json.loads(out.stdout)
            check(r["trajectories"] == 9 and r["tasks"] == 1, "retrain used the served episodes: %s" % r)
            no_worse = (r["candidate_scores"]["geomean_vs_default"] >= r["current"]["geomean_vs_default"]
                        and r["candidate_scores"]["failures"] <= r["current"]["failures"])
            check(r["promoted"] == no_worse, "promotion follows the comparison: %s" % r)
            check((read_bytes(served_model) != before) == r["promoted"], "the file is swapped iff promoted")
            if r["promoted"]:
                check(r.get("server_reloaded") is True, "the server reloaded the promoted model")
        # A worse candidate (an untrained network) is refused ...
        untrained_dir = os.path.join(work, "untrained")
        subprocess.run([mqss, "train", "--out=" + untrained_dir, "--updates=1", "--episodes=1",
                        "--bc-epochs=0", "--kernel=gemm", "--targets=x86-avx2",
                        "--db=" + os.path.join(work, "untrained.db")],
                       capture_output=True, check=True)
        untrained = os.path.join(untrained_dir, "model.pt")
        before = read_bytes(served_model)
        out = subprocess.run([mqss, "retrain", "--candidate=" + untrained, *common],
                             capture_output=True, text=True)
        r = json.loads(out.stdout) if out.returncode == 0 else {}
        check(r.get("promoted") is False and "regresses" in r.get("reason", ""),
              "a worse candidate is refused: %s %s" % (r, out.stderr[-300:]))
        check(read_bytes(served_model) == before, "a refused candidate leaves the model alone")
        # ... and a better one (the shipped model, over the untrained one) is promoted.
        with open(served_model, "wb") as f:
            f.write(read_bytes(untrained))
        _, health = server.request("GET", "/healthz")
        version = health["model_version"]
        out = subprocess.run([mqss, "retrain", "--candidate=" + shipped, *common],
                             capture_output=True, text=True)
        r = json.loads(out.stdout) if out.returncode == 0 else {}
        check(r.get("promoted") is True and r.get("server_reloaded") is True,
              "a better candidate is promoted and loaded: %s %s" % (r, out.stderr[-300:]))
        check(read_bytes(served_model) == read_bytes(shipped), "the promoted file is in place")
        check(os.path.exists(served_model + ".previous"), "the replaced model is kept")
        _, health = server.request("GET", "/healthz")
        check(health["model_version"] == version + 1, "the server runs the promoted model")
        con = sqlite3.connect(db)
        runs = con.execute("SELECT promoted FROM retrain_runs").fetchall()
        con.close()
        check(len(runs) == 3 and runs[1][0] == 0 and runs[2][0] == 1, "A/B comparisons stored: %s" % runs)
    finally:
        server.stop()

    # The small-kernel rule, as the server applies it by default.
    plain_db = os.path.join(work, "plain.db")
    plain = Server(mqss, plain_db, "--explore=0.5", "--measure-reps=3", "--threads=1")
    try:
        # /healthz is answered while the one worker is busy (planning 5,000
        # functions takes about a second), not after it.
        fn = ("func.func @f%d(%%a: memref<64xf32>, %%b: memref<64xf32>) {\n  affine.for %%i = 0 to 64 {\n"
              "    %%v = affine.load %%a[%%i] : memref<64xf32>\n    %%w = arith.addf %%v, %%v : f32\n"
              "    affine.store %%w, %%b[%%i] : memref<64xf32>\n  }\n  return\n}\n")
        many = "".join(fn % k for k in range(5000))
        ended = {}

        def busy():
            ended["status"], _ = plain.request("POST", "/v1/pipeline", {"ir": many, "target": "x86-avx2"})
            ended["busy"] = time.time()
        worker = threading.Thread(target=busy)
        worker.start()
        time.sleep(0.3)
        # 16 POSTs wait for the busy worker, and 4 idle connections hold
        # pool threads: /healthz is still answered at once, and a POST past
        # the 16 waiting is told to retry.
        waited = []
        waiting = [threading.Thread(target=lambda: waited.append(
            plain.request("POST", "/v1/select", {"ir": small, "target": "x86-avx2"})[0])) for _ in range(16)]
        for w in waiting:
            w.start()
        idle = [socket.create_connection(("127.0.0.1", plain.port)) for _ in range(4)]
        time.sleep(0.3)
        status, _ = plain.request("GET", "/healthz")
        ended["health"] = time.time()
        over, body = plain.request("POST", "/v1/select", {"ir": small, "target": "x86-avx2"})
        ended["over"] = time.time()
        worker.join()
        for w in waiting:
            w.join()
        for s in idle:
            s.close()
        check(status == 200 and ended["status"] == 200 and ended["health"] < ended["busy"],
              "/healthz is answered while the worker is busy: %s" % ended)
        check(over == 503 and "retry" in body.get("error", "") and ended["over"] < ended["busy"]
              and waited == [200] * 16, "a POST past those waiting is told to retry: %s %s %s" % (over, body, waited))
        # A kernel far smaller than the training kernels gets default's plan,
        # one step at a time as well as whole.
        status, body = plain.request("POST", "/v1/select", {"ir": small, "target": "x86-avx2"})
        cli = json.loads(subprocess.run([mqss, "select", os.path.join(src, "test", "Inputs", "small_matmul.mlir"),
                                         "--target=x86-avx2", "--emit=json"],
                                        capture_output=True, text=True, check=True).stdout)
        check(status == 200 and body.get("chosen") == "default" and "trained on" in body.get("note", "")
              and body.get("pass") == cli["functions"][0]["actions"][0],
              "a small kernel's select is default's first action: %s %s" % (body, cli["functions"][0]["actions"]))
        # One pass at a time follows the plan /v1/pipeline gives whole: to the
        # step limit (the policy's plan for dynamic sizes), for a small kernel
        # whose op count tiling makes unknown (default's plan), and past an
        # action default's plan left out (a tiling a dependence forbade then).
        # A module with an unused declaration returning a tensor (which
        # one-shot bufferization refuses) is prepared by removing it.
        for name in ("dynamic.mlir", "static_counter.mlir", "conv_relu_payload.mlir",
                     "unused_tensor_declaration.mlir"):
            ir = read(os.path.join(src, "test", "Inputs", name))
            status, body = plain.request("POST", "/v1/pipeline", {"ir": ir, "target": "x86-avx2"})
            plan = body.get("actions") or []
            chain, last = select_chain(plain, ir, None, 20)
            check(status == 200 and plan and chain == plan,
                  "the select chain of %s is its pipeline %s: %s (last %s)" % (name, plan, chain, last))
            if name.startswith("unused"):
                check(last.get("preparation") == "symbol-dce", "the preparation removes the declaration: %s" % last)
                check("symbol-dce" in body.get("pipeline_note", ""), "the pipeline says what pasting needs: %s" % body)
            else:
                check("pipeline_note" not in body, "no pasting note on %s: %s" % (name, body))

        # A measured optimize of a small kernel measures the plan it serves,
        # default's, and plays no episode: no trajectory, no safety-net reward.
        status, body = plain.request("POST", "/v1/optimize", {"ir": small, "target": "x86-avx2", "measure": True})
        m = body.get("measured", {})
        _, planned = plain.request("POST", "/v1/pipeline", {"ir": small, "target": "x86-avx2"})
        check(status == 200 and m.get("status") == "ok" and m.get("runtime_ms", 0) > 0
              and "policy played no episode" in m.get("note", "") and "reward" not in m
              and body.get("actions") == planned.get("actions") and body.get("explored") is False,
              "a small kernel's measured optimize measures default's plan: %s %s"
              % ({k: v for k, v in body.items() if k != "ir"}, planned.get("actions")))
        # So is a small TOSA kernel, judged as prepared (TOSA ops have no
        # count: it played an episode).
        status, body = plain.request("POST", "/v1/optimize", {"ir": tosa, "target": "x86-avx2", "measure": True})
        m = body.get("measured", {})
        check(status == 200 and m.get("status") == "ok" and "policy played no episode" in m.get("note", ""),
              "a small TOSA kernel plays no episode: %s %s" % (status, m))
        _, text = plain.request("GET", "/metrics")
        check("mqss_measured_episodes_total{" not in text, "no episode played for a small kernel")
        con = sqlite3.connect(plain_db)
        trajectories = con.execute("SELECT count(*) FROM trajectories").fetchone()[0]
        served = con.execute("SELECT status, reward FROM served WHERE endpoint = '/v1/optimize'").fetchall()
        status, stats = plain.request("GET", "/v1/stats")
        con.close()
        check(stats.get("measured") == 0, "the dashboard counts no episode for small kernels: %s" % stats)
        check(trajectories == 0 and served == [("ok", None), ("ok", None)],
              "a small kernel's measurement is served, not learned from: %d %s" % (trajectories, served))
    finally:
        plain.stop()

    # Without a token every endpoint is open; binding defaults to loopback.
    open_server = Server(mqss, db, "--child-timeout-s=0.3")
    try:
        status, body = open_server.request("POST", "/v1/select", {"ir": small})
        check(status == 200, "auth off: %s" % status)
        # Passes that outlive --child-timeout-s are 504, naming the limit: 200
        # copies of one load/store pair make affine-loop-tile's own legality
        # check (all pairs of accesses) take seconds.
        pairs = "".join("      %%v%d = affine.load %%A[%%i - 1, %%j] : memref<64x64xf32>\n"
                        "      affine.store %%v%d, %%A[%%i, %%j] : memref<64x64xf32>\n" % (k, k)
                        for k in range(200))
        slow = ("func.func @main(%A: memref<64x64xf32>) {\n  affine.for %i = 1 to 63 {\n"
                "    affine.for %j = 1 to 63 {\n" + pairs + "    }\n  }\n  return\n}\n")
        status, body = open_server.request("POST", "/v1/pipeline", {"ir": slow, "target": "x86-avx2"})
        check(status == 504 and "--child-timeout-s=0.30" in body.get("error", ""),
              "passes past the child time limit: %s %s" % (status, body))
        status, text = open_server.request("GET", "/metrics")
        check('mqss_errors_total{endpoint="/v1/pipeline",kind="pass_timeout"} 1' in text,
              "a 504 is counted as a pass timeout, not an internal error")
    finally:
        open_server.stop()

    if FAILURES:
        print("%d check(s) failed; the server's files are kept in %s" % (len(FAILURES), work))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("serve integration: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
