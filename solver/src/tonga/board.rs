//! The PseudoTonga board: two sets of stones, parsing, printing and isles.

use std::fmt;

use super::{Bits, Cell, Colour, MAX_CELLS, MAX_N, MIN_N};
use crate::MoveList;

/// Why a board or a move was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TongaError {
    /// The size line is missing or not a number.
    #[error("expected the board size N on the first line, found '{0}'")]
    BadSize(String),
    /// The size is odd or out of range.
    #[error("board size {0} is not an even number from 4 to 16")]
    SizeOutOfRange(usize),
    /// Fewer rows than the size.
    #[error("expected {expected} board rows, found {found}")]
    MissingRows {
        /// Rows needed.
        expected: usize,
        /// Rows present.
        found: usize,
    },
    /// A row of the wrong length.
    #[error("row {row} has {found} cells, expected {expected}")]
    RowLength {
        /// Row number, 0-based.
        row: usize,
        /// Cells found.
        found: usize,
        /// Cells needed.
        expected: usize,
    },
    /// A character other than `.`, `B`, `W`.
    #[error("row {row}: '{ch}' is not one of '.', 'B', 'W'")]
    BadCell {
        /// Row number, 0-based.
        row: usize,
        /// The character.
        ch: char,
    },
    /// Text after the last row.
    #[error("unexpected text after the board: '{0}'")]
    Trailing(String),
    /// A colour line other than `B` or `W`.
    #[error("expected a colour B or W, found '{0}'")]
    BadColour(String),
    /// A move off the board.
    #[error("square ({row}, {col}) is off the {n}x{n} board")]
    OffBoard {
        /// Row given.
        row: i64,
        /// Column given.
        col: i64,
        /// Board side.
        n: usize,
    },
    /// A move on a stone.
    #[error("square ({row}, {col}) is occupied")]
    Occupied {
        /// Row given.
        row: usize,
        /// Column given.
        col: usize,
    },
    /// Stone counts no game with Black first and turns alternating reaches.
    #[error(
        "stone counts B {black}, W {white} cannot arise with Black first (Black has as many stones as White, or one more)"
    )]
    Counts {
        /// Black stones.
        black: u32,
        /// White stones.
        white: u32,
    },
}

/// A PseudoTonga board of side `n` (even, 4..=16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    n: u8,
    black: Bits,
    white: Bits,
}

impl Board {
    /// The empty board of side `n`.
    pub fn new(n: usize) -> Result<Board, TongaError> {
        if !(MIN_N..=MAX_N).contains(&n) || !n.is_multiple_of(2) {
            return Err(TongaError::SizeOutOfRange(n));
        }
        Ok(Board {
            n: n as u8,
            black: Bits::EMPTY,
            white: Bits::EMPTY,
        })
    }

    /// Board side.
    #[inline]
    pub fn n(&self) -> usize {
        self.n as usize
    }

    /// Number of cells.
    #[inline]
    pub fn cells(&self) -> usize {
        self.n() * self.n()
    }

    /// The cell at (row, col).
    #[inline]
    pub fn cell(&self, row: usize, col: usize) -> Cell {
        (row * self.n() + col) as Cell
    }

    /// (row, col) of a cell.
    #[inline]
    pub fn row_col(&self, cell: Cell) -> (usize, usize) {
        (cell as usize / self.n(), cell as usize % self.n())
    }

    /// The stones of one colour.
    #[inline]
    pub fn stones(&self, colour: Colour) -> Bits {
        match colour {
            Colour::Black => self.black,
            Colour::White => self.white,
        }
    }

    /// Occupied cells.
    #[inline]
    pub fn occupied(&self) -> Bits {
        self.black.or(self.white)
    }

    /// Empty cells.
    #[inline]
    pub fn empty(&self) -> Bits {
        Bits::first(self.cells()).and_not(self.occupied())
    }

    /// Number of empty cells.
    pub fn empties(&self) -> usize {
        self.cells() - self.occupied().count() as usize
    }

    /// Whether no cell is empty.
    pub fn is_full(&self) -> bool {
        self.empties() == 0
    }

    /// The colour on a cell, if any.
    #[inline]
    pub fn at(&self, cell: Cell) -> Option<Colour> {
        if self.black.has(cell as usize) {
            Some(Colour::Black)
        } else if self.white.has(cell as usize) {
            Some(Colour::White)
        } else {
            None
        }
    }

    /// Puts a stone on an empty cell.
    #[inline]
    pub fn place(&mut self, cell: Cell, colour: Colour) {
        debug_assert!(self.at(cell).is_none(), "placing on an occupied cell");
        match colour {
            Colour::Black => self.black.set(cell as usize),
            Colour::White => self.white.set(cell as usize),
        }
    }

    /// Removes the stone of a cell.
    #[inline]
    pub fn remove(&mut self, cell: Cell) {
        self.black.clear(cell as usize);
        self.white.clear(cell as usize);
    }

    /// Checks a move given as signed numbers and returns its cell.
    pub fn check_move(&self, row: i64, col: i64) -> Result<Cell, TongaError> {
        let n = self.n();
        if row < 0 || col < 0 || row >= n as i64 || col >= n as i64 {
            return Err(TongaError::OffBoard { row, col, n });
        }
        let cell = self.cell(row as usize, col as usize);
        if self.at(cell).is_some() {
            return Err(TongaError::Occupied {
                row: row as usize,
                col: col as usize,
            });
        }
        Ok(cell)
    }

    /// The colour to move when Black started: Black when the counts are equal.
    pub fn to_move(&self) -> Colour {
        if self.black.count() > self.white.count() {
            Colour::White
        } else {
            Colour::Black
        }
    }

    /// Whether the stone counts fit a game Black started (`#B` is `#W` or `#W + 1`).
    pub fn counts_fit(&self) -> bool {
        let (b, w) = (self.black.count(), self.white.count());
        b == w || b == w + 1
    }

    /// The board, if its stone counts fit a game Black started (see [`Board::counts_fit`]).
    pub fn check_counts(&self) -> Result<(), TongaError> {
        match self.counts_fit() {
            true => Ok(()),
            false => Err(TongaError::Counts {
                black: self.black.count(),
                white: self.white.count(),
            }),
        }
    }

    /// The orthogonal neighbours of a cell (up, left, right, down).
    #[inline]
    pub fn neighbours(&self, cell: Cell) -> MoveList<Cell, 4> {
        crate::grid::orthogonal_neighbours(self.n(), cell)
    }

    /// Every isle of the board, by flood fill.
    pub fn isles(&self) -> Vec<Isle> {
        let mut seen = Bits::EMPTY;
        let mut out = Vec::new();
        let mut stack = [0 as Cell; MAX_CELLS];
        for start in self.occupied().iter() {
            if seen.has(start) {
                continue;
            }
            let colour = self.at(start as Cell).expect("occupied");
            let mut cells = Bits::EMPTY;
            let mut perimeter = Bits::EMPTY;
            let mut top = 0;
            stack[top] = start as Cell;
            top += 1;
            seen.set(start);
            while top > 0 {
                top -= 1;
                let cell = stack[top];
                cells.set(cell as usize);
                for nb in self.neighbours(cell) {
                    match self.at(nb) {
                        None => perimeter.set(nb as usize),
                        Some(c) if c == colour && !seen.has(nb as usize) => {
                            seen.set(nb as usize);
                            stack[top] = nb;
                            top += 1;
                        }
                        Some(_) => {}
                    }
                }
            }
            out.push(Isle {
                colour,
                cells,
                perimeter,
            });
        }
        out
    }

    /// Points of one colour: the sum of the squares of its isles' sizes.
    pub fn points(&self, colour: Colour) -> u32 {
        self.isles()
            .iter()
            .filter(|i| i.colour == colour)
            .map(|i| i.area() * i.area())
            .sum()
    }

    /// The server's evaluation for `server`: the sum over its isles of
    /// area²·perimeter minus the same sum over the other colour's isles.
    pub fn server_eval(&self, server: Colour) -> i64 {
        self.isles()
            .iter()
            .map(|i| {
                let term = i64::from(i.area() * i.area()) * i64::from(i.perimeter.count());
                if i.colour == server { term } else { -term }
            })
            .sum()
    }

    /// Parses `N` then N rows of `.`, `B`, `W` (spaces between cells optional).
    pub fn parse(text: &str) -> Result<Board, TongaError> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let board = Board::parse_size_and_rows(&mut lines)?;
        if let Some(extra) = lines.next() {
            return Err(TongaError::Trailing(extra.to_string()));
        }
        Ok(board)
    }

    /// Parses `N`, a colour line and N rows (the `server-moves` input).
    pub fn parse_with_colour(text: &str) -> Result<(Board, Colour), TongaError> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let size = lines.next().unwrap_or("");
        let colour_line = lines.next().unwrap_or("");
        let colour = Colour::from_letter(colour_line)
            .ok_or_else(|| TongaError::BadColour(colour_line.to_string()))?;
        let mut rest = std::iter::once(size).chain(lines);
        let board = Board::parse_size_and_rows(&mut rest)?;
        if let Some(extra) = rest.next() {
            return Err(TongaError::Trailing(extra.to_string()));
        }
        Ok((board, colour))
    }

    fn parse_size_and_rows<'a>(
        lines: &mut impl Iterator<Item = &'a str>,
    ) -> Result<Board, TongaError> {
        let size = lines.next().unwrap_or("");
        let n: usize = size
            .parse()
            .map_err(|_| TongaError::BadSize(size.to_string()))?;
        let mut board = Board::new(n)?;
        for row in 0..n {
            let line = lines.next().ok_or(TongaError::MissingRows {
                expected: n,
                found: row,
            })?;
            let cells: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
            if cells.len() != n {
                return Err(TongaError::RowLength {
                    row,
                    found: cells.len(),
                    expected: n,
                });
            }
            for (col, &ch) in cells.iter().enumerate() {
                let cell = board.cell(row, col);
                match ch {
                    '.' => {}
                    'B' => board.place(cell, Colour::Black),
                    'W' => board.place(cell, Colour::White),
                    _ => return Err(TongaError::BadCell { row, ch }),
                }
            }
        }
        Ok(board)
    }
}

impl fmt::Display for Board {
    /// N rows of `.`, `B`, `W` separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..self.n() {
            for col in 0..self.n() {
                if col > 0 {
                    f.write_str(" ")?;
                }
                let ch = self.at(self.cell(row, col)).map_or('.', Colour::letter);
                write!(f, "{ch}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// One isle: an orthogonally connected group of stones of one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isle {
    /// Its colour.
    pub colour: Colour,
    /// Its cells.
    pub cells: Bits,
    /// The distinct empty cells orthogonally adjacent to it.
    pub perimeter: Bits,
}

impl Isle {
    /// Number of cells.
    pub fn area(&self) -> u32 {
        self.cells.count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_four_by_four_scores() {
        let board = Board::parse("4\nW W B B\nW B W W\nB W B B\nB W W B\n").unwrap();
        assert_eq!(board.points(Colour::White), 22);
        assert_eq!(board.points(Colour::Black), 18);
        let compact = Board::parse("4\nWWBB\nWBWW\nBWBB\nBWWB").unwrap();
        assert_eq!(compact, board);
    }

    #[test]
    fn statement_six_by_six_isles() {
        let board = Board::parse(
            "6\n. . . . . .\n. . W B . .\n. B W W B .\n. . . W B .\nB W W . . .\n. . B . . .\n",
        )
        .unwrap();
        let sizes = |c: Colour| {
            let mut v: Vec<u32> = board
                .isles()
                .iter()
                .filter(|i| i.colour == c)
                .map(Isle::area)
                .collect();
            v.sort();
            v
        };
        assert_eq!(sizes(Colour::White), vec![2, 4]);
        assert_eq!(sizes(Colour::Black), vec![1, 1, 1, 1, 2]);
        assert_eq!(board.points(Colour::White), 20);
        assert_eq!(board.points(Colour::Black), 8);
    }

    #[test]
    fn perimeter_counts_distinct_empty_neighbours() {
        // The W isle (0,0),(0,1) touches (1,0),(1,1) and (0,2) is black.
        let board = Board::parse("4\nWWB.\n....\n....\n....").unwrap();
        let isles = board.isles();
        let w = isles.iter().find(|i| i.colour == Colour::White).unwrap();
        assert_eq!(w.area(), 2);
        assert_eq!(w.perimeter.count(), 2);
        let b = isles.iter().find(|i| i.colour == Colour::Black).unwrap();
        assert_eq!(b.perimeter.count(), 2);
        // 4·2 for white minus 1·2 for black.
        assert_eq!(board.server_eval(Colour::White), 6);
        assert_eq!(board.server_eval(Colour::Black), -6);
    }

    #[test]
    fn bad_boards_are_rejected() {
        assert_eq!(Board::parse("5\n"), Err(TongaError::SizeOutOfRange(5)));
        assert_eq!(Board::parse("18\n"), Err(TongaError::SizeOutOfRange(18)));
        assert_eq!(Board::parse("2\n"), Err(TongaError::SizeOutOfRange(2)));
        assert!(matches!(Board::parse("x"), Err(TongaError::BadSize(_))));
        assert!(matches!(Board::parse(""), Err(TongaError::BadSize(_))));
        assert_eq!(
            Board::parse("4\n....\n...\n....\n...."),
            Err(TongaError::RowLength {
                row: 1,
                found: 3,
                expected: 4
            })
        );
        assert_eq!(
            Board::parse("4\n....\n..X.\n....\n...."),
            Err(TongaError::BadCell { row: 1, ch: 'X' })
        );
        assert_eq!(
            Board::parse("4\n....\n...."),
            Err(TongaError::MissingRows {
                expected: 4,
                found: 2
            })
        );
        assert!(matches!(
            Board::parse("4\n....\n....\n....\n....\n...."),
            Err(TongaError::Trailing(_))
        ));
        assert!(matches!(
            Board::parse_with_colour("4\nX\n....\n....\n....\n...."),
            Err(TongaError::BadColour(_))
        ));
        let (b, c) = Board::parse_with_colour("4\nW\n....\n.B..\n....\n....").unwrap();
        assert_eq!(c, Colour::White);
        assert_eq!(b.at(b.cell(1, 1)), Some(Colour::Black));
    }

    #[test]
    fn moves_are_checked() {
        let mut board = Board::new(6).unwrap();
        board.place(board.cell(2, 3), Colour::Black);
        assert!(matches!(
            board.check_move(6, 0),
            Err(TongaError::OffBoard { .. })
        ));
        assert!(matches!(
            board.check_move(-1, 0),
            Err(TongaError::OffBoard { .. })
        ));
        assert_eq!(
            board.check_move(2, 3),
            Err(TongaError::Occupied { row: 2, col: 3 })
        );
        assert_eq!(board.check_move(5, 5), Ok(35));
        assert_eq!(board.to_move(), Colour::White);
    }

    #[test]
    fn display_round_trips() {
        let board = Board::parse("4\nWWB.\n.B..\n..W.\n...B").unwrap();
        let text = format!("4\n{board}");
        assert_eq!(Board::parse(&text).unwrap(), board);
    }
}
