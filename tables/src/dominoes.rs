//! The Dominoes table: the exact result and optimal moves of every stock-empty
//! position of the N = 5 set (15 tiles), 13,885,410 records, each serving
//! both sides to move (see [`tabula_solver::dominoes::space`] for the index).

use std::path::Path;

use tabula_solver::dominoes::space::{
    DominoesSpace, NotIndexed, Outcome, State, TABLE_NUMBERS, TABLE_POSITIONS, TABLE_SLOTS,
};
use tabula_solver::dominoes::{Move, Position};
use tabula_solver::retrograde::{Progress, Solution};

use crate::format::{Layout, RecordBounds, Table, TableError, TableSpec};
use crate::typed::{self, LookupError, Tabulated, TypedTable};

/// The dominoes table: one i8 value (win 1, tie 0, loss -1) and a 16-bit mask of optimal moves.
pub const SPEC: TableSpec = TableSpec {
    game: "dominoes",
    params: [TABLE_NUMBERS as u32, 0, 0, 0],
    layout: Layout {
        value_bytes: 1,
        mask_bytes: 2,
    },
    entries: TABLE_POSITIONS,
};

const DESCRIPTION: &str = "record = dense index of a stock-empty N=5 position: blocks of \
(played set that lays as a line from left to right, left, right) by unplayed count, then \
played mask, then ends; within a block, bit j of (index - base + 1) = j-th unplayed tile is \
in the mover's hand; value = 1 win, 0 tie, -1 loss for the mover; mask bit x < 5 = tile \
left-x on the left end, 5 + x = tile right-x on the right end (ends differ), 10 = pass";

/// Dominoes N = 5 with the stock empty, as a tabulated game.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dominoes;

thread_local! {
    /// Lookups need the space's block table; built once per thread (about 1 MB).
    static SPACE: DominoesSpace = DominoesSpace::new(TABLE_NUMBERS);
}

fn with_space<R>(f: impl FnOnce(&DominoesSpace) -> R) -> R {
    SPACE.with(f)
}

impl Tabulated for Dominoes {
    fn spec(&self) -> TableSpec {
        SPEC
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    type Position = Position;
    type Move = Move;
    type Unknown = NotIndexed;
    type Space = DominoesSpace;

    fn space(&self) -> DominoesSpace {
        DominoesSpace::new(TABLE_NUMBERS)
    }

    fn bounds(&self) -> RecordBounds {
        RecordBounds {
            values: -1..=1,
            move_slots: TABLE_SLOTS,
        }
    }

    fn index(&self, position: &Position) -> Result<u64, NotIndexed> {
        with_space(|space| space.index_of_position(position))
    }

    fn position(&self, index: u64) -> Position {
        with_space(|space| space.state(index).position(0))
    }

    fn slot_move(&self, position: &Position, slot: u32) -> Option<Move> {
        with_space(|space| space.slot_move(&State::of(position), slot))
    }

    fn legal_mask(&self, position: &Position) -> u64 {
        with_space(|space| space.legal_mask(&State::of(position)))
    }

    fn describe(&self, position: &Position) -> String {
        describe(position)
    }
}

/// A position as `hand0 / hand1 / left right / mover` (tiles `a-b`, `-` for an empty hand).
pub fn describe(position: &Position) -> String {
    let hand = |h: tabula_solver::dominoes::Tiles| {
        if h.is_empty() {
            "-".to_string()
        } else {
            h.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    format!(
        "{} / {} / {} {} / {}",
        hand(position.hands[0]),
        hand(position.hands[1]),
        position.left,
        position.right,
        position.mover
    )
}

/// A checked dominoes table, answering lookups.
pub type DominoesTable = TypedTable<Dominoes>;

impl TypedTable<Dominoes> {
    /// The mover's exact result, `Ok(None)` when the position is not a
    /// stock-empty N = 5 position with the mover's hand non-empty; an error
    /// only for a damaged record.
    pub fn lookup(&self, position: &Position) -> Result<Option<Outcome>, TableError> {
        match self.value(position) {
            Ok(v) => Ok(Some(Outcome::of_value(v))),
            Err(LookupError::Position(_) | LookupError::NotAState(_)) => Ok(None),
            Err(LookupError::Record(e)) => Err(e),
        }
    }
}

/// Memory-maps a table file (see [`Table::map`]) and checks it is the dominoes table.
///
/// # Safety
/// As [`Table::map`]: the file must not be rewritten in place while mapped
/// (tabula's writers rename a new file into place).
pub unsafe fn map(path: &Path) -> Result<DominoesTable, TableError> {
    // SAFETY: passed on from the caller.
    TypedTable::new(unsafe { Table::map(path) }?)
}

/// Solves every position; `parallel` spreads each layer over rayon's threads.
pub fn solve(parallel: bool, progress: Progress<'_>) -> Solution {
    typed::solve::<Dominoes>(parallel, progress)
}

/// Builds the table and writes it atomically to `path`.
pub fn build(path: &Path, progress: Progress<'_>) -> Result<(), TableError> {
    typed::build::<Dominoes>(path, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::dominoes::{Tile, Tiles};

    #[test]
    fn lookups_say_none_outside_the_table() {
        let solution = Solution {
            values: vec![0; TABLE_POSITIONS as usize],
            best: vec![0; TABLE_POSITIONS as usize],
        };
        let table = DominoesTable::from_solution(&solution);
        // 0-0 played; both hands hold the rest.
        let mut hands = [Tiles::EMPTY; 2];
        for (i, t) in Tiles::full(5).iter().skip(1).enumerate() {
            hands[i % 2].insert(t);
        }
        let pos = Position {
            hands,
            stock: Tiles::EMPTY,
            left: 0,
            right: 0,
            mover: 1,
        };
        assert_eq!(describe(&pos).split(" / ").count(), 4);
        let mut stocked = pos;
        stocked.hands[0].remove(Tile::new(0, 1));
        stocked.stock.insert(Tile::new(0, 1));
        assert!(table.lookup(&stocked).unwrap().is_none());
        let mut six = pos;
        six.hands[0].insert(Tile::new(5, 5));
        assert!(table.lookup(&six).unwrap().is_none());
        let mut wrong_ends = pos;
        wrong_ends.right = 1;
        assert!(table.lookup(&wrong_ends).unwrap().is_none());
        // An all-zero record of a position with moves names no optimal move: damaged.
        assert!(matches!(
            table.lookup(&pos),
            Err(TableError::BadRecord { .. })
        ));
    }
}
