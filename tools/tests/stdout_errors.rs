//! A stdout that cannot be written: a full one is a one-line error (exit 2),
//! a closed pipe (the reader went away, as under `| head`) ends the program
//! quietly with status 0; never a panic.

mod common;

use common::{BadStdout, run_with_stdout, stderr};

/// Commands that print, each fast, with what they read on stdin.
const PRINTING: &[(&[&str], &str)] = &[
    (&["games"], ""),
    (&["completions", "bash"], ""),
    (&["--help"], ""),
    (&["verify", "nim", "--help"], ""),
    (&["query", "kalah", "--pits", "2", "--seeds", "2"], ""),
    (&["tonga", "score"], "4\n....\n....\n....\n....\n"),
    (&["verify", "nim", "--games", "2"], ""),
    (&["verify", "nim", "--games", "2", "--json", "-"], ""),
    (
        &["referee", "nim", "--agent", "optimal", "--games", "2"],
        "",
    ),
    (
        &[
            "referee", "nim", "--agent", "optimal", "--games", "2", "--log", "-",
        ],
        "",
    ),
    (
        &["referee", "nim", "--agent", "optimal", "--transcript", "-"],
        "",
    ),
    (&["serve", "nim", "--agent", "optimal"], "take 5\n"),
    (&["serve", "tothello"], "bestMove\n"),
];

/// Stderr without the report's lines, which go there when a log has stdout (`--log -`).
fn without_report(args: &[&str], err: &str) -> String {
    let log_on_stdout = args
        .windows(2)
        .any(|w| matches!(w, ["--log" | "--transcript", "-"]));
    err.lines()
        .filter(|line| !log_on_stdout || line.starts_with("error: "))
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
fn a_full_stdout_is_one_line_and_status_2() {
    for &(args, input) in PRINTING {
        let out = run_with_stdout(args, input, BadStdout::Full);
        let err = without_report(args, &stderr(&out));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ")
                && err.contains("writing to stdout: No space left on device"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    for &(args, input) in PRINTING {
        let out = run_with_stdout(args, input, BadStdout::ClosedPipe);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(without_report(args, &stderr(&out)), "", "{args:?}");
    }
}
