//! A deliberately plain grid implementation of the rules: a `Vec` of rows,
//! every direction walked cell by cell, a new `Vec` for every answer. The
//! bitboard [`Board`] is tested against it (perft counts, every seat's moves
//! and flips along random games), and the benchmarks time both in one run.

use crate::reversi::Board;

/// A position on a plain grid, seats as numbers and cells as options.
#[derive(Clone, Debug)]
pub struct Plain {
    n: usize,
    p: usize,
    cells: Vec<Vec<Option<usize>>>,
    mover: usize,
}

impl Plain {
    /// The same position as `board`.
    pub fn of(board: &Board) -> Plain {
        let n = board.n();
        let g = board.geometry();
        Plain {
            n,
            p: board.players(),
            cells: (0..n)
                .map(|r| (0..n).map(|c| board.owner(g.square(r, c))).collect())
                .collect(),
            mover: board.mover().unwrap_or(0),
        }
    }

    /// The cells `seat` would flip by playing at row `r`, column `c` (none when it may not play there).
    pub fn flips(&self, seat: usize, r: usize, c: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        if self.cells[r][c].is_some() {
            return out;
        }
        for dr in -1i64..=1 {
            for dc in -1i64..=1 {
                if dr == 0 && dc == 0 {
                    continue;
                }
                let mut run = Vec::new();
                let (mut rr, mut cc) = (r as i64 + dr, c as i64 + dc);
                while rr >= 0 && cc >= 0 && rr < self.n as i64 && cc < self.n as i64 {
                    match self.cells[rr as usize][cc as usize] {
                        Some(o) if o != seat => run.push((rr as usize, cc as usize)),
                        Some(_) => {
                            out.extend(run.iter().copied());
                            break;
                        }
                        None => break,
                    }
                    rr += dr;
                    cc += dc;
                }
            }
        }
        out
    }

    /// The cells where `seat` may play, row-major.
    pub fn moves(&self, seat: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for r in 0..self.n {
            for c in 0..self.n {
                if !self.flips(seat, r, c).is_empty() {
                    out.push((r, c));
                }
            }
        }
        out
    }

    /// Leaves of the game tree `depth` plies deep (skips are not plies).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let Some((seat, moves)) = (0..self.p)
            .map(|k| (self.mover + k) % self.p)
            .map(|seat| (seat, self.moves(seat)))
            .find(|(_, moves)| !moves.is_empty())
        else {
            return 1;
        };
        let mut total = 0;
        for (r, c) in moves {
            let mut next = self.clone();
            for (fr, fc) in self.flips(seat, r, c) {
                next.cells[fr][fc] = Some(seat);
            }
            next.cells[r][c] = Some(seat);
            next.mover = (seat + 1) % self.p;
            total += next.perft(depth - 1);
        }
        total
    }
}
