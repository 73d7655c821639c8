#!/usr/bin/env python3
"""A sample Kalah player against `tabula referee kalah` (or `tabula play kalah`).

Kalah has no contest protocol; tabula's dialogue is plain lines (the module
documentation of verify/src/kalah.rs). The referee writes:

  kalah <m> <n> you are player <1|2>: ...       once, as each game starts
  tabula plays <pit> [and moves again]          each move of the other side
  your move: <your pits> / <its pits> stores <yours> <its>
  your move again: ...                          after your seed fell in your store
  result <your store> <its store> <win|draw|loss>   when the game is over

Answer each `your move` line with one pit label 1..m of your side (pit m is
next to your store) and flush. Every other line needs no answer. The board
comes whole with each request, so a player keeps no state.

This player takes a pit whose last seed falls in its store (a free move) if
there is one, else the fullest pit. Replace `choose` with your own strategy.

Run it: tabula referee kalah --player 'python3 examples/players/kalah.py' --strict
"""
import sys


def choose(mine):
    """The 0-based pit to sow: a free move first (the rightmost), else the fullest."""
    m = len(mine)
    free = [p for p in range(m) if mine[p] > 0 and mine[p] == m - p]
    if free:
        return free[-1]
    return max((p for p in range(m) if mine[p] > 0), key=lambda p: mine[p])


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            break  # the referee closed the input: the run is over
        if not line.startswith("your move"):
            continue  # the greeting, tabula's moves and the result need no answer
        board = line.split(":", 1)[1]
        mine = [int(seeds) for seeds in board.split("/")[0].split()]
        print(choose(mine) + 1, flush=True)  # one line per answer, flushed


main()
