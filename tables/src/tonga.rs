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

    /// Opens `path` with a memory map.
    pub fn open(path: &Path) -> Result<TongaTable, TableError> {
        // SAFETY: tabula replaces tables by renaming, never by rewriting in place.
        TongaTable::new(unsafe { Table::map(path)? })
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
            |i| i32::from(self.table.value(i)),
            |i| self.table.best(i),
        )
    }
}
