//! Every position of the 4×4 board reachable with Black first, densely ranked.
//!
//! With `s` stones on the board Black has `ceil(s/2)` of them, so a position is
//! the set of occupied squares (one of `C(16, s)`) and which of them are black
//! (one of `C(s, ceil(s/2))`). The index is the offset of `s`, then both subset
//! ranks in the combinatorial number system: 10,165,779 positions in all, no
//! hole, so a table needs no sparse filter. Layer = number of empty squares.

use super::{Bits, Board, Cell, Colour, Position};
use crate::retrograde::{Edge, StateSpace};

/// Board side of the table.
pub const SIDE: usize = 4;
/// Squares of the table's board.
pub const SQUARES: usize = SIDE * SIDE;

/// Binomial coefficients up to 16.
const fn binomials() -> [[u32; SQUARES + 1]; SQUARES + 1] {
    let mut c = [[0u32; SQUARES + 1]; SQUARES + 1];
    let mut n = 0;
    while n <= SQUARES {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
}

const C: [[u32; SQUARES + 1]; SQUARES + 1] = binomials();

const fn offsets() -> [usize; SQUARES + 2] {
    let mut off = [0usize; SQUARES + 2];
    let mut s = 0;
    while s <= SQUARES {
        off[s + 1] = off[s] + (C[SQUARES][s] as usize) * (C[s][s.div_ceil(2)] as usize);
        s += 1;
    }
    off
}

const OFFSET: [usize; SQUARES + 2] = offsets();

/// Number of positions of the 4×4 table.
pub const POSITIONS: usize = OFFSET[SQUARES + 1];

/// Rank of a `k`-subset (given as a mask of `n` bits) among all `k`-subsets.
fn rank(mask: u32) -> usize {
    let mut r = 0;
    let mut j = 0;
    let mut m = mask;
    while m != 0 {
        let p = m.trailing_zeros() as usize;
        m &= m - 1;
        j += 1;
        r += C[p][j] as usize;
    }
    r
}

/// The `k`-subset of `n` bits with the given rank.
fn unrank(mut r: usize, n: usize, k: usize) -> u32 {
    let mut mask = 0;
    let mut p = n;
    for j in (1..=k).rev() {
        // Largest p with C(p, j) <= r.
        p -= 1;
        while C[p][j] as usize > r {
            p -= 1;
        }
        r -= C[p][j] as usize;
        mask |= 1 << p;
    }
    mask
}

/// The 4×4 positions as a [`StateSpace`] for the retrograde builder.
#[derive(Clone, Copy, Debug, Default)]
pub struct TongaSpace;

impl TongaSpace {
    /// The dense index of a 4×4 board whose counts fit a game Black started.
    pub fn index_of(board: &Board) -> Option<usize> {
        if board.n() != SIDE || !board.counts_fit() {
            return None;
        }
        let occupied = board.occupied().0[0] as u32;
        let black = board.stones(Colour::Black).0[0] as u32;
        let s = occupied.count_ones() as usize;
        let mut pattern = 0u32;
        let mut m = occupied;
        let mut j = 0;
        while m != 0 {
            let p = m.trailing_zeros();
            m &= m - 1;
            if black >> p & 1 != 0 {
                pattern |= 1 << j;
            }
            j += 1;
        }
        let per_set = C[s][s.div_ceil(2)] as usize;
        Some(OFFSET[s] + rank(occupied) * per_set + rank(pattern))
    }

    /// The board with the given index (`index < POSITIONS`).
    pub fn board_at(index: usize) -> Board {
        let s = (0..=SQUARES)
            .find(|&s| index < OFFSET[s + 1])
            .expect("index below POSITIONS");
        let within = index - OFFSET[s];
        let b = s.div_ceil(2);
        let per_set = C[s][b] as usize;
        let occupied = unrank(within / per_set, SQUARES, s);
        let pattern = unrank(within % per_set, s, b);
        let mut board = Board::new(SIDE).expect("side 4");
        let mut m = occupied;
        let mut j = 0;
        while m != 0 {
            let p = m.trailing_zeros();
            m &= m - 1;
            let colour = if pattern >> j & 1 != 0 {
                Colour::Black
            } else {
                Colour::White
            };
            board.place(p as Cell, colour);
            j += 1;
        }
        board
    }

    /// Number of stones on the board with this index.
    fn stones(index: usize) -> usize {
        (0..=SQUARES)
            .find(|&s| index < OFFSET[s + 1])
            .expect("index below POSITIONS")
    }
}

impl StateSpace for TongaSpace {
    fn len(&self) -> u64 {
        POSITIONS as u64
    }

    fn num_layers(&self) -> usize {
        SQUARES + 1
    }

    fn layer(&self, index: u64) -> usize {
        SQUARES - Self::stones(index as usize)
    }

    /// Positions are ranked by stone count first, so each layer is one range.
    fn layer_range(&self, layer: usize) -> Option<std::ops::Range<u64>> {
        let stones = SQUARES - layer;
        Some(OFFSET[stones] as u64..OFFSET[stones + 1] as u64)
    }

    fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
        let board = Self::board_at(index as usize);
        let mover = board.to_move();
        let empty: Bits = board.empty();
        for cell in empty.iter() {
            let mut child = board;
            child.place(cell as Cell, mover);
            visit(Edge {
                slot: cell as u8,
                reward: 0,
                child: Self::index_of(&child).expect("child counts fit") as u64,
                keeps_turn: false,
            });
        }
    }

    fn terminal_value(&self, index: u64) -> i32 {
        Position::from_board(Self::board_at(index as usize)).difference()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tonga::endgame::Endgame;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn about_ten_million_positions() {
        assert_eq!(POSITIONS, 10_165_779);
    }

    #[test]
    fn ranking_round_trips() {
        // Every index of the small layers, and a stride through the big ones.
        let mut index = 0;
        while index < POSITIONS {
            let board = TongaSpace::board_at(index);
            assert!(board.counts_fit());
            assert_eq!(TongaSpace::index_of(&board), Some(index));
            index += if index < 20_000 { 1 } else { 997 };
        }
        let last = TongaSpace::board_at(POSITIONS - 1);
        assert!(last.is_full());
        assert_eq!(TongaSpace::index_of(&last), Some(POSITIONS - 1));
        let mut bad = Board::new(4).unwrap();
        bad.place(0, Colour::White);
        assert_eq!(TongaSpace::index_of(&bad), None);
    }

    #[test]
    fn layer_ranges_partition_the_space_and_agree_with_layer() {
        let space = TongaSpace;
        let mut next = 0;
        // Layers run from 16 empties (the empty board, index 0) down to none.
        for layer in (0..space.num_layers()).rev() {
            let range = space.layer_range(layer).unwrap();
            assert_eq!(range.start, next);
            assert!(!range.is_empty());
            let step = (range.end - range.start).div_ceil(500);
            for index in range.clone().step_by(step as usize).chain([range.end - 1]) {
                assert_eq!(space.layer(index), layer, "index {index}");
            }
            next = range.end;
        }
        assert_eq!(next, space.len());
    }

    #[test]
    fn retrograde_values_match_the_endgame_solver() {
        // Solve the whole space restricted to the last layers (up to 7 empties)
        // by walking the layers from the bottom, then compare with Endgame.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let space = TongaSpace;
        let low = OFFSET[SQUARES - 7];
        let mut values = vec![0i32; POSITIONS - low];
        for index in (low..POSITIONS).rev() {
            let mut best = i32::MIN;
            space.for_each_edge(index as u64, |e| {
                best = best.max(e.reward - values[e.child as usize - low]);
            });
            if best == i32::MIN {
                best = space.terminal_value(index as u64);
            }
            values[index - low] = best;
        }
        let sample: Vec<usize> = (0..300).map(|_| rng.random_range(low..POSITIONS)).collect();
        for &index in &sample {
            let board = TongaSpace::board_at(index);
            let mut game = Endgame::new(&board).unwrap();
            assert_eq!(
                game.solve(board.to_move()),
                values[index - low],
                "\n{board}"
            );
        }
        // The layer of every child is lower.
        for &index in &sample {
            space.for_each_edge(index as u64, |e| {
                assert!(space.layer(e.child) < space.layer(index as u64));
            });
        }
    }
}
