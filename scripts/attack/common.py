"""What every attack section shares: running the binary and judging its exit."""

import os
import signal
import subprocess
import threading
import time
from collections import Counter


class Run:
    """One finished (or killed) run of the binary."""

    def __init__(self, rc, out, err, wall, maxrss_kib, hung):
        self.rc, self.out, self.err = rc, out, err
        self.wall, self.maxrss_kib, self.hung = wall, maxrss_kib, hung

    def panicked(self):
        """A Rust panic, or a death by a signal (SIGBUS, SIGSEGV, SIGABRT...)."""
        text = self.err.decode(errors="replace")
        return self.rc == 101 or self.rc < 0 or "panicked" in text or "RUST_BACKTRACE" in text


def _drain(stream, sink, cap=8 << 20):
    """Reads a pipe to its end, keeping its first `cap` bytes."""
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        if len(sink[0]) < cap:
            sink[0] += chunk
    stream.close()


def _feed(stream, data):
    """Writes stdin and closes it; a reader that went away is no error here."""
    try:
        stream.write(data)
        stream.close()
    except OSError:
        pass


def run(argv, stdin=b"", limit=120.0, cwd=None):
    """Runs argv, feeding stdin; kills its group after `limit` seconds (a hang).

    Samples its peak resident set (VmHWM) every 20 ms while it runs."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=cwd, start_new_session=True,
    )
    out, err = [b""], [b""]
    threads = [threading.Thread(target=_drain, args=(proc.stdout, out)),
               threading.Thread(target=_drain, args=(proc.stderr, err)),
               threading.Thread(target=_feed, args=(proc.stdin, stdin))]
    for t in threads:
        t.start()
    hung = False
    peak_kib = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak_kib = max(peak_kib, high_water_kib(proc.pid))
        if time.monotonic() - start > limit and not hung:
            hung = True
            os.killpg(proc.pid, signal.SIGKILL)
        time.sleep(0.02)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        # A descendant still holding the pipes would block the readers: give up on them.
        t.join(timeout=5)
    # Not wait4's ru_maxrss: exec keeps the forking Python's own peak in it.
    return Run(proc.returncode, out[0], err[0], wall, peak_kib, hung)


def high_water_kib(pid):
    """The process's peak resident set so far (VmHWM), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def live_sleepers(seconds):
    """Pids of live (not zombie) processes whose command line is `sleep SECONDS`."""
    wanted = f"sleep\0{seconds}\0".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if cmdline == wanted and state != b"Z":
            found.append(int(name))
    return found


def kill_pids(pids):
    """Kills the given pids (our own leftover sleepers), ignoring the gone."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class Tally:
    """Cases run and failures by kind, per row of a summary table."""

    def __init__(self):
        self.cases = Counter()
        self.failures = {}
        self.examples = []

    def case(self, row, failures, detail):
        """Counts one case of `row` with its list of failure kinds."""
        self.cases[row] += 1
        bucket = self.failures.setdefault(row, Counter())
        for kind in failures:
            bucket[kind] += 1
        if failures and len(self.examples) < 60:
            self.examples.append(f"{row}: {', '.join(failures)}: {detail}")

    def table(self, title, kinds):
        """The Markdown table: one row per `row`, a column per failure kind."""
        lines = [f"### {title}", "", "| | cases | " + " | ".join(kinds) + " |",
                 "|---|---:|" + "---:|" * len(kinds)]
        for row in sorted(self.cases):
            got = self.failures.get(row, Counter())
            lines.append(f"| {row} | {self.cases[row]} | " + " | ".join(str(got[k]) for k in kinds) + " |")
        total = sum(self.cases.values())
        sums = [sum(self.failures.get(r, Counter())[k] for r in self.cases) for k in kinds]
        lines.append(f"| **total** | {total} | " + " | ".join(str(s) for s in sums) + " |")
        return "\n".join(lines)
