//! The PseudoTonga 4×4 table: exact value and optimal squares of every position
//! reachable with Black first (10,165,779 positions, densely ranked).

use std::path::Path;

use tabula_solver::retrograde::{Progress, Solution};
use tabula_solver::tonga::space::{POSITIONS, SIDE, SQUARES, TongaSpace};
use tabula_solver::tonga::{Board, Cell, TongaError};

use crate::format::{Layout, RecordBounds, TableError, TableSpec};
use crate::typed::{self, Tabulated, TypedTable};

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
    #[error(transparent)]
    Counts(TongaError),
}

/// Solves every position; `parallel` spreads each layer over rayon's threads.
pub fn solve(parallel: bool, progress: Progress<'_>) -> Solution {
    typed::solve::<Tonga>(parallel, progress)
}

/// Builds the table and writes it atomically to `path`.
pub fn build(path: &Path, progress: Progress<'_>) -> Result<(), TableError> {
    typed::build::<Tonga>(path, progress)
}

/// PseudoTonga 4×4 as a tabulated game: the positions reachable with Black first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tonga;

impl Tabulated for Tonga {
    fn spec(&self) -> TableSpec {
        SPEC
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    type Position = Board;
    type Move = Cell;
    type Unknown = LookupError;
    type Space = TongaSpace;

    fn space(&self) -> TongaSpace {
        TongaSpace
    }

    fn bounds(&self) -> RecordBounds {
        // Points are not bounded more tightly here than by the record's byte.
        RecordBounds {
            values: -127..=127,
            move_slots: SQUARES as u32,
        }
    }

    fn index(&self, board: &Board) -> Result<u64, LookupError> {
        if board.n() != SIDE {
            return Err(LookupError::Size(board.n()));
        }
        board.check_counts().map_err(LookupError::Counts)?;
        let index = TongaSpace::index_of(board).expect("a 4x4 board whose counts fit");
        Ok(index as u64)
    }

    fn position(&self, index: u64) -> Board {
        TongaSpace::board_at(index as usize)
    }

    fn slot_move(&self, board: &Board, slot: u32) -> Option<Cell> {
        let cell = Cell::try_from(slot).ok()?;
        ((slot as usize) < SQUARES && board.at(cell).is_none()).then_some(cell)
    }

    fn legal_mask(&self, board: &Board) -> u64 {
        board.empty().0[0]
    }

    fn describe(&self, board: &Board) -> String {
        format!(
            "board {}",
            board.to_string().trim_end().replace('\n', " / ")
        )
    }
}

/// A checked tonga table, answering lookups.
pub type TongaTable = TypedTable<Tonga>;

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
        assert_eq!(table.check_records().unwrap(), POSITIONS);
        let empty = Board::new(4).unwrap();
        let mut game = Endgame::new(&empty).unwrap();
        assert_eq!(table.value(&empty).unwrap(), game.solve(Colour::Black));
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
        assert!(matches!(
            table.value(&six),
            Err(typed::LookupError::Position(LookupError::Size(6)))
        ));
        let mut two_black = Board::new(4).unwrap();
        two_black.place(0, Colour::Black);
        two_black.place(1, Colour::Black);
        assert!(matches!(
            table.value(&two_black),
            Err(typed::LookupError::Position(LookupError::Counts(
                TongaError::Counts { black: 2, white: 0 }
            )))
        ));
    }
}
