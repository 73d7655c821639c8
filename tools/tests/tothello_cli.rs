//! The `tabula` binary end to end for Tothello: real processes, real pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

mod common;
use common::{
    assert_refused, json_lines, referee_player, run, run_or_kill, run_with_input, serve_command,
    stderr, stdout, tabula, words,
};

#[test]
fn serve_answers_each_line_as_it_comes() {
    let mut child = tabula()
        .args(["serve", "tothello"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("tabula serve starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let exchanges = [
        (
            "bestMove 11 C2 C3 C4 C5 D4 E4 F2 F3 F4 F5 G6 6 B1 E1 G1 C6 H7 G4 Black",
            "16",
        ),
        ("bestMove 1 A1 0 Green", "error: 'Green' is not a player"),
        ("hello", "error: unknown method 'hello'"),
        ("bestMove 5 A1 B8 C6 C8 D8 5 B2 C2 C3 C4 C5 Red", "11"),
    ];
    // Each answer is read before the next request is sent: answers are flushed.
    for (request, expected) in exchanges {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.starts_with(expected), "{request}: got {line:?}");
        assert!(line.ends_with('\n'));
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success());
}

#[test]
fn query_gives_best_move_and_the_solver_move() {
    let out = run(&words(
        "query tothello --red C2,C3,C4,C5,D4,E4,F2,F3,F4,F5,G6 --black B1,E1,G1,C6,H7,G4 --turn Black",
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bestMove: 16 pieces, at C1 D3"), "{text}");
    assert!(text.contains("estimate after 6 plies"), "{text}");
}

#[test]
fn a_batch_answers_each_line_as_the_single_query_does() {
    let positions = [
        ("D4 E5", "D5 E4", "Red", false),
        (
            "C2 C3 C4 C5 D4 E4 F2 F3 F4 F5 G6",
            "B1 E1 G1 C6 H7 G4",
            "Black",
            false,
        ),
        ("A1", "A2", "Red", true),
    ];
    let depth = ["--depth", "3"];
    let mut input = String::from("A1 / A2\n");
    for (red, black, turn, passed) in positions {
        let pass = if passed { " / passed" } else { "" };
        input += &format!("{red} / {black} / {turn}{pass}\n");
    }
    let out = run_with_input(
        &[&["query", "tothello", "--batch"][..], &depth].concat(),
        &input,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines.len(), 4);
    assert!(
        lines[0]["error"]
            .as_str()
            .unwrap()
            .contains("RED / BLACK / TURN")
    );
    for ((red, black, turn, passed), json) in positions.into_iter().zip(&lines[1..]) {
        let mut args = vec![
            "query", "tothello", "--red", red, "--black", black, "--turn", turn,
        ];
        args.extend(depth);
        if passed {
            args.push("--passed");
        }
        let single = stdout(&run(&args));
        let best = &json["best_move"];
        let squares = common::json_strs(&best["squares"]);
        let line = format!(
            "bestMove: {} pieces, at {}\n",
            best["pieces"],
            squares.join(" ")
        );
        assert!(single.contains(&line), "{single} lacks {line}");
        assert_eq!(json["exact"], false);
        let line = format!(
            "estimate after 3 plies: {:.2} pieces, best move {}, {} nodes\n",
            json["value"].as_f64().unwrap(),
            json["move"].as_str().unwrap(),
            json["nodes"]
        );
        assert!(single.contains(&line), "{single} lacks {line}");
        assert_eq!(json["passed"], passed);
        assert_eq!(json["to_move"], turn);
    }
    // Near the end the answer is exact: Red holds all but H5 to H8.
    let red: Vec<String> = ('A'..='H')
        .flat_map(|c| (1..=8).map(move |r| format!("{c}{r}")))
        .filter(|s| !["H5", "H6", "H7", "H8"].contains(&s.as_str()))
        .collect();
    let line = format!("{} / H7 H8 / Black / passed\n", red.join(" "));
    let out = run_with_input(&["query", "tothello", "--batch"], &line);
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(json["exact"], true, "{json}");
    let single = query_black_to_move(&red, "--passed");
    let text = format!(
        "exact value: {} (pieces, Black minus the other), best move {}, {} nodes\n",
        json["value"]
            .as_i64()
            .expect("an exact value is a whole number"),
        json["move"].as_str().unwrap(),
        json["nodes"]
    );
    assert!(single.contains(&text), "{single} lacks {text}");
    // A full board: the game is over, with the same value both ways.
    let squares: Vec<String> = ('A'..='H')
        .flat_map(|c| (1..=8).map(move |r| format!("{c}{r}")))
        .collect();
    let (red, black) = squares.split_at(40);
    let line = format!("{} / {} / Red\n", red.join(" "), black.join(" "));
    let out = run_with_input(&["query", "tothello", "--batch"], &line);
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(json["best_move"], serde_json::Value::Null, "{json}");
    assert_eq!(json["value"], 16, "{json}");
    let out = run(&[
        "query",
        "tothello",
        "--red",
        &red.join(","),
        "--black",
        &black.join(","),
        "--turn",
        "Red",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let single = stdout(&out);
    assert!(
        single.contains("bestMove: none (the board is full"),
        "{single}"
    );
    assert!(single.contains("exact value: 16 "), "{single}");
}

/// What `tabula query tothello OPTION` says of a board of Red's `red`
/// squares and Black's H7 and H8, Black to move.
fn query_black_to_move(red: &[String], option: &str) -> String {
    let red = red.join(",");
    let position = ["--red", &red, "--black", "H7,H8", "--turn", "Black"];
    stdout(&run(
        &[&["query", "tothello"][..], &position, &[option]].concat()
    ))
}

#[test]
fn bad_positions_give_one_line_and_status_2() {
    for (args, needle) in [
        (vec!["--red", "A1,A1"], "A1 is listed twice"),
        (vec!["--red", "A1", "--black", "A1"], "A1 is listed as both"),
        (vec!["--red", "K1"], "'K1' is not a square"),
        (vec!["--turn", "White"], "'White' is not a player"),
    ] {
        let mut all = vec!["query", "tothello"];
        all.extend(args);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
    }
}

#[test]
fn verify_writes_markdown_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let args = [
        "verify",
        "tothello",
        "--openings",
        "2",
        "--depths",
        "1",
        "--json",
        json.to_str().unwrap(),
    ];
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("| random "), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // random, greedy, solver-d1: three pairs of four games.
    let pairs = report["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    assert_eq!(
        pairs[0]["wdl"]["wins"].as_u64().unwrap()
            + pairs[0]["wdl"]["draws"].as_u64().unwrap()
            + pairs[0]["wdl"]["losses"].as_u64().unwrap(),
        4
    );
    // Same seed, same report.
    let again = run(&args[..6]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), text);
    // `--json -`: the JSON alone on stdout.
    let out = run(&[&args[..6], &["--json", "-"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let mut alone: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON alone");
    // The same report; only the arguments in `run` name a different output.
    assert_eq!(alone["run"]["args"][7], "-");
    assert_eq!(report["run"]["args"][7], json.to_str().unwrap());
    alone["run"]["args"][7] = report["run"]["args"][7].clone();
    assert_eq!(alone, report);
}

#[test]
fn referee_passes_our_server_and_catches_a_wrong_program() {
    let server = serve_command("tothello");
    // A generous limit: this test is about the answers, not the clock.
    let out = referee_player("tothello", &server, "--cases 300 --timeout 60");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(text.trim(), "passed 302 of 302 cases");

    let wrong = "while read line; do echo 16; done";
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.txt");
    let options = format!("--cases 20 --transcript {}", transcript.display());
    let out = referee_player("tothello", wrong, &options);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // The first example's answer is 16, the second's 11.
    assert!(text.contains("-> got '16', expected 11"), "{text}");
    assert!(!text.contains("passed 22 of 22"), "{text}");
    // The transcript ends with the same result lines, after the dialogue.
    let kept = std::fs::read_to_string(&transcript).unwrap();
    assert!(kept.starts_with("> bestMove "), "{kept}");
    assert!(kept.ends_with(&text), "{kept}");

    // The JSON holds the same verdict: every wrong answer with the right one.
    let out = run(&[
        "referee", "tothello", "--player", wrong, "--cases", "20", "--json", "-",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("--json - is JSON alone");
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(report["requests"], 22);
    let passed = format!("passed {} of 22 cases", report["passed"]);
    assert!(text.ends_with(&format!("{passed}\n")), "{text}");
    assert_eq!(failures.len(), text.matches("wrong: ").count());
    for failure in failures {
        assert_eq!(failure["got"], "16");
        let line = format!(
            "wrong: {} -> got '16', expected {}",
            failure["request"].as_str().unwrap(),
            failure["expected"]
        );
        assert!(text.contains(&line), "{line}");
    }
    let fault = report["fault"].as_str().unwrap();
    assert!(text.contains(&format!("stopped: {fault}\n")), "{text}");
    assert_eq!(report["unsolicited"], serde_json::json!([]));
}

#[test]
fn the_check_s_json_names_its_fault_s_kind() {
    for (player, kind) in [
        ("read l; exit 1", "crash"),
        ("read l; echo zz; exec sleep 300", "time-out"),
        ("yes 16", "malformed-answer"),
    ] {
        let out = run_or_kill(&[
            "referee",
            "tothello",
            "--player",
            player,
            "--cases",
            "30",
            "--timeout",
            "2",
            "--json",
            "-",
        ])
        .expect("the referee hung");
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("--json - is JSON alone");
        assert!(report["fault"].is_string(), "{player}: {report}");
        assert_eq!(report["fault_kind"], kind, "{player}: {report}");
    }
}

#[test]
fn a_player_that_answers_everything_at_once_is_stopped() {
    let flood = "yes 16 | head -n 1000; exec sleep 300";
    let out = run_or_kill(&[
        "referee",
        "tothello",
        "--player",
        flood,
        "--cases",
        "5000",
        "--timeout",
        "2",
    ])
    .expect("the referee hung");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("stopped: no answer to '") && text.contains("flooded its output")
            || text.contains("stopped: could not send 'bestMove")
                && text.contains("player timed out")
            || text.contains("stopped: 10 wrong or unsolicited answers"),
        "{text}"
    );
}

#[test]
fn time_limits_are_checked() {
    common::assert_timeouts_refused("tothello");
}

#[test]
fn referee_stops_a_runaway_answer_stream() {
    // `yes` answers every request at once and keeps writing: the check stops
    // (after ten wrong or unsolicited answers, or when the unread lines pile
    // up, whichever it sees first) instead of reading it all.
    let out = run(&[
        "referee", "tothello", "--player", "yes 16", "--cases", "1000",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("stopped: 10 wrong or unsolicited answers")
            || text.contains("flooded its output"),
        "{text}"
    );
    let passed: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("passed ")?.strip_suffix(" of 1002 cases"))
        .and_then(|n| n.parse().ok())
        .expect("a summary line");
    assert!(passed < 20, "{text}");
}

#[test]
fn colour_is_accepted_in_any_case_and_either_spelling() {
    for args in [
        vec!["--color", "red"],
        vec!["--colour", "RED"],
        vec!["--color", "Black"],
    ] {
        let mut all = vec!["play", "tothello", "--depth", "1"];
        all.extend(&args);
        let out = run_with_input(&all, "quit\n");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let color = if args[1].eq_ignore_ascii_case("red") {
            "Red"
        } else {
            "Black"
        };
        assert!(text.contains(&format!("You play {color}.")), "{text}");
        assert!(text.contains(&format!("Your move ({color}): ")), "{text}");
    }
    let out = run(&["play", "tothello", "--color", "White"]);
    assert_refused(&out, "'White' is not a player");
}

#[test]
fn an_input_that_ends_midgame_is_named_in_one_line() {
    let out = run_with_input(&["play", "tothello", "--depth", "1"], "C4\n");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "error: stdin: the input ended before the game did\n"
    );
}

#[test]
fn two_answers_written_at_once_give_the_same_verdict_every_run() {
    // Each request gets two lines in one write: the second answers nothing.
    // Whether it had reached the referee when the answer was read used to be
    // a race, and the verdict changed from run to run.
    let twice = r"while read l; do printf '16\n\033[2J\n'; done";
    let verdicts: Vec<String> = (0..5)
        .map(|_| {
            let out = run(&["referee", "tothello", "--player", twice, "--cases", "0"]);
            String::from_utf8_lossy(&out.stdout).into_owned()
        })
        .collect();
    assert!(verdicts.iter().all(|v| v == &verdicts[0]), "{verdicts:#?}");
    let text = &verdicts[0];
    // What the player wrote is quoted with its controls escaped.
    assert!(
        text.contains("unsolicited: 2 lines answering no request (the first: '\\u{1b}[2J')"),
        "{text}"
    );
    assert!(text.contains("got '16', expected 11"), "{text}");
    assert!(text.contains("passed 1 of 2 cases"), "{text}");
}

#[test]
fn a_pass_before_the_position_can_change_its_value() {
    // Red is 15 behind with 3 squares empty: after Black's pass, Red's pass
    // ends the game at -15; without it the game goes on, worse for Red.
    let red = "B3,D2,C3,G3,D8,H2,E8,C4,G7,C2,D7,B2,B4,A7,F8,C7,E2,G2,A3,B8,E1,C5,G4";
    let black = "F3,E3,B7,D4,B6,A5,G1,H7,H1,H4,E4,D1,E5,E7,F2,G6,D3,D6,C6,C1,F7,A4,B5,H5,H6,\
                 E6,F6,D5,A8,A1,G8,A6,H8,G5,C8,H3,A2,F5";
    let query = |passed: &[&str]| {
        let mut args = vec![
            "query", "tothello", "--red", red, "--black", black, "--turn", "red",
        ];
        args.extend_from_slice(passed);
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let after_pass = query(&["--passed"]);
    assert!(
        after_pass.contains("Red 23, Black 38, Red to move, after a pass\n"),
        "{after_pass}"
    );
    assert!(
        after_pass.contains("exact value: -15 (pieces, Red minus the other), best move pass"),
        "{after_pass}"
    );
    let plain = query(&[]);
    assert!(plain.contains("Red to move\n"), "{plain}");
    assert!(!plain.contains("exact value: -15 "), "{plain}");
}

#[test]
fn the_optimal_line_of_an_exact_position_is_worth_the_negamax_value() {
    use tabula_solver::tothello::{Board, Color, Move, Position};
    // Red holds all but seven squares; Black has two. Seven empties: the
    // plain memoized negamax solves it in the test.
    let empty = ["H5", "H6", "F8", "G8", "A1", "C3", "E6"];
    let red: Vec<String> = ('A'..='H')
        .flat_map(|c| (1..=8).map(move |r| format!("{c}{r}")))
        .filter(|s| !empty.contains(&s.as_str()) && !["H7", "H8"].contains(&s.as_str()))
        .collect();
    let black = ["H7".to_string(), "H8".to_string()];
    let board = Board::from_squares(&red, &black).unwrap();
    let start = Position::new(board, Color::Black);
    let value = tabula_solver::search::memo_negamax(&start, &mut std::collections::HashMap::new());
    let line = format!("{} / H7 H8 / Black\n", red.join(" "));
    let out = run_with_input(&["query", "tothello", "--batch", "--line"], &line);
    let json = json_lines(&stdout(&out)).remove(0);
    assert_eq!(json["value"], value, "{json}");
    // Replayed on the solver's own rules: legal moves to the end of the game,
    // the final difference for the mover the value.
    let mut position = start;
    for (ply, step) in json["line"].as_array().unwrap().iter().enumerate() {
        assert_eq!(step["by_mover"], ply % 2 == 0, "{step}");
        let mv: Move = step["move"].as_str().unwrap().parse().unwrap();
        position.try_apply(mv).unwrap();
    }
    assert!(position.is_finished(), "the line ends the game");
    let sign = if json["line"].as_array().unwrap().len().is_multiple_of(2) {
        1
    } else {
        -1
    };
    assert_eq!(sign * position.difference(), value);
    let text = query_black_to_move(&red, "--line");
    assert!(
        text.ends_with(&format!("the line's difference for the mover: {value}\n")),
        "{text}"
    );
    // Too many empty squares to solve: refused in one line.
    let out = run(&[
        "query", "tothello", "--red", "D4,E5", "--black", "D5,E4", "--turn", "Red", "--line",
    ]);
    assert_refused(&out, "--line needs an exact value");
}

#[test]
fn the_referees_cases_as_test_data_are_what_it_sends_and_expects() {
    let out = run(&["tothello", "cases", "--cases", "6"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    // The statement's two examples come first, with its answers.
    assert!(lines[0].starts_with("case 0: bestMove 11 "), "{text}");
    assert!(lines[0].ends_with(" Black -> 16"), "{text}");
    assert!(lines[1].ends_with(" Red -> 11"), "{text}");
    // The referee sends the same requests, in order (the same default seed).
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.txt");
    let served = serve_command("tothello");
    let options = format!("--cases 6 --transcript {}", transcript.display());
    let out = referee_player("tothello", &served, &options);
    assert!(out.status.success(), "{}", stderr(&out));
    let kept = std::fs::read_to_string(&transcript).unwrap();
    let sent: Vec<&str> = kept.lines().filter_map(|l| l.strip_prefix("> ")).collect();
    let answered: Vec<&str> = kept.lines().filter_map(|l| l.strip_prefix("< ")).collect();
    assert_eq!(sent.len(), 8, "{kept}");
    for ((line, request), answer) in lines.iter().zip(&sent).zip(&answered) {
        let (case, expected) = line.rsplit_once(" -> ").unwrap();
        assert!(case.ends_with(request), "{line} / {request}");
        assert_eq!(expected, *answer, "{line}");
    }
    // The JSON holds the same, stamped with its seed.
    let out = run(&["tothello", "cases", "--cases", "6", "--json", "-"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["run"]["seed"], 2001);
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    assert_eq!(cases[1]["expected"], 11);
    assert_eq!(cases[7]["request"], sent[7]);
}
