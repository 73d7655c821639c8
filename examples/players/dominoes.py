#!/usr/bin/env python3
"""A sample Dominoes player (TCO 2009 final) against `tabula referee dominoes`.

The statement defines three methods, int init(int N, int H), int
reset(String first) and String play(String[] hand, String[] line, int
stock); tabula's line protocol (README: "The line protocol") writes each call
as one line, a String[] as its length followed by its elements:

  init N H                     once per case: answer 0
  reset a-b                    once per game, the opening tile: answer 0
  play 2 1-1 0-0 3 3-2 2-0 0-4 6
                               your move: your hand (1-1, 0-0), the line of
                               play as it lies (3-2 2-0 0-4), the stock (6)

Answer `play` with `L<i>` or `R<i>` (put hand[i] at the left or right end of
the line), `DRAW` (only when no tile fits and the stock is not empty) or
`PASS` (only when no tile fits and the stock is empty), on one line, flushed.
One process plays a whole case; the referee closes the input at its end.

This player puts down its heaviest tile that fits, so that few pips stay in
its hand if the game blocks. Replace `choose` with your own strategy.

Run it: tabula referee dominoes --player 'python3 examples/players/dominoes.py' --strict --cases 5:4 --games 10
"""
import sys


def tile(text):
    a, b = text.split("-")
    return int(a), int(b)


def choose(hand, line, stock):
    left, right = line[0][0], line[-1][1]  # the numbers open at each end
    fits = []
    for i, (a, b) in enumerate(hand):
        for end, side in ((left, "L"), (right, "R")):
            if end in (a, b):
                fits.append((a + b, side, i))
    if fits:
        _, side, i = max(fits)
        return f"{side}{i}"
    return "DRAW" if stock > 0 else "PASS"


def main():
    for request in iter(sys.stdin.readline, ""):
        words = request.split()
        if not words:
            continue
        if words[0] in ("init", "reset"):
            print(0, flush=True)
            continue
        # play <hand length> <hand...> <line length> <line...> <stock>
        count = int(words[1])
        hand = [tile(t) for t in words[2:2 + count]]
        rest = words[2 + count:]
        line = [tile(t) for t in rest[1:1 + int(rest[0])]]
        print(choose(hand, line, int(rest[-1])), flush=True)  # one line, flushed


main()
