//! PseudoTonga (TopCoder MM 6): stones are placed on an even N×N board until it
//! is full; each player scores the sum of the squares of the sizes of their isles.
//!
//! Cells are numbered `row * n + col`; a board is two 256-bit sets ([`Bits`]).
//! The server's policy lives in [`opponents`], the exact endgame solver in
//! [`endgame`] and the 4×4 state space for the retrograde builder in [`space`].

mod board;
pub mod endgame;
pub mod isles;
pub mod opponents;
mod play;
pub mod space;

pub use crate::grid::Squares as Bits;
pub use board::{Board, Isle, TongaError};

use crate::{MoveList, ZeroSum};

/// Smallest board side handled (the table's size).
pub const MIN_N: usize = 4;
/// Largest board side handled.
pub const MAX_N: usize = 16;
/// Most cells on a board.
pub const MAX_CELLS: usize = MAX_N * MAX_N;

/// A cell, `row * n + col`.
pub type Cell = u8;

/// A stone colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// Black, who moves first.
    Black,
    /// White.
    White,
}

impl Colour {
    /// The other colour.
    pub fn other(self) -> Colour {
        match self {
            Colour::Black => Colour::White,
            Colour::White => Colour::Black,
        }
    }

    /// The letter used on boards, `B` or `W`.
    pub fn letter(self) -> char {
        match self {
            Colour::Black => 'B',
            Colour::White => 'W',
        }
    }

    /// Parses `B` or `W`.
    pub fn from_letter(text: &str) -> Option<Colour> {
        match text.trim() {
            "B" | "b" => Some(Colour::Black),
            "W" | "w" => Some(Colour::White),
            _ => None,
        }
    }
}

/// A position of a game Black started: the board and the colour to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The board.
    pub board: Board,
    /// Who moves next.
    pub to_move: Colour,
}

impl Position {
    /// The position of a board with the mover given by the stone counts.
    pub fn from_board(board: Board) -> Position {
        Position {
            to_move: board.to_move(),
            board,
        }
    }

    /// Final points of the mover minus the opponent's points (the board as it stands).
    pub fn difference(&self) -> i32 {
        let me = self.board.points(self.to_move) as i32;
        let them = self.board.points(self.to_move.other()) as i32;
        me - them
    }
}

impl ZeroSum for Position {
    type Move = Cell;
    type Moves = MoveList<Cell, MAX_CELLS>;

    fn legal_moves(&self) -> Self::Moves {
        self.board.empty().iter().map(|c| c as Cell).collect()
    }

    fn play(&mut self, cell: Cell) -> i32 {
        self.board.place(cell, self.to_move);
        self.to_move = self.to_move.other();
        0
    }

    /// Scored from scratch, by flood fill: the reference for the fast solvers.
    fn final_value(&self) -> i32 {
        self.difference()
    }

    fn is_over(&self) -> bool {
        self.board.is_full()
    }
}
