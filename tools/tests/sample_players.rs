//! The sample players of `examples/players/` against their referees with
//! `--strict`: each must finish its games without a fault of its own.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::tabula;

/// A sample player's file.
fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/players")
        .join(name)
}

/// Whether `program --version` runs, or else a line saying the test is skipped.
fn available(program: &str) -> bool {
    let runs = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        eprintln!("skipped: no {program} on this machine");
    }
    runs
}

/// `tabula referee GAME --player PLAYER ARGS` succeeds (with `--strict`
/// where the referee has it: Tothello's exits 1 on any wrong answer anyway).
fn referee_passes(game: &str, player: &str, args: &[&str]) {
    let mut command = tabula();
    command
        .args(["referee", game, "--player", player])
        .args(args);
    if game != "tothello" {
        command.arg("--strict");
    }
    let output = command.output().expect("tabula runs");
    assert!(
        output.status.success(),
        "{game} with {player}: {:?}\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The Python sample player `file` against its referee.
fn python_passes(game: &str, file: &str, args: &[&str]) {
    if !available("python3") {
        return;
    }
    let player = format!("exec python3 '{}'", sample(file).display());
    referee_passes(game, &player, args);
}

#[test]
fn ioiwari_py_passes_strict() {
    python_passes("ioiwari", "ioiwari.py", &["--seed", "3"]);
}

#[test]
fn ioiwari_cpp_passes_strict() {
    if !available("g++") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("ioiwari");
    let built = Command::new("g++")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(sample("ioiwari.cpp"))
        .output()
        .expect("g++ runs");
    assert!(
        built.status.success(),
        "g++: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let player = format!("exec '{}'", binary.display());
    referee_passes("ioiwari", &player, &["--all"]);
}

#[test]
fn kalah_py_passes_strict() {
    python_passes("kalah", "kalah.py", &["--pits", "3", "--seeds", "3"]);
}

#[test]
fn tothello_py_answers_every_case_right() {
    python_passes("tothello", "tothello.py", &["--cases", "20"]);
}

#[test]
fn tonga_py_passes_strict() {
    python_passes("tonga", "tonga.py", &["--sizes", "6,8"]);
}

#[test]
fn dominoes_py_passes_strict() {
    python_passes(
        "dominoes",
        "dominoes.py",
        &["--cases", "5:4,9:7", "--games", "4"],
    );
}

#[test]
fn reversi_py_passes_strict() {
    let small = ["--sizes", "7,8", "--cases", "1", "--generations", "1"];
    python_passes(
        "reversi",
        "reversi.py",
        &[&small[..], &["--ga-games", "2"]].concat(),
    );
}

#[test]
fn nim_py_passes_strict() {
    python_passes("nim", "nim.py", &[]);
}
