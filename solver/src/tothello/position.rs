//! The whole game: moves, positions, and the two game traits.

use std::fmt;
use std::str::FromStr;

use super::board::{Board, Color, Square, TothelloError, parse_square, square_name};
use super::rules::place;
use crate::game::{Determinize, Game, IllegalMove, MoveList, Scores, Seat, Turn};
use crate::zero_sum::ZeroSum;

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

    /// Whether the game is over (the same as [`Position::is_finished`]; an
    /// inherent method, so that calls are not ambiguous between the two game traits).
    pub fn is_over(&self) -> bool {
        self.is_finished()
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
        )?;
        match self.passes {
            0 => Ok(()),
            1 => write!(f, ", after a pass"),
            _ => write!(f, ", after two passes (the game is over)"),
        }
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

/// The seat of a colour in the general game: Black (who moves first from the
/// start) is seat 0, Red seat 1.
pub fn seat_of(color: Color) -> Seat {
    match color {
        Color::Black => 0,
        Color::Red => 1,
    }
}

/// The colour of a seat of the general game (see [`seat_of`]).
pub fn color_of(seat: Seat) -> Color {
    if seat == 0 { Color::Black } else { Color::Red }
}

/// The referee's view: two seats, perfect information, scores are piece counts.
impl Game for Position {
    type Move = Move;
    type Moves = MoveList<Move, 65>;
    type View = Position;
    type Observation = Move;
    /// The opening position of a case.
    type Params = Position;

    fn seats(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.is_finished() {
            Turn::Over
        } else {
            Turn::Seat(seat_of(self.to_move))
        }
    }

    fn moves(&self) -> Self::Moves {
        self.legal_moves()
    }

    fn apply(&mut self, mv: Move) {
        Position::apply(self, mv);
    }

    /// Pieces per seat: Black's, then Red's.
    fn scores(&self) -> Scores {
        [Color::Black, Color::Red]
            .into_iter()
            .map(|c| f64::from(self.board.pieces(c).count_ones()))
            .collect()
    }

    fn view(&self, _seat: Seat) -> Position {
        *self
    }

    fn observe(&self, mv: Move, _seat: Seat) -> Move {
        mv
    }

    fn view_moves(view: &Position) -> Self::Moves {
        view.legal_moves()
    }

    fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        self.check(mv).map_err(|e| IllegalMove(e.to_string()))
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

    #[test]
    fn the_general_game_seats_black_first_and_scores_pieces() {
        let mut pos = Position::start();
        assert_eq!(Game::turn(&pos), Turn::Seat(0));
        assert_eq!(pos.scores().as_slice(), &[2.0, 2.0]);
        assert_eq!(pos.moves().len(), 61);
        let err = pos.check_move(Move::Place(parse_square("D4").unwrap()));
        assert_eq!(
            err.unwrap_err().to_string(),
            "illegal move: square D4 is not empty"
        );
        Game::apply(&mut pos, "C4".parse().unwrap());
        assert_eq!(Game::turn(&pos), Turn::Seat(1));
        assert_eq!(color_of(1), Color::Red);
        Game::apply(&mut pos, Move::Pass);
        Game::apply(&mut pos, Move::Pass);
        assert_eq!(Game::turn(&pos), Turn::Over);
        assert!(pos.moves().is_empty());
        assert_eq!(
            pos.check_move(Move::Pass).unwrap_err().to_string(),
            "illegal move: the game is over"
        );
    }
}
