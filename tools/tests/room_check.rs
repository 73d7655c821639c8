//! A build refuses at once, in one line, when the file system cannot hold
//! its table, and leaves no file behind (issue 49, item 5).

mod common;

use std::path::Path;
use std::process::Output;

use common::{stderr, tabula, words};

/// Runs `tabula build ARGS -o DIR/t.tab` with the free space forced to `free`
/// bytes (the test-only override of `tabula_tables::room`).
fn build_with_free_space(dir: &Path, args: &[&str], free: u64) -> Output {
    let out = dir.join("t.tab");
    tabula()
        .args(["build"])
        .args(args)
        .args(["-o", out.to_str().unwrap()])
        .env("TABULA_TEST_FREE_BYTES", free.to_string())
        .output()
        .unwrap()
}

/// The names of the files in `dir` (temporary files included).
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// One line `error: DIR/t.tab: the table needs ..., N bytes free on DIR`, a
/// failing status, and an empty directory.
fn assert_refused_for_room(dir: &Path, out: &Output, free: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "{err}");
    let path = dir.join("t.tab");
    let want = format!("error: {}: the table needs ", path.display());
    assert!(err.starts_with(&want), "{err}");
    assert!(
        err.trim_end()
            .ends_with(&format!(", {free} free on {}", dir.display())),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(files_in(dir), Vec::<String>::new(), "{err}");
}

#[test]
fn a_build_without_room_is_refused_before_it_solves_or_creates_its_file() {
    // In memory (before it solves), out of core (before it creates its
    // file), and of values only.
    for (args, free, shown) in [
        ("kalah --pits 2 --seeds 2", 1000, "1.0 kB"),
        ("ioiwari --pits 5 --cap 3 --out-of-core", 999, "999 bytes"),
        ("kalah --pits 2 --seeds 2 --values-only", 4096, "4.1 kB"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = build_with_free_space(dir.path(), &words(args), free);
        assert_refused_for_room(dir.path(), &out, shown);
    }
}

#[test]
fn a_build_with_room_is_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = build_with_free_space(
        dir.path(),
        &["kalah", "--pits", "2", "--seeds", "2"],
        1 << 20,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(files_in(dir.path()), ["t.tab"]);
}

/// `ulimit -f` caps the size of a file the process may write: a table above
/// it is refused in one line, before the write that would kill the build with SIGXFSZ.
#[test]
fn a_table_larger_than_the_largest_file_allowed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tab");
    let build = format!("build kalah --pits 3 --seeds 3 -o '{}'", path.display());
    let out = common::run_after_setup(&[], "ulimit -f 4", &build, dir.path());
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    let want = format!("error: {}: the table needs ", path.display());
    assert!(err.starts_with(&want), "{err}");
    assert!(
        err.contains(&format!(
            "more than the largest file allowed in {}",
            dir.path().display()
        )),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(files_in(dir.path()), Vec::<String>::new(), "{err}");
}
