//! Command lines clap does not take: one line and status 2 for an error,
//! help and version as clap shows them, with status 0.

mod common;

use common::{
    assert_contains, assert_one_line_error, build, run, run_after_setup, stderr, stdout, tabula,
    temp_file, words,
};

#[test]
fn clap_errors_are_one_line() {
    for (line, problem) in [
        ("referee nim --bogus", "unexpected argument '--bogus' found"),
        (
            "verify nim --gmes 3",
            "unexpected argument '--gmes' found (a similar argument exists: '--games')",
        ),
        (
            "completions foo",
            "invalid value 'foo' for '<SHELL>' [possible values: bash,",
        ),
        ("verify nim --games 0", "must be at least 1"),
        (
            "referee ioiwari --all --rotations --agent random",
            "the argument '--all' cannot be used with '--rotations'",
        ),
        (
            "info",
            "the following required arguments were not provided: <FILE>",
        ),
        (
            "referee nim --timeout",
            "a value is required for '--timeout",
        ),
        ("verify nim --plot -", "goes to a file, not stdout"),
        // A verify speaks to no external player: no dialogue to transcribe.
        (
            "verify nim --transcript t.txt",
            "unexpected argument '--transcript' found",
        ),
        // The bestMove checker plays no game to log.
        (
            "referee tothello --log g.jsonl",
            "unexpected argument '--log' found",
        ),
        (
            "verify nim --plot nim.png",
            "the plot is drawn as SVG: name the file .svg, not .png",
        ),
        (
            "sweep ioiwari --pits 5 --cap 4 --beads 0..4294967295",
            "make 4294967296 combinations, more than 1000000",
        ),
        (
            "sweep ioiwari --pits 14",
            "1 make no game (the first: bad Ioiwari parameters: 14 pits, a ring has 2 to 13)",
        ),
        (
            "sweep ioiwari --high 6",
            "a starting pit holds 2 to 6 beads, which must lie within 0..=5",
        ),
        (
            "sweep ioiwari --pits 300",
            "(the first: --pits 300 is far past any ring)",
        ),
        (
            "verify ioiwari --beads 0 --low 0 --high 0",
            "--beads 0: a starting board needs beads to be a game",
        ),
        ("dominoes deals --deals 10001", "10001 is not in 1..=10000"),
        (
            "query tothello --depth 0",
            "invalid value '0' for '--depth <DEPTH>': 0 is not in 1..=64",
        ),
        (
            "build",
            "'tabula build' requires a subcommand but one was not provided [subcommands: ioiwari, kalah,",
        ),
        (
            "tonga",
            "'tabula tonga' requires a subcommand but one was not provided [subcommands: score,",
        ),
        // The test-only game Nim is hidden here as from help.
        (
            "referee",
            "'tabula referee' requires a subcommand but one was not provided [subcommands: ioiwari, kalah, tothello, tonga, dominoes, reversi, help]",
        ),
    ] {
        assert_clap_error(&words(line), problem);
    }
    // Arguments that are not words: an empty or blank command.
    assert_clap_error(
        &["referee", "nim", "--player", " "],
        "invalid value ' ' for '--player <CMD>': an empty command runs no player",
    );
    assert_clap_error(
        &["referee", "tothello", "--player", ""],
        "an empty command runs no player",
    );
}

/// Checks that clap's refusal of `tabula ARGS` is one line that says `problem`.
fn assert_clap_error(args: &[&str], problem: &str) {
    let out = run(args);
    assert_one_line_error(&out, problem);
    assert!(!stderr(&out).contains("error: error:"), "{}", stderr(&out));
}

#[test]
fn quoted_arguments_and_paths_stay_on_one_short_printable_line() {
    // A newline and a terminal escape in a board and in a file name.
    let out = run(&["query", "kalah", "a\nb\u{1b}[2J"]);
    assert_one_line_error(&out, "'a\\nb\\u{1b}[2J'");
    let out = run(&["check", "no\nsuch\u{1b}[2J.tab"]);
    assert_one_line_error(&out, "no\\nsuch\\u{1b}[2J.tab");
    // Values clap refuses: whole, after `=`, and an element of a list.
    let out = run(&["verify", "nim", "--heaps", "5,\n8"]);
    assert_one_line_error(&out, "invalid value '\\n8' for '--heaps <HEAPS>'");
    let out = run(&["verify", "nim", "--heaps=x\ny"]);
    assert_one_line_error(&out, "invalid value 'x\\ny'");
    // A board of 100 000 characters: the start and the end are kept.
    let board = "x".repeat(100_000);
    let out = run(&["query", "ioiwari", &board]);
    assert_one_line_error(&out, "…(");
    let err = stderr(&out);
    assert!(
        err.chars().count() < 1100,
        "{} characters",
        err.chars().count()
    );
    assert!(err.starts_with("error: bad board 'xxx"), "{err}");
    assert!(
        err.ends_with("xxx': a board has 7 pits, found 1\n"),
        "{err}"
    );
}

#[test]
fn completion_scripts_leave_out_the_hidden_game() {
    for shell in ["bash", "zsh", "fish"] {
        let out = run(&["completions", shell]);
        assert!(out.status.success(), "{}", stderr(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains("dominoes"), "{shell}");
        assert!(!script.contains("nim"), "{shell}");
    }
}

#[test]
fn help_and_version_are_shown_with_status_0() {
    let out = run(&["verify", "nim", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_contains(&stdout(&out), "Usage: tabula verify nim");
    assert_eq!(stderr(&out), "");
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("tabula {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_path_is_named_once_in_a_message() {
    use tabula_tables::{Meta, format::write_table};
    let dir = tempfile::tempdir().unwrap();
    // A sound table file whose header names a tonga table of another size.
    let other = dir.path().join("other.tab");
    let spec = common::table_spec("tonga", [6, 0, 0, 0], 1, 1, 2);
    write_table(&other, &spec, &Meta::default(), &[0; 4]).unwrap();
    let junk = dir.path().join("junk.tab");
    std::fs::write(&junk, "not a table").unwrap();
    let (other, junk) = (other.to_str().unwrap(), junk.to_str().unwrap());
    for (args, path, problem) in [
        (&["check", other][..], other, "table is for"),
        (
            &["referee", "dominoes", "--agent", "random", "--table", junk],
            junk,
            "wrong magic",
        ),
        (
            &["verify", "dominoes", "--table", junk],
            junk,
            "wrong magic",
        ),
    ] {
        let out = run(args);
        assert_one_line_error(&out, problem);
        assert_eq!(stderr(&out).matches(path).count(), 1, "{}", stderr(&out));
    }
}

#[test]
fn options_that_need_more_memory_than_allowed_are_refused() {
    // Under `ulimit -v` (2 GiB of address space) the tables asked for cannot
    // be allocated: a one-line error, not an abort on allocation.
    for (args, problem) in [
        (
            "sweep kalah --pits 1 --seeds 1 --table-bits 30",
            "--table-bits 30 needs at least 16.0 GiB, but",
        ),
        (
            "verify tothello --openings 1 --depths 1 --exact 4 --table-bits 28",
            "--table-bits 28 on",
        ),
        (
            "build ioiwari --pits 11 --cap 5 --max-boards 1000000000 -o t.tab",
            "an in-memory build of 362797056 boards needs at least",
        ),
        (
            // Refused before its starting boards (billions) are listed.
            "verify ioiwari --pits 13 --cap 9 --beads 58 --low 0 --high 9 --games 1",
            "has 10000000000000 boards, more than the 200000000 solved in memory",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = run_after_setup(&[], "ulimit -v 2000000", args, dir.path());
        assert_one_line_error(&out, problem);
    }
    // A variant solved for one query: 6^10 boards need about 0.7 GiB.
    let dir = tempfile::tempdir().unwrap();
    let query = "query ioiwari --pits 10 --cap 5 '1 1 1 1 1 1 1 1 1 1'";
    let out = run_after_setup(&[], "ulimit -v 500000", query, dir.path());
    assert_one_line_error(&out, "solving 60466176 boards in memory needs at least");
    // A run larger than the whole limit (153 MiB under 195 MiB less the
    // threads' 128 MiB) is refused whatever tabula's own mappings, and the
    // error names the limit that sets the room.
    let out = run_after_setup(
        &[],
        "ulimit -v 200000",
        "verify kalah --pits 2 --seeds 1 --games 1000000",
        dir.path(),
    );
    assert_one_line_error(
        &out,
        "needs at least 152.6 MiB, but the address-space limit (ulimit -v) of 195.3 MiB leaves",
    );
    assert!(
        stderr(&out).ends_with("or raise the limit\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn verify_tothello_counts_the_games_that_run_at_once_as_rayon_does() {
    // 2 solvers of 24 MiB per game, 4096 games at once: about 192 GiB. A
    // million threads are refused too, before a pool that size is started
    // (which would take minutes); a hang is killed and fails.
    for threads in ["4096", "1000000"] {
        let mut command = tabula();
        command
            .env("RAYON_NUM_THREADS", threads)
            .args(["verify", "tothello", "--openings", "1", "--depths", "1"])
            .args(["--table-bits", "20"]);
        let out = common::output_or_kill(&mut command, std::time::Duration::from_secs(120))
            .unwrap()
            .expect("refused, not hung");
        let problem = format!("--table-bits 20 on {threads} threads needs at least");
        assert_one_line_error(&out, &problem);
    }
}

#[test]
fn info_escapes_the_control_characters_of_a_tables_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crafted.tab");
    // Sound checksums, but text that would fake a line and drive the terminal.
    one_record_table(
        &path,
        "tonga",
        [4, 0, 0, 0],
        "evil\ngame: nim\u{1b}[2J",
        "bell\u{7}",
    );
    let out = run(&["info", path.to_str().unwrap()]);
    // The header is shown, then refused: one record is no tonga table.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("the game needs"), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("generator: evil\\ngame: nim\\u{1b}[2J\n"),
        "{text}"
    );
    assert!(text.contains("description: bell\\u{7}\n"), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
    assert!(!text.lines().any(|l| l == "game: nim"), "{text}");
}

#[test]
fn info_names_a_tables_variant_and_refuses_a_header_the_game_does_not_fit() {
    let (dir, good) = temp_file("k22.tab");
    build("kalah --pits 2 --seeds 2", &good);
    let out = run(&["info", &good]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_contains(
        &stdout(&out),
        "variant: every board of Kalah(2, 2) with at most its seeds; capture always, end after-any-move",
    );
    // Sound checksums, but a game tabula does not know, or parameters whose
    // table is not one record: both are errors, as `check` says.
    for (game, params, problem) in [
        (
            "nim",
            [2, 2, 0, 0],
            "a table of game 'nim', which tabula does not know",
        ),
        ("kalah", [2, 2, 0, 0], "the game needs"),
        ("ioiwari", [7, 5, 0, 0], "the game needs"),
    ] {
        let path = dir.path().join(format!("{game}.tab"));
        one_record_table(&path, game, params, "test", "crafted");
        let out = run(&["info", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{game}: {}", stderr(&out));
        assert!(stderr(&out).contains(problem), "{game}: {}", stderr(&out));
        assert!(stdout(&out).contains("entries: 1\n"), "{}", stdout(&out));
    }
}

#[test]
fn check_and_export_name_a_kalah_header_whose_rules_do_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    // Sound checksums, but a capture rule that is neither 0 nor 1.
    let path = dir.path().join("kalah.tab");
    one_record_table(&path, "kalah", [2, 3, 2, 0], "test", "crafted");
    let file = path.to_str().unwrap();
    let output = dir.path().join("out.jsonl");
    let exported = ["export", file, "-o", output.to_str().unwrap()];
    for args in [&["check", file][..], &["export", file], &exported] {
        let out = run(args);
        assert_one_line_error(
            &out,
            "the header's parameters: capture rule 2 is neither 0 nor 1",
        );
        let problem = format!("error: {file}: the header's");
        assert!(
            stderr(&out).starts_with(&problem),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!output.exists());
}

/// Writes a sound table of one empty record (one value byte, one mask byte)
/// with the header's `game` and `params` and the given metadata.
fn one_record_table(
    path: &std::path::Path,
    game: &'static str,
    params: [u32; 4],
    generator: &str,
    description: &str,
) {
    use tabula_tables::{Meta, format::write_table};
    let spec = common::table_spec(game, params, 1, 1, 1);
    let meta = Meta {
        generator: generator.into(),
        description: description.into(),
    };
    write_table(path, &spec, &meta, &[0; 2]).unwrap();
}

#[test]
fn strict_referees_exit_1_when_the_player_faulted_and_still_report() {
    let reversi = words("--sizes 7 --cases 1 --generations 2 --ga-games 10");
    for (game, options, good, report_line) in [
        ("ioiwari", &[][..], "optimal", "result "),
        (
            "tonga",
            &["--sizes", "6", "--games", "1"][..],
            "greedy",
            "overall ",
        ),
        (
            "dominoes",
            &["--cases", "5:4", "--games", "2"][..],
            "heaviest",
            "total ",
        ),
        ("reversi", &reversi[..], "greedy", "total "),
    ] {
        let referee = |seat: &[&str], strict: bool| {
            let mut args = vec!["referee", game];
            args.extend_from_slice(seat);
            args.extend_from_slice(options);
            if strict {
                args.push("--strict");
            }
            run(&args)
        };
        // A crash is a fault: the report is whole, and only --strict says so in the status.
        let crash = referee(&["--player", "exit 3"], true);
        assert_eq!(crash.status.code(), Some(1), "{game}: {}", stderr(&crash));
        assert!(
            stdout(&crash).contains(report_line),
            "{game}: {}",
            stdout(&crash)
        );
        assert!(
            stderr(&crash).contains("--strict: the tested player lost"),
            "{game}: {}",
            stderr(&crash)
        );
        let lenient = referee(&["--player", "exit 3"], false);
        assert!(lenient.status.success(), "{game}: {}", stderr(&lenient));
        // (Not the same words: the crash may come before or after the first request is sent.)
        assert!(stdout(&lenient).contains(report_line), "{game}");
        // A player without faults passes, whatever its score.
        let clean = referee(&["--agent", good], true);
        assert!(clean.status.success(), "{game}: {}", stderr(&clean));
    }
}

#[test]
fn report_lines_escape_the_paths_they_name() {
    let (_dir, file) = temp_file("k\nfake line\u{202e}.tab");
    let shown = file.replace('\n', "\\n").replace('\u{202e}', "\\u{202e}");
    let built = run(&["build", "kalah", "--pits", "1", "--seeds", "1", "-o", &file]);
    assert!(built.status.success(), "{}", stderr(&built));
    let info = run(&["info", &file]);
    let check = run(&["check", &file]);
    for (out, line) in [
        (&built, format!("wrote {shown} (")),
        (&info, format!("file: {shown}\n")),
        (&check, format!("{shown}: ok (kalah, ")),
    ] {
        let text = stdout(out);
        assert!(text.contains(&line), "{text} lacks {line}");
        assert!(!text.contains("fake line\u{202e}"), "{text}");
    }
    assert_eq!(stdout(&built).lines().count(), 1);
}
