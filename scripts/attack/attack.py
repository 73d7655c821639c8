#!/usr/bin/env python3
"""Black-box attack on the tabula binary (issue 47): hostile players against
every referee, mutated tables against every verb that opens one, fuzzed lines
against `serve`. Prints a Markdown summary of counts; exit status 1 if any case failed.

    nice -n 10 python3 scripts/attack/attack.py [--bin target/release/tabula] [--seed 47]
"""

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import players  # noqa: E402
import serve  # noqa: E402
import tables  # noqa: E402
from common import Tally  # noqa: E402

SECTIONS = ("players", "tables", "serve")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/tabula", help="the tabula binary")
    parser.add_argument("--seed", type=int, default=47, help="seed of every random choice")
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only these sections")
    parser.add_argument("--games", help="comma-separated referees/games to attack (default: all)")
    args = parser.parse_args()
    binary = os.path.abspath(args.bin)
    if not os.access(binary, os.X_OK):
        sys.exit(f"error: {args.bin}: no such binary (build it: cargo build --release -p tabula-tools)")
    sections = args.only or SECTIONS
    games = set(args.games.split(",")) if args.games else None
    started = time.time()
    report = [f"command: `{' '.join(sys.argv)}`", f"seed: {args.seed}", f"binary: {args.bin}",
              f"load before: `{load()}`", ""]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tabula-attack-") as work:
        markers = itertools.count(1)
        if "players" in sections or "tables" in sections:
            tables.build_small(binary, work)
        # Each section: its title and how it attacks; the players section adds a note.
        runs = {
            "players": ("Hostile players, per referee", players.KIND_COLUMNS,
                        lambda tally: players.attack(binary, work, tally, args.seed, markers, games)),
            "tables": ("Mutated tables, per game and verb", tables.KIND_COLUMNS,
                       lambda tally: tables.attack(binary, work, tally, args.seed, games)),
            "serve": ("Fuzzed lines against serve, per game", serve.KIND_COLUMNS,
                      lambda tally: serve.attack(binary, work, tally, args.seed, games)),
        }
        for section in SECTIONS:
            if section not in sections:
                continue
            title, columns, attack = runs[section]
            tally = Tally()
            note = attack(tally)
            report += [tally.table(title, columns), ""]
            if section == "players":
                report += [note, ""]
            failed += sum(sum(c.values()) for c in tally.failures.values())
            report += examples(tally)
    report += [f"load after: `{load()}`", f"wall time: {time.time() - started:.0f} s",
               f"failures: {failed}"]
    print("\n" + "\n".join(report))
    sys.exit(1 if failed else 0)


def examples(tally):
    """The first failures, word for word, under their table."""
    if not tally.examples:
        return []
    return ["Failures:", ""] + [f"- {e}" for e in tally.examples] + [""]


def load():
    """The machine's load, as `uptime` prints it."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
