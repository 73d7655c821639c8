#!/usr/bin/env python3
"""A bridge between a test and headless Chromium's DevTools protocol.

Usage: cdp_bridge.py CHROMIUM URL

Starts Chromium with --remote-debugging-pipe (it reads commands on fd 3 and
writes answers on fd 4, each a JSON message ended by a NUL byte), attaches
to its page, and then reads commands from stdin, one JSON object a line
({"method": ..., "params": {...}}), sends each to the page's session and
prints its answer as one line of JSON ({"result": ...} or {"error": ...}).
Events are dropped. Standard library only.
"""

import fcntl
import json
import os
import subprocess
import sys
import tempfile


def main():
    chromium, url = sys.argv[1], sys.argv[2]
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()

    def fds():
        # Chromium's pipe ends must be fds 3 and 4 in the child: moved out of
        # the way first, so that neither overwrites the other.
        r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
        os.dup2(r, 3)
        os.dup2(w, 4)

    profile = tempfile.TemporaryDirectory()
    args = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--remote-debugging-pipe", "--user-data-dir=" + profile.name, url,
    ]
    chrome = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=fds,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    out = os.fdopen(to_chrome_w, "wb")
    inp = os.fdopen(from_chrome_r, "rb")
    pending = b""
    next_id = [0]

    def call(method, params=None, session=None):
        next_id[0] += 1
        message = {"id": next_id[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        out.write(json.dumps(message).encode() + b"\0")
        out.flush()
        nonlocal pending
        while True:
            while b"\0" not in pending:
                chunk = inp.read1(65536)
                if not chunk:
                    raise SystemExit("chromium closed its pipe")
                pending += chunk
            raw, pending = pending.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == next_id[0]:
                return answer

    try:
        targets = call("Target.getTargets")["result"]["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session = call("Target.attachToTarget",
                       {"targetId": page["targetId"], "flatten": True})["result"]["sessionId"]
        print(json.dumps({"result": "attached"}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            answer = call(command["method"], command.get("params"), session)
            print(json.dumps({k: answer[k] for k in ("result", "error") if k in answer}),
                  flush=True)
    finally:
        chrome.kill()
        chrome.wait()
        profile.cleanup()


if __name__ == "__main__":
    main()
