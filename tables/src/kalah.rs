//! Kalah tables: the value and optimal pits of every board of Kalah(m, n)
//! with at most the game's seeds, from the mover's side (see
//! [`tabula_solver::kalah::KalahSpace`] for the index).

use std::path::Path;
use std::sync::atomic::AtomicU8;

use tabula_solver::kalah::{Capture, EndgameValues, Ending, Kalah, KalahSpace, Pit, Rules};
use tabula_solver::retrograde::{Images, Progress, StateSpace};

use crate::format::{Layout, RecordBounds, TableError, TableSpec};
use crate::resume::Resumed;
use crate::typed::{self, Records, Tabulated, TypedTable};

/// Kalah(m, n) as a tabulated game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KalahGame {
    /// The rules the table is for.
    pub rules: Rules,
}

/// The header parameters: `[m, n, capture (0 always, 1 non-empty only), ending (0 after any move, 1 mover stuck)]`.
pub fn spec(rules: &Rules) -> TableSpec {
    TableSpec {
        game: "kalah",
        params: [
            u32::from(rules.pits),
            u32::from(rules.seeds),
            u32::from(rules.capture == Capture::NonEmpty),
            u32::from(rules.ending == Ending::MoverStuck),
        ],
        layout: Layout {
            value_bytes: 1,
            mask_bytes: 1,
        },
        entries: KalahSpace::new(*rules).len(),
    }
}

/// The rules a table's header parameters name (the inverse of [`spec`]).
pub fn rules_of(params: [u32; 4]) -> Result<Rules, String> {
    let [m, n, capture, ending] = params;
    let small = |x: u32, what: &str| u8::try_from(x).map_err(|_| format!("{x} {what}"));
    let rules = Rules::new(small(m, "pits a side")?, small(n, "seeds a pit")?)
        .map_err(|e| e.to_string())?;
    let capture = match capture {
        0 => Capture::Always,
        1 => Capture::NonEmpty,
        other => return Err(format!("capture rule {other} is neither 0 nor 1")),
    };
    let ending = match ending {
        0 => Ending::AfterAnyMove,
        1 => Ending::MoverStuck,
        other => return Err(format!("end rule {other} is neither 0 nor 1")),
    };
    Ok(rules.with_capture(capture).with_ending(ending))
}

/// A position of other rules than the table's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("position {position} is of other rules than the table's")]
pub struct OtherRules {
    /// The position.
    pub position: String,
}

impl Tabulated for KalahGame {
    type Position = Kalah;
    type Move = Pit;
    type Unknown = OtherRules;
    type Space = KalahSpace;

    fn spec(&self) -> TableSpec {
        spec(&self.rules)
    }

    fn description(&self) -> String {
        "record = rank of the board (mover's pits then the opponent's, each in sowing order) \
among boards with at most the game's seeds, by seeds then colex: value = the mover's best \
final store difference from now on, mask bit p = pit p+1 is optimal"
            .into()
    }

    fn space(&self) -> KalahSpace {
        KalahSpace::new(self.rules)
    }

    fn bounds(&self) -> RecordBounds {
        let most = self.rules.total_seeds() as i16;
        RecordBounds {
            values: -most..=most,
            move_slots: u32::from(self.rules.pits),
        }
    }

    fn index(&self, position: &Kalah) -> Result<u64, OtherRules> {
        if position.rules() != self.rules || position.seeds() > self.rules.total_seeds() {
            return Err(OtherRules {
                position: position.to_string(),
            });
        }
        Ok(position.index())
    }

    fn position(&self, index: u64) -> Kalah {
        KalahSpace::new(self.rules).position(index)
    }

    fn slot_move(&self, position: &Kalah, slot: u32) -> Option<Pit> {
        let pit = u8::try_from(slot).ok()?;
        position.is_legal(pit).then_some(pit)
    }

    fn legal_mask(&self, position: &Kalah) -> u64 {
        if position.is_finished() {
            return 0;
        }
        (0..self.rules.pits)
            .filter(|&p| position.is_legal(p))
            .fold(0, |mask, p| mask | 1 << p)
    }

    fn describe(&self, position: &Kalah) -> String {
        format!("board {position}")
    }
}

/// A checked Kalah table.
pub type KalahTable = TypedTable<KalahGame>;

/// Builds the table of `rules` and writes it atomically to `path`.
pub fn build(path: &Path, rules: &Rules, progress: Progress<'_>) -> Result<(), TableError> {
    typed::build_for(&KalahGame { rules: *rules }, path, progress)
}

/// Solves every board of `rules` and keeps the table in memory (checked: its
/// records are the solver's own); `progress` counts the boards solved.
pub fn in_memory(rules: &Rules, progress: Progress<'_>) -> KalahTable {
    let game = KalahGame { rules: *rules };
    let solution = typed::solve_for(&game, true, progress);
    TypedTable::from_solution_for(game, &solution)
}

/// Builds the table out of core (solved in a memory map of the file; with
/// moves, byte-identical to [`build`]'s).
pub fn build_out_of_core(
    path: &Path,
    rules: &Rules,
    records: Records,
    progress: Progress<'_>,
) -> Result<(), TableError> {
    // Kalah has no symmetry: there are no images to write.
    let game = KalahGame { rules: *rules };
    typed::build_out_of_core_for(&game, path, records, Images::WhenSolved, progress)
}

/// The game name of endgame tables in their headers.
pub const ENDGAME: &str = "kalah-endgame";

/// An endgame table's board set: every board of `rules.pits` pits a side with
/// at most `max_seeds` seeds in the pits, under `rules`' capture and end rules
/// (`rules.seeds` is ignored: a board's value does not depend on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KalahEndgame {
    /// The pits and rules (the seeds a pit at the start play no part).
    pub rules: Rules,
    /// The most seeds a board holds.
    pub max_seeds: u32,
}

impl KalahEndgame {
    /// The endgame table of `rules`' pits and rules up to `max_seeds` seeds.
    pub fn new(rules: Rules, max_seeds: u32) -> KalahEndgame {
        KalahEndgame {
            // One seed a pit: every endgame table of the same board set is the same.
            rules: Rules { seeds: 1, ..rules },
            max_seeds,
        }
    }

    /// The board set a header's parameters `[m, S, capture, ending]` name.
    pub fn of_params(params: [u32; 4]) -> Result<KalahEndgame, String> {
        let [m, max_seeds, capture, ending] = params;
        let rules = rules_of([m, 1, capture, ending])?;
        if KalahSpace::boards_up_to(rules.pits, max_seeds).is_none() {
            return Err(format!("{max_seeds} seeds is more than the index covers"));
        }
        Ok(KalahEndgame::new(rules, max_seeds))
    }
}

impl Tabulated for KalahEndgame {
    type Position = Kalah;
    type Move = Pit;
    type Unknown = OtherRules;
    type Space = KalahSpace;

    /// `[m, S, capture, ending]`, no seeds a pit; the files hold values only.
    fn spec(&self) -> TableSpec {
        let full = spec(&self.rules);
        TableSpec {
            game: ENDGAME,
            params: [
                full.params[0],
                self.max_seeds,
                full.params[2],
                full.params[3],
            ],
            layout: Layout {
                value_bytes: 1,
                mask_bytes: 1,
            },
            entries: self.space().len(),
        }
    }

    fn description(&self) -> String {
        format!(
            "record = rank of the board (mover's pits then the opponent's, each in sowing order) \
among boards of {} pits a side with at most {} seeds, by seeds then colex (the index of every \
Kalah table of these pits): value = the mover's best final store difference from now on",
            self.rules.pits, self.max_seeds
        )
    }

    fn space(&self) -> KalahSpace {
        KalahSpace::endgame(self.rules, self.max_seeds)
    }

    fn bounds(&self) -> RecordBounds {
        let most = self.max_seeds as i16;
        RecordBounds {
            values: -most..=most,
            move_slots: u32::from(self.rules.pits),
        }
    }

    fn index(&self, position: &Kalah) -> Result<u64, OtherRules> {
        let rules = position.rules();
        if (Rules { seeds: 1, ..rules }) != self.rules || position.seeds() > self.max_seeds {
            return Err(OtherRules {
                position: position.to_string(),
            });
        }
        Ok(position.index())
    }

    fn position(&self, index: u64) -> Kalah {
        self.space().position(index)
    }

    fn slot_move(&self, position: &Kalah, slot: u32) -> Option<Pit> {
        KalahGame { rules: self.rules }.slot_move(position, slot)
    }

    fn legal_mask(&self, position: &Kalah) -> u64 {
        KalahGame { rules: self.rules }.legal_mask(position)
    }

    fn describe(&self, position: &Kalah) -> String {
        format!("board {position}")
    }
}

/// A checked endgame table.
pub type EndgameTable = TypedTable<KalahEndgame>;

impl EndgameValues for EndgameTable {
    fn pits(&self) -> u8 {
        self.game().rules.pits
    }
    fn capture(&self) -> Capture {
        self.game().rules.capture
    }
    fn ending(&self) -> Ending {
        self.game().rules.ending
    }
    fn max_seeds(&self) -> u32 {
        self.game().max_seeds
    }
    #[inline]
    fn value(&self, index: u64) -> i32 {
        i32::from(self.table().value(index as usize))
    }
}

/// Opens the endgame table at `path` and checks every record's value range
/// without unranking (the checksums were checked on opening; `tabula check`
/// checks the records against their children).
pub fn open_endgame(path: &Path) -> Result<EndgameTable, TableError> {
    let header = crate::Table::read_header(path)?;
    let game = match header.game == ENDGAME {
        true => KalahEndgame::of_params(header.params).map_err(|what| TableError::Corrupted {
            path: path.to_path_buf(),
            what: format!("the header's parameters: {what}"),
        })?,
        false => {
            return Err(TableError::WrongGame {
                path: path.to_path_buf(),
                found: format!("'{}' with parameters {:?}", header.game, header.params),
                expected: format!("'{ENDGAME}' (a table built with --max-seeds)"),
            });
        }
    };
    let table = EndgameTable::open_for(game, path)?;
    table.check_values()?;
    Ok(table)
}

/// Builds the endgame table of `game` out of core (solved layer by layer in a
/// memory map of `path.part`), values only, resumably: a build stopped after
/// a finished seed layer goes on from there when started again
/// ([`crate::resume`]); the file is renamed to `path` at the end.
///
/// Each layer is solved by [`tabula_solver::kalah::solve_endgame_layer`] (one
/// walk of the layer); the bytes are [`build_endgame_generic`]'s.
pub fn build_endgame(
    path: &Path,
    game: &KalahEndgame,
    progress: Progress<'_>,
) -> Result<Resumed, TableError> {
    let space = game.space();
    let fast = |values: &[AtomicU8], layer: usize, progress: Progress<'_>| {
        tabula_solver::kalah::solve_endgame_layer(&space, values, layer, progress)
    };
    crate::resume::build_resumable_with(game, path, Records::ValuesOnly, &fast, progress)
}

/// [`build_endgame`] by the generic layered retrograde solver (scan after
/// scan of each layer): the baseline the fast build is tested and measured against.
pub fn build_endgame_generic(
    path: &Path,
    game: &KalahEndgame,
    progress: Progress<'_>,
) -> Result<Resumed, TableError> {
    crate::resume::build_out_of_core_resumable(game, path, Records::ValuesOnly, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_headers_parameters_name_the_rules_they_were_written_for() {
        for capture in [Capture::Always, Capture::NonEmpty] {
            for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
                let rules = Rules::new(3, 4)
                    .unwrap()
                    .with_capture(capture)
                    .with_ending(ending);
                assert_eq!(rules_of(spec(&rules).params), Ok(rules));
            }
        }
        for (bad, says) in [
            ([3, 4, 2, 0], "capture rule 2"),
            ([3, 4, 0, 7], "end rule 7"),
            ([300, 4, 0, 0], "300 pits a side"),
            ([0, 4, 0, 0], "pits"),
        ] {
            let error = rules_of(bad).unwrap_err();
            assert!(error.contains(says), "{bad:?}: {error}");
        }
    }

    #[test]
    fn a_small_table_checks_and_gives_the_search_value() {
        let rules = Rules::new(2, 3).unwrap();
        let table = KalahTable::in_memory_for(KalahGame { rules });
        assert_eq!(
            table.check_records().unwrap() as u64,
            (0..spec(&rules).entries)
                .filter(|&i| KalahSpace::new(rules).is_state(i))
                .count() as u64
        );
        let start = rules.start();
        assert_eq!(
            table.value(&start).unwrap(),
            tabula_solver::kalah::start_value(&rules, 12)
        );
        let other = Rules::new(3, 3).unwrap().start();
        assert!(table.value(&other).is_err());
    }

    #[test]
    fn a_board_no_game_reaches_has_no_record_to_read() {
        // Under the default ending the move that empties a side ends the game,
        // so a board with one side empty and seeds on the other never arises.
        let rules = Rules::new(2, 2).unwrap();
        let table = KalahTable::in_memory_for(KalahGame { rules });
        let stranded = Kalah::from_pits(rules, &[0, 0], &[1, 3]);
        assert!(!stranded.arises());
        match table.value(&stranded) {
            Err(typed::LookupError::NotAState(board)) => assert_eq!(board, "board 0 0 / 1 3"),
            other => panic!("expected no record, got {other:?}"),
        }
        let live = Kalah::from_pits(rules, &[1, 0], &[1, 2]);
        assert!(table.value(&live).is_ok());
    }

    /// Builds `game` at `path`, stopped (by a panic in its progress, as a
    /// kill would stop it) at the `calls`-th report of progress, in the
    /// middle of a layer or at its end; None: stopped.
    fn build_stopped(path: &Path, game: &KalahEndgame, calls: usize) -> Option<Resumed> {
        let told = std::sync::atomic::AtomicUsize::new(0);
        let stop = |_| assert!(told.fetch_add(1, Ordering::Relaxed) + 1 < calls, "stopped");
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            build_endgame(path, game, &stop).unwrap()
        }))
        .ok()
    }

    #[test]
    fn an_endgame_build_stopped_anywhere_goes_on_and_ends_with_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        // A fixed-seed xorshift picks the points where the runs are stopped.
        let mut seed = 0x49_u64 << 32 | 47;
        let mut draw = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            1 + (seed % below) as usize
        };
        for capture in [Capture::Always, Capture::NonEmpty] {
            let game = KalahEndgame::new(Rules::new(3, 1).unwrap().with_capture(capture), 9);
            let whole = dir.path().join("whole.tab");
            let fresh = build_endgame(&whole, &game, &|_| {}).unwrap();
            assert_eq!((fresh.reused, fresh.layers), (0, 10));
            let expected = std::fs::read(&whole).unwrap();
            let path = dir.path().join("stopped.tab");
            let part = crate::atomic::partial_path(&path);
            let state = crate::resume::state_path(&path);
            // Each run goes on from the last one's finished layers.
            let mut resumed = None;
            for _ in 0..4 {
                resumed = build_stopped(&path, &game, draw(3));
                if resumed.is_some() {
                    break;
                }
                assert!(part.exists() && state.exists());
            }
            let resumed = resumed.or_else(|| build_stopped(&path, &game, usize::MAX));
            assert!(resumed.is_some_and(|r| r.reused > 0), "{resumed:?}");
            assert!(std::fs::read(&path).unwrap() == expected, "other bytes");
            assert!(!part.exists() && !state.exists());
            std::fs::remove_file(&path).unwrap();
        }
    }

    #[test]
    fn a_resumed_build_checks_what_it_reuses_and_refuses_another_tables_partial() {
        let dir = tempfile::tempdir().unwrap();
        let game = KalahEndgame::new(Rules::new(3, 1).unwrap(), 9);
        let whole = dir.path().join("whole.tab");
        build_endgame(&whole, &game, &|_| {}).unwrap();
        let expected = std::fs::read(&whole).unwrap();
        let path = dir.path().join("t.tab");
        let part = crate::atomic::partial_path(&path);
        assert!(build_stopped(&path, &game, 8).is_none());
        // Another table's build will not take this partial.
        let other = KalahEndgame::new(Rules::new(3, 1).unwrap(), 8);
        let error = build_endgame(&path, &other, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("a partial build of another table"),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
        // A byte of layer 3 damaged: layers 0..3 are reused, the rest built again.
        let layer3 = game.space().layer_range(3).unwrap();
        let mut bytes = std::fs::read(&part).unwrap();
        let at = expected.len() - game.space().len() as usize + layer3.start as usize + 1;
        bytes[at] ^= 0x40;
        std::fs::write(&part, &bytes).unwrap();
        let resumed = build_endgame(&path, &game, &|_| {}).unwrap();
        assert_eq!(resumed.reused, 3);
        assert!(std::fs::read(&path).unwrap() == expected, "other bytes");
        // A .part without a state file is not ours to overwrite.
        std::fs::write(&part, b"someone's log").unwrap();
        let error = build_endgame(&path, &game, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(error.contains("no partial build of this table"), "{error}");
        assert_eq!(std::fs::read(&part).unwrap(), b"someone's log");
    }

    /// The fast build and the generic one write the same files, for every
    /// capture and end rule.
    #[test]
    fn the_fast_endgame_build_writes_the_generic_builds_bytes() {
        let dir = tempfile::tempdir().unwrap();
        for (m, max_seeds) in [(2, 12), (3, 10), (4, 8), (6, 7)] {
            for capture in [Capture::Always, Capture::NonEmpty] {
                for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
                    let rules = Rules::new(m, 1)
                        .unwrap()
                        .with_capture(capture)
                        .with_ending(ending);
                    let game = KalahEndgame::new(rules, max_seeds);
                    let (fast, generic) = (dir.path().join("f.tab"), dir.path().join("g.tab"));
                    build_endgame(&fast, &game, &|_| {}).unwrap();
                    build_endgame_generic(&generic, &game, &|_| {}).unwrap();
                    assert!(
                        std::fs::read(&fast).unwrap() == std::fs::read(&generic).unwrap(),
                        "{rules:?} S={max_seeds}"
                    );
                    std::fs::remove_file(&fast).unwrap();
                    std::fs::remove_file(&generic).unwrap();
                }
            }
        }
    }

    #[test]
    fn an_endgame_file_holds_the_full_tables_values_and_checks() {
        let dir = tempfile::tempdir().unwrap();
        for capture in [Capture::Always, Capture::NonEmpty] {
            let rules = Rules::new(3, 3).unwrap().with_capture(capture);
            let path = dir.path().join(format!("{capture:?}.tab"));
            build_endgame(&path, &KalahEndgame::new(rules, 8), &|_| {}).unwrap();
            let endgame = open_endgame(&path).unwrap();
            assert_eq!(endgame.max_seeds(), 8);
            assert!(endgame.values_only());
            let full = KalahTable::in_memory_for(KalahGame { rules });
            let space = KalahSpace::endgame(rules, 8);
            for index in (0..space.len()).filter(|&i| space.is_state(i)) {
                let board = space.position(index);
                let expected = full.value(&board).unwrap();
                assert_eq!(endgame.value(&board).unwrap(), expected, "{board}");
                assert_eq!(EndgameValues::value(&endgame, index), expected, "{board}");
            }
            assert!(endgame.check_records().unwrap() > 0);
            // A board with more seeds than the table's is no board of it.
            assert!(endgame.value(&rules.start()).is_err());
            // A full table is not an endgame table, and the other way round.
            let full_path = dir.path().join("full.tab");
            build(&full_path, &rules, &|_| {}).unwrap();
            let error = open_endgame(&full_path).err().unwrap().to_string();
            assert!(error.contains("'kalah-endgame'"), "{error}");
            assert!(KalahTable::open_for(KalahGame { rules }, &path).is_err());
        }
    }

    /// The file at `path` with the byte of record `index` set to `byte` and
    /// fresh checksums: damage the checksums cannot catch.
    fn forge_record(path: &Path, index: u64, byte: u8) {
        let mut bytes = std::fs::read(path).unwrap();
        let start = u64::from_le_bytes(bytes[80..88].try_into().unwrap()) as usize;
        bytes[start + index as usize] = byte;
        let payload_hash = xxhash_rust::xxh3::xxh3_64(&bytes[start..]);
        bytes[104..112].copy_from_slice(&payload_hash.to_le_bytes());
        let header_hash = xxhash_rust::xxh3::xxh3_64(&bytes[..120]);
        bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn opening_an_endgame_table_refuses_values_out_of_range_without_a_full_check() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::new(3, 3).unwrap();
        let game = KalahEndgame::new(rules, 6);
        let space = KalahSpace::endgame(rules, 6);
        let good = dir.path().join("good.tab");
        build_endgame(&good, &game, &|_| {}).unwrap();
        let table = open_endgame(&good).unwrap();
        assert_eq!(table.check_values().unwrap(), table.check_moves().unwrap());
        // An impossible value on a board is named, board and all.
        let board = (0..space.len()).rev().find(|&i| space.is_state(i)).unwrap();
        let path = dir.path().join("forged.tab");
        std::fs::copy(&good, &path).unwrap();
        forge_record(&path, board, 100);
        let error = open_endgame(&path).err().unwrap().to_string();
        assert!(error.contains("value 100 outside"), "{error}");
        assert!(
            error.contains(&space.position(board).to_string()),
            "{error}"
        );
        // A value in range on an index that is no board is left to `tabula check`.
        let Some(hole) = (0..space.len()).find(|&i| !space.is_state(i)) else {
            return;
        };
        std::fs::copy(&good, &path).unwrap();
        forge_record(&path, hole, 1);
        let table = open_endgame(&path).unwrap();
        let error = table.check_records().unwrap_err().to_string();
        assert!(error.contains("not a position"), "{error}");
    }
}
