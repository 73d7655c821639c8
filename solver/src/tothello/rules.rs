//! Tothello's rule on bitboards: the chain reaction, placing a piece and `bestMove`.
//!
//! Nothing here allocates. The board, squares and whole-game types live in
//! [`super::board`] and [`super::position`]; they are re-exported here so that
//! the `tothello::rules::...` paths keep working.

pub use super::board::{
    Board, CORNERS, Color, EDGES, FULL, Square, TothelloError, parse_square, square_name,
};
use super::board::{FILE_A, FILE_H};
pub use super::position::{Move, Position};

/// The eight line directions as (bit shift, mask that removes wrapped bits).
/// Direction `d` and `(d + 4) % 8` are opposite.
const DIRS: [(i32, u64); 8] = [
    (1, !FILE_A),  // east
    (9, !FILE_A),  // south-east
    (8, FULL),     // south
    (7, !FILE_H),  // south-west
    (-1, !FILE_H), // west
    (-9, !FILE_H), // north-west
    (-8, FULL),    // north
    (-7, !FILE_A), // north-east
];

/// Moves every bit one square in direction `d`, dropping those that leave the board.
#[inline(always)]
fn step(bits: u64, d: usize) -> u64 {
    let (shift, mask) = DIRS[d];
    let moved = if shift > 0 {
        bits << shift
    } else {
        bits >> -shift
    };
    moved & mask
}

/// Shifts by a signed bit count (positive: towards higher squares).
#[inline(always)]
fn shift_by(bits: u64, shift: i32) -> u64 {
    if shift > 0 {
        bits << shift
    } else {
        bits >> -shift
    }
}

/// The squares of `through` whose run over `through` in direction `d` first
/// reaches a square of `from` (flood from `from` backwards).
#[inline(always)]
fn run_toward(from: u64, through: u64, d: usize) -> u64 {
    let back = (d + 4) % 8;
    let mut run = step(from, back) & through;
    if run == 0 {
        return 0;
    }
    // Kogge-Stone fill: runs are at most six long, so steps of 1, 2 and 4 do.
    let (shift, mask) = DIRS[back];
    let mut pro = through & mask;
    run |= pro & shift_by(run, shift);
    pro &= shift_by(pro, shift);
    run |= pro & shift_by(run, 2 * shift);
    pro &= shift_by(pro, 2 * shift);
    run | (pro & shift_by(run, 4 * shift))
}

/// The opponent pieces that lie between two of the mover's pieces right now.
#[inline]
pub fn sandwiched(mover: u64, opponent: u64) -> u64 {
    let mut caught = 0;
    for d in 0..4 {
        caught |= run_toward(mover, opponent, d) & run_toward(mover, opponent, d + 4);
    }
    caught
}

/// The opponent pieces that lie between two of the mover's pieces along a line
/// that ends on one of `new` (pieces that just became the mover's; included in `mover`).
#[inline]
fn newly_sandwiched(mover: u64, opponent: u64, new: u64) -> u64 {
    let mut caught = 0;
    for d in 0..8 {
        // Opponent runs whose end in direction d is a new piece...
        let run = run_toward(new, opponent, d);
        if run == 0 {
            continue;
        }
        // ...closed on the other side by a mover's piece...
        let back = (d + 4) % 8;
        let ends = step(run, back) & mover;
        if ends == 0 {
            continue;
        }
        // ...are caught whole: walk back from those ends over the run.
        let mut hit = step(ends, d) & run;
        for _ in 0..5 {
            hit |= step(hit, d) & run;
        }
        caught |= hit;
    }
    caught
}

/// Flips the opponent pieces caught because of `new` (pieces that just became
/// the mover's, already in `mover`), again and again until none is caught.
#[inline]
fn react(mut mover: u64, mut opponent: u64, mut new: u64) -> (u64, u64) {
    // Flipping only makes more pieces caught, so this reaches the unique fixpoint.
    loop {
        let caught = newly_sandwiched(mover, opponent, new);
        if caught == 0 {
            return (mover, opponent);
        }
        mover |= caught;
        opponent &= !caught;
        new = caught;
    }
}

/// A position seen by the mover, with what every placement does first.
///
/// Opponent pieces already between two of the mover's (the game can leave
/// some) change colour with any placement, and so does all they catch in turn;
/// that reaction is the same for every square, so it is played once here.
/// A square then flips more only if it closes an opponent run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settled {
    /// The mover's pieces after the common reaction.
    pub mover: u64,
    /// The opponent's pieces after the common reaction.
    pub opponent: u64,
    /// Empty squares that close an opponent run whose other end is the mover's.
    pub closing: u64,
    /// Per direction d, the opponent pieces whose run in direction d ends on a mover's piece.
    runs: [u64; 8],
}

impl Settled {
    /// Settles `mover` and `opponent` (the mover's pieces and the opponent's).
    #[inline]
    pub fn new(mover: u64, opponent: u64) -> Settled {
        let (mut mover, mut opponent) = (mover, opponent);
        loop {
            let mut runs = [0u64; 8];
            for (d, run) in runs.iter_mut().enumerate() {
                *run = run_toward(mover, opponent, d);
            }
            let mut pre = 0;
            for d in 0..4 {
                pre |= runs[d] & runs[d + 4];
            }
            if pre != 0 {
                (mover, opponent) = react(mover | pre, opponent & !pre, pre);
                continue;
            }
            let mut closing = 0;
            for (d, &run) in runs.iter().enumerate() {
                closing |= step(run, (d + 4) % 8);
            }
            return Settled {
                mover,
                opponent,
                closing: closing & !(mover | opponent),
                runs,
            };
        }
    }

    /// The mover's and the opponent's pieces after placing on the empty `square`.
    #[inline]
    pub fn place(&self, square: Square) -> (u64, u64) {
        let bit = 1u64 << square;
        debug_assert!((self.mover | self.opponent) & bit == 0, "square taken");
        if self.closing & bit == 0 {
            return (self.mover | bit, self.opponent);
        }
        // First wave: the runs next to the square that already end on a mover's
        // piece, read off the settled runs instead of searched for.
        let mut caught = 0;
        for (d, &run) in self.runs.iter().enumerate() {
            let mut hit = step(bit, d) & run;
            if hit != 0 {
                for _ in 0..5 {
                    hit |= step(hit, d) & run;
                }
                caught |= hit;
            }
        }
        react(self.mover | bit | caught, self.opponent & !caught, caught)
    }
}

/// Places a piece on the empty `square` and runs the chain reaction.
///
/// Returns the mover's and the opponent's pieces afterwards.
pub fn place(mover: u64, opponent: u64, square: Square) -> (u64, u64) {
    Settled::new(mover, opponent).place(square)
}

/// The result of `bestMove`: the largest piece count and every square reaching it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The mover's pieces after the best placement.
    pub pieces: u32,
    /// Every empty square whose placement reaches `pieces`.
    pub squares: u64,
}

/// `bestMove` on masks: `None` when the board is full.
#[inline]
pub fn best_move_bits(mover: u64, opponent: u64) -> Option<BestMove> {
    let empty = !(mover | opponent);
    if empty == 0 {
        return None;
    }
    let settled = Settled::new(mover, opponent);
    // Squares that close nothing add just the placed piece.
    let mut best = BestMove {
        pieces: settled.mover.count_ones() + 1,
        squares: empty & !settled.closing,
    };
    let mut rest = settled.closing;
    while rest != 0 {
        let square = rest.trailing_zeros() as Square;
        rest &= rest - 1;
        let pieces = settled.place(square).0.count_ones();
        if pieces > best.pieces {
            best = BestMove {
                pieces,
                squares: 1 << square,
            };
        } else if pieces == best.pieces {
            best.squares |= 1 << square;
        }
    }
    Some(best)
}

/// The statement's `bestMove`: the most pieces `turn` can own after one placement.
pub fn best_move(board: &Board, turn: Color) -> Result<BestMove, TothelloError> {
    best_move_bits(board.pieces(turn), board.pieces(turn.opponent()))
        .ok_or(TothelloError::FullBoard)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tothello::reference::{self, drawing, random_board, squares};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn statement_example_black_c1_gives_16() {
        let board = Board::from_squares(
            &[
                "C2", "C3", "C4", "C5", "D4", "E4", "F2", "F3", "F4", "F5", "G6",
            ],
            &["B1", "E1", "G1", "C6", "H7", "G4"],
        )
        .unwrap();
        let best = best_move(&board, Color::Black).unwrap();
        assert_eq!(best.pieces, 16);
        // C1 as in the statement; D3 happens to reach 16 too.
        assert_eq!(squares(best.squares), vec!["C1", "D3"]);
        let grid = reference::grid(board.black, board.red);
        assert_eq!(reference::best_move(&grid), Some(16));
        // The statement's final board after C1.
        let (black, red) = place(board.black, board.red, parse_square("C1").unwrap());
        let after = Board { red, black };
        let expected = drawing(
            "- B B - B - B -
             - - B - - R - -
             - - B - - R - -
             - - B B B B B -
             - - B - - B - -
             - - B - - - B -
             - - - - - - - B
             - - - - - - - -",
        );
        assert_eq!(after, expected, "\n{after}");
    }

    #[test]
    fn statement_example_red_c1_gives_11() {
        let board = Board::from_squares(
            &["A1", "B8", "C6", "C8", "D8"],
            &["B2", "C2", "C3", "C4", "C5"],
        )
        .unwrap();
        let best = best_move(&board, Color::Red).unwrap();
        assert_eq!(best.pieces, 11);
        assert!(best.squares & 1 << parse_square("C1").unwrap() != 0);
        let grid = reference::grid(board.red, board.black);
        assert_eq!(reference::best_move(&grid), Some(11));
    }

    /// The statement's four "between" diagrams, as a test of [`sandwiched`]
    /// (Black pieces between two Red pieces) and of the simple reference.
    #[test]
    fn statement_between_diagrams() {
        let cases = [
            (
                "- - - R - - - -
                 - - - B - - - -
                 - - - B - - - -
                 - - - B - - - -
                 - - - R - - - -",
                true,
            ),
            (
                "- - - R - - - -
                 - - - B B - - -
                 - - - B - B - -
                 - - - R R R R R",
                true,
            ),
            (
                "- - - R - - - -
                 - - - B R - - -
                 - - - - - - - -
                 - - - R R - - -",
                false,
            ),
            (
                "R R R R R R R R
                 R - - - - - - R
                 R - B B - B - R
                 R - B B B B - R
                 R - - - - - - R
                 R R R R R R R R",
                false,
            ),
        ];
        for (i, (text, all_between)) in cases.iter().enumerate() {
            let board = drawing(text);
            let caught = sandwiched(board.red, board.black);
            let expected = if *all_between { board.black } else { 0 };
            assert_eq!(caught, expected, "diagram {}", i + 1);
            let grid = reference::grid(board.red, board.black);
            for bit in 0..64 {
                if board.black >> bit & 1 == 1 {
                    let between = reference::between(&grid, bit / 8, bit % 8);
                    assert_eq!(between, *all_between, "diagram {} square {bit}", i + 1);
                }
            }
        }
    }

    #[test]
    fn a_placement_needs_no_capture() {
        let board = Board::from_squares(&["A1"], &["H8"]).unwrap();
        let best = best_move(&board, Color::Red).unwrap();
        assert_eq!(best.pieces, 2);
        assert_eq!(best.squares, board.empty());
    }

    #[test]
    fn chain_reaction_reaches_pieces_off_the_placed_lines() {
        // Red at A3 catches A2 (between A1 and A3); the new A2 then closes B2..C2
        // on row 2 with D2, which is on no line through A3.
        let board = drawing(
            "R - - - - - - -
             B B B R - - - -
             - - - - - - - -",
        );
        let (red, black) = place(board.red, board.black, parse_square("A3").unwrap());
        assert_eq!(black, 0);
        assert_eq!(red.count_ones(), 6);
    }

    #[test]
    fn pieces_already_between_flip_with_any_placement() {
        // B2 is already between A2 and C2 (a position the game can reach).
        let board = drawing(
            "- - - - - - - -
             R B R - - - - -",
        );
        let (red, black) = place(board.red, board.black, parse_square("H8").unwrap());
        assert_eq!(black, 0);
        assert_eq!(red.count_ones(), 4);
        assert_eq!(best_move(&board, Color::Red).unwrap().pieces, 4);
    }

    #[test]
    fn bitboards_match_the_simple_grid_rule_on_random_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut chains = 0;
        for _ in 0..3000 {
            let (mover, opponent) = random_board(&mut rng);
            let grid = reference::grid(mover, opponent);
            let mut empty = !(mover | opponent);
            while empty != 0 {
                let square = empty.trailing_zeros() as Square;
                empty &= empty - 1;
                let mut next = grid;
                reference::place(&mut next, square as usize / 8, square as usize % 8);
                let got = place(mover, opponent, square);
                assert_eq!(
                    got,
                    reference::masks(&next),
                    "{mover:x} {opponent:x} at {square}"
                );
                if got.0.count_ones() > mover.count_ones() + 2 {
                    chains += 1;
                }
            }
            let best = best_move_bits(mover, opponent).map(|b| b.pieces as usize);
            assert_eq!(best, reference::best_move(&grid));
        }
        assert!(
            chains > 1000,
            "random boards should exercise flips: {chains}"
        );
    }

    #[test]
    fn best_move_squares_are_exactly_the_maximisers() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..500 {
            let (mover, opponent) = random_board(&mut rng);
            let Some(best) = best_move_bits(mover, opponent) else {
                continue;
            };
            let mut maximisers = 0u64;
            let mut empty = !(mover | opponent);
            while empty != 0 {
                let square = empty.trailing_zeros() as Square;
                empty &= empty - 1;
                if place(mover, opponent, square).0.count_ones() == best.pieces {
                    maximisers |= 1 << square;
                }
            }
            assert_eq!(best.squares, maximisers);
        }
    }
}
