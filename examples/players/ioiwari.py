#!/usr/bin/env python3
"""A sample Ioiwari player (IOI 2001): player 1 against `tabula referee ioiwari`.

The protocol is the IOI task's own. The referee writes one line with the
beads of pits 1..7 (clockwise); then player 1 (you) and player 2 alternate:
you write the label 1..7 of a non-empty pit, the referee writes player 2's
pit. The game is over once every pit is empty; the referee then closes your
input. Write one line per move and flush it.

This player is greedy: it plays the move that banks the most beads now
(ties to the lowest label), which the optimal player 2 usually beats.
Replace `choose` with your own strategy.

Run it: tabula referee ioiwari --player 'python3 examples/players/ioiwari.py' --strict
"""
import sys

CAP = 5  # the most beads a pit holds (the IOI game's 5; `--cap` for a variant)


def sow(pits, pit):
    """Plays `pit` (0-based) on `pits` in place; returns (beads to the mover's
    bank, beads to the opponent's bank)."""
    n = len(pits)
    hand, pits[pit] = pits[pit], 0
    at, mine, theirs = pit, 0, 0
    while hand > 1:
        at = (at + 1) % n
        if pits[at] == CAP:  # a full pit pays a bead to the mover's bank
            pits[at] -= 1
            mine += 1
        else:
            pits[at] += 1
            hand -= 1
    at = (at + 1) % n
    if 1 <= pits[at] < CAP:  # the last bead takes the pit's beads to the bank
        mine += pits[at] + 1
        pits[at] = 0
    else:  # an empty or full pit: the last bead goes to the opponent
        theirs += 1
    return mine, theirs


def choose(pits):
    """The non-empty pit (0-based) that banks the most beads net now."""
    def gain(pit):
        mine, theirs = sow(list(pits), pit)
        return mine - theirs
    return max((p for p in range(len(pits)) if pits[p] > 0), key=lambda p: (gain(p), -p))


def main():
    board = sys.stdin.readline().split()
    if not board:
        return
    pits = [int(b) for b in board]  # pit 1 first; a variant's ring may be longer
    while any(pits):
        pit = choose(pits)
        print(pit + 1, flush=True)  # one line per move, flushed
        sow(pits, pit)
        if not any(pits):
            break
        line = sys.stdin.readline()
        if not line:  # the referee ended the game
            break
        sow(pits, int(line) - 1)  # player 2's move


main()
