#!/usr/bin/env python3
"""Per-move answer times of `tabula serve tonga --agent best` in one game against the server.

Usage (from the workspace root, after cargo build --release): tonga_move_times.py N FIRST [-v]
(FIRST = 1 when the player starts; -v also prints every answer as `empties ms`). The server side
is `tabula tonga server-moves`, first tie. Extra arguments after -v go to `serve` (e.g. --budget 10)."""
import subprocess, time, sys
T = "target/release/tabula"
n = int(sys.argv[1]); player_first = sys.argv[2] == "1"
verbose = len(sys.argv) > 3 and sys.argv[3] == "-v"; extra = sys.argv[4:]
board = [['.']*n for _ in range(n)]
me, srv = ('B','W') if player_first else ('W','B')
p = subprocess.Popen([T, "serve", "tonga", "--agent", "best"] + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def ask(line):
    t = time.time(); p.stdin.write(line+"\n"); p.stdin.flush(); ans = p.stdout.readline().strip(); return ans, time.time()-t
def server_move():
    inp = f"{n}\n{srv}\n" + "\n".join("".join(r) for r in board) + "\n"
    out = subprocess.run([T, "tonga", "server-moves"], input=inp, capture_output=True, text=True).stdout.split("\n")
    r, c = map(int, out[1].split()); board[r][c] = srv; return r, c
times = []; empties = []
if player_first: msg = f"init {n} -1 -1"
else:
    h = n//2 - 1; board[h][h] = srv; msg = f"init {n} {h} {h}"
while True:
    empties.append(sum(x == '.' for row in board for x in row))
    ans, dt = ask(msg); times.append(dt)
    r, c = map(int, ans.split()); assert board[r][c] == '.'; board[r][c] = me
    if all(x != '.' for row in board for x in row): break
    r, c = server_move()
    if all(x != '.' for row in board for x in row): break
    msg = f"move {r} {c}"
p.stdin.close()
if verbose:
    for e, t in zip(empties, times): print(e, f"{t*1000:.1f}")
print(f"N={n} first={player_first} moves={len(times)} total={sum(times):.2f}s max={max(times)*1000:.0f}ms at move {times.index(max(times))}")
