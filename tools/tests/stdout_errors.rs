//! A stdout that cannot be written: a full one is a one-line error (exit 2),
//! a closed pipe (the reader went away, as under `| head`) ends the program
//! quietly with status 0 unless it leaves a log unfinished; never a panic.

mod common;

use std::fs;
use std::path::Path;

use common::{BadStdout, run_with_stdout, stderr};
use tabula_verify::record::read_log;

/// Commands that print, each fast, with what they read on stdin.
const PRINTING: &[(&[&str], &str)] = &[
    (&["games"], ""),
    (&["completions", "bash"], ""),
    (&["man"], ""),
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

#[test]
fn a_closed_stdout_finishes_a_verify_log_and_names_a_referees_unfinished_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let log = log.to_str().unwrap();
    // verify writes its report last: the log is finished all the same.
    let args = ["verify", "nim", "--games", "2", "--log", log];
    let out = run_with_stdout(&args, "", BadStdout::ClosedPipe);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_eq!(
        read_log(&fs::read_to_string(log).unwrap()).unwrap().len(),
        12
    );
    // A referee stops at its first result line, with one game logged.
    fs::remove_file(log).unwrap();
    let args = ["referee", "nim", "--agent", "random", "--log", log];
    let out = run_with_stdout(&args, "", BadStdout::ClosedPipe);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "error: stdout was closed before the run ended; the records written so far are in {log}.part\n"
        )
    );
    assert!(!Path::new(log).exists());
    let part = fs::read_to_string(format!("{log}.part")).unwrap();
    assert!(!read_log(&part).unwrap().is_empty());
}
