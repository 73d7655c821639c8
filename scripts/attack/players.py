"""Hostile players against every referee.

Each player is a shell script that starts at least one `sleep MARKER` (a
number unique to the case) in the way its kind detaches it, then misbehaves.
A case passes when the referee exits by itself within its time limit plus the
stated grace, without a panic or a signal death, names the player's fault
(status 1 under --strict) and leaves no `sleep MARKER` alive.
"""

import os
from collections import Counter
import time

from common import kill_pids, live_sleepers, run

TIMEOUT = 2
# The referees' help: "one that closes its output and runs on is given up to
# 5 s more to exit".
GRACE = 5
# Slack for a loaded machine: process start-up and the kill of a descendant tree.
SLACK = 3

# Per referee: the arguments of a short run, and how many player time limits
# the run can spend (its help says what --timeout covers: a game, a case or an answer).
REFEREES = {
    "nim": (["--heaps", "5", "--games", "2", "--strict"], 2),
    "ioiwari": (["--table", "{io7}", "--strict"], 1),
    "kalah": (["--pits", "2", "--seeds", "2", "--strict"], 2),
    "tothello": (["--cases", "0"], 2),
    "tonga": (["--sizes", "4", "--games", "1", "--strict"], 2),
    "dominoes": (["--cases", "5:4", "--games", "1", "--strict"], 2),
    "reversi": (["--sizes", "7", "--cases", "1", "--generations", "1", "--ga-games", "2", "--strict"], 1),
}

PY_SETPGRP = "import os,sys; os.setpgrp(); os.execvp('sleep', ['sleep', sys.argv[1]])"

# Kind name -> shell script; {m} is the marker's seconds.
KINDS = {
    "crash at once": "sleep {m} & exit 3",
    "killed by SIGSEGV": "sleep {m} & kill -SEGV $$",
    "stops itself (SIGSTOP)": "sleep {m} & kill -STOP $$",
    "exits 0 at once, outputs detached": "sleep {m} >/dev/null 2>&1 </dev/null & exit 0",
    "one answer, then exits": "sleep {m} & read l; echo 1; exit 0",
    "stalls silent": "sleep {m} & exec sleep {m}",
    "reads, then stalls": "sleep {m} & read l; exec sleep {m}",
    "nonsense": "sleep {m} & while read l; do echo 'hello there'; done",
    "blank answers": "sleep {m} & while read l; do echo; done",
    "illegal answers": "sleep {m} & while read l; do echo 99; done",
    "negative answers": "sleep {m} & while read l; do echo -1; done",
    "binary garbage": "sleep {m} & printf '\\377\\376\\000\\001\\033[2J\\r\\n'; exec sleep {m}",
    "answer without newline": "sleep {m} & read l; printf 1; exec sleep {m}",
    "floods output, no newline": "sleep {m} & yes 7 | tr -d '\\n'",
    "floods answers typed ahead": "sleep {m} & yes 1",
    "floods stderr": "sleep {m} & yes error | head -c 20000000 >&2; exec sleep {m}",
    "one 64 MB line": "sleep {m} & head -c 64000000 /dev/zero | tr '\\0' 7; echo; exec sleep {m}",
    "closes stdout, runs on": "exec >&-; sleep {m} & exec sleep {m}",
    "closes stdin, runs on": "exec <&-; sleep {m} & exec sleep {m}",
    "closes both, exits": "exec >&- <&-; sleep {m} & exit 0",
    "setsid grandchild, stalls": "setsid sleep {m} & exec sleep {m}",
    "setsid grandchild holds stdout, exits": "setsid sleep {m} & read l; echo 1; exit 0",
    "double fork, nonsense": "( setsid sh -c 'sleep {m} &' ); echo nonsense; exec sleep {m}",
    "double fork, empty env": "( env -i setsid sh -c 'sleep {m} &' ); echo nonsense; exec sleep {m}",
    "own process group": f"python3 -c \"{PY_SETPGRP}\" {{m}} & echo nonsense; exec sleep {{m}}",
    "ignores SIGTERM": "trap '' TERM; sleep {m} & exec sleep {m}",
    "ignores SIGTERM, own session": "trap '' TERM; setsid sleep {m} & echo nonsense; exec sleep {m}",
    "twenty children": "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep {m} & done; exec sleep {m}",
}

FAULT_WORDS = ("timed out", "time-out", "exited", "illegal", "malformed", "closed", "not a", "wrong",
               "bad", "killed", "signal", "invalid", "too long", "unknown", "expected", "no answer",
               "stopped", "empty", "fault")


def attack(binary, work, tally, seed, markers, games=None):
    """Every kind against every referee; `markers` yields unique marker numbers."""
    started = Counter()
    for game, (args, slots) in REFEREES.items():
        if games and game not in games:
            continue
        args = [a.format(io7=os.path.join(work, "io7.tab")) for a in args]
        base = run([binary, "referee", game, *args, "--timeout", str(TIMEOUT), "--player", "exit 0"])
        overhead = base.wall
        mark = os.path.join(work, "mark.sh")
        with open(mark, "w") as f:
            f.write(f'#!/bin/sh\necho "$1" >> {work}/started\nexec sleep "$1"\n')
        for kind, script in KINDS.items():
            marker = f"77{next(markers):03d}"
            path = os.path.join(work, f"player-{marker}.sh")
            # Each sleeper notes that it started (then becomes `sleep MARKER` by exec),
            # so that a case where the referee killed the player first is told apart.
            body = script.replace("sleep {m}", f"sh {mark} {{m}}").format(m=marker)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + body + "\n")
            bound = overhead + slots * TIMEOUT + GRACE + SLACK
            r = run([binary, "referee", game, *args, "--timeout", str(TIMEOUT), "--player", f"sh {path}"],
                    limit=bound + 60)
            failures = judge(r, bound)
            left = live_sleepers(marker)
            if left:
                # A process killed just now may take a moment to go.
                time.sleep(0.5)
                left = live_sleepers(marker)
            if left:
                failures.append("left alive")
                kill_pids(left)
            detail = f"{game} / {kind}: rc {r.rc}, {r.wall:.2f} s (bound {bound:.2f}), " \
                     f"{r.maxrss_kib // 1024} MiB, stderr {r.err[-200:]!r}"
            tally.case(game, failures, detail)
            started[game] += marker in open(os.path.join(work, "started")).read().split() \
                if os.path.exists(os.path.join(work, "started")) else 0
            print(("FAIL " if failures else "ok   ") + detail if failures else f"ok   {game} / {kind} {r.wall:.2f} s",
                  flush=True)
    return started_note(started, tally)


def judge(r, bound):
    """Failure kinds of one referee run against a hostile player."""
    failures = []
    if r.hung:
        failures.append("hang")
    if r.panicked():
        failures.append("panic or signal")
    if r.wall > bound and not r.hung:
        failures.append("over time")
    text = (r.out + r.err).decode(errors="replace").lower()
    if r.rc != 1 or not any(w in text for w in FAULT_WORDS):
        failures.append("fault not named")
    if r.maxrss_kib > 1 << 20:
        failures.append("memory over 1 GiB")
    return failures


KIND_COLUMNS = ["hang", "panic or signal", "over time", "fault not named", "left alive", "memory over 1 GiB"]


def started_note(started, tally):
    """How many cases had a sleeper running before the referee ended the player."""
    parts = [f"{game} {started[game]} of {tally.cases[game]}" for game in sorted(tally.cases)]
    return "Cases whose player had started its marked sleeper (the others were ended first): " + ", ".join(parts)
