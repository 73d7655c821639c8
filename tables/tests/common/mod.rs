//! What the tests that run a child copy of themselves share.

use std::io::{BufRead, BufReader, Lines};
use std::process::ChildStdout;

/// The child's output lines up to the one that ends with `marker` (checked
/// to come), and the lines after it.
pub fn said_until(stdout: ChildStdout, marker: &str) -> (String, Lines<BufReader<ChildStdout>>) {
    let mut said = String::new();
    let mut lines = BufReader::new(stdout).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        // libtest's "test NAME ... " comes first on the line.
        if line.ends_with(marker) {
            break;
        }
    }
    assert!(said.ends_with(&format!("{marker}\n")), "child said: {said}");
    (said, lines)
}
