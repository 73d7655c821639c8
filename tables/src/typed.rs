//! One typed wrapper for every game's table: positions in, checked values and
//! moves out.
//!
//! A game describes its table once ([`Tabulated`]); [`TypedTable`] then
//! opens, builds and reads it. Every record is checked before it is used: a
//! value outside the game's range, a mask naming a move that is not legal in
//! the position (or no move where there are moves), or a value or mask that
//! its children's values contradict (a check skipped once every record is
//! known to agree: a table built here, or one [`TypedTable::check_records`]
//! passed), is a [`TableError::BadRecord`] naming the file, the record and the
//! position, never a panic. A position no game
//! reaches has no record to read ([`LookupError::NotAState`]).

use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tabula_solver::retrograde::{self, Images, Progress, Solution, StateSpace};

use crate::format::{
    Record, RecordBounds, Table, TableError, TableSpec, write_solution, write_table_mapped,
};

/// A game whose positions are tabulated; a value of the type carries the
/// game's parameters (a unit struct for a game without any).
pub trait Tabulated: Sync {
    /// A position as the game's code holds it.
    type Position;
    /// A move, as the game's code holds it.
    type Move: Copy;
    /// Why a position has no record (`Infallible` when every position has one).
    type Unknown: std::error::Error + Send + Sync + 'static;
    /// The state space the builder solves.
    type Space: StateSpace;

    /// The table's header: game, parameters, layout and entry count.
    fn spec(&self) -> TableSpec;

    /// What the records mean, stored in the file's metadata.
    fn description(&self) -> String;

    /// The state space.
    fn space(&self) -> Self::Space;

    /// The values and move slots a record may hold.
    fn bounds(&self) -> RecordBounds;

    /// The record number of `position`.
    fn index(&self, position: &Self::Position) -> Result<u64, Self::Unknown>;

    /// The position of record `index` (`index < spec().entries`).
    fn position(&self, index: u64) -> Self::Position;

    /// The move of mask bit `slot` in `position`, or `None` when that move is not legal there.
    fn slot_move(&self, position: &Self::Position, slot: u32) -> Option<Self::Move>;

    /// The slots of the legal moves in `position`, as a mask (0 when the game is over).
    fn legal_mask(&self, position: &Self::Position) -> u64;

    /// The position on one line, for error messages (`board 4 3 2 4 2 3 2`).
    fn describe(&self, position: &Self::Position) -> String;
}

/// A record read by its index ([`TypedTable::entry`]).
pub struct Entry<T: Tabulated> {
    /// The position of the index.
    pub position: T::Position,
    /// The exact value for the player to move.
    pub value: i32,
    /// The optimal moves in slot order (none when the game is over).
    pub optimal: Vec<T::Move>,
}

/// Why a lookup failed: the position has no record, or its record is damaged.
#[derive(Debug, thiserror::Error)]
pub enum LookupError<E: std::error::Error + 'static> {
    /// The position is not one the table covers.
    #[error(transparent)]
    Position(E),
    /// The position's record is impossible.
    #[error(transparent)]
    Record(#[from] TableError),
    /// The position has an index, but no game reaches it, so its record is empty.
    #[error("{0} cannot arise in a game, so the table holds no record of it")]
    NotAState(String),
}

/// What a table's records hold beside the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Records {
    /// The optimal-move mask too (the game's own layout).
    #[default]
    WithMoves,
    /// The value alone: readers derive the optimal moves from the children's
    /// values (one byte a position for the Mancala games).
    ValuesOnly,
}

impl Records {
    /// The table spec of `game` with these records.
    pub fn spec<T: Tabulated>(self, game: &T) -> TableSpec {
        match self {
            Records::WithMoves => game.spec(),
            Records::ValuesOnly => game.spec().values_only(),
        }
    }

    /// What the records of `game` mean, for the file's metadata.
    pub fn description<T: Tabulated>(self, game: &T) -> String {
        match self {
            Records::WithMoves => game.description(),
            Records::ValuesOnly => format!(
                "{}; this file holds the values only (no masks): the optimal moves are those whose children's values attain it",
                game.description()
            ),
        }
    }
}

/// A table of game `T`, checked to be one when opened.
pub struct TypedTable<T: Tabulated> {
    table: Table,
    game: T,
    /// The game's space, which gives the moves of a table of values only.
    space: T::Space,
    /// The file has values only, though the game's records have masks.
    derive_masks: bool,
    /// Every record agrees with its children (the table was built here, or
    /// [`TypedTable::check_records`] passed), so a lookup need not check it.
    consistent: AtomicBool,
}

/// The result of a lookup in a table of `T`.
pub type Lookup<T, V> = Result<V, LookupError<<T as Tabulated>::Unknown>>;

impl<T: Tabulated + Default> TypedTable<T> {
    /// Wraps an opened table after checking it is a table of `T`.
    pub fn new(table: Table) -> Result<TypedTable<T>, TableError> {
        TypedTable::new_for(T::default(), table)
    }

    /// Opens `path` with [`Table::open`] (read into memory below its size limit).
    pub fn open(path: &Path) -> Result<TypedTable<T>, TableError> {
        TypedTable::open_for(T::default(), path)
    }

    /// A table built in memory from a solution.
    pub fn from_solution(solution: &Solution) -> TypedTable<T> {
        TypedTable::from_solution_for(T::default(), solution)
    }

    /// Solves every position and keeps the table in memory.
    pub fn in_memory() -> TypedTable<T> {
        TypedTable::in_memory_for(T::default())
    }

    /// Opens `path`, or builds the table in memory when `None`.
    pub fn open_or_build(path: Option<&Path>) -> Result<TypedTable<T>, TableError> {
        TypedTable::open_or_build_for(T::default(), path)
    }
}

impl<T: Tabulated> TypedTable<T> {
    /// Wraps an opened table after checking it is a table of `game` (its parameters included).
    pub fn new_for(game: T, table: Table) -> Result<TypedTable<T>, TableError> {
        table.expect(&game.spec())?;
        Ok(TypedTable::wrap(game, table))
    }

    fn wrap(game: T, table: Table) -> TypedTable<T> {
        let derive_masks =
            table.header().layout.mask_bytes == 0 && game.spec().layout.mask_bytes != 0;
        TypedTable {
            space: game.space(),
            table,
            game,
            derive_masks,
            consistent: AtomicBool::new(false),
        }
    }

    /// Whether the file holds values only (the moves come from the children's values).
    pub fn values_only(&self) -> bool {
        self.derive_masks
    }

    /// The best value over the moves of state `index` and the mask of the
    /// moves attaining it, from the children's records (the terminal value and
    /// no move when there is none).
    fn children_best(&self, index: u64) -> (i32, u64) {
        retrograde::best_from_children(&self.space, index, |child| {
            i32::from(self.table.value(child as usize))
        })
    }

    /// Opens `path` as a table of `game`.
    pub fn open_for(game: T, path: &Path) -> Result<TypedTable<T>, TableError> {
        TypedTable::new_for(game, Table::open(path)?)
    }

    /// A table of `game` built in memory from a solution.
    pub fn from_solution_for(game: T, solution: &Solution) -> TypedTable<T> {
        let table = Table::from_solution(&game.spec(), solution, &game.description());
        let typed = TypedTable::wrap(game, table);
        typed.consistent.store(true, Ordering::Relaxed);
        typed
    }

    /// Solves every position of `game` and keeps the table in memory.
    pub fn in_memory_for(game: T) -> TypedTable<T> {
        let solution = solve_for(&game, true, &|_| {});
        TypedTable::from_solution_for(game, &solution)
    }

    /// Opens `path` as a table of `game`, or builds it in memory when `None`.
    pub fn open_or_build_for(game: T, path: Option<&Path>) -> Result<TypedTable<T>, TableError> {
        match path {
            Some(path) => TypedTable::open_for(game, path),
            None => Ok(TypedTable::in_memory_for(game)),
        }
    }

    /// The game (with its parameters) the table is for.
    pub fn game(&self) -> &T {
        &self.game
    }

    /// The underlying table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The record of `position` with its index, value-checked.
    fn record(&self, position: &T::Position) -> Lookup<T, (u64, Record)> {
        let index = self.game.index(position).map_err(LookupError::Position)?;
        if !self.space.is_state(index) {
            return Err(LookupError::NotAState(self.game.describe(position)));
        }
        Ok((index, self.checked(index, position)?))
    }

    /// Record `index` (the record of `position`), with its value and mask
    /// checked against the rules and against its children's values, so that no
    /// answer contradicts the moves it is made of (unless every record is
    /// known to agree with its children already).
    fn checked(&self, index: u64, position: &T::Position) -> Result<Record, TableError> {
        let bad = |problem: String| TableError::BadRecord {
            path: self.table.path().to_path_buf(),
            index,
            problem: format!("{}: {problem}", self.game.describe(position)),
        };
        let Ok(at) = usize::try_from(index) else {
            return Err(bad("index out of range".into()));
        };
        let mut record = match self.table.checked_record(at, &self.game.bounds()) {
            Ok(record) => record,
            Err(TableError::BadRecord { problem, .. }) => return Err(bad(problem)),
            Err(e) => return Err(e),
        };
        if !self.derive_masks {
            let legal = self.game.legal_mask(position);
            let illegal = record.best & !legal;
            if illegal != 0 {
                return Err(bad(format!(
                    "mask {:#x} names move slot {}, which is not legal here",
                    record.best,
                    illegal.trailing_zeros()
                )));
            }
            if record.best == 0 && legal != 0 {
                return Err(bad("no optimal move, but there are moves".into()));
            }
        }
        if !self.derive_masks && self.consistent.load(Ordering::Relaxed) {
            return Ok(record);
        }
        let (best, mask) = self.children_best(index);
        if best != i32::from(record.value) {
            return Err(bad(format!(
                "value {} disagrees with the children's records (best move gives {best})",
                record.value
            )));
        }
        if self.derive_masks {
            record.best = mask;
        } else if record.best != mask {
            return Err(bad(format!(
                "optimal moves {:#b} disagree with the children's records ({mask:#b})",
                record.best
            )));
        }
        Ok(record)
    }

    /// Record `index` read in place: its position, value and optimal moves
    /// (checked as every lookup is), or `None` when the index is no state of
    /// the table's space (its record is empty); for walking a whole table
    /// (`tabula export`).
    pub fn entry(&self, index: u64) -> Result<Option<Entry<T>>, TableError> {
        if index >= self.table.header().entries {
            return Err(TableError::BadRecord {
                path: self.table.path().to_path_buf(),
                index,
                problem: format!("beyond the table's {} entries", self.table.header().entries),
            });
        }
        if !self.space.is_state(index) {
            return Ok(None);
        }
        let position = self.game.position(index);
        let record = self.checked(index, &position)?;
        Ok(Some(Entry {
            optimal: self.moves_of(&position, record.best),
            position,
            value: i32::from(record.value),
        }))
    }

    /// The exact value for the player to move in `position`.
    pub fn value(&self, position: &T::Position) -> Lookup<T, i32> {
        Ok(i32::from(self.record(position)?.1.value))
    }

    /// The optimal-move mask of `position` (bit = move slot); every bit is a legal move.
    pub fn best_mask(&self, position: &T::Position) -> Lookup<T, u64> {
        Ok(self.record(position)?.1.best)
    }

    /// The optimal moves in slot order (none when the game is over).
    pub fn best_moves(&self, position: &T::Position) -> Lookup<T, Vec<T::Move>> {
        Ok(self.moves_of(position, self.best_mask(position)?))
    }

    /// The moves of `mask`'s slots in `position`, in slot order.
    fn moves_of(&self, position: &T::Position, mask: u64) -> Vec<T::Move> {
        (0..64)
            .filter(|s| mask >> s & 1 == 1)
            .filter_map(|s| self.game.slot_move(position, s))
            .collect()
    }

    /// The optimal move of the lowest slot, or `None` when the game is over.
    pub fn best_move(&self, position: &T::Position) -> Lookup<T, Option<T::Move>> {
        let mask = self.best_mask(position)?;
        Ok((mask != 0)
            .then(|| self.game.slot_move(position, mask.trailing_zeros()))
            .flatten())
    }

    /// Checks that every record's value is in the game's range, without
    /// unranking a position unless its record is bad; returns the number
    /// checked. This is what a values-only table needs before it is probed (an
    /// out-of-range value would be misread); a table with moves gets
    /// [`TypedTable::check_moves`]. `tabula check` still checks everything.
    pub fn check_values(&self) -> Result<usize, TableError> {
        if !self.derive_masks {
            return self.check_moves();
        }
        let bounds = self.game.bounds();
        let check = |index: usize| -> Result<(), TableError> {
            if bounds.values.contains(&self.table.value(index)) {
                return Ok(());
            }
            match self.space.is_state(index as u64) {
                true => self
                    .checked(index as u64, &self.game.position(index as u64))
                    .map(drop),
                false => Err(self.not_a_position(index)),
            }
        };
        self.first_bad(check, &|_| {})
    }

    /// Runs `check` on every index in parallel chunks, reporting the records
    /// done; of several bad records the first is named, as a serial pass would.
    fn first_bad(
        &self,
        check: impl Fn(usize) -> Result<(), TableError> + Sync,
        progress: Progress<'_>,
    ) -> Result<usize, TableError> {
        const CHUNK: usize = 1 << 14;
        let len = self.table.len();
        let done = AtomicU64::new(0);
        match (0..len.div_ceil(CHUNK))
            .into_par_iter()
            .find_map_first(|chunk| {
                let indices = chunk * CHUNK..((chunk + 1) * CHUNK).min(len);
                let size = indices.len() as u64;
                let bad = indices.map(&check).find_map(Result::err);
                progress(done.fetch_add(size, Ordering::Relaxed) + size);
                bad
            }) {
            Some(error) => Err(error),
            None => Ok(len),
        }
    }

    /// The error of an index that is no position but holds a record.
    fn not_a_position(&self, index: usize) -> TableError {
        TableError::BadRecord {
            path: self.table.path().to_path_buf(),
            index: index as u64,
            problem: "not a position, but the record is not empty".into(),
        }
    }

    /// Checks every record's value and moves (not yet against its children);
    /// returns the number checked. Cheap enough to run before a table is played from.
    pub fn check_moves(&self) -> Result<usize, TableError> {
        self.check_moves_with(&|_| {})
    }

    /// [`TypedTable::check_moves`], reporting the records done as it goes.
    fn check_moves_with(&self, progress: Progress<'_>) -> Result<usize, TableError> {
        let bounds = self.game.bounds();
        let space = self.game.space();
        let check = |index: usize| -> Result<(), TableError> {
            if !space.is_state(index as u64) {
                // An index that is no position holds an empty record.
                if (self.table.value(index), self.table.best(index)) != (0, 0) {
                    return Err(self.not_a_position(index));
                }
                return Ok(());
            }
            if self.derive_masks {
                // The moves come from the children: only the value is the record's own.
                let value = self.table.value(index);
                if !bounds.values.contains(&value) {
                    self.checked(index as u64, &self.game.position(index as u64))?;
                }
                return Ok(());
            }
            let position = self.game.position(index as u64);
            let (value, best) = (self.table.value(index), self.table.best(index));
            let legal = self.game.legal_mask(&position);
            // The quick test first; the checked read then words the problem.
            if !bounds.values.contains(&value) || best & !legal != 0 || (best == 0) != (legal == 0)
            {
                self.checked(index as u64, &position)?;
            }
            Ok(())
        };
        self.first_bad(check, progress)
    }

    /// Checks every record: its value and moves, then against its children;
    /// returns the number checked.
    pub fn check_records(&self) -> Result<usize, TableError> {
        self.check_records_with(&|_| {})
    }

    /// [`TypedTable::check_records`], reporting the work done as it goes: the
    /// records of both passes, so twice the table's length in all.
    pub fn check_records_with(&self, progress: Progress<'_>) -> Result<usize, TableError> {
        self.check_moves_with(progress)?;
        let first = self.table.len() as u64;
        retrograde::check_with_progress(
            &self.space,
            |i| i32::from(self.table.value(i as usize)),
            |i| match self.derive_masks {
                // The equation on values is what is left to check.
                true => self.children_best(i).1,
                false => self.table.best(i as usize),
            },
            &|done| progress(first + done),
        )
        .map(|n| {
            self.consistent.store(true, Ordering::Relaxed);
            n as usize
        })
        .map_err(|e| TableError::BadRecord {
            path: self.table.path().to_path_buf(),
            index: e.index,
            problem: format!(
                "{}: {}",
                self.game.describe(&self.game.position(e.index)),
                e.problem
            ),
        })
    }
}

/// Solves every position of `T`; `parallel` spreads each layer over rayon's threads.
///
/// Panics if the space has a cycle inside a layer: every tabulated space is
/// checked against that by its own tests.
pub fn solve<T: Tabulated + Default>(parallel: bool, progress: Progress<'_>) -> Solution {
    solve_for(&T::default(), parallel, progress)
}

/// Solves every position of `game` (panics like [`solve`]).
pub fn solve_for<T: Tabulated>(game: &T, parallel: bool, progress: Progress<'_>) -> Solution {
    retrograde::solve(&game.space(), parallel, progress)
        .unwrap_or_else(|e| panic!("{} state space: {e}", game.spec().game))
}

/// Builds the table of `T` and writes it atomically to `path`.
pub fn build<T: Tabulated + Default>(
    path: &Path,
    progress: Progress<'_>,
) -> Result<(), TableError> {
    build_for(&T::default(), path, progress)
}

/// Builds the table of `game` and writes it atomically to `path`.
pub fn build_for<T: Tabulated>(
    game: &T,
    path: &Path,
    progress: Progress<'_>,
) -> Result<(), TableError> {
    crate::format::check_room_for(path, &game.spec())?;
    write_solution(
        path,
        &game.spec(),
        &solve_for(game, true, progress),
        &game.description(),
    )
}

/// Refuses a table whose values take more than one byte: the builders that
/// solve into the records ([`build_out_of_core_for`], the distributed one)
/// write one-byte values only.
pub(crate) fn one_byte_values(spec: &TableSpec, path: &Path) -> Result<(), TableError> {
    if spec.layout.value_bytes == 1 {
        return Ok(());
    }
    Err(TableError::Io {
        path: path.to_path_buf(),
        error: std::io::Error::other("the builder writes one-byte values only"),
    })
}

/// Builds the table of `game` out of core and writes it atomically to `path`:
/// every record is solved in place in a memory map of the new file (see
/// [`retrograde::solve_records`] and [`crate::format::write_table_mapped`]),
/// so memory holds only the pages in use, not the table; `images` says when
/// the symmetric images are written ([`Images::LastPass`] keeps the pages in
/// use to about the canonical states' and drops finished pieces). With
/// [`Records::WithMoves`] the file is byte-identical to [`build_for`]'s. The layout's values must be one byte;
/// panics like [`solve`] on a space with a cycle.
pub fn build_out_of_core_for<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    images: Images,
    progress: Progress<'_>,
) -> Result<(), TableError> {
    let spec = records.spec(game);
    one_byte_values(&spec, path)?;
    let space = game.space();
    let mask_bytes = usize::from(spec.layout.mask_bytes);
    write_table_mapped(
        path,
        &spec,
        &records.description(game),
        |payload, release| {
            retrograde::solve_records_with(&space, payload, mask_bytes, images, progress, release)
        },
    )?
    .unwrap_or_else(|e| panic!("{} state space: {e}", spec.game));
    Ok(())
}
