"""Fuzzed protocol lines against `serve <game>`: every line is answered
exactly once (an answer or an `error:` line), the server exits at the end of
its input, and its memory stays bounded."""

import random

from common import run

LINES = 3000
# Real requests of each protocol, the seeds the fuzzer mutates.
REQUESTS = {
    "nim": ["take 5", "take 8", "take 1", "take 0"],
    # (no `result` line: it ends the dialogue, and the lines after it go unread)
    "kalah": ["kalah 3 3 you are player 1", "your move: 3 3 3 / 3 3 3 stores 0 0"],
    "tothello": ["bestMove 5 A1 C6 B8 C8 D8 5 B2 C2 C3 C4 C5 Red",
                 "bestMove 11 C2 F2 C3 F3 C4 D4 E4 F4 C5 F5 G6 6 B1 E1 G1 G4 C6 H7 Black"],
    "tonga": ["init 4 0", "move 4 0 1 2 3", "end 1 2", "init 6 1", "move 1 5"],
    "dominoes": ["init 5 4 0", "reset 3 0 1 2 3 4 5", "play 2 0 1 1 2", "play 0"],
    "reversi": ["getNextMove 7 3 1 ......." , "getNextMove 8 4 0 ........"],
}
TOKENS = ["", " ", "-1", "0", "99999999999999999999", "nan", "\t", "é", "\x00", "\xff", "1e9",
          "9" * 5000, "A1", "Z99", "init", "move", "play", "take", "bestMove", "getNextMove", "/", "stores"]
AGENT = {"tothello": []}


def fuzz_line(rng, seeds):
    """One mutated request: tokens dropped, repeated, replaced or added."""
    words = rng.choice(seeds).split(" ")
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(4)
        i = rng.randrange(len(words) + 1)
        if op == 0 and words:
            del words[min(i, len(words) - 1)]
        elif op == 1:
            words.insert(i, rng.choice(TOKENS))
        elif op == 2 and words:
            words[min(i, len(words) - 1)] = str(rng.randrange(-3, 300))
        else:
            words.insert(i, rng.choice(words or ["x"]))
    return " ".join(words).replace("\n", " ")


def attack(binary, work, tally, seed, games=None):
    """LINES fuzzed lines, in batches, against each game's server."""
    rng = random.Random(seed)
    for game, seeds in REQUESTS.items():
        if games and game not in games:
            continue
        agent = AGENT.get(game, ["--agent", "random"])
        for batch in range(10):
            lines = [fuzz_line(rng, seeds) for _ in range(LINES // 10)]
            stdin = ("\n".join(lines) + "\n").encode(errors="surrogateescape")
            r = run([binary, "serve", game, *agent], stdin, limit=120)
            failures = []
            if r.hung:
                failures.append("hang")
            if r.panicked():
                failures.append("panic or signal")
            answers = r.out.count(b"\n")
            # Kalah's dialogue answers a valid greeting (`kalah m n you are player p`) with nothing.
            greetings = sum(line.startswith("kalah ") for line in lines) if game == "kalah" else 0
            if not len(lines) - greetings <= answers <= len(lines):
                failures.append("answers != lines")
            if r.maxrss_kib > 512 << 10:
                failures.append("memory over 512 MiB")
            tally.case(game, failures, f"batch {batch}: {len(lines)} lines, {answers} answers, rc {r.rc}, "
                       f"{r.maxrss_kib // 1024} MiB, stderr {r.err[-300:]!r}")
            print(("FAIL " if failures else "ok   ") + f"serve {game} batch {batch}: {failures} "
                  f"{answers}/{len(lines)} answers, {r.maxrss_kib // 1024} MiB", flush=True)


KIND_COLUMNS = ["hang", "panic or signal", "answers != lines", "memory over 512 MiB"]
