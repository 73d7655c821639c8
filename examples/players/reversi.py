#!/usr/bin/env python3
"""A sample MultiplayerReversi player (TopCoder MM 31) against `tabula referee reversi`.

The statement defines a method, int[] getNextMove(String[] board); tabula's
line protocol (README: "The line protocol") writes each call as one line, the
String[] as its length followed by the rows:

  getNextMove 7 ....... ....... ..123.. ..231.. ..312.. ....... .......

`.` is an empty cell and `1`..`P` a player's piece; you are player 1. Answer
with the int[] {column, row} (0-based, (0,0) the upper left) as `col row`,
on one line, flushed. You are asked only when you have a legal move: an empty
cell from which a straight line (row, column or diagonal) of one or more
other players' pieces ends on one of yours. Each case is one game with a
fresh process; the referee closes the input at its end.

This player takes the move that turns the most pieces (ties to the first in
row-major order). Replace `choose` with your own strategy.

Run it: tabula referee reversi --player 'python3 examples/players/reversi.py' --strict --sizes 7 --cases 1
"""
import sys

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def turned(board, row, col, me="1"):
    """How many pieces a piece of `me` on the empty (row, col) turns."""
    n, total = len(board), 0
    for dr, dc in DIRECTIONS:
        r, c, run = row + dr, col + dc, 0
        while 0 <= r < n and 0 <= c < n and board[r][c] not in (".", me):
            r, c, run = r + dr, c + dc, run + 1
        if run and 0 <= r < n and 0 <= c < n and board[r][c] == me:
            total += run
    return total


def choose(board):
    n = len(board)
    moves = [(turned(board, r, c), -r, -c) for r in range(n) for c in range(n)
             if board[r][c] == "."]
    _, row, col = max(moves)
    return -row, -col


def main():
    for line in iter(sys.stdin.readline, ""):
        words = line.split()  # getNextMove N row1 ... rowN
        if not words:
            continue
        board = words[2:2 + int(words[1])]
        row, col = choose(board)
        print(col, row, flush=True)  # column first, as the statement's int[]


main()
