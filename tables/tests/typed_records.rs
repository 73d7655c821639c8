//! Records that checksums cannot catch (a table rewritten with impossible
//! records and fresh checksums) are refused when read, naming the file and the board.

use std::fs;
use std::path::{Path, PathBuf};

use tabula_solver::ioiwari::Board;
use tabula_tables::ioiwari::{self, IoiwariTable};
use tabula_tables::{LookupError, TableError};
use xxhash_rust::xxh3::xxh3_64;

/// A good table with the record of `board` replaced by `record`, checksums recomputed.
fn corrupted(dir: &Path, board: &Board, record: [u8; 2]) -> PathBuf {
    corrupted_many(dir, &[(*board, record)])
}

/// A good table with each board's record replaced, checksums recomputed.
fn corrupted_many(dir: &Path, records: &[(Board, [u8; 2])]) -> PathBuf {
    let path = dir.join("corrupt.tab");
    ioiwari::build(&path, &|_| {}).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    let start = u64::from_le_bytes(bytes[80..88].try_into().unwrap()) as usize;
    for (board, record) in records {
        let at = start + 2 * board.index();
        bytes[at..at + 2].copy_from_slice(record);
    }
    let payload_hash = xxh3_64(&bytes[start..]);
    bytes[104..112].copy_from_slice(&payload_hash.to_le_bytes());
    let header_hash = xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
    fs::write(&path, bytes).unwrap();
    path
}

/// The board after player 1's pit 2 on the seed's board (pits 2 and 5
/// empty), and its true value and optimal-move mask.
fn board_and_true_record() -> (Board, i8, u8) {
    let board: Board = "4 0 3 5 0 3 2".parse().unwrap();
    let good = IoiwariTable::in_memory();
    let value = good.value(&board).unwrap() as i8;
    let mask = good.best_mask(&board).unwrap() as u8;
    (board, value, mask)
}

fn assert_bad_record(error: &TableError, path: &Path, board: &Board, problem: &str) {
    assert!(matches!(error, TableError::BadRecord { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains(&format!("board {board}")), "{message}");
    assert!(message.contains(problem), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[test]
fn impossible_records_are_refused_when_read_and_when_checked() {
    let dir = tempfile::tempdir().unwrap();
    // After player 1's pit 2 on the seed's board, pits 2 and 5 are empty.
    let board: Board = "4 0 3 5 0 3 2".parse().unwrap();
    let cases: [([u8; 2], &str); 4] = [
        ([3, 1 << 1], "names move slot 1"),
        ([3, 1 << 7], "beyond the game's 7 move slots"),
        ([100, 1], "value 100 outside -35..=35"),
        ([3, 0], "no optimal move"),
    ];
    let good = IoiwariTable::in_memory();
    for (record, problem) in cases {
        let path = corrupted(dir.path(), &board, record);
        // The checksums are right: the file opens.
        let table = IoiwariTable::open(&path).unwrap();
        let lookups = [
            table.value(&board).err(),
            table.best_move(&board).err(),
            table.best_moves(&board).err(),
        ];
        for error in lookups {
            match error {
                Some(LookupError::Record(e)) => assert_bad_record(&e, &path, &board, problem),
                other => panic!("{problem}: expected a bad record, got {other:?}"),
            }
        }
        let error = table.check_moves().unwrap_err();
        assert_bad_record(&error, &path, &board, problem);
        let error = table.check_records().unwrap_err();
        assert_bad_record(&error, &path, &board, problem);
        // Other boards still read, if the bad record is not one of their
        // children (7 beads cannot sow into the board's 19).
        let small: Board = "1 1 1 1 1 1 1".parse().unwrap();
        assert_eq!(
            table.best_move(&small).unwrap(),
            good.best_move(&small).unwrap()
        );
        // A parent reads the bad value, so its check fails too.
        let start: Board = "4 3 2 4 2 3 2".parse().unwrap();
        assert!(table.best_move(&start).is_err());
    }
}

#[test]
fn a_value_changed_within_range_is_caught_against_the_children() {
    let dir = tempfile::tempdir().unwrap();
    let (board, value, mask) = board_and_true_record();
    let path = corrupted(dir.path(), &board, [(value + 1) as u8, mask]);
    let table = IoiwariTable::open(&path).unwrap();
    assert_eq!(table.check_moves().unwrap(), 279_936);
    // Reading the board itself checks it against its children.
    match table.value(&board) {
        Err(LookupError::Record(e)) => assert_bad_record(
            &e,
            &path,
            &board,
            &format!("value {} disagrees with the children's records", value + 1),
        ),
        other => panic!("expected a bad record, got {other:?}"),
    }
    // The board or one of its parents no longer agrees with its children.
    let error = table.check_records().unwrap_err();
    assert!(matches!(error, TableError::BadRecord { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("board "), "{message}");
    // A failed full check leaves the lookups checking.
    assert!(table.value(&board).is_err());
}

#[test]
fn a_legal_but_wrong_optimal_move_is_caught_against_the_children() {
    let dir = tempfile::tempdir().unwrap();
    let (board, value, mask) = board_and_true_record();
    // A legal move (pits 2 and 5 are empty) that is not among the optimal ones.
    let legal: u8 = 0b1101101;
    let wrong = legal & !mask;
    assert_ne!(wrong, 0, "every legal move is optimal on this board");
    let wrong = wrong & wrong.wrapping_neg();
    let path = corrupted(dir.path(), &board, [value as u8, wrong]);
    let table = IoiwariTable::open(&path).unwrap();
    assert_eq!(table.check_moves().unwrap(), 279_936);
    for error in [
        table.best_move(&board).err(),
        table.best_moves(&board).err(),
    ] {
        match error {
            Some(LookupError::Record(e)) => {
                assert_bad_record(&e, &path, &board, "disagree with the children's records")
            }
            other => panic!("expected a bad record, got {other:?}"),
        }
    }
    assert!(table.check_records().is_err());
}

#[test]
fn of_several_bad_records_a_check_names_the_first() {
    // The check runs in parallel; it must still name the lowest index, whichever
    // thread comes upon its record first.
    let dir = tempfile::tempdir().unwrap();
    let low: Board = "1 0 0 0 0 0 0".parse().unwrap();
    let high: Board = "5 5 5 5 5 5 4".parse().unwrap();
    assert!(low.index() < high.index());
    let path = corrupted_many(dir.path(), &[(high, [100, 1]), (low, [100, 1])]);
    let table = IoiwariTable::open(&path).unwrap();
    for _ in 0..20 {
        let error = table.check_moves().unwrap_err();
        assert_bad_record(&error, &path, &low, "value 100 outside");
    }
}

#[test]
fn a_check_reports_its_two_passes_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("good.tab");
    ioiwari::build(&path, &|_| {}).unwrap();
    let table = IoiwariTable::open(&path).unwrap();
    let reports = std::sync::Mutex::new(Vec::new());
    let checked = table
        .check_records_with(&|done| reports.lock().unwrap().push(done))
        .unwrap();
    let reports = reports.into_inner().unwrap();
    // Every record once alone, then once against its children.
    assert_eq!(reports.iter().max(), Some(&(2 * checked as u64)));
    assert!(
        reports.len() > 2,
        "reported as it goes, not only at the end"
    );
}

#[test]
fn entries_read_by_index_agree_with_lookups_and_skip_boards_no_game_reaches() {
    use tabula_solver::kalah::{KalahSpace, Rules};
    use tabula_solver::retrograde::StateSpace;
    use tabula_tables::Tabulated;
    let ioi = IoiwariTable::in_memory();
    for index in (0..279_936).step_by(7) {
        let entry = ioi.entry(index).unwrap().expect("every board is a state");
        let board = Board::from_index(index as usize);
        assert_eq!(entry.position, board);
        assert_eq!(entry.value, ioi.value(&board).unwrap());
        assert_eq!(entry.optimal, ioi.best_moves(&board).unwrap());
    }
    assert!(matches!(
        ioi.entry(279_936),
        Err(TableError::BadRecord { .. })
    ));
    // Kalah has indices no game reaches (a side empty, seeds on the other).
    let rules = Rules::new(3, 2).unwrap();
    let kalah = tabula_tables::kalah::in_memory(&rules, &|_| {});
    let space = KalahSpace::new(rules);
    let mut skipped = 0;
    for index in 0..space.len() {
        match kalah.entry(index).unwrap() {
            None => {
                assert!(!space.is_state(index));
                skipped += 1;
            }
            Some(entry) => {
                assert_eq!(entry.position, kalah.game().position(index));
                assert_eq!(entry.value, kalah.value(&entry.position).unwrap());
                assert_eq!(entry.optimal, kalah.best_moves(&entry.position).unwrap());
            }
        }
    }
    assert!(skipped > 0, "some boards of Kalah(3, 2) never arise");
    // A damaged record is an error by index as by position.
    let dir = tempfile::tempdir().unwrap();
    let board: Board = "4 0 3 5 0 3 2".parse().unwrap();
    let value = ioi.value(&board).unwrap() as i8;
    let mask = ioi.best_mask(&board).unwrap() as u8;
    let path = corrupted(dir.path(), &board, [(value + 1) as u8, mask]);
    let table = IoiwariTable::open(&path).unwrap();
    let error = table
        .entry(board.index() as u64)
        .err()
        .expect("a bad record");
    assert_bad_record(
        &error,
        &path,
        &board,
        "disagrees with the children's records",
    );
}
