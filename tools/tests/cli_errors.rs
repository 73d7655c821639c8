//! Command lines clap does not take: one line and status 2 for an error,
//! help and version as clap shows them, with status 0.

mod common;

use common::{assert_one_line_error, run, stderr, stdout};

#[test]
fn clap_errors_are_one_line() {
    for (args, problem) in [
        (
            &["referee", "nim", "--bogus"][..],
            "unexpected argument '--bogus' found",
        ),
        (
            &["verify", "nim", "--gmes", "3"],
            "unexpected argument '--gmes' found (a similar argument exists: '--games')",
        ),
        (
            &["completions", "foo"],
            "invalid value 'foo' for '<SHELL>' [possible values: bash,",
        ),
        (&["verify", "nim", "--games", "0"], "must be at least 1"),
        (
            &[
                "referee",
                "ioiwari",
                "--all",
                "--rotations",
                "--agent",
                "random",
            ],
            "the argument '--all' cannot be used with '--rotations'",
        ),
        (
            &["info"],
            "the following required arguments were not provided: <FILE>",
        ),
        (
            &["referee", "nim", "--timeout"],
            "a value is required for '--timeout",
        ),
        (
            &["verify", "nim", "--plot", "-"],
            "goes to a file, not stdout",
        ),
    ] {
        let out = run(args);
        assert_one_line_error(&out, problem);
        assert!(!stderr(&out).contains("error: error:"), "{}", stderr(&out));
    }
}

#[test]
fn help_and_version_are_shown_with_status_0() {
    let out = run(&["verify", "nim", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Usage: tabula verify nim"),
        "{}",
        stdout(&out)
    );
    assert_eq!(stderr(&out), "");
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("tabula {}\n", env!("CARGO_PKG_VERSION"))
    );
}
