#!/usr/bin/env python3
"""A sample Tothello `bestMove` program (TopCoder Invitational 2001) for
`tabula referee tothello`.

The statement defines a method, int bestMove(String[] redPieces, String[]
blackPieces, String whoseTurn); tabula's line protocol (README: "The line
protocol") writes each call as one line: the method name, then each String[]
as its length followed by its elements, then the String:

  bestMove 5 A1 C6 B8 C8 D8 5 B2 C2 C3 C4 C5 Red

Answer the int on one line and flush: the mover's pieces after its best
move (here 11). Requests come until the referee closes the input.

Tothello's rule: a piece may go on any empty square. Then every opponent
piece whose run of opponent pieces along a row, column or diagonal is closed
at both ends by the mover's pieces changes colour, again and again until
none is left between two of the mover's pieces.

This program tries every empty square, so it answers exactly; the referee
checks each answer.

Run it: tabula referee tothello --player 'python3 examples/players/tothello.py' --cases 100
"""
import sys

AXES = [(0, 1), (1, 0), (1, 1), (1, -1)]


def end_of_run(board, row, col, dr, dc, theirs):
    """The colour (or None) just past the run of `theirs` from (row, col) on."""
    while 0 <= row < 8 and 0 <= col < 8 and board[row][col] == theirs:
        row, col = row + dr, col + dc
    return board[row][col] if 0 <= row < 8 and 0 <= col < 8 else None


def pieces_after(board, row, col, mine, theirs):
    """The mover's pieces once it has put one on (row, col) and flips are done."""
    board = [r[:] for r in board]
    board[row][col] = mine
    changed = True
    while changed:  # flipping only catches more, so repeat until nothing changes
        changed = False
        for r in range(8):
            for c in range(8):
                if board[r][c] != theirs:
                    continue
                for dr, dc in AXES:
                    ahead = end_of_run(board, r, c, dr, dc, theirs)
                    behind = end_of_run(board, r, c, -dr, -dc, theirs)
                    if ahead == mine and behind == mine:
                        board[r][c] = mine
                        changed = True
                        break
    return sum(row.count(mine) for row in board)


def best_move(red, black, whose):
    """bestMove: the most pieces the mover can have after one placement."""
    board = [[None] * 8 for _ in range(8)]
    for colour, squares in (("Red", red), ("Black", black)):
        for square in squares:  # "C4": column C, row 4; A1 is the upper left
            board[int(square[1]) - 1][ord(square[0]) - ord("A")] = colour
    theirs = "Black" if whose == "Red" else "Red"
    return max(pieces_after(board, r, c, whose, theirs)
               for r in range(8) for c in range(8) if board[r][c] is None)


def main():
    for line in iter(sys.stdin.readline, ""):
        words = line.split()
        if not words or words[0] != "bestMove":
            print("error: expected 'bestMove ...'", flush=True)  # one answer a line
            continue
        reds = int(words[1])
        red = words[2:2 + reds]
        blacks = int(words[2 + reds])
        black = words[3 + reds:3 + reds + blacks]
        print(best_move(red, black, words[-1]), flush=True)


main()
