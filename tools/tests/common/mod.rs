//! Running the `tabula` binary from the CLI tests.

// Each test file uses only some of these helpers.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The `tabula` binary built for these tests.
pub fn tabula() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
}

/// Runs `tabula ARGS` with no input and collects its output.
pub fn run(args: &[&str]) -> Output {
    tabula().args(args).output().expect("tabula runs")
}

/// Runs `tabula ARGS` with `input` on stdin and collects its output.
pub fn run_with_input(args: &[&str], input: &str) -> Output {
    let mut child = tabula()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tabula runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// What the command wrote on stdout.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What the command wrote on stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
