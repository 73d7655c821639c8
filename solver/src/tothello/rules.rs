//! Tothello rules on bitboards: squares, boards, the chain reaction and `bestMove`.
//!
//! A board is two `u64` masks; bit `row * 8 + col` is the square with column
//! letter `A + col` and row number `1 + row`, so A1 (top left) is bit 0 and H8
//! is bit 63. Nothing here allocates.

use std::fmt;
use std::str::FromStr;

use crate::{MoveList, ZeroSum};

/// A square, `0..64`: `row * 8 + col`, A1 = 0, H1 = 7, A8 = 56.
pub type Square = u8;

/// Every square.
pub const FULL: u64 = u64::MAX;
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;
/// The four corners: they can never be between two pieces.
pub const CORNERS: u64 = 1 | 1 << 7 | 1 << 56 | 1 << 63;
/// The outer ring of squares (corners included).
pub const EDGES: u64 = 0xFF | 0xFF << 56 | FILE_A | FILE_H;

/// Why a board, a square, a turn or a move was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TothelloError {
    /// A square is not a column letter A-H followed by a row 1-8.
    #[error("'{0}' is not a square (column A-H then row 1-8, like C4)")]
    BadSquare(String),
    /// A square is listed twice for one colour.
    #[error("square {square} is listed twice among the {color} pieces")]
    Duplicate {
        /// The square.
        square: String,
        /// The colour whose list repeats it.
        color: Color,
    },
    /// A square is listed for both colours.
    #[error("square {0} is listed as both Red and Black")]
    BothColors(String),
    /// The turn is neither `Red` nor `Black`.
    #[error("'{0}' is not a player (expected Red or Black)")]
    BadTurn(String),
    /// The board has no empty square, so there is no move to place.
    #[error("the board is full: there is no empty square to play")]
    FullBoard,
    /// A move names an occupied square.
    #[error("square {0} is not empty")]
    Occupied(String),
    /// A move was given after the end of the game.
    #[error("the game is over")]
    GameOver,
    /// A move is neither a square nor `pass`.
    #[error("'{0}' is not a move (a square like C4, or pass)")]
    BadMove(String),
}

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Red (R).
    Red,
    /// Black (B), who moves first from the standard start.
    Black,
}

impl Color {
    /// The other player.
    pub fn opponent(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// The name used by the statement: `Red` or `Black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::Red => "Red",
            Color::Black => "Black",
        }
    }

    /// The letter drawn on the board: `R` or `B`.
    pub fn letter(self) -> char {
        match self {
            Color::Red => 'R',
            Color::Black => 'B',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Color {
    type Err = TothelloError;

    /// `Red` or `Black`, exactly as the statement writes them.
    fn from_str(text: &str) -> Result<Color, TothelloError> {
        match text {
            "Red" => Ok(Color::Red),
            "Black" => Ok(Color::Black),
            _ => Err(TothelloError::BadTurn(text.to_string())),
        }
    }
}

/// Parses a square such as `C4` (uppercase column letter, then row digit).
pub fn parse_square(text: &str) -> Result<Square, TothelloError> {
    match text.as_bytes() {
        &[col @ b'A'..=b'H', row @ b'1'..=b'8'] => Ok((row - b'1') * 8 + (col - b'A')),
        _ => Err(TothelloError::BadSquare(text.to_string())),
    }
}

/// The name of a square, such as `C4`.
pub fn square_name(square: Square) -> String {
    let col = (b'A' + square % 8) as char;
    let row = (b'1' + square / 8) as char;
    format!("{col}{row}")
}

/// The pieces of both colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    /// Red pieces, one bit per square.
    pub red: u64,
    /// Black pieces, one bit per square.
    pub black: u64,
}

impl Board {
    /// The board with these pieces, checking squares, repeats and overlaps.
    pub fn from_squares<S: AsRef<str>>(red: &[S], black: &[S]) -> Result<Board, TothelloError> {
        let red = squares_mask(red, Color::Red)?;
        let black = squares_mask(black, Color::Black)?;
        let both = red & black;
        if both != 0 {
            return Err(TothelloError::BothColors(square_name(
                both.trailing_zeros() as Square,
            )));
        }
        Ok(Board { red, black })
    }

    /// The pieces of `color`.
    pub fn pieces(&self, color: Color) -> u64 {
        match color {
            Color::Red => self.red,
            Color::Black => self.black,
        }
    }

    /// The empty squares.
    pub fn empty(&self) -> u64 {
        !(self.red | self.black)
    }

    /// Who holds `square`, if anyone.
    pub fn at(&self, square: Square) -> Option<Color> {
        let bit = 1u64 << square;
        if self.red & bit != 0 {
            Some(Color::Red)
        } else if self.black & bit != 0 {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The board from the mover's and the opponent's masks.
    pub fn from_sides(mover: u64, opponent: u64, color: Color) -> Board {
        match color {
            Color::Red => Board {
                red: mover,
                black: opponent,
            },
            Color::Black => Board {
                red: opponent,
                black: mover,
            },
        }
    }
}

fn squares_mask<S: AsRef<str>>(squares: &[S], color: Color) -> Result<u64, TothelloError> {
    let mut mask = 0u64;
    for text in squares {
        let square = parse_square(text.as_ref())?;
        let bit = 1u64 << square;
        if mask & bit != 0 {
            return Err(TothelloError::Duplicate {
                square: text.as_ref().to_string(),
                color,
            });
        }
        mask |= bit;
    }
    Ok(mask)
}

impl fmt::Display for Board {
    /// The statement's drawing: column letters on top, row numbers on the left.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  A B C D E F G H")?;
        for row in 0..8u8 {
            write!(f, "{}", row + 1)?;
            for col in 0..8u8 {
                let cell = self.at(row * 8 + col).map_or('-', Color::letter);
                write!(f, " {cell}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

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

/// A move of the whole game: a placement or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Put a piece on this empty square.
    Place(Square),
    /// Put nothing down; the opponent moves again.
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place(square) => f.write_str(&square_name(*square)),
            Move::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for Move {
    type Err = TothelloError;

    /// A square (either case, like `C4` or `c4`) or `pass`.
    fn from_str(text: &str) -> Result<Move, TothelloError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        parse_square(&text.to_ascii_uppercase())
            .map(Move::Place)
            .map_err(|_| TothelloError::BadMove(text.to_string()))
    }
}

/// A position of the whole game: the board, who moves, and passes in a row.
///
/// The game ends when the board is full or both players passed in a row; the
/// player with more pieces wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The pieces.
    pub board: Board,
    /// The player to move.
    pub to_move: Color,
    /// Passes in a row just before this position (2 ends the game).
    pub passes: u8,
}

impl Position {
    /// The Othello start: D4 and E5 Red, D5 and E4 Black, Black to move.
    pub fn start() -> Position {
        let board = Board::from_squares(&["D4", "E5"], &["D5", "E4"]).expect("valid start");
        Position::new(board, Color::Black)
    }

    /// `board` with `to_move` to play and no pass before.
    pub fn new(board: Board, to_move: Color) -> Position {
        Position {
            board,
            to_move,
            passes: 0,
        }
    }

    /// The mover's pieces.
    pub fn mover(&self) -> u64 {
        self.board.pieces(self.to_move)
    }

    /// The opponent's pieces.
    pub fn opponent(&self) -> u64 {
        self.board.pieces(self.to_move.opponent())
    }

    /// Empty squares left.
    pub fn empties(&self) -> u32 {
        self.board.empty().count_ones()
    }

    /// Whether the game is over: full board, or two passes in a row.
    pub fn is_finished(&self) -> bool {
        self.board.empty() == 0 || self.passes >= 2
    }

    /// The mover's pieces minus the opponent's.
    pub fn difference(&self) -> i32 {
        self.mover().count_ones() as i32 - self.opponent().count_ones() as i32
    }

    /// The winner once the game is over (`None` for a draw).
    pub fn winner(&self) -> Option<Color> {
        match self.difference() {
            0 => None,
            d if d > 0 => Some(self.to_move),
            _ => Some(self.to_move.opponent()),
        }
    }

    /// Checks that `mv` may be played now.
    pub fn check(&self, mv: Move) -> Result<(), TothelloError> {
        if self.is_finished() {
            return Err(TothelloError::GameOver);
        }
        match mv {
            Move::Place(square) if self.board.at(square).is_some() => {
                Err(TothelloError::Occupied(square_name(square)))
            }
            _ => Ok(()),
        }
    }

    /// Plays a legal move (see [`Position::check`]).
    pub fn apply(&mut self, mv: Move) {
        debug_assert!(self.check(mv).is_ok(), "illegal {mv} in {self:?}");
        match mv {
            Move::Place(square) => {
                let (mover, opponent) = place(self.mover(), self.opponent(), square);
                self.board = Board::from_sides(mover, opponent, self.to_move);
                self.passes = 0;
            }
            Move::Pass => self.passes += 1,
        }
        self.to_move = self.to_move.opponent();
    }

    /// Plays `mv` after checking it.
    pub fn try_apply(&mut self, mv: Move) -> Result<(), TothelloError> {
        self.check(mv)?;
        self.apply(mv);
        Ok(())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board)?;
        write!(
            f,
            "Red {}, Black {}, {} to move",
            self.board.red.count_ones(),
            self.board.black.count_ones(),
            self.to_move
        )
    }
}

impl ZeroSum for Position {
    type Move = Move;
    type Moves = MoveList<Move, 65>;

    /// Every empty square, then pass; nothing once the game is over.
    fn legal_moves(&self) -> Self::Moves {
        let mut moves = MoveList::new();
        if self.is_finished() {
            return moves;
        }
        let mut empty = self.board.empty();
        while empty != 0 {
            moves.push(Move::Place(empty.trailing_zeros() as Square));
            empty &= empty - 1;
        }
        moves.push(Move::Pass);
        moves
    }

    fn play(&mut self, mv: Move) -> i32 {
        self.apply(mv);
        0
    }

    fn final_value(&self) -> i32 {
        self.difference()
    }

    fn is_over(&self) -> bool {
        self.is_finished()
    }
}

#[cfg(test)]
pub(crate) mod reference {
    //! A deliberately simple grid implementation of the statement's rule.

    /// A cell: 0 empty, 1 mover, 2 opponent.
    pub type Grid = [[u8; 8]; 8];

    /// The grid of two masks (mover = 1, opponent = 2).
    pub fn grid(mover: u64, opponent: u64) -> Grid {
        let mut grid = [[0; 8]; 8];
        for (bit, cell) in grid.iter_mut().flatten().enumerate() {
            if mover >> bit & 1 == 1 {
                *cell = 1;
            } else if opponent >> bit & 1 == 1 {
                *cell = 2;
            }
        }
        grid
    }

    /// The masks of a grid.
    pub fn masks(grid: &Grid) -> (u64, u64) {
        let (mut mover, mut opponent) = (0, 0);
        for (bit, &cell) in grid.iter().flatten().enumerate() {
            match cell {
                1 => mover |= 1 << bit,
                2 => opponent |= 1 << bit,
                _ => {}
            }
        }
        (mover, opponent)
    }

    /// Whether the opponent piece at (row, col) lies between two mover pieces.
    pub fn between(grid: &Grid, row: i32, col: i32) -> bool {
        let first_other = |dr: i32, dc: i32| {
            let (mut r, mut c) = (row + dr, col + dc);
            while (0..8).contains(&r) && (0..8).contains(&c) {
                if grid[r as usize][c as usize] != 2 {
                    return grid[r as usize][c as usize];
                }
                r += dr;
                c += dc;
            }
            0
        };
        [(0, 1), (1, 0), (1, 1), (1, -1)]
            .iter()
            .any(|&(dr, dc)| first_other(dr, dc) == 1 && first_other(-dr, -dc) == 1)
    }

    /// Places a mover piece at (row, col), then flips until nothing is between.
    pub fn place(grid: &mut Grid, row: usize, col: usize) {
        grid[row][col] = 1;
        loop {
            let mut flips = Vec::new();
            for r in 0..8 {
                for c in 0..8 {
                    if grid[r][c] == 2 && between(grid, r as i32, c as i32) {
                        flips.push((r, c));
                    }
                }
            }
            if flips.is_empty() {
                return;
            }
            for (r, c) in flips {
                grid[r][c] = 1;
            }
        }
    }

    /// The most mover pieces after one placement, trying every empty square.
    pub fn best_move(grid: &Grid) -> Option<usize> {
        let mut best = None;
        for r in 0..8 {
            for c in 0..8 {
                if grid[r][c] == 0 {
                    let mut next = *grid;
                    place(&mut next, r, c);
                    let count = next.iter().flatten().filter(|&&x| x == 1).count();
                    best = best.max(Some(count));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Parses a drawing: rows of `-`, `R`, `B` separated by spaces, row 1 first.
    fn drawing(text: &str) -> Board {
        let mut board = Board::default();
        for (row, line) in text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            for (col, cell) in line.split_whitespace().enumerate() {
                let bit = 1u64 << (row * 8 + col);
                match cell {
                    "R" => board.red |= bit,
                    "B" => board.black |= bit,
                    _ => assert_eq!(cell, "-"),
                }
            }
        }
        board
    }

    fn squares(mask: u64) -> Vec<String> {
        (0..64u8)
            .filter(|&s| mask >> s & 1 == 1)
            .map(square_name)
            .collect()
    }

    #[test]
    fn squares_are_column_then_row_from_the_top_left() {
        assert_eq!(parse_square("A1"), Ok(0));
        assert_eq!(parse_square("H1"), Ok(7));
        assert_eq!(parse_square("A8"), Ok(56));
        assert_eq!(parse_square("C4"), Ok(3 * 8 + 2));
        for s in 0..64 {
            assert_eq!(parse_square(&square_name(s)), Ok(s));
        }
        for bad in ["", "A", "A9", "I1", "a1", "A0", "A11", "1A"] {
            assert_eq!(
                parse_square(bad),
                Err(TothelloError::BadSquare(bad.to_string()))
            );
        }
    }

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
    fn malformed_boards_are_rejected() {
        assert_eq!(
            Board::from_squares(&["A1", "A1"], &[]),
            Err(TothelloError::Duplicate {
                square: "A1".into(),
                color: Color::Red
            })
        );
        assert_eq!(
            Board::from_squares(&["A1"], &["B2", "A1"]),
            Err(TothelloError::BothColors("A1".into()))
        );
        assert_eq!(
            Board::from_squares(&["Z1"], &[]),
            Err(TothelloError::BadSquare("Z1".into()))
        );
        assert_eq!(
            "red".parse::<Color>(),
            Err(TothelloError::BadTurn("red".into()))
        );
        let full = Board {
            red: 0xFFFF_FFFF,
            black: 0xFFFF_FFFF << 32,
        };
        assert_eq!(best_move(&full, Color::Red), Err(TothelloError::FullBoard));
    }

    /// A random board: each square empty, mover or opponent with random odds.
    pub(crate) fn random_board(rng: &mut ChaCha8Rng) -> (u64, u64) {
        let fill = rng.random_range(0.05..1.0);
        let share = rng.random_range(0.2..0.8);
        let (mut mover, mut opponent) = (0u64, 0u64);
        for bit in 0..64 {
            if rng.random_bool(fill) {
                if rng.random_bool(share) {
                    mover |= 1 << bit;
                } else {
                    opponent |= 1 << bit;
                }
            }
        }
        (mover, opponent)
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

    #[test]
    fn whole_game_passes_and_end() {
        let mut pos = Position::start();
        assert_eq!(pos.to_move, Color::Black);
        assert_eq!(pos.legal_moves().len(), 61);
        pos.apply(Move::Pass);
        assert!(!pos.is_over());
        pos.apply("c4".parse().unwrap());
        assert_eq!(pos.passes, 0);
        pos.apply(Move::Pass);
        pos.apply(Move::Pass);
        assert!(pos.is_over());
        assert!(pos.legal_moves().is_empty());
        assert_eq!(pos.try_apply(Move::Pass), Err(TothelloError::GameOver));
        let mut pos = Position::start();
        assert_eq!(
            pos.try_apply(Move::Place(parse_square("D4").unwrap())),
            Err(TothelloError::Occupied("D4".into()))
        );
        assert_eq!(
            "Z9".parse::<Move>(),
            Err(TothelloError::BadMove("Z9".into()))
        );
    }
}
