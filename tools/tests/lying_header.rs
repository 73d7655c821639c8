//! A table whose header lies about what it holds (its parameters changed and
//! its header checksum recomputed) is blamed on the file by every verb that
//! opens a table, before any board is read with the variant it names.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{run, run_with_input, stderr};

/// Builds a table with `build`, then sets its first parameter to `first`
/// and recomputes the header's checksum, so that only what the header says
/// against what the file holds can tell.
fn lying_table(dir: &Path, build: &[&str], first: u32) -> PathBuf {
    let path = dir.join("lying.tab");
    let out = run(&[build, &["-o", path.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[32..36].copy_from_slice(&first.to_le_bytes());
    let header_hash = xxhash_rust::xxh3::xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    path
}

/// One line, `error: PATH: corrupted: ...`, and exit status 2: the file is blamed.
fn assert_blames_the_file(out: &Output, path: &str, verb: &str) {
    common::assert_error_line_starting(out, verb, &format!("{path}: corrupted: "));
}

#[test]
fn every_verb_blames_an_ioiwari_table_whose_header_lies() {
    let dir = tempfile::tempdir().unwrap();
    let path = lying_table(dir.path(), &["build", "ioiwari"], 4);
    let p = path.to_str().unwrap();
    let board = "4 3 2 4 2 3 2";
    let table = ["--table", p];
    let runs: [(&str, Output); 8] = [
        (
            "query",
            run(&[&["query", "ioiwari"][..], &table, &[board]].concat()),
        ),
        (
            "play",
            run_with_input(
                &[&["play", "ioiwari"][..], &table].concat(),
                &format!("{board}\n"),
            ),
        ),
        (
            "serve",
            run_with_input(
                &[&["serve", "ioiwari"][..], &table].concat(),
                &format!("{board}\n"),
            ),
        ),
        (
            "referee",
            run(&[&["referee", "ioiwari", "--agent", "optimal"][..], &table].concat()),
        ),
        (
            "verify",
            run(&[&["verify", "ioiwari", "--games", "2"][..], &table].concat()),
        ),
        ("export", run(&["export", p])),
        ("info", run(&["info", p])),
        ("check", run(&["check", p])),
    ];
    for (verb, out) in &runs {
        assert_blames_the_file(out, p, verb);
    }
}

#[test]
fn every_verb_blames_a_kalah_table_whose_header_lies() {
    let dir = tempfile::tempdir().unwrap();
    let build = ["build", "kalah", "--pits", "3", "--seeds", "3"];
    let path = lying_table(dir.path(), &build, 2);
    let p = path.to_str().unwrap();
    let table = ["--table", p];
    let runs: [(&str, Output); 7] = [
        (
            "query",
            run(&[&["query", "kalah"][..], &table, &["3 3 3 / 3 3 3"]].concat()),
        ),
        (
            "play",
            run_with_input(&[&["play", "kalah"][..], &table].concat(), ""),
        ),
        (
            "referee",
            run(&[&["referee", "kalah", "--agent", "optimal"][..], &table].concat()),
        ),
        (
            "serve",
            run_with_input(
                &[&["serve", "kalah", "--agent", "optimal"][..], &table].concat(),
                "",
            ),
        ),
        ("export", run(&["export", p])),
        ("info", run(&["info", p])),
        ("check", run(&["check", p])),
    ];
    for (verb, out) in &runs {
        assert_blames_the_file(out, p, verb);
    }
}
