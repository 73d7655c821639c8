//! PseudoTonga as a match between two seats, for referees and agents.
//!
//! Seat 0 plays Black and moves first, seat 1 plays White; the scores are each
//! seat's points (the sum of the squares of its isles' sizes).

use super::{Board, Cell, Colour, MAX_CELLS, Position};
use crate::game::{Determinize, Game, IllegalMove, MoveList, Scores, Seat, Turn};

impl Colour {
    /// The seat playing this colour: Black is seat 0.
    pub fn seat(self) -> Seat {
        match self {
            Colour::Black => 0,
            Colour::White => 1,
        }
    }

    /// The colour of `seat`.
    pub fn of_seat(seat: Seat) -> Colour {
        if seat == 0 {
            Colour::Black
        } else {
            Colour::White
        }
    }
}

impl Position {
    /// The empty board of side `n`, Black to move; `None` for a side the game does not have.
    pub fn start(n: usize) -> Option<Position> {
        Board::new(n).ok().map(Position::from_board)
    }
}

impl Game for Position {
    type Move = Cell;
    type Moves = MoveList<Cell, MAX_CELLS>;
    type View = Position;
    type Observation = Cell;
    /// The board side N.
    type Params = usize;

    fn seats(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.board.is_full() {
            Turn::Over
        } else {
            Turn::Seat(self.to_move.seat())
        }
    }

    fn moves(&self) -> Self::Moves {
        self.board.empty().iter().map(|c| c as Cell).collect()
    }

    fn apply(&mut self, cell: Cell) {
        self.board.place(cell, self.to_move);
        self.to_move = self.to_move.other();
    }

    fn scores(&self) -> Scores {
        [Colour::Black, Colour::White]
            .into_iter()
            .map(|c| f64::from(self.board.points(c)))
            .collect()
    }

    fn view(&self, _seat: Seat) -> Position {
        *self
    }

    fn observe(&self, cell: Cell, _seat: Seat) -> Cell {
        cell
    }

    fn view_moves(view: &Position) -> Self::Moves {
        Game::moves(view)
    }

    /// The statement's server: every empty square gets a stone of the other colour.
    fn forfeit(&mut self, seat: Seat) {
        let other = Colour::of_seat(seat).other();
        for cell in self.board.empty().iter() {
            self.board.place(cell as Cell, other);
        }
    }

    fn check_move(&self, cell: Cell) -> Result<(), IllegalMove> {
        let n = self.board.n();
        if usize::from(cell) >= self.board.cells() {
            return Err(IllegalMove(format!(
                "square {cell} is off the {n}x{n} board"
            )));
        }
        let (row, col) = self.board.row_col(cell);
        self.board
            .check_move(row as i64, col as i64)
            .map(|_| ())
            .map_err(|e| IllegalMove(e.to_string()))
    }
}

/// Perfect information: the view is the whole state.
impl Determinize for Position {
    fn sample(view: &Position, _seat: Seat, _rng: &mut impl rand::Rng) -> Position {
        *view
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ZeroSum;

    #[test]
    fn a_match_fills_the_board_and_scores_each_seat() {
        let mut pos = Position::start(4).unwrap();
        assert_eq!(pos.turn(), Turn::Seat(0));
        // Every move in row-major order: rows alternate B W B W.
        for cell in 0..16 {
            assert_eq!(pos.turn(), Turn::Seat(cell % 2));
            pos.check_move(cell as Cell).unwrap();
            Game::apply(&mut pos, cell as Cell);
        }
        assert_eq!(pos.turn(), Turn::Over);
        assert!(Game::moves(&pos).is_empty());
        let scores = pos.scores();
        assert_eq!(scores[0], f64::from(pos.board.points(Colour::Black)));
        assert_eq!(scores[1], f64::from(pos.board.points(Colour::White)));
        // Columns 0, 2 are black, 1, 3 white: four isles of 4 each.
        assert_eq!(scores.as_slice(), &[32.0, 32.0]);
        // The zero-sum view agrees with the scores.
        assert_eq!(pos.final_value(), 0);
        assert!(Position::start(5).is_none());
    }

    #[test]
    fn moves_are_checked_with_reasons() {
        let mut pos = Position::start(6).unwrap();
        Game::apply(&mut pos, 14);
        let err = pos.check_move(14).unwrap_err().to_string();
        assert!(err.contains("square (2, 2) is occupied"), "{err}");
        let err = pos.check_move(36).unwrap_err().to_string();
        assert!(err.contains("off the 6x6 board"), "{err}");
        assert!(pos.check_move(0).is_ok());
    }

    #[test]
    fn a_fault_fills_the_board_for_the_other_seat() {
        let mut pos = Position::start(6).unwrap();
        Game::apply(&mut pos, 14);
        // White (seat 1) faults: Black gets the 35 empty squares, one isle of 36.
        pos.forfeit(1);
        assert_eq!(pos.turn(), Turn::Over);
        assert_eq!(pos.scores().as_slice(), &[1296.0, 0.0]);
        let mut pos = Position::start(6).unwrap();
        Game::apply(&mut pos, 14);
        pos.forfeit(0);
        assert_eq!(pos.scores().as_slice(), &[1.0, 35.0 * 35.0]);
    }
}
