//! The `tabula` binary end to end for Kalah and the Ioiwari variants: sweeps,
//! variant tables through build, check, info and query.

mod common;
use common::{
    assert_contains, assert_one_line_error, assert_refused, build, json_lines, run,
    run_after_setup, run_path, run_with_input, stderr, stdout, temp_file, words,
};

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("JSON alone on stdout")
}

/// The first player's margin from the start of Kalah(pits, seeds) by a plain
/// memoized negamax (the library's reference, not the CLI's search or table).
fn plain_start_value(pits: u8, seeds: u8) -> i32 {
    let start = tabula_solver::kalah::Rules::new(pits, seeds)
        .unwrap()
        .start();
    tabula_solver::search::memo_negamax(&start, &mut std::collections::HashMap::new())
}

#[test]
fn kalah_sweep_reproduces_the_published_results() {
    let report = json_of(&words(
        "sweep kalah --pits 1..3 --seeds 1..6 --table-bits 16 --json -",
    ));
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 18);
    // Irving, Donkers and Uiterwijk (2000), first player's result, n = 1..6.
    let published = ["DLWLWD", "WLLLWW", "DWWWWL"];
    for (m, expected) in published.iter().enumerate() {
        let got: String = rows[m * 6..(m + 1) * 6]
            .iter()
            .map(|r| {
                assert_eq!(r["pits"], m as u64 + 1);
                match r["value"].as_i64().unwrap().signum() {
                    1 => 'W',
                    0 => 'D',
                    _ => 'L',
                }
            })
            .collect();
        assert_eq!(&got, expected, "Kalah({}, 1..6)", m + 1);
    }
    assert_eq!(rows[17]["seeds"], 6);
}

#[test]
fn sweeps_plot_their_tables() {
    let dir = tempfile::tempdir().unwrap();
    let svg = |args: &[&str], labels: &[&str]| {
        let path = dir.path().join("plot.svg");
        let out = run(&[args, &["--plot", path.to_str().unwrap()]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        common::assert_plot_labels(&path, labels);
    };
    svg(
        &words("sweep kalah --pits 1..2 --seeds 1..3 --table-bits 12"),
        &[
            "Kalah(m, n)",
            "seeds per pit at the start (n)",
            "store margin",
            "m = 1 pits",
            "m = 2 pits",
            "n = 3",
        ],
    );
    svg(
        &[
            "sweep", "ioiwari", "--pits", "5", "--cap", "4", "--beads", "10..11", "--low", "1",
            "--high", "3", "--games", "2",
        ],
        &[
            "Ioiwari variants",
            "parameter set",
            "greedy1",
            "random",
            "optimal (ceiling)",
            "5 pits, cap 4, 10 beads 1..3",
            "5 pits, cap 4, 11 beads 1..3",
        ],
    );
}

#[test]
fn kalah_tables_build_check_and_answer() {
    let (dir, file) = temp_file("k.tab");
    build("kalah --pits 2 --seeds 3", &file);
    let out = run(&["check", &file]);
    assert!(stdout(&out).contains("ok (kalah"), "{}", stderr(&out));
    let out = run(&["info", &file]);
    assert!(stdout(&out).contains("parameters: [2, 3, 0, 0]"));
    // The table and the search give the start the value of a plain memoized
    // negamax; Irving et al. list Kalah(2, 3) as lost.
    let value = plain_start_value(2, 3);
    assert!(value < 0);
    for extra in [vec!["--table", &file], vec![]] {
        let mut args = vec!["query", "kalah", "--pits", "2", "--seeds", "3"];
        args.extend(extra);
        let out = run(&args);
        let expected = format!("value: {value}");
        assert!(stdout(&out).contains(&expected), "{}", stdout(&out));
    }
    // A table of other rules is refused.
    let out = run(&[
        "query", "kalah", "--pits", "2", "--seeds", "2", "--table", &file,
    ]);
    assert_refused(&out, "table is for");
    // Without the variant's options the table's header gives its rules, also
    // a rule that is not the default.
    let path = dir.path().join("k22.tab");
    let other = path.to_str().unwrap();
    let rules = ["--pits", "2", "--seeds", "2", "--ending", "mover-stuck"];
    let out = run(&[&["build", "kalah", "-o", other][..], &rules].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let given = run(&[&["query", "kalah", "--table", other][..], &rules].concat());
    assert!(given.status.success(), "{}", stderr(&given));
    let alone = run(&["query", "kalah", "--table", other]);
    assert_eq!(stdout(&alone), stdout(&given), "{}", stderr(&alone));
    // An option given is checked against the table; the others are its own.
    let out = run(&["query", "kalah", "--table", other, "--pits", "2"]);
    assert_eq!(stdout(&out), stdout(&given), "{}", stderr(&out));
    let out = run(&[
        "query",
        "kalah",
        "--table",
        other,
        "--ending",
        "after-any-move",
    ]);
    assert!(stderr(&out).contains("table is for"), "{}", stderr(&out));
    let played = run_with_input(&["play", "kalah", "--table", other], "1\n1\n1\n1\n");
    let played_given = run_with_input(
        &[&["play", "kalah", "--table", other][..], &rules].concat(),
        "1\n1\n1\n1\n",
    );
    assert!(!stdout(&played).is_empty(), "{}", stderr(&played));
    assert_eq!(stdout(&played), stdout(&played_given));
}

#[test]
fn ioiwari_sweep_default_gives_the_ioi_figures() {
    let report = json_of(&["sweep", "ioiwari", "--games", "5", "--json", "-"]);
    let row = &report["rows"][0];
    assert_eq!(row["instances"], 51);
    assert_eq!(row["optimal"]["wins"], 51);
    assert_eq!(row["greedy1_wins"], 22);
    assert_eq!(row["greedy1_draws"], 7);
    assert_eq!(row["missed"].as_array().unwrap().len(), 0);
    // The same seed, the same report to the byte (no timings unless asked
    // for; one search thread: on several, the nodes vary).
    for sweep in [
        &["sweep", "ioiwari", "--games", "5", "--pits", "5..7"][..],
        &[
            "sweep",
            "kalah",
            "--pits",
            "2",
            "--seeds",
            "1..3",
            "--threads",
            "1",
        ],
    ] {
        for form in [&[][..], &["--json", "-"]] {
            let args = [sweep, form].concat();
            assert_eq!(stdout(&run(&args)), stdout(&run(&args)), "{args:?}");
        }
        let timed = stdout(&run(&[sweep, &["--timings"]].concat()));
        assert!(
            timed.contains(" ms |") || timed.contains("seconds"),
            "{timed}"
        );
    }
}

#[test]
fn ioiwari_sweep_ranges_give_one_row_per_set_and_skip_impossible_ones() {
    let out = run(&[
        "sweep", "ioiwari", "--pits", "5..6", "--cap", "4", "--beads", "10..12", "--low", "2",
        "--high", "3", "--games", "2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // 5 pits: 10..12 beads ok (10..15); 6 pits: only 12 (12..18).
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("| 5") || l.starts_with("| 6"))
            .count(),
        4
    );
    assert!(text.contains("Skipped: 2 set(s)"), "{text}");
    let out = run(&["sweep", "ioiwari", "--pits", "9..5"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ioiwari_variant_tables_carry_their_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.tab");
    let file = path.to_str().unwrap();
    build("ioiwari --pits 5 --cap 3", file);
    assert!(stdout(&run(&["info", file])).contains("parameters: [5, 3, 0, 0]"));
    assert!(stdout(&run(&["check", file])).contains("1024 records consistent"));
    // `query ioiwari OPTIONS --table FILE BOARD`.
    let query = |options: &str, board: &str| {
        run(&[
            &["query", "ioiwari"][..],
            &words(options),
            &["--table", file, board],
        ]
        .concat())
    };
    let out = query("--pits 5 --cap 3", "1 2 3 1 1");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("optimal moves:"));
    // Without --pits and --cap the table's header gives its ring.
    let alone = query("", "1 2 3 1 1");
    assert!(alone.status.success(), "{}", stderr(&alone));
    assert_eq!(stdout(&alone), stdout(&out));
    let pits_only = query("--pits 5", "1 2 3 1 1");
    assert_eq!(stdout(&pits_only), stdout(&out), "{}", stderr(&pits_only));
    let out = query("", "4 3 2 4 2 3 2");
    assert_refused(&out, "a board has 5 pits");
    // The IOI game's ring, asked for, refuses it.
    let out = query("--pits 7 --cap 5", "4 3 2 4 2 3 2");
    assert_refused(&out, "table is for");
    // The ring's other commands read it too.
    let played = run_with_input(&["play", "ioiwari", "--table", file], "1 2 3 1 1\n");
    let given = run_with_input(
        &[
            "play", "ioiwari", "--pits", "5", "--cap", "3", "--table", file,
        ],
        "1 2 3 1 1\n",
    );
    assert!(!stdout(&given).is_empty(), "{}", stderr(&given));
    assert_eq!(stdout(&played), stdout(&given));
    let verified = run(&[
        "verify", "ioiwari", "--table", file, "--beads", "8", "--low", "1", "--high", "3",
        "--games", "1",
    ]);
    assert!(verified.status.success(), "{}", stderr(&verified));
    // A table of another game is named as such.
    let kalah = dir.path().join("k.tab");
    let kalah = kalah.to_str().unwrap();
    build("kalah --pits 1 --seeds 1", kalah);
    let out = run(&["query", "ioiwari", "--table", kalah, "1 2 3 1 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {kalah}: table is for 'kalah' with parameters [1, 1, 0, 0], expected 'ioiwari'\n"
        )
    );
}

#[test]
fn out_of_core_builds_write_the_in_memory_files() {
    let dir = tempfile::tempdir().unwrap();
    let builds: [&[&str]; 2] = [
        &["build", "ioiwari", "--pits", "6", "--cap", "4"],
        &["build", "kalah", "--pits", "2", "--seeds", "3"],
    ];
    for build in builds {
        let mut files = Vec::new();
        // In memory, out of core on request (copying the symmetric images
        // either way), and out of core above --max-boards (Ioiwari's default).
        for (name, extra) in [
            ("memory", vec!["--max-boards", "100000000"]),
            ("default", vec![]),
            ("flag", vec!["--out-of-core"]),
            ("limit", vec!["--max-boards", "1000"]),
            ("solved", vec!["--out-of-core", "--images", "when-solved"]),
            ("last", vec!["--out-of-core", "--images", "last-pass"]),
            // --images alone asks for an out-of-core build.
            ("images", vec!["--images", "last-pass"]),
        ] {
            let path = dir.path().join(name);
            let file = path.to_str().unwrap().to_string();
            let mut args = build.to_vec();
            args.extend(extra);
            args.extend(["-o", &file]);
            let out = run(&args);
            assert!(out.status.success(), "{}", stderr(&out));
            if name == "images" {
                assert_contains(
                    &stdout(&out),
                    "out of core, symmetric copies in a last pass",
                );
            }
            let out = run(&["check", &file]);
            assert!(out.status.success(), "{}", stderr(&out));
            assert!(stdout(&out).contains("ok ("), "{}", stdout(&out));
            files.push(std::fs::read(&path).unwrap());
        }
        for other in &files[1..] {
            assert!(other == &files[0], "{build:?}");
        }
    }
}

#[test]
fn an_in_memory_build_larger_than_memory_is_refused_before_it_starts() {
    // 10^13 boards at 12 bytes each: more than any machine has, so the build
    // would abort on allocation or be killed midway.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("huge.tab");
    let build = "build ioiwari --pits 13 --cap 9 --max-boards 100000000000000 -o";
    let out = run_path(build, &file);
    assert_one_line_error(
        &out,
        "an in-memory build of 10000000000000 boards needs at least",
    );
    assert!(stderr(&out).contains("--out-of-core"), "{}", stderr(&out));
    assert!(!file.exists());
}

#[test]
fn sweeps_and_verifies_larger_than_memory_are_refused_in_one_line() {
    // The same 13-pit ring in a sweep: its table is built in memory.
    let out = run(&words(
        "sweep ioiwari --games 1 --pits 13 --cap 9 --beads 26 --max-boards 18446744073709551615",
    ));
    assert_one_line_error(
        &out,
        "building the tables of 1 ring(s) in memory needs at least",
    );
    // Games whose results cannot be held: within --games' range, but under a
    // 1 GB address space (the IOI game's 51 instances of 10^6 games each).
    let dir = tempfile::tempdir().unwrap();
    for (args, what) in [
        (
            "sweep ioiwari --games 1000000",
            "holding the 51000000 random games of one set",
        ),
        ("verify ioiwari --games 1000000", "a run of 51000102 games"),
        (
            "verify nim --games 1000000 --heaps 1,2,3,4,5,6,7,8,9,10",
            "a run of",
        ),
    ] {
        let out = run_after_setup(&[], "ulimit -v 1000000", args, dir.path());
        assert_one_line_error(&out, what);
        assert!(stderr(&out).contains("lower --games"), "{}", stderr(&out));
    }
}

#[test]
fn kalah_table_and_search_answer_alike_on_every_board() {
    let dir = tempfile::tempdir().unwrap();
    let mut boards = 0;
    for ending in ["after-any-move", "mover-stuck"] {
        let file = dir.path().join(ending).to_str().unwrap().to_string();
        let rules = ["--pits", "2", "--seeds", "2", "--ending", ending];
        let mut args = vec!["build", "kalah", "-o", &file];
        args.extend(rules);
        assert!(run(&args).status.success());
        // Every board of at most 6 seeds, including those a move cannot leave
        // under after-any-move (one side empty, seeds on the other).
        for seeds in 0..=6u32 {
            for a in 0..=seeds {
                for b in 0..=seeds - a {
                    for c in 0..=seeds - a - b {
                        let board = format!("{a} {b} / {c} {}", seeds - a - b - c);
                        let answer = |table: &[&str]| {
                            let mut args = vec!["query", "kalah", &board];
                            args.extend(rules);
                            args.extend(table);
                            let out = run(&args);
                            assert!(out.status.success(), "{board}: {}", stderr(&out));
                            stdout(&out)
                        };
                        assert_eq!(answer(&["--table", &file]), answer(&[]), "{ending} {board}");
                        boards += 1;
                    }
                }
            }
        }
    }
    assert_eq!(boards, 2 * 210);
}

/// The value and the best move (lowest pit on ties) of a Kalah(2, 2) board,
/// from `tabula query kalah`.
fn kalah_query(board: &str, table: &[&str]) -> (i32, Option<String>) {
    let mut args = vec!["query", "kalah", "--pits", "2", "--seeds", "2", board];
    args.extend(table);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let value = text
        .lines()
        .find_map(|l| l.strip_prefix("value: "))
        .and_then(|v| v.parse().ok())
        .expect("a value line");
    let mut best: Option<(i32, String)> = None;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("move ") else {
            continue;
        };
        let (pit, rest) = rest.split_once(": value ").unwrap();
        let v: i32 = rest.split_whitespace().next().unwrap().parse().unwrap();
        if best.as_ref().is_none_or(|(b, _)| v > *b) {
            best = Some((v, pit.to_string()));
        }
    }
    (value, best.map(|(_, pit)| pit))
}

/// Plays one whole game of `tabula play kalah` (Kalah(2, 2)) with moves from
/// `tabula query kalah`; returns the dialogue and the final margin from our side.
fn play_kalah_optimally(extra: &[&str], table: &[&str]) -> (Vec<String>, i32) {
    use std::io::{BufRead, BufReader, Write};
    let mut child = common::tabula()
        .args(["play", "kalah", "--pits", "2", "--seeds", "2"])
        .args(extra)
        .args(table)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tabula runs");
    let mut input = child.stdin.take().unwrap();
    let output = BufReader::new(child.stdout.take().unwrap());
    let mut dialogue = Vec::new();
    let mut margin = None;
    for line in output.lines() {
        let line = line.unwrap();
        dialogue.push(line.clone());
        if let Some(rest) = line.strip_prefix("your move") {
            let board = rest.split_once(": ").unwrap().1;
            let board = board.split(" stores").next().unwrap();
            let (_, pit) = kalah_query(board, table);
            // tabula waits for this answer, so it is still reading.
            writeln!(input, "{}", pit.expect("a move on the board asked")).unwrap();
        } else if let Some(rest) = line.strip_prefix("result ") {
            let w: Vec<&str> = rest.split_whitespace().collect();
            let (a, b): (i32, i32) = (w[0].parse().unwrap(), w[1].parse().unwrap());
            let outcome = match a.cmp(&b) {
                std::cmp::Ordering::Greater => "win",
                std::cmp::Ordering::Equal => "draw",
                std::cmp::Ordering::Less => "loss",
            };
            assert_eq!(w[2], outcome, "{line}");
            margin = Some(a - b);
        }
    }
    drop(input);
    let status = child.wait().unwrap();
    assert!(status.success(), "{dialogue:?}");
    (dialogue, margin.expect("a result line"))
}

#[test]
fn kalah_play_takes_a_long_piped_input_line_by_line() {
    // 200 lines, far more than are read ahead of the game: pit 1 or pit 2
    // always has seeds in Kalah(2, 2), so the game ends; an empty pit gets
    // an error line and the next line is read.
    let input = "1\n2\n".repeat(100);
    let out = common::run_with_input(&["play", "kalah", "--pits", "2", "--seeds", "2"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).lines().any(|l| l.starts_with("result ")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn kalah_query_takes_the_search_tables_size() {
    // A tiny table still finds the exact values, only with more nodes.
    let (small, _) = kalah_query("2 2 / 2 2", &["--table-bits", "10"]);
    assert_eq!(small, plain_start_value(2, 2));
    let out = run(&words("query kalah --pits 2 --seeds 2 --table-bits 31"));
    assert!(!out.status.success());
    assert_contains(&stderr(&out), "31 is not in 10..=30");
}

#[test]
fn kalah_play_to_the_end_against_optimal_gives_the_solvers_value() {
    let (_dir, file) = temp_file("k22.tab");
    build("kalah --pits 2 --seeds 2", &file);
    // The first player's value from the start, as a plain negamax finds it
    // (Irving et al. list Kalah(2, 2) as lost).
    let (start, _) = kalah_query("2 2 / 2 2", &[]);
    assert_eq!(start, plain_start_value(2, 2));
    assert!(start < 0);
    for table in [vec![], vec!["--table", &file]] {
        let (dialogue, margin) = play_kalah_optimally(&[], &table);
        assert_eq!(margin, start, "{dialogue:#?}");
        assert!(dialogue[0].starts_with("kalah 2 2 you are player 1:"));
        assert_eq!(dialogue[1], "your move: 2 2 / 2 2 stores 0 0");
        let (dialogue, margin) = play_kalah_optimally(&["--second"], &table);
        assert_eq!(margin, -start, "{dialogue:#?}");
        assert!(dialogue[0].starts_with("kalah 2 2 you are player 2:"));
        assert!(dialogue[1].starts_with("tabula plays "), "{dialogue:#?}");
    }
}

#[test]
fn kalah_play_answers_bad_lines_with_one_error_line_each() {
    // Pit 1 ends in the store (another move), pit 1 is then empty, pit 2 ends the game.
    let out = common::run_with_input(
        &["play", "kalah", "--pits", "2", "--seeds", "2"],
        "x\n1\n0\n1\n  \n3\n2\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        &lines[1..],
        &[
            "your move: 2 2 / 2 2 stores 0 0",
            "error: 'x' is not a pit label 1..2",
            "your move again: 0 3 / 2 2 stores 1 0",
            "error: '0' is not a pit label 1..2",
            "error: pit 1 is empty",
            "error: '' is not a pit label 1..2",
            "error: '3' is not a pit label 1..2",
            "result 2 6 loss",
        ],
        "{text}"
    );
    // Input that ends before the game does: exit 2 with one line on stderr.
    let out = common::run_with_input(&["play", "kalah", "--pits", "2", "--seeds", "2"], "1\n");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: stdin: the input ended"), "{err}");
    assert!(!stdout(&out).contains("result"), "{}", stdout(&out));
    // After an error line, the end is named by the move asked for, not that line.
    let out = common::run_with_input(&["play", "kalah", "--pits", "2", "--seeds", "2"], "9\n");
    assert_contains(
        &stderr(&out),
        "waiting for an answer to 'your move: 2 2 / 2 2 stores 0 0'",
    );
    // A table of other rules is refused before play.
    let out = play_with_a_table_of("kalah --pits 1 --seeds 2", "kalah --pits 2 --seeds 2");
    assert_refused(&out, "table is for");
}

/// `tabula play PLAYED --table FILE` (`PLAYED` a game and its options), FILE
/// built by `tabula build BUILT`.
fn play_with_a_table_of(built: &str, played: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tab");
    let out = run_path(&format!("build {built} -o"), &file);
    assert!(out.status.success(), "{}", stderr(&out));
    let play = format!("play {played} --table");
    run_path(&play, &file)
}

/// Without the `mpi` feature, `--distributed` says how to get it.
#[cfg(not(feature = "mpi"))]
#[test]
fn distributed_builds_need_the_mpi_feature() {
    for game in ["ioiwari", "kalah"] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.tab");
        let out = run(&["build", game, "--distributed", "-o", file.to_str().unwrap()]);
        common::assert_one_line_error(&out, "--features mpi");
        assert!(!file.exists());
    }
}

/// `--values-only` tables (1 byte a board) check and answer as the full ones do.
#[test]
fn tables_of_values_only_answer_like_the_full_ones() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &[&str]); 2] = [
        (
            &["ioiwari", "--pits", "6", "--cap", "4"],
            &["4 3 2 4 2 3", "1 0 0 2 0 4"],
        ),
        (
            &["kalah", "--pits", "2", "--seeds", "3"],
            &["3 3 / 3 3", "0 4 / 1 2"],
        ),
    ];
    for (game, boards) in cases {
        let mut paths = Vec::new();
        for (name, extra) in [("full", None), ("values", Some("--values-only"))] {
            let file = dir.path().join(name).to_str().unwrap().to_string();
            let mut args = vec!["build"];
            args.extend(game);
            args.extend(extra);
            args.extend(["-o", &file]);
            let out = run(&args);
            assert!(out.status.success(), "{}", stderr(&out));
            let out = run(&["check", &file]);
            assert!(out.status.success(), "{}", stderr(&out));
            paths.push(file);
        }
        let info = stdout(&run(&["info", &paths[1]]));
        assert!(info.contains("0 move-mask byte(s)"), "{info}");
        for board in boards {
            let answers: Vec<String> = paths
                .iter()
                .map(|file| {
                    let mut args = vec!["query"];
                    args.extend(game);
                    args.extend(["--table", file, board]);
                    let out = run(&args);
                    assert!(out.status.success(), "{}", stderr(&out));
                    stdout(&out)
                })
                .collect();
            assert_eq!(answers[0], answers[1], "{game:?} {board}");
        }
    }
}

/// `tabula play ioiwari --pits 5 --cap 3` plays player 1 of a variant over
/// the IOI dialogue: its moves are the table's lowest optimal pits, replayed
/// here against a player 2 that takes the lowest non-empty pit.
#[test]
fn play_ioiwari_plays_a_variant_over_the_ioi_dialogue() {
    let (params, board) = (["--pits", "5", "--cap", "3"], "1 2 0 3 1");
    play_variant(params, board, |moves| moves[0]);
    // A board of the wrong size, and a table of another variant.
    let out = common::run_with_input(&["play", "ioiwari", "--pits", "5", "--cap", "3"], "1 2 3\n");
    common::assert_one_line_error(&out, "a board has 5 pits, found 3");
    let out = play_with_a_table_of("ioiwari --pits 6 --cap 3", "ioiwari --pits 5 --cap 3");
    common::assert_one_line_error(&out, "expected");
}

/// Player 2's moves on a ring of more than 7 pits take labels above 7 (they
/// were refused as "not a pit label 1..7").
#[test]
fn play_ioiwari_takes_labels_up_to_the_rings_pits() {
    let input = play_variant(
        ["--pits", "9", "--cap", "3"],
        "1 0 2 0 3 0 1 2 3",
        |moves| *moves.last().unwrap(),
    );
    assert!(
        input
            .iter()
            .skip(1)
            .any(|label| label == "8" || label == "9"),
        "{input:?}"
    );
}

/// Plays a variant through `tabula play ioiwari`, player 2 choosing with
/// `choose` among its legal pits, and checks that player 1's moves are the
/// table's lowest optimal pits; returns the lines sent (the board, then
/// player 2's moves).
fn play_variant(options: [&str; 4], board: &str, choose: impl Fn(&[u8]) -> u8) -> Vec<String> {
    use tabula_solver::Game;
    use tabula_solver::ioiwari::{Params, Ring, RingMatch};
    use tabula_tables::ioiwari::variant_in_memory;

    let pits: u8 = options[1].parse().unwrap();
    let cap: u8 = options[3].parse().unwrap();
    let params = Params::new(pits, cap, 0, 0, 3).unwrap();
    let table = variant_in_memory(&params, &|_| {});
    let mut game = RingMatch::new(Ring::parse(&params, board).unwrap());
    let (mut input, mut expected) = (vec![board.to_string()], Vec::new());
    while !game.is_over() {
        let pit = if game.mover == 0 {
            let pit = table.best_move(&game.board).unwrap().unwrap();
            expected.push((pit + 1).to_string());
            pit
        } else {
            let pit = choose(&game.moves());
            input.push((pit + 1).to_string());
            pit
        };
        game.apply(pit);
    }
    assert!(expected.len() >= 2, "a game of a few moves");
    let mut args = vec!["play", "ioiwari"];
    args.extend(options);
    let out = common::run_with_input(&args, &(input.join("\n") + "\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), expected);
    input
}

#[test]
fn a_file_size_limit_is_an_error_not_a_signal() {
    // Under a small file size limit (`ulimit -f`) the 30 MB table cannot be
    // written: the room check says so before a byte is written (a one-line
    // error naming the file, not SIGXFSZ), and no file is left behind.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tab");
    for extra in [&["--out-of-core"][..], &["--values-only"], &[]] {
        let args = format!(
            "build ioiwari --pits 9 --cap 5 -o {} {}",
            file.display(),
            extra.join(" ")
        );
        let out = run_after_setup(&[], "ulimit -f 1024", &args, dir.path());
        assert_one_line_error(&out, "more than the largest file allowed");
        assert_contains(&stderr(&out), &file.display().to_string());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{extra:?}: {left:?}");
    }
}

#[test]
fn a_full_disk_is_an_error_before_an_out_of_core_build_not_a_sigbus() {
    // A 4 MiB tmpfs, mounted in a private mount namespace, which needs root
    // (CI runs as root). Writing through the map of a sparse file on a full
    // disk faults (SIGBUS); the file's blocks are reserved first instead.
    // Without root it says it was skipped, or fails when TABULA_REQUIRE_ROOT=1.
    if std::env::var_os("TABULA_SKIP_ROOT").is_some_and(|v| v == "1") {
        println!("skipped: TABULA_SKIP_ROOT=1");
        return;
    }
    // SAFETY: geteuid only reads the process's credentials.
    let root = unsafe { libc::geteuid() } == 0;
    if !common::needs("root (to mount a tmpfs)", root, "TABULA_REQUIRE_ROOT") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tab");
    // The room check refuses first; told there is room (its test-only
    // override), the build meets the full disk when it reserves the blocks.
    let cases = [
        ("", "the table needs"),
        (
            "export TABULA_TEST_FREE_BYTES=1000000000000 && ",
            "No space left on device",
        ),
    ];
    for extra in ["--out-of-core", "--values-only"] {
        for (pretend, said) in cases {
            let mount = format!(
                "{pretend}mount -t tmpfs -o size=4m tmpfs {}",
                dir.path().display()
            );
            let args = format!(
                "build ioiwari --pits 9 --cap 5 -o {} {extra}",
                file.display()
            );
            let unshare = ["unshare", "--mount", "--propagation", "private"];
            let out = run_after_setup(&unshare, &mount, &args, dir.path());
            assert_one_line_error(&out, said);
            assert_contains(&stderr(&out), &file.display().to_string());
        }
    }
}

#[test]
fn a_small_kalah_query_fits_in_a_small_address_space() {
    // The search's table is sized to the game, and none is made when a table
    // file answers: neither needs the 256 MiB of a large search.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k22.tab");
    let out = run_path("build kalah --pits 2 --seeds 2 -o", &file);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = format!("value: {}", plain_start_value(2, 2));
    for table in [None, Some(&file)] {
        let mut query = format!(
            "ulimit -v 200000; exec '{}' query kalah --pits 2 --seeds 2",
            env!("CARGO_BIN_EXE_tabula")
        );
        if let Some(file) = table {
            query += &format!(" --table '{}'", file.display());
        }
        let out = std::process::Command::new("sh")
            .args(["-c", &query])
            .output()
            .unwrap();
        assert!(out.status.success(), "{table:?}: {}", stderr(&out));
        assert!(stdout(&out).contains(&expected), "{}", stdout(&out));
    }
}

/// The cells of a Markdown table's rows, after the header and its rule.
fn markdown_rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn kalah_verify_markdown_and_json_agree() {
    let args = [
        "verify", "kalah", "--pits", "2,3", "--seeds", "2..3", "--games", "4", "--seed", "7",
    ];
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let markdown = stdout(&out);
    let json = json_of(&[&args[..], &["--json", "-"]].concat());
    assert_eq!(json["game"], "kalah");
    assert_eq!(json["run"]["seed"], 7);
    assert_eq!(json["games"], 4);
    assert_eq!(json["capture"], "always");
    assert_eq!(json["ending"], "after-any-move");
    // The first table: one row per variant, with its exact value.
    let (values, scoreboard) = markdown.split_once("\n\n| entrant").expect("two tables");
    let variants = json["variants"].as_array().unwrap();
    let rows = markdown_rows(values);
    assert_eq!(rows.len(), 4);
    assert_eq!(variants.len(), 4);
    for (row, v) in rows.iter().zip(variants) {
        let (m, n) = (v["pits"].as_u64().unwrap(), v["seeds"].as_u64().unwrap());
        assert_eq!(row[0], format!("Kalah({m}, {n})"));
        assert_eq!(v["case"], row[0]);
        assert_eq!(row[1], v["boards"].to_string());
        let value = v["value"].as_i64().unwrap();
        assert_eq!(value, i64::from(plain_start_value(m as u8, n as u8)));
        let margin = match value.signum() {
            1 => format!("+{value} (W)"),
            0 => "0 (D)".to_string(),
            _ => format!("{value} (L)"),
        };
        assert_eq!(row[2], margin);
    }
    // The scoreboard: every pair of the three players on every variant.
    let rows = markdown_rows(&format!("| entrant{scoreboard}"));
    let lines = json["lines"].as_array().unwrap();
    assert_eq!(rows.len(), 3 * 4);
    assert_eq!(lines.len(), rows.len());
    for (row, line) in rows.iter().zip(lines) {
        assert_eq!(line["entrant"], row[0]);
        assert_eq!(line["case"], row[1]);
        assert_eq!(line["games"], 8);
        assert_eq!(row[2], "8");
        let wdl = &line["wdl"];
        assert_eq!(
            row[3],
            format!("{}/{}/{}", wdl["wins"], wdl["draws"], wdl["losses"])
        );
        let margin = line["margin"]["mean"].as_f64().unwrap();
        assert!(
            row[5].starts_with(&format!("{margin:.2}")),
            "{row:?} {margin}"
        );
    }
    let pairs: Vec<&str> = lines
        .iter()
        .map(|l| l["entrant"].as_str().unwrap())
        .collect();
    assert_eq!(pairs[0], "optimal vs greedy");
    assert_eq!(pairs[4], "optimal vs random");
    assert_eq!(pairs[8], "greedy vs random");
    // Reproducible: the same seed gives the same report.
    assert_eq!(stdout(&run(&args)), markdown);
}

#[test]
fn kalah_verify_refuses_unknown_players_and_large_variants_in_one_line() {
    let out = run(&["verify", "kalah", "--players", "optimal,minimax"]);
    assert_one_line_error(
        &out,
        "unknown player 'minimax' (known: optimal, greedy, random)",
    );
    let out = run(&["verify", "kalah", "--pits", "4", "--seeds", "4"]);
    assert_one_line_error(
        &out,
        "Kalah(4, 4) has 76904685 boards, more than --max-boards",
    );
    let out = run(&["verify", "kalah", "--players", "random"]);
    assert_one_line_error(&out, "at least two players");
    let out = run(&["games"]);
    let listing = stdout(&out);
    let kalah = listing
        .lines()
        .skip_while(|l| !l.starts_with("kalah"))
        .nth(1)
        .unwrap();
    assert!(kalah.contains("verify"), "{kalah}");
}

#[test]
fn a_kalah_batch_query_answers_each_line_as_the_single_query_does() {
    let (_dir, table) = temp_file("k32.tab");
    build("kalah --pits 3 --seeds 2", &table);
    let boards = ["2 2 2 / 2 2 2", "0 3 1 / 2 0 4", "0 0 0 / 1 2 0"];
    let input = format!("{}\n\n3 3\n", boards.join("\n"));
    let variant = ["query", "kalah", "--pits", "3", "--seeds", "2"];
    // The same lines from the table and from the search.
    for source in [&["--table", &table][..], &[]] {
        let out = run_with_input(&[&variant[..], source, &["--batch"]].concat(), &input);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let lines = json_lines(&text);
        assert_eq!(lines.len(), boards.len() + 1, "{text}");
        assert_eq!(lines[boards.len()]["input"], "3 3");
        for (board, json) in boards.iter().zip(&lines) {
            let single = stdout(&run(&[&variant[..], source, &[board]].concat()));
            assert!(
                single.contains(&format!("value: {}\n", json["value"])),
                "{single} / {json}"
            );
            let moves = json["moves"].as_array().unwrap();
            assert_eq!(json["over"], moves.is_empty(), "{json}");
            assert_eq!(single.matches("\nmove ").count(), moves.len(), "{single}");
            for m in moves {
                let line = format!(
                    "move {}: value {} (gains {}",
                    m["pit"], m["value"], m["gains"]
                );
                assert!(single.contains(&line), "{single} / {m}");
            }
        }
    }
}

#[test]
fn a_kalah_optimal_line_moves_again_where_the_rules_say_and_is_worth_the_value() {
    let (_dir, table) = temp_file("k32m.tab");
    let rules = ["--pits", "3", "--seeds", "2", "--ending", "mover-stuck"];
    let built = run(&[&["build", "kalah", "-o", &table], &rules[..]].concat());
    assert!(built.status.success(), "{}", stderr(&built));
    // The table's and the search's lines, each replayed through the query's own moves.
    for source in [&["--table", &table][..], &rules[..]] {
        let query = [&["query", "kalah", "--batch"], source].concat();
        let answer = |board: &str| json_lines(&stdout(&run_with_input(&query, board))).remove(0);
        let with_line = [&query[..], &["--line"]].concat();
        let start = json_lines(&stdout(&run_with_input(&with_line, "2 2 2 / 2 2 2"))).remove(0);
        let line = start["line"].as_array().unwrap().clone();
        let mut current = answer("2 2 2 / 2 2 2");
        let (mut by_mover, mut difference, mut kept) = (true, 0, 0);
        for step in &line {
            assert_eq!(step["by_mover"], by_mover, "{step}");
            let moves = current["moves"].as_array().unwrap();
            let first_optimal = moves
                .iter()
                .find(|m| m["value"] == current["value"])
                .unwrap();
            assert_eq!(step["pit"], first_optimal["pit"], "{current} / {step}");
            assert_eq!(step["gains"], first_optimal["gains"]);
            let gains = first_optimal["gains"].as_i64().unwrap();
            difference += if by_mover { gains } else { -gains };
            if first_optimal["again"] == true {
                kept += 1;
            } else {
                by_mover = !by_mover;
            }
            let side = |k: usize| {
                let pits = common::json_items(&first_optimal["leaves"][k]);
                pits.join(" ")
            };
            current = answer(&format!("{} / {}", side(0), side(1)));
        }
        assert_eq!(current["over"], true, "ends with the game: {current}");
        // Under mover-stuck the seeds left go to the other player: that is
        // the finished board's value, owed to whoever would move.
        let owed = current["value"].as_i64().unwrap();
        difference += if by_mover { owed } else { -owed };
        assert!(kept > 0, "the line moves again somewhere: {line:?}");
        let mover_stuck = tabula_solver::kalah::Rules::new(3, 2)
            .unwrap()
            .with_ending(tabula_solver::kalah::Ending::MoverStuck);
        let plain = tabula_solver::search::memo_negamax(
            &mover_stuck.start(),
            &mut std::collections::HashMap::new(),
        );
        assert_eq!(difference, i64::from(plain), "{start}");
        assert_eq!(start["value"].as_i64().unwrap(), difference);
        // A finished board's line is empty, in the JSON and the text.
        let end = json_lines(&stdout(&run_with_input(&with_line, "0 0 0 / 0 1 0"))).remove(0);
        assert_eq!(end["line"], serde_json::json!([]), "{end}");
        let text = stdout(&run(
            &[&query[..2], source, &["--line", "0 0 0 / 0 1 0"]].concat()
        ));
        assert!(text.contains("): none (the game is over)\n"), "{text}");
        assert!(
            text.ends_with("the line's difference for the mover: -1\n"),
            "{text}"
        );
    }
}

#[test]
fn a_kalah_export_lists_every_board_the_table_holds_with_its_negamax_value() {
    use tabula_solver::kalah::{KalahSpace, Rules};
    use tabula_solver::retrograde::StateSpace;
    let (dir, table) = temp_file("k32.tab");
    build("kalah --pits 3 --seeds 2", &table);
    let out = run(&["export", &table]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A values-only table derives the optimal moves: the same lines.
    let values = dir.path().join("k32v.tab");
    let values = values.to_str().unwrap();
    build("kalah --pits 3 --seeds 2 --values-only", values);
    let derived = run(&["export", values]);
    assert_eq!(stdout(&derived), stdout(&out), "{}", stderr(&derived));
    let lines = json_lines(&stdout(&out));
    let rules = Rules::new(3, 2).unwrap();
    let space = KalahSpace::new(rules);
    let states: Vec<u64> = (0..space.len()).filter(|&i| space.is_state(i)).collect();
    assert_eq!(
        lines.len(),
        states.len(),
        "the states of the space, no others"
    );
    let mut memo = std::collections::HashMap::new();
    for (line, &index) in lines.iter().zip(&states).step_by(13) {
        let position = space.position(index);
        let board: [Vec<u8>; 2] = serde_json::from_value(line["board"].clone()).unwrap();
        assert_eq!(
            [&board[0][..], &board[1][..]].concat(),
            position.pits(),
            "{line}"
        );
        let value = tabula_solver::search::memo_negamax(&position, &mut memo);
        assert_eq!(line["value"], value, "{line}");
        let (_, optimal) = tabula_solver::search::best_moves_memo(&position, &mut memo);
        let optimal: Vec<u8> = optimal.iter().map(|p| p + 1).collect();
        assert_eq!(line["optimal"], serde_json::json!(optimal), "{line}");
    }
}

#[test]
fn referee_kalah_plays_both_seats_and_a_served_player_plays_as_the_built_in_one() {
    let bin = env!("CARGO_BIN_EXE_tabula");
    let value = plain_start_value(3, 3);
    let rules = ["--pits", "3", "--seeds", "3"];
    let referee = |tested: &[&str], more: &[&str]| {
        let out = run(&[&["referee", "kalah"][..], &rules, tested, more].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    // Optimal against optimal: the first player's margin is the game's value.
    let text = referee(&["--agent", "optimal"], &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let stores = |line: &str| -> (i32, i32) {
        let words: Vec<&str> = line.split_whitespace().collect();
        (words[3].parse().unwrap(), words[4].parse().unwrap())
    };
    assert!(lines[0].starts_with("player 1: result "), "{text}");
    assert!(lines[1].starts_with("player 2: result "), "{text}");
    let (mine, theirs) = stores(lines[0]);
    assert_eq!(mine - theirs, value, "{text}");
    let (mine, theirs) = stores(lines[1]);
    assert_eq!(mine - theirs, -value, "{text}");
    assert!(
        lines[2].starts_with("total 1 of 2 games (1 win, 0 draw, 1 loss)"),
        "{text}"
    );
    // The same player served over the pipes plays the same games, table or search.
    let (_dir, table) = temp_file("k33.tab");
    let built = run(&[&["build", "kalah", "-o", &table][..], &rules].concat());
    assert!(built.status.success(), "{}", stderr(&built));
    let served = format!("{bin} serve kalah --pits 3 --seeds 3 --agent optimal");
    assert_eq!(referee(&["--player", &served], &[]), text);
    let served = format!("{bin} serve kalah --table {table} --agent optimal");
    assert_eq!(referee(&["--player", &served], &["--table", &table]), text);
    // Told no size, a served player plays the one each greeting names, as
    // the player told it does; told another size, it says so.
    let other = |tested: &[&str]| {
        let out = run(&[
            &["referee", "kalah", "--pits", "4", "--seeds", "2"][..],
            tested,
        ]
        .concat());
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let told = other(&["--agent", "optimal"]);
    let served = format!("{bin} serve kalah --agent optimal");
    assert_eq!(other(&["--player", &served]), told);
    let served = format!("{bin} serve kalah --pits 3 --agent optimal");
    let refused = other(&["--player", &served]);
    assert!(
        refused.contains("the greeting is of Kalah(4, 2)"),
        "{refused}"
    );
    let out = run_with_input(
        &["serve", "kalah", "--pits", "3", "--agent", "greedy"],
        "kalah 4 2 you are player 1: x\n",
    );
    assert!(
        stdout(&out).starts_with(
            "error: the greeting is of Kalah(4, 2), this player plays Kalah(3, 3), in 'kalah 4 2"
        ),
        "{}",
        stdout(&out)
    );
    // Against the optimal player no one does better than the value, in
    // either seat; random is seeded.
    for tested in ["greedy", "random"] {
        let text = referee(&["--agent", tested], &[]);
        let lines: Vec<&str> = text.lines().collect();
        let (mine, theirs) = stores(lines[0]);
        assert!(mine - theirs <= value, "{text}");
        let (mine, theirs) = stores(lines[1]);
        assert!(mine - theirs <= -value, "{text}");
    }
    let random = |seed: &str| {
        referee(
            &["--agent", "random"],
            &["--seed", seed, "--opponent", "random"],
        )
    };
    assert_eq!(random("5"), random("5"));
    // The JSON says how the run was made and each game's stores.
    let json: serde_json::Value =
        serde_json::from_str(&referee(&["--agent", "optimal"], &["--json", "-"])).unwrap();
    assert_eq!(json["run"]["seed"], 1);
    assert_eq!(json["total"], 1.0);
    assert_eq!(json["cases"][0]["player"], 1);
    assert_eq!(json["cases"][1]["outcome"], "loss");
}

#[test]
fn referee_kalah_records_a_faulty_player_s_losses_and_goes_on() {
    for (player, reason, kind) in [
        ("exit 3", "exit status: 3", "crash"),
        ("read l; echo seven", "'seven'", "malformed-answer"),
        ("read l; read l; echo 1; sleep 30", "time", "time-out"),
    ] {
        let args = [
            "referee",
            "kalah",
            "--pits",
            "2",
            "--seeds",
            "2",
            "--player",
            player,
            "--timeout",
            "1",
        ];
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        for line in &lines[..2] {
            assert!(line.contains(" loss "), "{text}");
        }
        assert!(text.contains(reason), "{player}: {text}");
        assert!(lines[2].starts_with("total 0 of 2 games"), "{text}");
        // --strict makes a fault the exit status.
        let out = run(&[&args[..], &["--strict"]].concat());
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        // The JSON names the fault's kind, for scripts.
        let out = run(&[&args[..], &["--json", "-"]].concat());
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(json["cases"][0]["fault_kind"], kind, "{player}: {json}");
    }
    let out = run(&words("referee kalah --agent optimal --opponent perfect"));
    assert_one_line_error(&out, "--opponent");
    let out = run(&["serve", "kalah", "--agent", "perfect"]);
    assert_one_line_error(&out, "--agent");
    // A player's answer is quoted short and escaped in its fault (it reads its
    // request first: a player gone before that would lose by exiting instead).
    let referee = words("referee kalah --pits 2 --seeds 2 --player");
    let garbage = r"read l; read l; printf '\033[2J\007%0300d\n' 0";
    let out = run(&[&referee[..], &[garbage]].concat());
    let text = stdout(&out);
    assert!(text.contains(r"'\u{1b}[2J\u{7}000"), "{text}");
    assert!(
        text.lines().all(|l| l.len() < 200 && !l.contains('\u{1b}')),
        "{text}"
    );
    // A served player refuses a board whose counts cannot be the game's,
    // instead of wrapping them round.
    let out = run_with_input(
        &["serve", "kalah", "--agent", "optimal"],
        "kalah 3 3 you are player 1: x\nyour move: 4294967295 1 0 / 3 3 3 stores 0 9\n",
    );
    assert!(
        stdout(&out).starts_with("error: '4294967295' is not a seed count"),
        "{}",
        stdout(&out)
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn a_refereed_kalah_player_reads_its_result_before_it_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let heard = dir.path().join("heard.txt");
    // tee keeps every line the referee sends; the pipeline ends when its
    // input is closed after the game, which the referee waits for.
    let player = format!(
        "tee -a {} | {} serve kalah --pits 2 --seeds 2 --agent optimal",
        heard.display(),
        env!("CARGO_BIN_EXE_tabula")
    );
    let out = run(&[
        "referee", "kalah", "--pits", "2", "--seeds", "2", "--player", &player,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let heard = std::fs::read_to_string(&heard).unwrap();
    let results = heard.lines().filter(|l| l.starts_with("result ")).count();
    assert_eq!(results, 2, "both games' results: {heard}");
}

#[test]
fn a_damaged_record_met_in_play_stops_the_run_with_one_line() {
    let (dir, kalah) = temp_file("k22.tab");
    build("kalah --pits 2 --seeds 2", &kalah);
    // Record 145's value: the checksums are recomputed, so only the check
    // of a record against its children, as play reads it, can tell.
    common::tamper_payload(std::path::Path::new(&kalah), 290, 7);
    let ring = dir.path().join("io53.tab");
    let ring = ring.to_str().unwrap();
    build("ioiwari --pits 5 --cap 3", ring);
    common::tamper_payload(std::path::Path::new(ring), 0, 9);
    let boards = ["--beads", "8", "--low", "1", "--high", "3"];
    let runs: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["referee", "kalah", "--agent", "optimal", "--table", &kalah],
            "",
        ),
        (
            vec!["serve", "kalah", "--agent", "optimal", "--table", &kalah],
            "kalah 2 2 you are player 1: x\nyour move: 2 2 / 2 2 stores 0 0\n",
        ),
        (
            [
                &[
                    "referee", "ioiwari", "--all", "--agent", "optimal", "--table", ring,
                ][..],
                &boards,
            ]
            .concat(),
            "",
        ),
        (vec!["play", "ioiwari", "--table", ring], "0 0 0 1 1\n"),
        // A damaged table is no fault of a batch's line: it ends the batch.
        (
            vec!["query", "kalah", "--table", &kalah, "--batch"],
            "2 2 / 2 2\n1 1 / 1 1\n",
        ),
        (
            vec!["query", "ioiwari", "--table", ring, "--batch"],
            "0 0 0 1 1\n",
        ),
        (
            [
                &["verify", "ioiwari", "--games", "10", "--table", ring][..],
                &boards,
            ]
            .concat(),
            "",
        ),
    ];
    for (args, input) in runs {
        let out = run_with_input(&args, input);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(".tab: corrupted: record "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_served_kalah_search_of_a_big_variant_answers_in_its_time() {
    // Kalah(6, 10) is far too big to solve exactly from the start: the
    // served player deepens its search until its time is up and answers the
    // best move found, then ends with its input. The outer limit only keeps
    // a hang from stalling the run.
    let bin = env!("CARGO_BIN_EXE_tabula");
    let board = "10 10 10 10 10 10 / 10 10 10 10 10 10 stores 0 0";
    let script = format!(
        "printf 'kalah 6 10 you are player 1: x\\nyour move: {board}\\n' | \
         {bin} serve kalah --agent optimal --think-ms 50"
    );
    let mut command = std::process::Command::new("sh");
    command.args(["-c", &script]);
    let out = common::output_or_kill(&mut command, std::time::Duration::from_secs(300))
        .expect("sh runs")
        .expect("the served player answers and ends instead of searching on");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let answer: u8 = text.trim().parse().unwrap_or_else(|_| panic!("{text}"));
    assert!((1..=6).contains(&answer), "{text}");
}

/// `build kalah --max-seeds` killed (SIGKILL, by the test-only variable) at
/// points a fixed seed picks, then started again with the same command, ends
/// with the bytes of a build never stopped; another table's partial is refused.
#[test]
fn a_killed_endgame_build_goes_on_from_its_last_layer_to_the_same_bytes() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // `tabula build kalah --pits 4 --max-seeds SEEDS -o OUT`.
    let build = |out: &str, seeds: &str| {
        let mut command = common::tabula();
        let args = words("build kalah --pits 4 --max-seeds");
        command.args(args).args([seeds, "-o", out]);
        command
    };
    let (whole, killed) = (at("whole.tab"), at("killed.tab"));
    assert!(build(&whole, "12").output().unwrap().status.success());
    let expected = std::fs::read(&whole).unwrap();
    // 125,970 boards; a fixed-seed xorshift picks where each run is killed.
    let mut seed = 49_u64;
    let mut kills = 0;
    for _ in 0..3 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let point = (1000 + seed % 120_000).to_string();
        let out = build(&killed, "12")
            .env("TABULA_TEST_KILL_AFTER_BOARDS", &point)
            .output()
            .unwrap();
        if out.status.signal() == Some(9) {
            kills += 1;
            assert!(!std::path::Path::new(&killed).exists());
        }
    }
    assert!(kills > 0);
    // Another table's command does not take the partial.
    let other = build(&killed, "11").output().unwrap();
    assert_one_line_error(&other, "a partial build of another table");
    let out = build(&killed, "12").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_contains(&stderr(&out), "seed layers reused (checked)");
    assert!(std::fs::read(&killed).unwrap() == expected, "other bytes");
    assert!(!std::path::Path::new(&format!("{killed}.part")).exists());
    assert!(!std::path::Path::new(&format!("{killed}.part.state")).exists());
}

/// `--endgame` on query, sweep, serve and play: the plain search's values
/// under both capture rules; a table of other pits or rule, or damaged, refused.
#[test]
fn endgame_tables_give_the_plain_values_in_every_searching_verb() {
    let dir = tempfile::tempdir().unwrap();
    for (rule, flags) in [
        ("always", &[][..]),
        ("non-empty", &["--no-empty-capture"][..]),
    ] {
        let table = dir.path().join(format!("{rule}.tab"));
        let table = table.to_str().unwrap();
        let mut build = vec![
            "build",
            "kalah",
            "--pits",
            "3",
            "--max-seeds",
            "10",
            "-o",
            table,
        ];
        build.extend(flags);
        assert!(run(&build).status.success());
        let sweep = |endgame: &[&str]| {
            let mut args = vec![
                "sweep", "kalah", "--pits", "3", "--seeds", "1..5", "--json", "-",
            ];
            args.extend(flags);
            args.extend(endgame);
            let json = json_of(&args);
            let rows = json["rows"].as_array().unwrap().clone();
            rows.iter()
                .map(|r| (r["seeds"].as_i64().unwrap(), r["value"].as_i64().unwrap()))
                .collect::<Vec<_>>()
        };
        assert_eq!(sweep(&["--endgame", table]), sweep(&[]), "{rule}");
        for board in ["3 3 3 / 3 3 3", "4 0 2 / 1 5 0"] {
            let mut args = vec!["query", "kalah", "--pits", "3", "--seeds", "3", board];
            args.extend(flags);
            let plain = stdout(&run(&args));
            args.extend(["--endgame", table]);
            assert_eq!(stdout(&run(&args)), plain, "{rule} {board}");
        }
        // The optimal player with the table plays as without: same answers.
        let mut play = vec!["play", "kalah", "--pits", "3", "--seeds", "2", "--second"];
        play.extend(flags);
        let plain = run_with_input(&play, "");
        play.extend(["--endgame", table]);
        assert_eq!(stdout(&run_with_input(&play, "")), stdout(&plain), "{rule}");
        // A table of the other rule is refused in one line naming both.
        let other = if flags.is_empty() {
            vec!["--no-empty-capture"]
        } else {
            vec![]
        };
        for verb in [
            &["sweep", "kalah", "--pits", "3", "--seeds", "2"][..],
            &["serve", "kalah", "--agent", "optimal", "--pits", "3"][..],
            &["play", "kalah", "--pits", "3"][..],
        ] {
            let mut args = verb.to_vec();
            args.extend(&other);
            args.extend(["--endgame", table]);
            assert_one_line_error(
                &run_with_input(&args, ""),
                "the endgame table is of 3 pits a side",
            );
        }
        let mut args = vec![
            "sweep",
            "kalah",
            "--pits",
            "2..3",
            "--seeds",
            "2",
            "--endgame",
            table,
        ];
        args.extend(flags);
        assert_one_line_error(&run(&args), "the game is 2 pits a side");
    }
    // A damaged table is caught by its checksums.
    let table = dir.path().join("always.tab");
    let mut bytes = std::fs::read(&table).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&table, bytes).unwrap();
    let args = [
        "sweep",
        "kalah",
        "--pits",
        "3",
        "--seeds",
        "2",
        "--endgame",
        table.to_str().unwrap(),
    ];
    assert_one_line_error(&run(&args), "corrupted");
}

/// `--time-limit` and the hidden `--node-limit` stop the search and print
/// bounds that hold the value, exit status 0: a limit of 0 gives the board's
/// seed bounds; a node limit no search reaches gives the exact answer.
#[test]
fn kalah_query_limits_print_proven_bounds() {
    let out = run(&words("query kalah --pits 3 --seeds 3 --time-limit 0"));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_contains(&text, "value: between -18 and +18, not proven in ");
    assert!(!text.contains("move "), "{text}");
    let out = run_with_input(
        &words("query kalah --pits 3 --seeds 3 --batch --node-limit 100"),
        "3 3 3 / 3 3 3\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let answer = &json_lines(&stdout(&out))[0];
    assert_eq!(
        answer["unproven"],
        serde_json::json!({"lower": -18, "upper": 18})
    );
    assert!(answer.get("value").is_none(), "{answer}");
    let expected = plain_start_value(3, 3);
    for k in ["1000", "3000", "30000", "100000000"] {
        let command = format!("query kalah --pits 3 --seeds 3 --batch --node-limit {k}");
        let answered = run_with_input(&words(&command), "3 3 3 / 3 3 3\n");
        let answer = &json_lines(&stdout(&answered))[0];
        let (lower, upper) = match answer.get("unproven") {
            Some(b) => (b["lower"].as_i64().unwrap(), b["upper"].as_i64().unwrap()),
            None => (
                answer["value"].as_i64().unwrap(),
                answer["value"].as_i64().unwrap(),
            ),
        };
        let expected = i64::from(expected);
        assert!(lower <= expected && expected <= upper, "k={k}: {answer}");
    }
}

/// `sweep kalah --time-limit` stops each variant on its own: a limit of 0
/// leaves every row with bounds that hold its value and a `?` or settled
/// result, exit status 0; a negative limit is refused in one line.
#[test]
fn kalah_sweep_time_limit_stops_each_variant_with_bounds() {
    let report = json_of(&words(
        "sweep kalah --pits 2..3 --seeds 3 --table-bits 12 --time-limit 0 --json -",
    ));
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "every variant has its row: {report}");
    for row in rows {
        let m = row["pits"].as_u64().unwrap() as u8;
        let value = i64::from(plain_start_value(m, 3));
        let b = &row["unproven"];
        assert!(row.get("value").is_none(), "{row}");
        let (lower, upper) = (b["lower"].as_i64().unwrap(), b["upper"].as_i64().unwrap());
        assert!(lower <= value && value <= upper, "{row}");
    }
    let full = json_of(&words(
        "sweep kalah --pits 2..3 --seeds 3 --table-bits 12 --time-limit inf --json -",
    ));
    for row in full["rows"].as_array().unwrap() {
        let m = row["pits"].as_u64().unwrap() as u8;
        assert_eq!(row["value"], i64::from(plain_start_value(m, 3)), "{row}");
    }
    let refused = run(&words("sweep kalah --pits 2 --seeds 3 --time-limit=-1"));
    assert_one_line_error(&refused, "--time-limit");
}

/// `query kalah --no-moves` gives the board's searched value alone: the
/// plain negamax's, with no move lines (`"moves":[]` with --batch), and
/// keeps `--line`.
#[test]
fn kalah_query_no_moves_gives_the_value_alone() {
    let expected = plain_start_value(3, 3);
    let out = run(&words("query kalah --pits 3 --seeds 3 --no-moves --line"));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_contains(&text, &format!("value: {expected}\n"));
    assert!(!text.contains("move "), "{text}");
    assert_contains(&text, "line");
    let out = run_with_input(
        &words("query kalah --pits 3 --seeds 3 --batch --no-moves"),
        "3 3 3 / 3 3 3\n",
    );
    let answer = &json_lines(&stdout(&out))[0];
    assert_eq!(answer["value"], i64::from(expected), "{answer}");
    assert_eq!(answer["moves"], serde_json::json!([]), "{answer}");
}
