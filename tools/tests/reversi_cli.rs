//! The `tabula` binary end to end for MultiplayerReversi: the tester, the
//! served player and the genetic algorithm, over real processes and pipes.
//! Every run uses a tiny genetic algorithm to keep the tests cheap.

use std::process::Output;

mod common;
use common::{
    assert_one_line_error, case_lines, reproducible_referee, run, run_ok, run_with_input,
    serve_command, served_and_built_in, sorted_keys, stderr, stdout, tabula, words,
};

/// The small GA every referee run here uses.
const SMALL: [&str; 4] = ["--generations", "2", "--ga-games", "10"];

/// `tabula referee reversi` with `args` and the small GA, which must succeed.
fn referee(args: &[&str]) -> String {
    run_ok(&[&["referee", "reversi"][..], &SMALL].concat(), args)
}

#[test]
fn a_small_run_is_reproducible_and_its_json_adds_up() {
    let args = words("--agent random --sizes 7,8 --cases 1");
    let (first, report) = reproducible_referee(referee, &args);
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines.len(), 3, "{first}");
    for (line, (n, p)) in lines.iter().zip([(7.0, 3.0), (8.0, 4.0)]) {
        let [size, players, score, owned] = common::four_numbers(line, 1);
        assert_eq!((size, players), (n, p), "{line}");
        assert!((score - owned * p / (n * n)).abs() < 1e-4, "{line}");
    }
    assert!(lines[2].starts_with("total ") && lines[2].ends_with(" over 2 cases"));
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for (case, line) in cases.iter().zip(&lines) {
        assert_eq!(
            sorted_keys(case),
            ["fault", "fault_kind", "n", "owned", "players", "score"]
        );
        assert!(case["fault"].is_null() && case["fault_kind"].is_null());
        let expect = format!(
            "case {} {} {:.4} {}",
            case["n"],
            case["players"],
            case["score"].as_f64().unwrap(),
            case["owned"]
        );
        assert_eq!(&expect, line);
    }
    let total: f64 = cases.iter().map(|c| c["score"].as_f64().unwrap()).sum();
    assert_eq!(report["total"].as_f64(), Some(total));
}

#[test]
fn a_served_player_over_pipes_plays_exactly_like_the_built_in_one() {
    let served = serve_command("reversi --agent greedy --seed 5");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    let args = ["--sizes", "7,8,9", "--cases", "2", "--seed", "5"];
    let (remote, local) = served_and_built_in(referee, &served, &log, "greedy", &args);
    assert_eq!(case_lines(&remote).len(), 6, "{remote}");
    assert_eq!(remote, local);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains(
            "> getNextMove 7 ....... ....... ..123.. ..231.. ..312.. ....... .......\n< "
        ),
        "{logged}"
    );
    assert!(logged.contains("\ngame pieces "), "{logged}");
    // The random player too, whose stream is the same in every fresh process.
    let served = served.replace("greedy", "random");
    let remote = referee(&[&["--player", served.as_str()], &args[..]].concat());
    assert_eq!(
        remote,
        referee(&[&["--agent", "random"], &args[..]].concat())
    );
}

#[test]
fn misbehaving_players_lose_the_case_with_the_reason_and_the_run_goes_on() {
    // A short limit only where the reason is a timeout: elsewhere a loaded
    // machine must not turn the fault into one.
    for (player, reason, timeout) in [
        (
            "read l; echo hello; cat > /dev/null",
            "invalid answer 'hello': expected two integers 'col row'",
            "60",
        ),
        (
            "while read l; do echo 99 0; done",
            "column 99 row 0 is off the",
            "60",
        ),
        // The top left corner is never a first move.
        (
            "while read l; do echo 0 0; done",
            "illegal move: column 0 row 0 turns no piece",
            "60",
        ),
        ("exit 3", "exit status: 3", "60"),
        // Reads everything and never answers (the shell keeps its output open).
        ("cat > /dev/null", "timed out (case limit of 0.5 s)", "0.5"),
    ] {
        let out = tabula()
            .args(["referee", "reversi", "--player", player])
            .args(SMALL)
            .args(["--sizes", "7,8", "--cases", "1", "--timeout", timeout])
            .output()
            .unwrap();
        assert!(out.status.success(), "{player}: {}", stderr(&out));
        let text = stdout(&out);
        let lines = case_lines(&text);
        assert_eq!(lines.len(), 2, "{player}: {text}");
        for (line, start) in lines
            .iter()
            .zip(["case 7 3 0.0000 3 fault: ", "case 8 4 0.0000 4 fault: "])
        {
            assert!(line.starts_with(start), "{player}: {line}");
            assert!(line.contains(reason), "{player}: {line} lacks {reason}");
        }
        assert!(
            text.ends_with("total 0.0000 over 2 cases\n"),
            "{player}: {text}"
        );
    }
}

#[test]
fn serve_answers_the_protocol_and_keeps_going_after_errors() {
    let out = run_with_input(
        &["serve", "reversi", "--agent", "greedy"],
        "hello\n\
         getNextMove 7 ....... ....... ..123.. ..231.. ..312.. ....... .......\n\
         getNextMove 7 ....... ....... ..124.. ..231.. ..312.. ....... .......\n\
         getNextMove 7 21..... 3...... ....... ....... ....... ....... .......\n\
         getNextMove 7 12..... ....... ....... ....... ....... ....... ......3\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[0], "error: unknown method 'hello'");
    // Greedy's first move: column 3 row 1 turns the 2 and the 3 below it, the
    // first of the moves that turn two pieces (none turns more).
    assert_eq!(lines[1], "3 1");
    assert!(
        lines[2].starts_with("error: row 2 column 4: '4' is not"),
        "{text}"
    );
    assert_eq!(lines[3], "error: player 1 has no legal move on this board");
    assert_eq!(lines[4], "2 0");
}

#[test]
fn evolve_writes_a_reproducible_population() {
    let dir = tempfile::tempdir().unwrap();
    let evolve = |seed: &str, file: &str| {
        let path = dir.path().join(file);
        let out = run(&[
            "reversi",
            "evolve",
            "--size",
            "8",
            "--seed",
            seed,
            "--generations",
            "2",
            "--ga-games",
            "10",
            "--json",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).starts_with("population of 100 strategies, 8x8, seed "));
        let mut json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // How the run was made (its arguments name the file), then the population.
        let run = json
            .as_object_mut()
            .unwrap()
            .remove("run")
            .expect("a run stamp");
        assert_eq!(run["seed"].as_u64(), seed.parse().ok());
        json
    };
    let a = evolve("3", "a.json");
    assert_eq!(evolve("3", "b.json"), a);
    assert_ne!(evolve("4", "c.json"), a);
    let json = a;
    assert_eq!(
        (json["n"].as_u64(), json["generations"].as_u64()),
        (Some(8), Some(2))
    );
    assert_eq!(json["ga_games"], 10);
    let weights = json["weights"].as_array().unwrap();
    assert_eq!(weights.len(), 100);
    assert!(weights.iter().all(|w| w.as_array().unwrap().len() == 64));
    assert_eq!(json["rule"], "zero ieee, ties first");
    let out = run(&words(
        "reversi evolve --size 7 --generations 1 --ga-games 2 --ties last --zero numerator --json -",
    ));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["rule"], "zero numerator, ties last");
}

#[test]
fn evolve_names_the_opponents_the_referee_draws_for_each_case() {
    let ga = ["--seed", "1", "--generations", "3", "--ga-games", "10"];
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.txt");
    let fixed = [
        "referee", "reversi", "--agent", "greedy", "--sizes", "7", "--cases", "3",
    ];
    let path = transcript.to_str().unwrap();
    common::run_ok(&fixed, &[&ga[..], &["--transcript", path]].concat());
    let kept = std::fs::read_to_string(&transcript).unwrap();
    for case in ["0", "2"] {
        let fixed = ["reversi", "evolve", "--size", "7", "--case", case];
        let json = common::run_ok(&fixed, &[&ga[..], &["--json", "-"]].concat());
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let drawn = common::json_items(&json["opponents"]);
        assert_eq!(drawn.len(), 2);
        let line = format!(
            "# case 7 index {case} seed 1: opponents [{}] of the final population",
            drawn.join(", ")
        );
        assert!(kept.contains(&line), "{line}");
    }
}

#[test]
fn bad_options_are_refused_in_one_line_before_any_game() {
    let base = ["referee", "reversi", "--agent", "random"];
    for (extra, problem) in [
        (&["--sizes", "7,7"][..], "--sizes: side 7 is given twice"),
        (&["--sizes", "6"], "--sizes: side 6 is not 7 to 12"),
        (&["--sizes", "x"], "--sizes: 'x' is not a board side"),
        (&["--sizes", ""], "--sizes: '' is not a board side"),
    ] {
        let out = run(&[&base[..], extra].concat());
        assert_one_line_error(&out, problem);
    }
    for extra in [
        &["--cases", "0"][..],
        &["--generations", "0"],
        &["--ga-games", "x"],
    ] {
        let out = run(&[&base[..], extra].concat());
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&out).starts_with("error: ") && stderr(&out).contains(extra[0]));
        assert!(stdout(&out).is_empty());
    }
    let out = run(&["referee", "reversi", "--agent", "nobody"]);
    assert_one_line_error(&out, "--agent nobody: unknown agent (known: random, greedy");
    let out = run(&["referee", "reversi"]);
    assert_one_line_error(&out, "give --player CMD or --agent NAME");
    let out = run(&["serve", "reversi", "--agent", "nobody"]);
    assert_one_line_error(&out, "--agent nobody: unknown agent");
    let out = run(&["reversi", "evolve", "--size", "13"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("'13' is not a board side 7 to 12"));
    common::assert_timeouts_refused("reversi");
}

/// `tabula verify reversi` with `args` and the small GA, which must succeed.
fn verify(args: &[&str]) -> Output {
    let out = tabula()
        .args(["verify", "reversi"])
        .args(SMALL)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    out
}

#[test]
fn verify_is_reproducible_and_scores_each_case_as_the_referee_does() {
    let args = words("--players random,greedy,brs --sizes 7 --cases 2");
    let json = |extra: &[&str]| {
        let out = verify(&[&args[..], extra].concat());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("--json - is JSON alone")
    };
    let report = json(&["--json", "-", "--seed", "3"]);
    assert_eq!(report, json(&["--json", "-", "--seed", "3"]));
    let players = report["players"].as_array().unwrap();
    let names: Vec<&str> = players
        .iter()
        .map(|p| p["player"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["random", "greedy", "brs"]);
    // The goals are best's: without it, none.
    assert_eq!(report["goals"], serde_json::json!([]));
    for (p, name) in players.iter().zip(&names) {
        let size = &p["sizes"][0];
        assert_eq!(
            (size["n"].as_u64(), size["players"].as_u64()),
            (Some(7), Some(3))
        );
        let scores: Vec<f64> = size["scores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect();
        assert_eq!(scores.len(), 2);
        let sum: f64 = scores.iter().sum();
        assert!((p["total"].as_f64().unwrap() - sum).abs() < 1e-12);
        assert!(p["oracle_share"].is_null(), "no oracle in this run");
        // The referee's run of the same player and seed scores the same cases alike.
        let lines = referee(&[
            "--agent", name, "--sizes", "7", "--cases", "2", "--seed", "3",
        ]);
        let referee_scores: Vec<String> = case_lines(&lines)
            .iter()
            .map(|l| l.split(' ').nth(3).unwrap().to_string())
            .collect();
        let ours: Vec<String> = scores.iter().map(|s| format!("{s:.4}")).collect();
        assert_eq!(ours, referee_scores, "{name}");
    }
    let other = json(&["--json", "-", "--seed", "4"]);
    assert_ne!(report["players"], other["players"]);
    // Without --json: the Markdown table, one row per player.
    let text = stdout(&verify(&[&args[..], &["--seed", "3"]].concat()));
    assert!(text.contains("| player"), "{text}");
    for name in names {
        assert!(text.contains(&format!("| {name} ")), "{text}");
    }
}

#[test]
fn verify_refuses_bad_players_and_sizes_in_one_line() {
    let base = ["verify", "reversi"];
    for (extra, problem) in [
        (
            &["--players", "greedy,nobody"][..],
            "--players: unknown player 'nobody' (known: random, greedy",
        ),
        (
            &["--players", "greedy,greedy"],
            "--players: 'greedy' is given twice",
        ),
        (&["--sizes", "13"], "--sizes: side 13 is not 7 to 12"),
    ] {
        let out = run(&[&base[..], extra].concat());
        assert_one_line_error(&out, problem);
    }
    let out = run(&["verify", "reversi", "--cases", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--cases"));
}

#[test]
fn the_oracle_referees_in_process_but_is_not_served() {
    for name in ["oracle", "best"] {
        let text = referee(&["--agent", name, "--sizes", "7,8", "--cases", "1"]);
        let lines = case_lines(&text);
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines.iter().all(|l| !l.contains("fault")), "{text}");
    }
    // Only a tester knows the opponents: the served side has no oracle.
    let out = run(&["serve", "reversi", "--agent", "oracle"]);
    assert_one_line_error(&out, "--agent oracle: unknown agent");
}

#[test]
fn verify_logs_every_game_and_plots_the_oracle_as_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let (log, plot) = (dir.path().join("games.jsonl"), dir.path().join("plot.svg"));
    let out = verify(&[
        "--players",
        "greedy,oracle",
        "--sizes",
        "7,8",
        "--cases",
        "1",
        "--json",
        "-",
        "--log",
        log.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = tabula_verify::record::read_log(&std::fs::read_to_string(&log).unwrap()).unwrap();
    // Player by player, case by case; seat 0 is the player, its case score the report's.
    assert_eq!(lines.len(), 4);
    for (i, line) in lines.iter().enumerate() {
        let (p, c) = (i / 2, i % 2);
        let player = &report["players"][p];
        assert_eq!(line.seats[0], player["player"].as_str().unwrap());
        assert_eq!(line.case_label, format!("N={} case 0", [7, 8][c]));
        let states = tabula_verify::record::replay::<tabula_solver::reversi::Board>(line)
            .unwrap_or_else(|e| panic!("{e}"));
        let score = states.last().unwrap().case_score(0);
        assert_eq!(Some(score), player["sizes"][c]["scores"][0].as_f64());
    }
    let labels = [
        "MultiplayerReversi",
        "board side N (P players)",
        "greedy",
        "oracle (ceiling)",
        "7×7 (P=3)",
        "8×8 (P=4)",
    ];
    common::assert_plot_labels(&plot, &labels);
}

#[test]
fn a_reference_player_or_opponent_is_marked_as_such() {
    let oracle = common::run_ok(
        &[
            "referee", "reversi", "--agent", "oracle", "--sizes", "7", "--cases", "1",
        ],
        &["--generations", "1", "--ga-games", "2"],
    );
    assert!(oracle.starts_with("note: oracle knows the opponents' weights: a reference ceiling"));
    let seen = common::run_ok(
        &words("referee dominoes --agent random --opponent clairvoyant"),
        &["--cases", "5:4", "--games", "2"],
    );
    assert!(seen.starts_with("note: the opponent clairvoyant sees the tested player's hand"));
    let sees = common::run_ok(
        &words("referee dominoes --agent clairvoyant --opponent random"),
        &["--cases", "5:4", "--games", "2"],
    );
    assert!(sees.starts_with("note: clairvoyant sees the other hand: a reference ceiling"));
}

#[test]
fn query_lists_the_legal_moves_the_players_choices_and_a_case_s_opponent() {
    use tabula_solver::reversi::Board;
    use tabula_verify::reversi::evolve::Settings;
    use tabula_verify::reversi::referee::opponents;

    let start = "7 ....... ....... ..123.. ..231.. ..312.. ....... .......";
    let text = run_ok(&["query", "reversi", start], &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "board 7x7, 3 players; pieces 3/3/3; player 1 to move",
        "{text}"
    );
    let board = Board::start(7).unwrap();
    let moves = lines.iter().filter(|l| l.starts_with("move ")).count();
    assert_eq!(moves as u32, board.moves_of(0).count(), "{text}");
    for name in ["greedy", "weights", "paranoid", "brs", "best"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{name} plays "))),
            "{text}"
        );
    }
    // The same board with its rows split by slashes; the JSON holds the same.
    let slashed = "......./......./..123../..231../..312../......./.......";
    assert_eq!(run_ok(&["query", "reversi", slashed], &[]), text);
    let json: serde_json::Value =
        serde_json::from_str(&run_ok(&["query", "reversi", slashed, "--json", "-"], &[])).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), moves, "{json}");
    assert_eq!(json["mover"], 1);
    // Player 2 to move, with a case's opponents: its ratio for each move, and
    // the move its weights choose, as the referee's opponent would play it.
    let case = [&["--mover", "2", "--case", "0", "--seed", "3"][..], &SMALL].concat();
    let text = run_ok(&["query", "reversi", start], &case);
    let settings = Settings {
        generations: Some(2),
        games: 10,
        ..Settings::new(7)
    };
    let (weights, _) = opponents(3, &settings, 0, &|_, _| {});
    let second = Board::from_rows(&board.rows(), 1).unwrap();
    let plays = weights[0].choose(&second, settings.rule).unwrap();
    let (row, col) = second.geometry().row_col(plays);
    let expected = format!("player 2 (the case's opponent) plays {col} {row}");
    assert!(text.lines().any(|l| l == expected), "{expected}\n{text}");
    assert!(
        text.lines()
            .filter(|l| l.starts_with("move "))
            .all(|l| l.contains(", ratio "))
    );
    // Bad input: one line each.
    let out = run(&["query", "reversi", "7 ....... .......x"]);
    assert_one_line_error(
        &out,
        "bad board '7 ....... .......x': it counts 7 rows but gives 2",
    );
    let out = run(&[
        "query",
        "reversi",
        "......./......x/..123../..231../..312../......./.......",
    ]);
    assert_one_line_error(&out, "bad board");
    let out = run(&["query", "reversi", start, "--mover", "4"]);
    assert_one_line_error(&out, "--mover 4: the board has players 1 to 3");
}

#[test]
fn query_batch_answers_each_board_as_a_single_query_s_json_does() {
    let start7 = "7 ....... ....... ..123.. ..231.. ..312.. ....... .......";
    let start8 = "......../......../......../...1234./...2341./...3412./...4123./........";
    // A single query's JSON without its stamp (its run and game).
    let single = |board: &str, extra: &[&str]| {
        let mut json: serde_json::Value =
            serde_json::from_str(&run_ok(&["query", "reversi", board, "--json", "-"], extra))
                .unwrap();
        json.as_object_mut().unwrap().remove("run");
        assert_eq!(
            json.as_object_mut().unwrap().remove("game"),
            Some("reversi".into())
        );
        json
    };
    let input = format!("{start7}\n\n7 ....... .......x\n{start8}\ngetNextMove {start7}\n");
    let out = run_with_input(&["query", "reversi", "--batch"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = common::json_lines(&stdout(&out));
    assert_eq!(lines.len(), 4, "{}", stdout(&out));
    assert_eq!(lines[0], single(start7, &[]));
    assert_eq!(lines[1]["input"], "7 ....... .......x");
    let error = lines[1]["error"].as_str().unwrap();
    assert!(error.contains("it counts 7 rows but gives 2"), "{error}");
    assert_eq!(lines[2], single(start8, &[]));
    assert_eq!(lines[3], lines[0]);
    // With a case, player 2's view on both sides, each side's opponents
    // evolved once and alike for every board of that side.
    let case = [&["--mover", "2", "--case", "1", "--seed", "5"][..], &SMALL].concat();
    let batch = [&["query", "reversi", "--batch"][..], &case].concat();
    let out = run_with_input(&batch, &format!("{start7}\n{start8}\n{start7}\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = common::json_lines(&stdout(&out));
    assert_eq!(lines.len(), 3, "{}", stdout(&out));
    assert_eq!(lines[0], single(start7, &case));
    assert_eq!(lines[1], single(start8, &case));
    assert_eq!(lines[2], lines[0]);
    assert!(lines[0]["opponent"]["plays"].is_array(), "{}", lines[0]);
    // A mover the board lacks is that line's error; the batch goes on.
    let out = run_with_input(
        &["query", "reversi", "--batch", "--mover", "4"],
        &format!("{start7}\n{start8}\n"),
    );
    let lines = common::json_lines(&stdout(&out));
    assert_eq!(lines[0]["error"], "--mover 4: the board has players 1 to 3");
    assert_eq!(lines[1]["mover"], 4);
    // A line may name its own mover, over --mover's.
    let out = run_with_input(
        &["query", "reversi", "--batch", "--mover", "3"],
        &format!("{start7} mover 2\n{start8}\n{start8} mover 9\n{start7} mover x\n"),
    );
    let lines = common::json_lines(&stdout(&out));
    assert_eq!(lines.len(), 4, "{}", stdout(&out));
    assert_eq!(lines[0], single(start7, &["--mover", "2"]));
    assert_eq!(lines[1], single(start8, &["--mover", "3"]));
    assert_eq!(lines[2]["error"], "mover 9: the board has players 1 to 4");
    assert_eq!(lines[3]["error"], "mover 'x': not a player number");
    // The genetic algorithm's options mean something only with --case.
    for option in [
        &["--ga-games", "5"][..],
        &["--seed", "3"],
        &["--zero", "numerator"],
    ] {
        let out = run(&[&["query", "reversi", start7][..], option].concat());
        assert_one_line_error(&out, "--case");
    }
    let out = run(&["query", "reversi", start7, "--batch"]);
    assert_one_line_error(&out, "--batch");
}
