#!/usr/bin/env python3
"""A sample PseudoTonga player (TopCoder MM 6) against `tabula referee tonga`.

The statement defines two methods, int[] init(int N, int row, int col) and
int[] move(int row, int col); tabula's line protocol (README: "The line
protocol") writes each call as one line, and an int[] answer as its numbers:

  init N row col   a new game on an N x N board; (row, col) is the server's
                   first stone, or -1 -1 when you start
  move row col     the server's last stone
  end              the game is over: exit (each game is a fresh run)

Answer `init` and each `move` with `row col` (0-based) of an empty square,
on one line, flushed. The server's stone that fills the board is not sent.

This player puts its stone where it joins the most of its own stones into
one isle (the score is the sum of its isles' squared sizes), the first such
square in row-major order. Replace `choose` with your own strategy.

Run it: tabula referee tonga --player 'python3 examples/players/tonga.py' --strict
"""
import sys

EMPTY, MINE, SERVER = 0, 1, 2


def neighbours(n, row, col):
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < n and 0 <= c < n:
            yield r, c


def isle(board, row, col):
    """The squares of the isle holding (row, col)."""
    n, colour = len(board), board[row][col]
    seen, todo = {(row, col)}, [(row, col)]
    while todo:
        for r, c in neighbours(n, *todo.pop()):
            if board[r][c] == colour and (r, c) not in seen:
                seen.add((r, c))
                todo.append((r, c))
    return seen


def joined(board, row, col):
    """The size of my isle once a stone of mine is on the empty (row, col)."""
    isles = [frozenset(isle(board, r, c)) for r, c in neighbours(len(board), row, col)
             if board[r][c] == MINE]
    return 1 + sum(len(i) for i in set(isles))


def choose(board):
    n = len(board)
    empty = [(r, c) for r in range(n) for c in range(n) if board[r][c] == EMPTY]
    return max(empty, key=lambda square: joined(board, *square))


def main():
    board = []
    for line in iter(sys.stdin.readline, ""):
        words = line.split()
        if not words or words[0] == "end":
            break
        if words[0] == "init":
            n, row, col = (int(w) for w in words[1:4])
            board = [[EMPTY] * n for _ in range(n)]
        else:  # move row col
            row, col = int(words[1]), int(words[2])
        if row >= 0:
            board[row][col] = SERVER
        row, col = choose(board)
        board[row][col] = MINE
        print(row, col, flush=True)  # one line per answer, flushed


main()
