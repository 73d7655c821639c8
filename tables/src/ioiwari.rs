//! The Ioiwari table: value and optimal moves of each of the 6^7 boards.

use std::convert::Infallible;
use std::path::Path;

use tabula_solver::ioiwari::{Board, IoiwariSpace, MAX_BEADS, NUM_BOARDS, PITS, Pit};
use tabula_solver::retrograde::{Progress, Solution};

use crate::format::{Layout, RecordBounds, TableError, TableSpec};
use crate::typed::{self, Tabulated, TypedTable};

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

/// Ioiwari as a tabulated game: every board has a record.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ioiwari;

impl Tabulated for Ioiwari {
    fn spec(&self) -> TableSpec {
        SPEC
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    type Position = Board;
    type Move = Pit;
    type Unknown = Infallible;
    type Space = IoiwariSpace;

    fn space(&self) -> IoiwariSpace {
        IoiwariSpace
    }

    fn bounds(&self) -> RecordBounds {
        // Every bead left ends in a bank: the difference is at most the beads.
        let most = (PITS as i16) * i16::from(MAX_BEADS);
        RecordBounds {
            values: -most..=most,
            move_slots: PITS as u32,
        }
    }

    fn index(&self, board: &Board) -> Result<u64, Infallible> {
        Ok(board.index() as u64)
    }

    fn position(&self, index: u64) -> Board {
        Board::from_index(index as usize)
    }

    fn slot_move(&self, board: &Board, slot: u32) -> Option<Pit> {
        let pit = u8::try_from(slot).ok()?;
        board.is_legal(pit).then_some(pit)
    }

    fn legal_mask(&self, board: &Board) -> u64 {
        board
            .pits()
            .iter()
            .enumerate()
            .filter(|&(_, &beads)| beads > 0)
            .fold(0, |mask, (pit, _)| mask | 1 << pit)
    }

    fn describe(&self, board: &Board) -> String {
        format!("board {board}")
    }
}

/// A checked Ioiwari table, answering lookups.
pub type IoiwariTable = TypedTable<Ioiwari>;

/// Solves every board; `parallel` spreads each bead-count layer over rayon's threads.
pub fn solve(parallel: bool, progress: Progress<'_>) -> Solution {
    typed::solve::<Ioiwari>(parallel, progress)
}

/// Builds the table and writes it atomically to `path`.
pub fn build(path: &Path, progress: Progress<'_>) -> Result<(), TableError> {
    typed::build::<Ioiwari>(path, progress)
}
