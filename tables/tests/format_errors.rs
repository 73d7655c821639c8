//! Every kind of damaged or wrong table file gives its own error naming the file.

use std::fs;
use std::path::{Path, PathBuf};

use tabula_tables::format::{FORMAT_VERSION, HEADER_SIZE, table_bytes};
use tabula_tables::ioiwari::{self, IoiwariTable, SPEC};
use tabula_tables::{Layout, Meta, Record, RecordBounds, Table, TableError, TableSpec};
use xxhash_rust::xxh3::xxh3_64;

fn good_table(dir: &Path) -> PathBuf {
    let path = dir.join("ioiwari.tab");
    ioiwari::build(&path, &|_| {}).unwrap();
    path
}

/// A good table in a new temporary directory (removed when dropped).
fn temp_good_table() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = good_table(dir.path());
    (dir, path)
}

fn open_both(path: &Path) -> (Result<Table, TableError>, Result<Table, TableError>) {
    // SAFETY: the test owns the file and does not change it while mapped.
    (Table::read(path), unsafe { Table::map(path) })
}

fn assert_error(path: &Path, check: impl Fn(&TableError) -> bool) {
    let (read, mapped) = open_both(path);
    for result in [read, mapped] {
        let error = result.err().expect("damaged table was accepted");
        assert!(check(&error), "unexpected error: {error}");
        let message = error.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(!message.contains('\n'), "{message}");
    }
}

/// Checks that `path` is refused as corrupted, in words that contain `what`.
fn assert_corrupted(path: &Path, says: &str) {
    assert_error(
        path,
        |e| matches!(e, TableError::Corrupted { what, .. } if what.contains(says)),
    );
}

/// A header for `game` and `params`: `entries` records of `value_bytes` and `mask_bytes`.
fn spec(
    game: &'static str,
    params: [u32; 4],
    value_bytes: u8,
    mask_bytes: u8,
    entries: u64,
) -> TableSpec {
    let layout = Layout {
        value_bytes,
        mask_bytes,
    };
    TableSpec {
        game,
        params,
        layout,
        entries,
    }
}

/// Sets the length of the file at `path` in place (the rest sparse zeros).
fn set_len(path: &Path, len: u64) {
    fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

fn rewrite(path: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = fs::read(path).unwrap();
    edit(&mut bytes);
    fs::write(path, bytes).unwrap();
}

#[test]
fn a_good_table_opens_both_ways_and_fits_in_a_mebibyte() {
    let (dir, path) = temp_good_table();
    assert!(fs::metadata(&path).unwrap().len() <= 1 << 20);
    let (read, mapped) = open_both(&path);
    let (read, mapped) = (read.unwrap(), mapped.unwrap());
    assert_eq!(read.header(), mapped.header());
    assert_eq!(&Table::read_header(&path).unwrap(), read.header());
    let in_memory = IoiwariTable::in_memory();
    for index in (0..read.len()).step_by(97) {
        assert_eq!(read.record(index), mapped.record(index));
        assert_eq!(read.record(index), in_memory.table().record(index));
    }
    assert!(IoiwariTable::new(mapped).is_ok());
    // No temporary file is left beside the table.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn truncated_file() {
    let (_dir, path) = temp_good_table();
    rewrite(&path, |b| b.truncate(b.len() - 1000));
    assert_error(&path, |e| matches!(e, TableError::Truncated { .. }));
    // The header alone says so too: it names the payload's end.
    let header = Table::read_header(&path).unwrap_err();
    assert!(matches!(header, TableError::Truncated { .. }), "{header}");
    rewrite(&path, |b| b.truncate(HEADER_SIZE - 1));
    assert_error(&path, |e| matches!(e, TableError::Truncated { .. }));
}

#[test]
fn flipped_payload_byte() {
    let (_dir, path) = temp_good_table();
    rewrite(&path, |b| {
        let last = b.len() - 7;
        b[last] ^= 0x10;
    });
    assert_corrupted(&path, "payload checksum");
}

#[test]
fn flipped_header_byte() {
    let (_dir, path) = temp_good_table();
    for at in [8, 20, 48, 60, 90, 121] {
        let original = fs::read(&path).unwrap();
        rewrite(&path, |b| b[at] ^= 0x01);
        assert_corrupted(&path, "header checksum");
        fs::write(&path, original).unwrap();
    }
}

#[test]
fn wrong_magic() {
    let (dir, path) = temp_good_table();
    rewrite(&path, |b| b[0] = b'X');
    assert_error(&path, |e| matches!(e, TableError::WrongMagic { .. }));
    let header = Table::read_header(&path).unwrap_err();
    assert!(matches!(header, TableError::WrongMagic { .. }), "{header}");
    let text = dir.path().join("notes.txt");
    fs::write(&text, "hello").unwrap();
    assert_error(&text, |e| matches!(e, TableError::WrongMagic { .. }));
}

#[test]
fn future_version() {
    let (_dir, path) = temp_good_table();
    rewrite(&path, |b| {
        b[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        let hash = xxh3_64(&b[..120]);
        b[120..128].copy_from_slice(&hash.to_le_bytes());
    });
    assert_error(
        &path,
        |e| matches!(e, TableError::UnsupportedVersion { found, .. } if *found == FORMAT_VERSION + 1),
    );
}

#[test]
fn wrong_game_for_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.tab");
    let other = spec("tonga", [4, 0, 0, 0], 1, 1, 3);
    fs::write(&path, table_bytes(&other, &Meta::default(), &[0; 6])).unwrap();
    let table = Table::read(&path).unwrap();
    let error = IoiwariTable::new(table).err().unwrap();
    assert!(matches!(error, TableError::WrongGame { .. }), "{error}");
    assert!(error.to_string().contains("tonga"));
    assert!(error.to_string().contains("ioiwari"));
    // Same game, wrong parameters, is refused too.
    let spec = TableSpec {
        params: [6, 5, 0, 0],
        ..SPEC
    };
    let payload = vec![0; (spec.entries * 2) as usize];
    fs::write(&path, table_bytes(&spec, &Meta::default(), &payload)).unwrap();
    let error = IoiwariTable::new(Table::read(&path).unwrap())
        .err()
        .unwrap();
    assert!(matches!(error, TableError::WrongGame { .. }), "{error}");
    // The right game with records of another layout: both layouts in words.
    let spec = TableSpec {
        layout: Layout {
            value_bytes: 2,
            mask_bytes: 1,
        },
        ..SPEC
    };
    let payload = vec![0; (spec.entries * 3) as usize];
    fs::write(&path, table_bytes(&spec, &Meta::default(), &payload)).unwrap();
    let error = IoiwariTable::new(Table::read(&path).unwrap())
        .err()
        .unwrap()
        .to_string();
    for layout in [
        "of 2-byte values and 1-byte move masks, the game needs",
        "of 1-byte values and 1-byte move masks (or of 1-byte values only)",
    ] {
        assert!(error.contains(layout), "{error}");
    }
}

#[test]
fn empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.tab");
    fs::write(&path, b"").unwrap();
    assert_error(&path, |e| matches!(e, TableError::Empty { .. }));
}

#[test]
fn directory() {
    let dir = tempfile::tempdir().unwrap();
    assert_error(dir.path(), |e| matches!(e, TableError::Directory { .. }));
}

#[test]
fn missing_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.tab");
    assert_error(&path, |e| matches!(e, TableError::Io { .. }));
}

#[test]
fn trailing_bytes_are_damage() {
    let (_dir, path) = temp_good_table();
    rewrite(&path, |b| b.extend_from_slice(&[0; 3]));
    assert_error(&path, |e| matches!(e, TableError::Corrupted { .. }));
}

#[test]
fn bytes_left_over_after_the_metadata_are_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leftover.tab");
    let spec = spec("tonga", [4, 0, 0, 0], 1, 1, 1);
    let meta = Meta {
        generator: "gen".into(),
        description: "abc".into(),
    };
    let mut bytes = table_bytes(&spec, &meta, &[0, 0]);
    // Postcard: length 3 "gen", length 3 "abc". A description of length 1
    // decodes to "a" and leaves "bc" over; both checksums are recomputed.
    let start = HEADER_SIZE;
    assert_eq!(&bytes[start..start + 8], b"\x03gen\x03abc");
    bytes[start + 4] = 1;
    let meta_hash = xxh3_64(&bytes[start..start + 8]);
    bytes[96..104].copy_from_slice(&meta_hash.to_le_bytes());
    let header_hash = xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
    fs::write(&path, bytes).unwrap();
    assert_error(
        &path,
        |e| matches!(e, TableError::Corrupted { what, .. } if what == "2 bytes are left over after the metadata"),
    );
}

#[test]
fn nonzero_padding_before_the_payload_is_damage() {
    let (_dir, path) = temp_good_table();
    let payload_offset = Table::read(&path).unwrap().header().payload_range.0 as usize;
    rewrite(&path, |b| b[payload_offset - 1] = 0x5a);
    assert_corrupted(&path, "padding");
}

#[test]
fn a_huge_sparse_file_is_refused_from_its_header() {
    // Sparse: costs no disk. The CLI test runs the same under a memory limit,
    // which shows that the file is not read whole.
    let dir = tempfile::tempdir().unwrap();
    let zeros = dir.path().join("zeros.tab");
    fs::File::create(&zeros).unwrap().set_len(4 << 30).unwrap();
    assert_error(&zeros, |e| matches!(e, TableError::WrongMagic { .. }));
    // A good header followed by gigabytes the header does not declare.
    let padded = good_table(dir.path());
    set_len(&padded, 4 << 30);
    assert_corrupted(&padded, "trailing bytes");
}

#[test]
fn checked_records_refuse_what_the_game_cannot_have() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.tab");
    let spec = spec("tiny", [0; 4], 2, 1, 3);
    // Records: (5, 0b011), (-40, 0b001), (2, 0b1000_0001).
    let payload = [5, 0, 0b011, 0xd8, 0xff, 0b001, 2, 0, 0b1000_0001];
    fs::write(&path, table_bytes(&spec, &Meta::default(), &payload)).unwrap();
    let table = Table::read(&path).unwrap();
    let bounds = RecordBounds {
        values: -20..=20,
        move_slots: 7,
    };
    assert_eq!(
        table.checked_record(0, &bounds).unwrap(),
        Record {
            value: 5,
            best: 0b011
        }
    );
    let problem = |index: usize, bounds: &RecordBounds| match table.checked_record(index, bounds) {
        Err(TableError::BadRecord {
            index: at,
            problem,
            path: named,
        }) => {
            assert_eq!(at, index as u64);
            assert_eq!(named, path);
            problem
        }
        other => panic!("record {index} was not refused: {other:?}"),
    };
    assert!(problem(1, &bounds).contains("-40"));
    assert!(problem(2, &bounds).contains("0x81"));
    assert!(problem(3, &bounds).contains("out of range"));
    // All 8 mask bits and a wider range allow every record.
    let wide = RecordBounds {
        values: -40..=40,
        move_slots: 8,
    };
    assert_eq!(table.check_bounds(&wide).unwrap(), 3);
    let error = table.check_bounds(&bounds).unwrap_err();
    assert!(
        matches!(error, TableError::BadRecord { index: 1, .. }),
        "{error}"
    );
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string()) && message.contains("record 1"),
        "{message}"
    );
}

#[test]
fn small_tables_are_read_not_mapped() {
    let (_dir, path) = temp_good_table();
    assert!(!Table::open(&path).unwrap().is_mapped());
    // SAFETY: the test owns the file and does not change it while mapped.
    assert!(unsafe { Table::map(&path) }.unwrap().is_mapped());
    // A dropped map gives back its place in the fault handler's registry.
    for _ in 0..200 {
        // SAFETY: as above.
        drop(unsafe { Table::map(&path) }.unwrap());
    }
}

#[test]
fn a_table_above_the_read_limit_is_mapped() {
    use tabula_tables::format::READ_LIMIT;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.tab");
    let spec = spec("big", [0; 4], 1, 1, 1);
    // A one-record table, patched to READ_LIMIT / 2 + 1 zero records: the payload is
    // sparse, so the file costs no disk and no memory to write.
    let mut bytes = table_bytes(&spec, &Meta::default(), &[0, 0]);
    bytes.truncate(bytes.len() - 2);
    let entries = READ_LIMIT / 2 + 1;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let zeros = vec![0u8; 1 << 20];
    let mut left = entries * 2;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        hasher.update(&zeros[..n]);
        left -= n as u64;
    }
    bytes[56..64].copy_from_slice(&entries.to_le_bytes());
    bytes[88..96].copy_from_slice(&(entries * 2).to_le_bytes());
    bytes[104..112].copy_from_slice(&hasher.digest().to_le_bytes());
    let hash = xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&hash.to_le_bytes());
    let payload_start = bytes.len() as u64;
    fs::write(&path, &bytes).unwrap();
    set_len(&path, payload_start + entries * 2);
    let table = Table::open(&path).unwrap();
    assert!(table.is_mapped());
    assert_eq!(table.len() as u64, entries);
    assert_eq!((table.value(table.len() - 1), table.best(0)), (0, 0));
}
