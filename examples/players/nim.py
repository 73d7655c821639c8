#!/usr/bin/env python3
"""A sample Nim player against `tabula referee nim` (the worked example game).

One heap; each player takes one to three stones; whoever takes the last
stone wins. The referee writes `take <heap>` whenever it is your turn (the
stones left); answer how many you take, 1..3 and at most the heap, on one
line, flushed. One process may play several games; the referee closes the
input at the end.

This player leaves a multiple of four when it can (the winning strategy),
else takes one.

Run it: tabula referee nim --player 'python3 examples/players/nim.py' --strict
"""
import sys

for line in iter(sys.stdin.readline, ""):
    words = line.split()
    if len(words) == 2 and words[0] == "take":
        heap = int(words[1])
        print(heap % 4 or 1, flush=True)
