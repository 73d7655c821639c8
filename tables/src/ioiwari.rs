//! The Ioiwari table: value and optimal moves of each of the 6^7 boards.

use std::path::Path;

use tabula_solver::ioiwari::{Board, IoiwariSpace, NUM_BOARDS, PITS, Pit};
use tabula_solver::retrograde::{self, Progress, Solution};

use crate::format::{Layout, Table, TableError, TableSpec, write_solution};

/// The Ioiwari table: one i8 value and one byte of optimal pits per board.
pub const SPEC: TableSpec = TableSpec {
    game: "ioiwari",
    params: [PITS as u32, 5, 0, 0],
    layout: Layout {
        value_bytes: 1,
        mask_bytes: 1,
    },
    entries: NUM_BOARDS as u64,
};

const DESCRIPTION: &str = "record = board index (pit 1 least significant base-6 digit): \
value = best bank difference for the player to move, mask bit p = pit p+1 is optimal";

/// Solves every board; `parallel` spreads each bead-count layer over rayon's threads.
pub fn solve(parallel: bool, progress: Progress<'_>) -> Solution {
    retrograde::solve(&IoiwariSpace, parallel, progress)
        .expect("every move takes beads out of the pits, so no layer has a cycle")
}

/// Builds the table and writes it atomically to `path`.
pub fn build(path: &Path, progress: Progress<'_>) -> Result<(), TableError> {
    write_solution(path, &SPEC, &solve(true, progress), DESCRIPTION)
}

/// A checked Ioiwari table, answering lookups.
pub struct IoiwariTable {
    table: Table,
}

impl IoiwariTable {
    /// Wraps an opened table after checking it is an Ioiwari table.
    pub fn new(table: Table) -> Result<IoiwariTable, TableError> {
        table.expect(&SPEC)?;
        Ok(IoiwariTable { table })
    }

    /// Solves every board in memory (a few milliseconds).
    pub fn in_memory() -> IoiwariTable {
        let solution = solve(true, &|_| {});
        IoiwariTable {
            table: Table::from_solution(&SPEC, &solution, DESCRIPTION),
        }
    }

    /// Opens `path` with [`Table::open`] (read into memory), or builds the table in memory when `None`.
    pub fn open_or_build(path: Option<&Path>) -> Result<IoiwariTable, TableError> {
        match path {
            Some(path) => IoiwariTable::new(Table::open(path)?),
            None => Ok(IoiwariTable::in_memory()),
        }
    }

    /// The underlying table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Best bank difference for the player to move on `board`.
    #[inline]
    pub fn value(&self, board: &Board) -> i32 {
        i32::from(self.table.value(board.index()))
    }

    /// Optimal pits (bit p = pit p) for the player to move on `board`.
    #[inline]
    pub fn best_mask(&self, board: &Board) -> u8 {
        self.table.best(board.index()) as u8
    }

    /// The optimal pit with the lowest label, or `None` on an empty board.
    #[inline]
    pub fn best_move(&self, board: &Board) -> Option<Pit> {
        let mask = self.best_mask(board);
        (mask != 0).then(|| mask.trailing_zeros() as Pit)
    }

    /// The optimal pits in increasing order.
    pub fn best_moves(&self, board: &Board) -> Vec<Pit> {
        let mask = self.best_mask(board);
        (0..PITS as Pit).filter(|p| mask >> p & 1 == 1).collect()
    }
}

impl IoiwariTable {
    /// Checks every record against its children; returns the number checked.
    pub fn check_records(&self) -> Result<usize, tabula_solver::retrograde::Inconsistency> {
        tabula_solver::retrograde::check(
            &IoiwariSpace,
            |i| i32::from(self.table.value(i as usize)),
            |i| self.table.best(i as usize),
        )
        .map(|n| n as usize)
    }
}
