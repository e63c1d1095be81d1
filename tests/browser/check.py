#!/usr/bin/env python3
"""Open an exported page in headless Chromium and report what a reader gets.

Drives Chromium over the DevTools protocol through --remote-debugging-pipe
(file descriptors 3 and 4, NUL-delimited JSON): Python's standard library and
Debian's `chromium` package, nothing else. Prints one JSON object:

  console   console errors and warnings, uncaught exceptions, log errors
            (a CSP violation lands here)
  requests  every URL the page asked for other than itself and data: URLs
  scripts   <script> elements in the DOM; ran: what the transcript's own
            scripts would have set (window.__pwned), document.title
  turns     ids of the main transcript's turn sections
  toggle    a closed <details> opened by a click on its summary, then closed
  collapse  every <details> closed after a click on "Collapse all"
  images    per <img>: complete and naturalWidth (decoded when > 0)
  text      document.body.innerText (for the caller's own checks)

One browser serves every page named, one JSON line each, in order.

usage: check.py PAGE.html[=SCREENSHOT.png] ...
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

DEADLINE = 90.0

JS_REPORT = r"""
(() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  return JSON.stringify({
    scripts: q('script').length,
    ran: [window.__pwned === undefined ? null : String(window.__pwned), document.title],
    turns: q('main > section.turn').map((s) => s.id),
    images: q('img').map((i) => [i.complete, i.naturalWidth]),
    details: q('details').length,
    text: document.body.innerText,
  });
})()
"""

JS_TOGGLE = r"""
(() => {
  const d = document.querySelector('details:not([open])');
  if (!d) return 'no closed details';
  const s = d.querySelector(':scope > summary');
  s.click();
  const opened = d.open;
  s.click();
  return JSON.stringify([opened, d.open]);
})()
"""

JS_COLLAPSE = r"""
(() => {
  const b = document.getElementById('collapse');
  if (!b || b.closest('[hidden]')) return 'no visible collapse button';
  document.getElementById('expand').click();
  const allOpen = Array.from(document.querySelectorAll('details')).every((d) => d.open);
  b.click();
  const allClosed = Array.from(document.querySelectorAll('details')).every((d) => !d.open);
  return JSON.stringify([allOpen, allClosed]);
})()
"""


def high_fd(fd):
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return new


class Pipe:
    def __init__(self, proc, wfd, rfd):
        self.proc, self.w, self.r = proc, wfd, rfd
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id)

    def wait(self, pred, until=None):
        until = until or time.monotonic() + DEADLINE
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                if "method" in m:
                    self.events.append(m)
                if pred(m):
                    if "error" in m:
                        raise RuntimeError(json.dumps(m["error"]))
                    return m
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no chromium on PATH")


def start(profile):
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    to_chrome_r, from_chrome_w = high_fd(to_chrome_r), high_fd(from_chrome_w)

    def fds():
        os.dup2(to_chrome_r, 3)
        os.dup2(from_chrome_w, 4)

    args = [
        browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-extensions", "--remote-debugging-pipe", "--user-data-dir=" + profile,
        "about:blank",
    ]
    # No D-Bus here: without these Chromium waits for one at start.
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:", DBUS_SYSTEM_BUS_ADDRESS="disabled:")
    proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4), env=env,
                            stdout=subprocess.DEVNULL, stderr=open(os.environ.get("CHROMIUM_LOG", os.devnull), "ab"))
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    return Pipe(proc, to_chrome_w, from_chrome_r)


def evaluate(p, session, expr):
    r = p.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session)
    return r["result"]["result"].get("value")


def check(p, page, shot):
    url = "file://" + os.path.abspath(page)
    p.events = []
    target = p.send("Target.createTarget", {"url": "about:blank"})["result"]["targetId"]
    session = p.send("Target.attachToTarget", {"targetId": target, "flatten": True})["result"]["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        p.send(domain + ".enable", {}, session)
    p.send("Emulation.setDeviceMetricsOverride",
           {"width": 1100, "height": 1400, "deviceScaleFactor": 1, "mobile": False}, session)
    p.send("Page.navigate", {"url": url}, session)
    p.wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session)
    report = json.loads(evaluate(p, session, JS_REPORT))
    report["toggle"] = evaluate(p, session, JS_TOGGLE)
    if shot:
        data = p.send("Page.captureScreenshot", {"format": "png"}, session)["result"]["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(data))
    report["collapse"] = evaluate(p, session, JS_COLLAPSE)
    console, requests = [], []
    for e in p.events:
        if e.get("sessionId") != session:
            continue
        m, prm = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and prm.get("type") in ("error", "warning", "assert"):
            console.append("console." + prm["type"] + ": " + json.dumps(prm.get("args")))
        elif m == "Runtime.exceptionThrown":
            console.append("exception: " + json.dumps(prm.get("exceptionDetails", {}).get("text")))
        elif m == "Log.entryAdded" and prm.get("entry", {}).get("level") in ("error", "warning"):
            console.append("log: " + prm["entry"].get("text", ""))
        elif m == "Network.requestWillBeSent":
            u = prm.get("request", {}).get("url", "")
            if u != url and not u.startswith("data:"):
                requests.append(u)
    report["console"] = console
    report["requests"] = requests
    report["page"] = page
    p.send("Target.closeTarget", {"targetId": target})
    print(json.dumps(report), flush=True)


def run(pages):
    profile = tempfile.mkdtemp(prefix="csift-chromium-")
    p = start(profile)
    try:
        for arg in pages:
            page, _, shot = arg.partition("=")
            check(p, page, shot or None)
    finally:
        try:
            p.send("Browser.close")
        except Exception:
            pass
        try:
            p.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    run(sys.argv[1:])
