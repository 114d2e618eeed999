#!/usr/bin/env python3
"""The dashboard at `/` of a real `mqss serve`, opened in headless Chromium.

Starts a token-protected server on a free loopback port, makes three measured
/v1/optimize requests, loads `/?token=...` in headless Chromium and checks every
number on the rendered page against figures computed here, independently, from
the server's SQLite `served` table; then saves a screenshot of the page.
"""

import argparse
import json
import os
import queue
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser

TOKEN = "secret"
TARGET = "x86-avx2"
LISTENING = re.compile(r"mqss serve: listening on (http://[^\s:]+:(\d+))")
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
             "meta", "source", "track", "wbr"}


class TestFailure(Exception):
    pass


# --- The rendered DOM -------------------------------------------------------

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []
        self.texts = []

    def text(self):
        parts = list(self.texts)
        for child in self.children:
            parts.append(child.text())
        return "".join(parts)

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, predicate):
        return [node for node in self.walk() if predicate(node)]


class TreeBuilder(HTMLParser):
    """A DOM tree out of Chromium's --dump-dom output (which is well-formed)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        # Text interleaved with child elements keeps its order only roughly;
        # the cells checked here hold plain text, so that is enough.
        if tag not in VOID_TAGS:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, attrs, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.texts.append(data)


def parse_dom(html):
    builder = TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def by_id(root, ident):
    found = root.find_all(lambda n: n.attrs.get("id") == ident)
    if len(found) != 1:
        raise TestFailure(f"the page has {len(found)} elements with id '{ident}', expected 1")
    return found[0]


def cell(row, cls):
    found = row.find_all(lambda n: n.tag == "td" and cls in n.classes())
    if len(found) != 1:
        raise TestFailure(f"row {row.attrs} has {len(found)} cells of class '{cls}', expected 1")
    return found[0]


# --- Expected figures, from the store ---------------------------------------

def percent(fraction):
    """What the page shows: one decimal, rounded like JavaScript's toFixed."""
    text = str(Decimal(fraction * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    if text == "-0.0":
        text = "0.0"
    return text + "%"


def summarize(measured_rows):
    n = len(measured_rows)
    wins = sum(1 for r in measured_rows if r["speedup"] > 1.0)
    return {
        "measured": n,
        "win_rate": wins / n if n else 0.0,
        "average_improvement": sum(r["speedup"] - 1.0 for r in measured_rows) / n if n else 0.0,
    }


def expected_from_db(db_path):
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        rows = [dict(r) for r in conn.execute(
            "SELECT target, actions, status, speedup, unix_time, trajectory_id FROM served "
            "ORDER BY id")]
    finally:
        conn.close()
    # A stable sort on time: rows logged in the same instant stay in id order.
    # Measured requests the policy played (an episode, logged as a trajectory):
    # not a small kernel's `default` plan measured against itself.
    measured = sorted((r for r in rows if r["status"] == "ok" and r["speedup"] is not None
                       and r["speedup"] > 0 and r["trajectory_id"] is not None),
                      key=lambda r: r["unix_time"])

    expected = summarize(measured)
    expected["requests"] = len(rows)
    expected["per_target"] = {
        target: summarize([r for r in measured if r["target"] == target])
        for target in sorted({r["target"] for r in rows})
    }
    counts = {}
    for r in rows:
        for action in (r["actions"] or "").split(","):
            action = action.strip()
            if action and not action.startswith("finish-"):
                counts[action] = counts.get(action, 0) + 1
    expected["top_passes"] = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    expected["timeline"] = [(r["unix_time"], r["speedup"], r["target"]) for r in measured]
    return expected


# --- Comparison -------------------------------------------------------------

def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_number(errors, what, node, expected_value, expected_text):
    shown = node.text().strip()
    raw = node.attrs.get("data-value")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        errors.append(f"{what}: data-value is {raw!r}, not a number")
        return
    if not close(value, expected_value):
        errors.append(f"{what}: page value {value!r}, store says {expected_value!r}")
    # The server sums in its own order, so its value may differ from ours in
    # the last bit; then the text must be that value, formatted.
    if shown != expected_text and not (close(value, expected_value) and shown == percent(value)):
        errors.append(f"{what}: page shows {shown!r}, expected {expected_text!r}")


def check_page(dom, expected, api_stats):
    errors = []
    body = dom.find_all(lambda n: n.tag == "body")[0]
    if body.attrs.get("data-state") != "ready":
        status = by_id(dom, "status").text().strip()
        raise TestFailure(f"the page did not finish loading (data-state="
                          f"{body.attrs.get('data-state')!r}, status: {status!r})")
    if body.attrs.get("data-charts") != "ready":
        errors.append(f"Chart.js did not load from /static/chart.umd.js "
                      f"(data-charts={body.attrs.get('data-charts')!r})")

    for ident in ("requests", "measured"):
        shown = by_id(dom, ident).text().strip()
        if shown != str(expected[ident]):
            errors.append(f"#{ident}: page shows {shown!r}, store says {expected[ident]}")
    for ident, key in (("win-rate", "win_rate"), ("average-improvement", "average_improvement")):
        check_number(errors, f"#{ident}", by_id(dom, ident), expected[key], percent(expected[key]))

    # Per target: every target with a measured request, ordered by name.
    table = by_id(dom, "per-target")
    rows = table.find_all(lambda n: n.tag == "tr" and "data-target" in n.attrs)
    shown_targets = [r.attrs["data-target"] for r in rows]
    must_show = [t for t, s in expected["per_target"].items() if s["measured"] > 0]
    if shown_targets != sorted(shown_targets):
        errors.append(f"#per-target rows are not ordered by target: {shown_targets}")
    for target in must_show:
        if target not in shown_targets:
            errors.append(f"#per-target lacks target {target!r}")
    api_fallback = {t["target"]: bool(t.get("fallback")) for t in api_stats.get("per_target", [])}
    for row in rows:
        target = row.attrs["data-target"]
        if target not in expected["per_target"]:
            errors.append(f"#per-target shows {target!r}, which the store has no request for")
            continue
        want = expected["per_target"][target]
        shown = cell(row, "measured").text().strip()
        if shown != str(want["measured"]):
            errors.append(f"#per-target {target} measured: page {shown!r}, store {want['measured']}")
        check_number(errors, f"#per-target {target} win rate", cell(row, "win-rate"),
                     want["win_rate"], percent(want["win_rate"]))
        check_number(errors, f"#per-target {target} average improvement",
                     cell(row, "average-improvement"), want["average_improvement"],
                     percent(want["average_improvement"]))
        # Fallback is the server's live safety-net state, not a column sum:
        # the page must show what /v1/stats says.
        fallback = cell(row, "fallback")
        shown_fallback = fallback.attrs.get("data-value")
        want_fallback = "true" if api_fallback.get(target, False) else "false"
        if shown_fallback != want_fallback:
            errors.append(f"#per-target {target} fallback: page {shown_fallback!r}, "
                          f"/v1/stats {want_fallback!r}")
        if not fallback.text().strip():
            errors.append(f"#per-target {target} fallback cell is empty")

    entries = by_id(dom, "top-passes").find_all(lambda n: "data-action" in n.attrs)
    shown_passes = []
    for entry in entries:
        try:
            shown_passes.append((entry.attrs["data-action"], int(entry.attrs.get("data-count"))))
        except (TypeError, ValueError):
            errors.append(f"#top-passes entry {entry.attrs} has no integer data-count")
        if entry.attrs["data-action"] not in entry.text():
            errors.append(f"#top-passes entry {entry.attrs['data-action']!r} does not show its name")
    if shown_passes != expected["top_passes"]:
        errors.append(f"#top-passes: page {shown_passes}, store {expected['top_passes']}")

    points = by_id(dom, "timeline").find_all(lambda n: n.tag == "tr" and "data-t" in n.attrs)
    shown_points = [(float(p.attrs["data-t"]), float(p.attrs["data-speedup"]), p.attrs["data-target"])
                    for p in points]
    if len(shown_points) != len(expected["timeline"]):
        errors.append(f"#timeline: {len(shown_points)} points on the page, "
                      f"{len(expected['timeline'])} measured rows in the store")
    else:
        for i, (got, want) in enumerate(zip(shown_points, expected["timeline"])):
            # Timestamps may be served as whole seconds.
            if abs(got[0] - want[0]) > 1.0 or not close(got[1], want[1]) or got[2] != want[2]:
                errors.append(f"#timeline point {i}: page (t, speedup, target) {got}, store {want}")
    return errors


# --- Processes --------------------------------------------------------------

class Server:
    def __init__(self, mqss, db_path):
        self.log = []
        self.proc = subprocess.Popen(
            [mqss, "serve", "--host=127.0.0.1", "--port=0", f"--db={db_path}", f"--token={TOKEN}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def wait_listening(self, timeout):
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise TestFailure(f"mqss serve printed no listening line within {timeout} s")
            if line is None:
                raise TestFailure(f"mqss serve exited ({self.proc.wait()}) before listening")
            match = LISTENING.search(line)
            if match:
                return match.group(1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def http(url, body=None, token=TOKEN, timeout=30):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def chromium_command(chromium, profile, extra, url):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}",
            "--virtual-time-budget=8000", *extra, url]


def run_chromium(command, cwd, timeout=180):
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"chromium did not finish within {timeout} s: {' '.join(command)}")
    if result.returncode != 0:
        raise TestFailure(f"chromium exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result.stdout


def find_chromium(explicit):
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise TestFailure("no chromium found: install Debian's `chromium` (scripts/install-deps.sh)")


# --- The test ---------------------------------------------------------------

def run(args, tmp):
    mqss = args.mqss or os.path.join(args.build_dir, "bin", "mqss")
    if not os.access(mqss, os.X_OK):
        raise TestFailure(f"{mqss} is not an executable: build the project first")
    chromium = find_chromium(args.chromium)
    inputs = [os.path.join(args.source_dir, "test", "Inputs", "small_matmul.mlir"),
              os.path.join(args.source_dir, "examples", "matmul.mlir"),
              os.path.join(args.source_dir, "test", "Inputs", "small_matmul.mlir")]

    db_path = os.path.join(tmp, "db.sqlite")
    server = Server(mqss, db_path)
    try:
        base = server.wait_listening(timeout=60)
        print(f"dashboard_test: server at {base}")

        # The page has to pass the token itself: without it the stats are refused.
        status, _ = http(f"{base}/v1/stats", token=None)
        if status not in (401, 403):
            raise TestFailure(f"GET /v1/stats without the token answered {status}, expected 401")

        for path in inputs:
            with open(path) as f:
                ir = f.read()
            status, body = http(f"{base}/v1/optimize", {"ir": ir, "target": TARGET, "measure": True},
                                timeout=300)
            if status != 200:
                raise TestFailure(f"POST /v1/optimize ({os.path.basename(path)}) answered {status}: "
                                  f"{body[:500]!r}")
        status, body = http(f"{base}/v1/stats")
        if status != 200:
            raise TestFailure(f"GET /v1/stats answered {status}: {body[:500]!r}")
        api_stats = json.loads(body)

        expected = expected_from_db(db_path)
        if expected["requests"] != len(inputs):
            raise TestFailure(f"the store has {expected['requests']} served rows after "
                              f"{len(inputs)} requests")
        if expected["measured"] == 0:
            raise TestFailure("none of the measured requests left a measured row (status 'ok', "
                              "speedup > 0) in the store")
        print(f"dashboard_test: store has {expected['requests']} requests, "
              f"{expected['measured']} measured, win rate {percent(expected['win_rate'])}, "
              f"average improvement {percent(expected['average_improvement'])}")

        url = f"{base}/?token={TOKEN}"
        html = run_chromium(chromium_command(chromium, os.path.join(tmp, "profile-dom"),
                                             ["--dump-dom"], url), cwd=tmp)
        dom = parse_dom(html)
        errors = check_page(dom, expected, api_stats)
        if errors:
            raise TestFailure("the page disagrees with the store:\n  " + "\n  ".join(errors))
        print("dashboard_test: page numbers match the store")

        screenshot = os.path.abspath(args.screenshot or
                                     os.path.join(args.build_dir, "test", "serve", "dashboard.png"))
        os.makedirs(os.path.dirname(screenshot), exist_ok=True)
        if os.path.exists(screenshot):
            os.remove(screenshot)
        run_chromium(chromium_command(chromium, os.path.join(tmp, "profile-shot"),
                                      [f"--screenshot={screenshot}", "--window-size=1280,1000"], url),
                     cwd=tmp)
        if not os.path.isfile(screenshot):
            raise TestFailure(f"chromium wrote no screenshot at {screenshot}")
        with open(screenshot, "rb") as f:
            png = f.read()
        if not png.startswith(b"\x89PNG\r\n\x1a\n"):
            raise TestFailure(f"{screenshot} is not a PNG")
        if len(png) <= 10 * 1024:
            raise TestFailure(f"{screenshot} is only {len(png)} bytes: the page looks empty")
        print(f"dashboard_test: screenshot {screenshot} ({len(png)} bytes)")
    except TestFailure:
        if server.log:
            sys.stderr.write("--- mqss serve stderr ---\n" + "".join(server.log[-50:]))
        raise
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--screenshot", help="where to save the PNG "
                        "(default: BUILD/test/serve/dashboard.png)")
    parser.add_argument("--mqss", help="the mqss binary (default: BUILD/bin/mqss)")
    parser.add_argument("--chromium", help="the Chromium binary (default: from PATH)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mqss-dashboard-") as tmp:
        try:
            run(args, tmp)
        except TestFailure as failure:
            print(f"dashboard_test: FAIL: {failure}", file=sys.stderr)
            return 1
    print("dashboard_test: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
