//! The Ioiwari table: value and optimal moves of each of the 6^7 boards; and
//! the tables of the variants ([`Variant`], [`VariantTable`]), one record per
//! board of their ring.

use std::convert::Infallible;
use std::path::Path;

use tabula_solver::ioiwari::{
    Board, IoiwariSpace, MAX_BEADS, NUM_BOARDS, PITS, Params, Pit, Ring, RingSpace,
};
use tabula_solver::retrograde::{Images, Progress, Solution};

use crate::format::{Layout, RecordBounds, TableError, TableSpec};
use crate::typed::{self, Records, Tabulated, TypedTable};

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
        sowable_mask(&board.pits())
    }

    fn describe(&self, board: &Board) -> String {
        format!("board {board}")
    }
}

/// The legal moves of a board of these pits as a mask: the pits holding beads.
fn sowable_mask(pits: &[u8]) -> u64 {
    pits.iter()
        .enumerate()
        .filter(|&(_, &beads)| beads > 0)
        .fold(0, |mask, (pit, _)| mask | 1 << pit)
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

/// The header of the table of an Ioiwari variant: parameters `[pits, cap, 0, 0]`
/// (the starting boards do not change the table); the IOI game's is [`SPEC`].
pub fn variant_spec(params: &Params) -> TableSpec {
    TableSpec {
        game: "ioiwari",
        params: [u32::from(params.pits), u32::from(params.cap), 0, 0],
        layout: Layout {
            value_bytes: 1,
            mask_bytes: if params.pits > 8 { 2 } else { 1 },
        },
        entries: params.boards(),
    }
}

/// The variant an existing table's header parameters name, if they make one
/// (the inverse of [`variant_spec`]).
pub fn variant_of(params: [u32; 4]) -> Option<Variant> {
    let pits = u8::try_from(params[0]).ok()?;
    let cap = u8::try_from(params[1]).ok()?;
    let low = 0;
    Params::new(pits, cap, 0, low, cap)
        .ok()
        .map(|params| Variant { params })
}

/// An Ioiwari variant as a tabulated game: every board of its ring has a record.
#[derive(Clone, Copy, Debug, Default)]
pub struct Variant {
    /// The variant's parameters (only `pits` and `cap` shape the table).
    pub params: Params,
}

impl Tabulated for Variant {
    type Position = Ring;
    type Move = Pit;
    type Unknown = RingMismatch;
    type Space = RingSpace;

    fn spec(&self) -> TableSpec {
        variant_spec(&self.params)
    }

    fn description(&self) -> String {
        format!(
            "record = board index (pit 1 least significant base-{} digit): \
value = best bank difference for the player to move, mask bit p = pit p+1 is optimal",
            self.params.cap + 1
        )
    }

    fn space(&self) -> RingSpace {
        RingSpace::new(self.params)
    }

    fn bounds(&self) -> RecordBounds {
        let most = i16::from(self.params.pits) * i16::from(self.params.cap);
        RecordBounds {
            values: -most..=most,
            move_slots: u32::from(self.params.pits),
        }
    }

    fn index(&self, ring: &Ring) -> Result<u64, RingMismatch> {
        let p = &self.params;
        if ring.pits().len() != usize::from(p.pits) || ring.pits().iter().any(|&b| b > p.cap) {
            return Err(RingMismatch {
                board: ring.to_string(),
                pits: p.pits,
                cap: p.cap,
            });
        }
        Ok(ring.index())
    }

    fn position(&self, index: u64) -> Ring {
        Ring::from_index(&self.params, index)
    }

    fn slot_move(&self, ring: &Ring, slot: u32) -> Option<Pit> {
        let pit = u8::try_from(slot).ok()?;
        ring.is_legal(pit).then_some(pit)
    }

    fn legal_mask(&self, ring: &Ring) -> u64 {
        sowable_mask(ring.pits())
    }

    fn describe(&self, ring: &Ring) -> String {
        format!("board {ring}")
    }
}

/// A board that is not one of the table's ring.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("board {board} is not a board of {pits} pits holding at most {cap} beads")]
pub struct RingMismatch {
    /// The board.
    pub board: String,
    /// The table's pits.
    pub pits: u8,
    /// The table's capacity.
    pub cap: u8,
}

/// A checked table of an Ioiwari variant.
pub type VariantTable = TypedTable<Variant>;

/// Solves every board of a variant: the IOI game's own fast space when its
/// table is the IOI table (the same records), else the general ring space.
pub fn solve_variant(params: &Params, parallel: bool, progress: Progress<'_>) -> Solution {
    if params.is_ioi_table() {
        solve(parallel, progress)
    } else {
        typed::solve_for(&Variant { params: *params }, parallel, progress)
    }
}

/// Builds a variant's table and writes it atomically to `path`.
pub fn build_variant(
    path: &Path,
    params: &Params,
    progress: Progress<'_>,
) -> Result<(), TableError> {
    let game = Variant { params: *params };
    crate::format::check_room_for(path, &game.spec())?;
    crate::format::write_solution(
        path,
        &game.spec(),
        &solve_variant(params, true, progress),
        &game.description(),
    )
}

/// Builds a variant's table out of core (solved in a memory map of the file;
/// with moves, byte-identical to [`build_variant`]'s file).
pub fn build_variant_out_of_core(
    path: &Path,
    params: &Params,
    records: Records,
    progress: Progress<'_>,
) -> Result<(), TableError> {
    let variant = Variant { params: *params };
    typed::build_out_of_core_for(&variant, path, records, Images::LastPass, progress)
}

/// A variant's table built in memory (the fast path for the IOI table).
pub fn variant_in_memory(params: &Params, progress: Progress<'_>) -> VariantTable {
    let solution = solve_variant(params, true, progress);
    TypedTable::from_solution_for(Variant { params: *params }, &solution)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::ioiwari::Ring;

    #[test]
    fn a_headers_parameters_name_the_variant_they_were_written_for() {
        for (pits, cap) in [(5, 4), (7, 5), (9, 6)] {
            let params = Params::new(pits, cap, 10, 1, cap).unwrap();
            let spec = variant_spec(&params);
            let variant = variant_of(spec.params).expect("a variant");
            assert_eq!(variant.spec(), spec);
        }
        assert!(variant_of([300, 5, 0, 0]).is_none());
        assert!(variant_of([7, 0, 0, 0]).is_none());
    }

    #[test]
    fn the_default_variant_table_is_the_ioi_table() {
        let params = Params::default();
        assert_eq!(variant_spec(&params), SPEC);
        let game = Variant { params };
        let general = typed::solve_for(&game, true, &|_| {});
        assert_eq!(general, solve(true, &|_| {}));
        let table = variant_in_memory(&params, &|_| {});
        let ring = Ring::parse(&params, "4 3 2 4 2 3 2").unwrap();
        let ioi = IoiwariTable::in_memory();
        let board: Board = "4 3 2 4 2 3 2".parse().unwrap();
        assert_eq!(table.value(&ring).unwrap(), ioi.value(&board).unwrap());
        let other = Params::new(5, 3, 10, 1, 3).unwrap();
        let small = variant_in_memory(&other, &|_| {});
        assert_eq!(small.check_records().unwrap() as u64, other.boards());
        assert!(small.value(&ring).is_err());
    }
}
