//! The PseudoTonga 4×4 table: exact value and optimal squares of every position
//! reachable with Black first (10,165,779 positions, densely ranked).

use std::path::Path;

use tabula_solver::retrograde::{self, Inconsistency, Progress, Solution};
use tabula_solver::tonga::space::{POSITIONS, SIDE, SQUARES, TongaSpace};
use tabula_solver::tonga::{Board, Cell};

use crate::format::{Layout, Table, TableError, TableSpec, write_solution};

/// The tonga table: one i8 value and a 16-bit mask of optimal squares per position.
pub const SPEC: TableSpec = TableSpec {
    game: "tonga",
    params: [SIDE as u32, 0, 0, 0],
    layout: Layout {
        value_bytes: 1,
        mask_bytes: 2,
    },
    entries: POSITIONS as u64,
};

const DESCRIPTION: &str = "record = dense rank of a 4x4 board with #B = #W or #W + 1 \
(stones, then occupied set, then black subset, combinatorial number system): \
value = exact final points difference for the player to move under perfect play, \
mask bit r*4+c = square (r, c) is optimal";

/// Why a board cannot be looked up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// Not a 4×4 board.
    #[error("the table is for 4x4 boards, this board is {0}x{0}")]
    Size(usize),
    /// Stone counts no game with Black first can reach.
    #[error("stone counts B {black}, W {white} cannot arise with Black first")]
    Counts {
        /// Black stones.
        black: u32,
        /// White stones.
        white: u32,
    },
}

/// Solves every position; `parallel` spreads each layer over rayon's threads.
pub fn solve(parallel: bool, progress: Progress<'_>) -> Solution {
    retrograde::solve(&TongaSpace, parallel, progress)
        .expect("every move adds a stone, so no layer has a cycle")
}

/// Builds the table and writes it atomically to `path`.
pub fn build(path: &Path, progress: Progress<'_>) -> Result<(), TableError> {
    write_solution(path, &SPEC, &solve(true, progress), DESCRIPTION)
}

/// A checked tonga table, answering lookups.
pub struct TongaTable {
    table: Table,
}

impl TongaTable {
    /// Wraps an opened table after checking it is a tonga 4×4 table.
    pub fn new(table: Table) -> Result<TongaTable, TableError> {
        table.expect(&SPEC)?;
        Ok(TongaTable { table })
    }

    /// Opens `path` with [`Table::open`] (read into memory below its size limit).
    pub fn open(path: &Path) -> Result<TongaTable, TableError> {
        TongaTable::new(Table::open(path)?)
    }

    /// A table built in memory from a solution (for tests).
    pub fn from_solution(solution: &Solution) -> TongaTable {
        TongaTable {
            table: Table::from_solution(&SPEC, solution, DESCRIPTION),
        }
    }

    /// The underlying table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    fn index(board: &Board) -> Result<usize, LookupError> {
        if board.n() != SIDE {
            return Err(LookupError::Size(board.n()));
        }
        TongaSpace::index_of(board).ok_or(LookupError::Counts {
            black: board.stones(tabula_solver::tonga::Colour::Black).count(),
            white: board.stones(tabula_solver::tonga::Colour::White).count(),
        })
    }

    /// Exact final difference for the player to move (given by the stone counts).
    pub fn value(&self, board: &Board) -> Result<i32, LookupError> {
        Ok(i32::from(self.table.value(Self::index(board)?)))
    }

    /// The optimal squares in row-major order (none on a full board).
    pub fn best_moves(&self, board: &Board) -> Result<Vec<Cell>, LookupError> {
        let mask = self.table.best(Self::index(board)?);
        Ok((0..SQUARES as Cell)
            .filter(|c| mask >> c & 1 == 1)
            .collect())
    }

    /// Checks every record against its children; returns the number checked.
    pub fn check_records(&self) -> Result<usize, Inconsistency> {
        retrograde::check(
            &TongaSpace,
            |i| i32::from(self.table.value(i as usize)),
            |i| self.table.best(i as usize),
        )
        .map(|n| n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::tonga::endgame::Endgame;
    use tabula_solver::tonga::{Colour, Position};
    use xxhash_rust::xxh3::xxh3_64;

    /// A small deterministic generator, so the test needs no extra dependency.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn whole_table_against_the_endgame_solver() {
        // The full build takes a few seconds: test the real table, not a part.
        let solution = solve(true, &|_| {});
        // Its bytes are pinned (built before the builder took u64 indices and
        // same-layer edges, and compared byte for byte then).
        let payload = crate::format::encode_records(&solution, SPEC.layout);
        assert_eq!(payload.len(), 30_497_337);
        assert_eq!(xxh3_64(&payload), 0xf543_b70d_8b11_22b6);
        let table = TongaTable::from_solution(&solution);
        assert_eq!(table.check_records(), Ok(POSITIONS));
        let empty = Board::new(4).unwrap();
        let mut game = Endgame::new(&empty).unwrap();
        assert_eq!(table.value(&empty), Ok(game.solve(Colour::Black)));
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for k in 0..3000 {
            let index = next(&mut state) as usize % POSITIONS;
            let board = TongaSpace::board_at(index);
            let mover = board.to_move();
            let mut game = Endgame::new(&board).unwrap();
            let value = table.value(&board).unwrap();
            assert_eq!(value, game.solve(mover), "\n{board}");
            if board.is_full() {
                assert_eq!(value, Position::from_board(board).difference());
            }
            if k % 10 == 0 {
                // The optimal squares are exactly those of best value.
                let values = game.move_values(mover);
                let best: Vec<Cell> = values
                    .iter()
                    .filter(|&&(_, v)| v == value)
                    .map(|&(c, _)| c)
                    .collect();
                assert_eq!(table.best_moves(&board).unwrap(), best, "\n{board}");
            }
        }
    }

    #[test]
    fn lookups_reject_other_boards() {
        let solution = Solution {
            values: vec![0; POSITIONS],
            best: vec![0; POSITIONS],
        };
        let table = TongaTable::from_solution(&solution);
        let six = Board::new(6).unwrap();
        assert_eq!(table.value(&six), Err(LookupError::Size(6)));
        let mut two_black = Board::new(4).unwrap();
        two_black.place(0, Colour::Black);
        two_black.place(1, Colour::Black);
        assert_eq!(
            table.value(&two_black),
            Err(LookupError::Counts { black: 2, white: 0 })
        );
    }
}
