//! Table files are written safely: exclusive unpredictable temporary files,
//! no symlink following, no replacing of what is not a regular file.

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

use tabula_tables::format::write_table;
use tabula_tables::{Layout, Meta, Table, TableSpec};

const SPEC: TableSpec = TableSpec {
    game: "tiny",
    params: [0; 4],
    layout: Layout {
        value_bytes: 1,
        mask_bytes: 1,
    },
    entries: 4,
};

fn write_tiny(path: &Path) -> Result<(), tabula_tables::TableError> {
    write_table(path, &SPEC, &Meta::default(), &[1, 2, 3, 4, 5, 6, 7, 8])
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Plants a symbolic link at `link` to a file `target` that holds "keep me".
fn planted_link(target: &Path, link: &Path) {
    fs::write(target, "keep me").unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

fn assert_refused(path: &Path, says: &str) {
    let error = write_tiny(path).expect_err("a non-regular output was replaced");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains(says), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_refused(&fifo, "FIFO");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

    let (target, link) = (dir.path().join("target.tab"), dir.path().join("link.tab"));
    planted_link(&target, &link);
    assert_refused(&link, "symbolic link");
    assert!(link.is_symlink());
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");

    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    assert_refused(&sub, "directory");
    assert!(sub.is_dir());
    // A trailing slash names a directory, whether or not one exists.
    assert_refused(
        Path::new(&format!("{}/", dir.path().join("new").display())),
        "ends in /",
    );
    // Nothing was left behind.
    assert_eq!(
        names_in(dir.path()),
        ["fifo", "link.tab", "sub", "target.tab"]
    );
}

#[test]
fn a_regular_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tab");
    fs::write(&out, "old").unwrap();
    write_tiny(&out).unwrap();
    assert_eq!(Table::read(&out).unwrap().value(3), 7);
    assert_eq!(names_in(dir.path()), ["out.tab"]);
}

#[test]
fn stale_temporary_files_of_dead_processes_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    // A process that has exited: its PID names no live process.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = format!(".tabula-tmp-{dead}-AbC123");
    let live = format!(".tabula-tmp-{}-XyZ789", std::process::id());
    let unrelated = ".tabula-tmp-notapid".to_string();
    for name in [&stale, &live, &unrelated] {
        fs::write(dir.path().join(name), "partial").unwrap();
    }
    write_tiny(&dir.path().join("out.tab")).unwrap();
    let mut expected = vec![live, unrelated, "out.tab".to_string()];
    expected.sort();
    assert_eq!(names_in(dir.path()), expected);
}

#[test]
fn a_partial_record_grows_under_dot_part_and_replaces_the_file_when_finished() {
    use std::io::Write;
    use tabula_tables::atomic::Partial;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    fs::write(&log, "old\n").unwrap();
    let partial = Partial::create(&log).unwrap();
    writeln!(partial.file(), "game 1").unwrap();
    // Readable under its .part name while the run goes on; the old file is untouched.
    let part = dir.path().join("games.jsonl.part");
    assert_eq!(fs::read_to_string(&part).unwrap(), "game 1\n");
    assert_eq!(fs::read_to_string(&log).unwrap(), "old\n");
    partial.finish(&log).unwrap();
    assert_eq!(fs::read_to_string(&log).unwrap(), "game 1\n");
    assert_eq!(names_in(dir.path()), ["games.jsonl"]);
}

#[test]
fn an_unfinished_partial_keeps_its_lines_and_is_never_overwritten() {
    use std::io::Write;
    use tabula_tables::atomic::{Partial, check_partial};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    // Nothing written: nothing left behind.
    drop(Partial::create(&log).unwrap());
    assert!(names_in(dir.path()).is_empty());
    check_partial(&log).unwrap();
    // An empty one (a run killed before its first line) holds nothing, and is replaced.
    fs::write(dir.path().join("games.jsonl.part"), "").unwrap();
    check_partial(&log).unwrap();
    drop(Partial::create(&log).unwrap());
    assert!(names_in(dir.path()).is_empty());
    // Lines written, then the run fails: they stay under .part.
    let partial = Partial::create(&log).unwrap();
    writeln!(partial.file(), "game 1").unwrap();
    drop(partial);
    assert_eq!(names_in(dir.path()), ["games.jsonl.part"]);
    let says = "games.jsonl.part exists, left by a run that did not finish";
    let error = check_partial(&log).unwrap_err().to_string();
    assert!(error.contains(says), "{error}");
    let error = Partial::create(&log).unwrap_err().to_string();
    assert!(error.contains(says), "{error}");
    assert_eq!(
        fs::read_to_string(dir.path().join("games.jsonl.part")).unwrap(),
        "game 1\n"
    );
}

#[test]
fn a_partial_in_use_is_neither_taken_over_nor_removed() {
    use std::io::Write;
    use tabula_tables::atomic::{Partial, check_partial};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    // A run that has not written its first line yet holds an empty .part.
    let first = Partial::create(&log).unwrap();
    let says = "games.jsonl.part is being written by another run";
    let error = check_partial(&log).unwrap_err().to_string();
    assert!(error.contains(says), "{error}");
    let error = Partial::create(&log).unwrap_err().to_string();
    assert!(error.contains(says), "{error}");
    writeln!(first.file(), "game 1").unwrap();
    first.finish(&log).unwrap();
    assert_eq!(fs::read_to_string(&log).unwrap(), "game 1\n");
}

#[test]
fn a_log_named_like_a_partial_or_over_a_directory_is_refused() {
    use tabula_tables::atomic::{Partial, check_partial};
    let dir = tempfile::tempdir().unwrap();
    let error = check_partial(&dir.path().join("other.part")).unwrap_err();
    assert!(error.to_string().contains("ends in .part"), "{error}");
    let log = dir.path().join("games.jsonl");
    fs::create_dir(dir.path().join("games.jsonl.part")).unwrap();
    for error in [
        check_partial(&log).unwrap_err(),
        Partial::create(&log).unwrap_err(),
    ] {
        let says = "games.jsonl.part is a directory, not a log left by a run";
        assert!(error.to_string().contains(says), "{error}");
    }
}

#[test]
fn a_partial_left_with_a_torn_last_line_keeps_its_whole_lines() {
    use std::io::Write;
    use tabula_tables::atomic::Partial;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let partial = Partial::create(&log).unwrap();
    let long = "x".repeat(100_000);
    write!(partial.file(), "game 1\n{long}\ngame 3 cut sh").unwrap();
    drop(partial);
    let kept = fs::read_to_string(dir.path().join("games.jsonl.part")).unwrap();
    assert_eq!(kept, format!("game 1\n{long}\n"));
}

#[test]
fn a_symlink_planted_at_the_part_name_is_not_followed() {
    use tabula_tables::atomic::{Partial, check_partial};
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    planted_link(&victim, &dir.path().join("games.jsonl.part"));
    let log = dir.path().join("games.jsonl");
    assert!(check_partial(&log).is_err());
    assert!(Partial::create(&log).is_err());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
}

/// A child forked by another thread holds a copy of every open descriptor
/// until it execs: a partial dropped meanwhile must not stay locked by it.
#[test]
fn a_child_forked_meanwhile_does_not_keep_a_partial_locked() {
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::CommandExt;
    use tabula_tables::atomic::{Partial, check_partial};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let partial = Partial::create(&log).unwrap();
    writeln!(partial.file(), "game 1").unwrap();
    let (mut release, hold) = UnixStream::pair().unwrap();
    let (forked, mut forked_here) = UnixStream::pair().unwrap();
    let (hold_fd, forked_fd) = (hold.as_raw_fd(), forked.as_raw_fd());
    let mut command = Command::new("true");
    // SAFETY: between fork and exec the child only writes and reads a byte
    // on descriptors it inherited, both async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let mut byte = 0u8;
            libc::write(forked_fd, (&raw const byte).cast(), 1);
            libc::read(hold_fd, (&raw mut byte).cast(), 1);
            Ok(())
        });
    }
    // Spawning returns only once the child execs, so it goes on another thread.
    let spawner = std::thread::spawn(move || {
        let child = command.spawn().unwrap();
        drop((hold, forked));
        child
    });
    let mut byte = [0u8];
    forked_here.read_exact(&mut byte).unwrap();
    // Forked, not yet exec'd: it holds a copy of the partial's descriptor.
    drop(partial);
    let error = check_partial(&log).unwrap_err().to_string();
    release.write_all(&[1]).unwrap();
    let mut child = spawner.join().unwrap();
    assert!(child.wait().unwrap().success());
    let says = "games.jsonl.part exists, left by a run that did not finish";
    assert!(error.contains(says), "{error}");
}
