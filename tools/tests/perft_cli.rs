//! `tabula perft GAME`: counts checked against independent counters, the
//! division against the totals, and every game's start read back.

mod common;

use common::{assert_one_line_error, run, stderr, stdout};
use serde_json::Value;

/// `tabula perft ARGS --json -`, parsed.
fn perft_json(args: &[&str]) -> Value {
    let out = run(&[&["perft"][..], args, &["--json", "-"]].concat());
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("JSON alone on stdout")
}

/// A ply's field of a report, ply by ply.
fn column(report: &Value, field: &str) -> Vec<u64> {
    report["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[field].as_u64().unwrap())
        .collect()
}

#[test]
fn reversi_counts_are_the_plain_grids_on_every_side() {
    use tabula_solver::reversi::{Board, plain::Plain};
    for n in 7..=12usize {
        let size = n.to_string();
        let report = perft_json(&["reversi", "--size", &size, "--depth", "3"]);
        let plain = Plain::of(&Board::start(n).unwrap());
        let expected: Vec<u64> = (1..=3).map(|d| plain.perft(d)).collect();
        assert_eq!(column(&report, "leaves"), expected, "n {n}");
    }
}

#[test]
fn dominoes_leaves_to_the_end_are_the_compact_positions_count() {
    use tabula_solver::dominoes::Match;
    use tabula_solver::dominoes::position::Position;
    use tabula_solver::dominoes::rules::Rules;
    use tabula_solver::dominoes::search::perft;
    for (case, deal) in [("5:4", 0), ("5:4", 3), ("5:5", 1)] {
        let deal_text = deal.to_string();
        let args = [
            "dominoes", "--case", case, "--deal", &deal_text, "--depth", "64",
        ];
        let report = perft_json(&args);
        let plies = report["plies"].as_array().unwrap();
        let last = plies.last().unwrap();
        assert_eq!(last["sequences"], 0, "every game ends within 64 plies");
        let (n, h) = case.split_once(':').unwrap();
        let rules = Rules::new(n.parse().unwrap(), h.parse().unwrap()).unwrap();
        let dealt = tabula_verify::dominoes::referee::deal(1, rules, deal);
        let expected = perft(&Position::of(&Match::new(&dealt)));
        assert_eq!(
            last["leaves"].as_u64().unwrap(),
            expected,
            "{case} deal {deal}"
        );
    }
}

#[test]
fn the_division_adds_up_and_names_each_first_move_once() {
    for args in [
        &["reversi", "--size", "8", "--depth", "3"][..],
        &["tothello", "--depth", "3"],
        &["ioiwari", "--depth", "5"],
        &["kalah", "--pits", "3", "--seeds", "2", "--depth", "30"],
        &["tonga", "--size", "4", "--depth", "3"],
        &["dominoes", "--depth", "6"],
    ] {
        let report = perft_json(&[args, &["--divide"]].concat());
        let divided = report["divide"].as_array().unwrap();
        let plies = report["plies"].as_array().unwrap();
        assert_eq!(
            divided.len() as u64,
            plies[0]["sequences"].as_u64().unwrap()
        );
        let depth = report["depth"].as_u64().unwrap() as usize;
        let sum = |field: &str| -> u64 { divided.iter().map(|d| d[field].as_u64().unwrap()).sum() };
        let at_depth = plies
            .get(depth - 1)
            .map_or(0, |p| p["sequences"].as_u64().unwrap());
        assert_eq!(sum("sequences"), at_depth, "{args:?}");
        assert_eq!(sum("leaves"), plies.last().unwrap()["leaves"], "{args:?}");
        let mut moves: Vec<&str> = divided
            .iter()
            .map(|d| d["move"].as_str().unwrap())
            .collect();
        moves.sort();
        moves.dedup();
        assert_eq!(moves.len(), divided.len(), "{args:?}: {moves:?}");
        // Leaves at a ply: that ply's sequences and every game over before it.
        let sequences = column(&report, "sequences");
        let finished = column(&report, "finished");
        for (k, leaves) in column(&report, "leaves").into_iter().enumerate() {
            let before: u64 = finished[..k].iter().sum();
            assert_eq!(leaves, sequences[k] + before, "{args:?} ply {}", k + 1);
        }
    }
}

#[test]
fn every_games_start_reads_back_through_start() {
    for args in [
        &["reversi", "--size", "9", "--depth", "2"][..],
        &[
            "tothello", "--red", "C3 D4 E5", "--black", "D5 E4", "--turn", "black", "--depth", "2",
        ],
        &["ioiwari", "--board", "0 1 2 0 3 1 1", "--depth", "3"],
        &["kalah", "--pits", "2", "--seeds", "3", "--depth", "3"],
        &["tonga", "--size", "6", "--depth", "2"],
        &["dominoes", "--case", "9:7", "--deal", "2", "--depth", "3"],
    ] {
        let report = perft_json(args);
        let start = report["start"].to_string();
        let again =
            perft_json(&[&[args[0], "--start", &start][..], &args[args.len() - 2..]].concat());
        assert_eq!(again["start"], report["start"], "{args:?}");
        assert_eq!(again["plies"], report["plies"], "{args:?}");
    }
}

#[test]
fn the_text_report_says_what_the_json_says() {
    let out = run(&[
        "perft", "kalah", "--pits", "2", "--seeds", "2", "--depth", "10", "--divide",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let report = perft_json(&[
        "kalah", "--pits", "2", "--seeds", "2", "--depth", "10", "--divide",
    ]);
    for ply in report["plies"].as_array().unwrap() {
        let line = format!(
            "ply {}: {} sequences, {} finished games, {} leaves\n",
            ply["ply"], ply["sequences"], ply["finished"], ply["leaves"]
        );
        assert!(text.contains(&line), "{text} lacks {line}");
    }
    let last = report["plies"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["sequences"], 0, "Kalah(2, 2) ends within 10 plies");
    let games = format!(
        "every game is over by ply {}: {} games\n",
        last["ply"], last["leaves"]
    );
    assert!(text.contains(&games), "{text}");
    for d in report["divide"].as_array().unwrap() {
        let line = format!(
            "\n{} {} {}\n",
            d["move"].as_str().unwrap(),
            d["sequences"],
            d["leaves"]
        );
        assert!(text.contains(&line), "{text} lacks {line}");
    }
}

#[test]
fn a_full_reversi_board_reads_back_as_a_finished_start() {
    let rows = r#"["1111111","1111111","1112222","2222222","3333333","3333333","3333333"]"#;
    let finished = format!(r#"{{"mover":null,"n":7,"rows":{rows}}}"#);
    let report = perft_json(&["reversi", "--start", &finished]);
    assert_eq!(report["over"], true, "{report}");
    // A seat said to move on it is refused, saying why.
    let moving = format!(r#"{{"mover":0,"n":7,"rows":{rows}}}"#);
    assert_one_line_error(
        &run(&["perft", "reversi", "--start", &moving]),
        "nobody can move on this board",
    );
}

#[test]
fn tothellos_turn_alone_keeps_the_standard_start() {
    let report = perft_json(&["tothello", "--turn", "red", "--depth", "1"]);
    let start = report["start"]["position"].as_str().unwrap();
    assert_eq!(start, "bestMove 2 D4 E5 2 E4 D5 Red");
}

#[test]
fn nim_counts_are_the_hand_counts_and_a_finished_start_is_one_leaf() {
    // From 3, taking 1 to 3: the games 3, 1+2, 2+1 and 1+1+1.
    let report = perft_json(&["nim", "--heap", "3", "--depth", "5"]);
    assert_eq!(column(&report, "sequences"), [3, 3, 1, 0]);
    assert_eq!(column(&report, "finished"), [1, 2, 1, 0]);
    assert_eq!(column(&report, "leaves"), [3, 4, 4, 4]);
    assert_eq!(report["over"], false);
    let over = perft_json(&["nim", "--heap", "0", "--divide"]);
    assert_eq!(over["over"], true, "{over}");
    assert_eq!(over["plies"], serde_json::json!([]), "{over}");
    assert!(over.get("divide").is_none(), "{over}");
    let text = stdout(&run(&["perft", "nim", "--heap", "0"]));
    assert!(text.contains("the start is a finished game"), "{text}");
}

#[test]
fn bad_starts_and_options_are_one_line_errors() {
    for (args, problem) in [
        (
            &["perft", "reversi", "--start", "{\"mover\":1}"][..],
            "--start: no field 'rows'",
        ),
        (&["perft", "reversi", "--start", "nope"], "--start"),
        (&["perft", "reversi", "--size", "13"], "--size"),
        (
            &["perft", "tonga", "--size", "5"],
            "--size: 5 is not an even board side",
        ),
        (
            &["perft", "dominoes", "--case", "5:4,6:4"],
            "--case: give one case",
        ),
        (&["perft", "dominoes", "--case", "4:4"], "--case"),
        (
            &["perft", "ioiwari", "--board", "1 2"],
            "--board: bad board '1 2'",
        ),
        (
            &["perft", "tothello", "--red", "A1", "--black", "A1"],
            "both Red and Black",
        ),
        (&["perft", "kalah", "--depth", "0"], "--depth"),
        (&["perft", "kalah", "--pits", "0"], "Kalah"),
        // Starts no game reaches, caught when read (found by an audit).
        (
            &[
                "perft",
                "ioiwari",
                "--start",
                r#"{"banks":[4294967295,1],"board":"1 0 0 1 0 2 0","mover":0}"#,
            ],
            "more than the 35 beads the ring holds",
        ),
        (
            &[
                "perft",
                "tonga",
                "--start",
                r#"{"n":4,"rows":["BB..","....","....","...."],"to_move":"W"}"#,
            ],
            "cannot arise with Black first",
        ),
        (
            &[
                "perft",
                "tonga",
                "--start",
                r#"{"n":4,"rows":["....","....","....","...."],"to_move":"W"}"#,
            ],
            "'to_move' is W, but with these stone counts B moves",
        ),
        (
            &[
                "perft",
                "reversi",
                "--start",
                r#"{"mover":3,"n":7,"rows":[".......",".......","..123..","..231..","..312..",".......","......."]}"#,
            ],
            "no seat 3 in a game of 3 players",
        ),
    ] {
        assert_one_line_error(&run(args), problem);
    }
}
