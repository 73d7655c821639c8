//! Squares, boards and their notation: two `u64` masks, one bit per square.
//!
//! Bit `row * 8 + col` is the square with column letter `A + col` and row
//! number `1 + row`, so A1 (top left) is bit 0 and H8 is bit 63.

use std::fmt;
use std::str::FromStr;

/// A square, `0..64`: `row * 8 + col`, A1 = 0, H1 = 7, A8 = 56.
pub type Square = u8;

/// Every square.
pub const FULL: u64 = u64::MAX;
pub(crate) const FILE_A: u64 = 0x0101_0101_0101_0101;
pub(crate) const FILE_H: u64 = FILE_A << 7;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tothello::rules::best_move;

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
}
