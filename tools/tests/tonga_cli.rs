//! The `tabula` binary end to end for PseudoTonga: real processes, real pipes.

mod common;
use common::{
    assert_one_line_error, json_lines, referee_player, run, run_with_input, serve_command, stderr,
    stdout, tabula, words,
};

use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::opponents::plain_choices;
use tabula_solver::tonga::{Board, Colour};

const SIX: &str =
    "6\n. . . . . .\n. . W B . .\n. B W W B .\n. . . W B .\nB W W . . .\n. . B . . .\n";

#[test]
fn score_the_statement_boards() {
    let out = run_with_input(
        &["tonga", "score"],
        "4\nW W B B\nW B W W\nB W B B\nB W W B\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "B 18 W 22\n");
    let out = run_with_input(&["tonga", "score"], SIX);
    // Black: four single stones and a pair; White: a four and a pair.
    assert_eq!(stdout(&out), "B 8 W 20\n");
}

#[test]
fn score_rejects_bad_boards() {
    // Endless input is cut at a megabyte, not read into memory whole.
    let long = ".".repeat((1 << 20) + 1);
    for (input, problem) in [
        ("5\n", "not an even number"),
        ("4\nWWBB\nWBW\nBWBB\nBWWB\n", "row 1 has 3 cells"),
        ("4\nWWBB\nWBWX\nBWBB\nBWWB\n", "'X'"),
        ("4\nWWBB\n", "expected 4 board rows"),
        (long.as_str(), "stdin: more than 1048576 bytes"),
    ] {
        let out = run_with_input(&["tonga", "score"], input);
        assert_one_line_error(&out, problem);
    }
}

#[test]
fn solve_refuses_counts_no_game_reaches() {
    // The mover is read from the counts: Black has as many stones as White, or one more.
    for (board, counts) in [
        ("4\nW W W W\nW . . .\n. . . .\n. . . .\n", "B 0, W 5"),
        ("4\nB B B .\nW . . .\n. . . .\n. . . .\n", "B 3, W 1"),
    ] {
        let out = run_with_input(&["tonga", "solve"], board);
        assert_one_line_error(&out, &format!("stdin: stone counts {counts} cannot arise"));
    }
    let out = run_with_input(
        &["tonga", "solve"],
        "4\nB B . .\nW . . .\n. . . .\n. . . .\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("to move: W\n"), "{}", stdout(&out));
}

#[test]
fn server_moves_match_the_plain_minimax() {
    // Six stones each: Black (the server here) is to move.
    let input = format!("6\nB\n{}", &SIX[2..]);
    let out = run_with_input(&["tonga", "server-moves"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let board = Board::parse(SIX).unwrap();
    let plain = plain_choices(&board, Colour::Black).unwrap();
    let mut expected = format!("{}\n", plain.value);
    for cell in plain.cells {
        let (r, c) = board.row_col(cell);
        expected += &format!("{r} {c}\n");
    }
    assert_eq!(stdout(&out), expected);
    for (input, problem) in [
        ("4\nX\n....\n....\n....\n....\n", "colour"),
        ("4\nB\nBWBW\nWBWB\nBWBW\nWBWB\n", "full"),
        // The server moves only where its colour is to move, as `solve` reads the board.
        (
            "4\nB\nB...\n....\n....\n....\n",
            "stdin: the server's colour is B but W is to move",
        ),
        (
            "4\nW\nBB..\n....\n....\n....\n",
            "stdin: stone counts B 2, W 0 cannot arise",
        ),
    ] {
        let out = run_with_input(&["tonga", "server-moves"], input);
        assert_one_line_error(&out, problem);
    }
}

#[test]
fn build_query_and_check_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tonga4.tab");
    let path = path.to_str().unwrap();
    let out = run(&["build", "tonga", "--size", "6", "-o", path]);
    assert_one_line_error(&out, "only the 4x4 board");
    let out = run(&["build", "tonga", "--size", "4", "-o", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tabula().args(["check", path]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("10165779 records consistent"));
    let board = "4\nB W . .\n. B . .\n. . W .\n. . . .\n";
    let out = run_with_input(&["query", "tonga", "--table", path], board);
    assert!(out.status.success(), "{}", stderr(&out));
    let parsed = Board::parse(board).unwrap();
    let mut game = Endgame::new(&parsed).unwrap();
    let value = game.solve(Colour::Black);
    let text = stdout(&out);
    assert!(text.contains("to move: B\n"), "{text}");
    assert!(text.contains(&format!("value: {value}\n")), "{text}");
    let out = run_with_input(
        &["query", "tonga", "--table", path],
        "4\nBB..\n....\n....\n....\n",
    );
    assert_one_line_error(&out, "cannot arise with Black first");
    let out = run_with_input(&["query", "tonga", "--table", path], SIX);
    assert_one_line_error(&out, "4x4");
    let missing = dir.path().join("missing.tab");
    let out = run_with_input(
        &["query", "tonga", "--table", missing.to_str().unwrap()],
        board,
    );
    assert_one_line_error(&out, "missing.tab");
    // A batch says of each board what the single query says, and answers a bad
    // line with an error and goes on.
    let boards = [
        "BW../.B../..W./....",
        "..../..../..../....",
        "BWB./W.../..../....",
    ];
    let input = format!(
        "{}\nBB../..../..../....\n{}\n",
        boards[..2].join("\n"),
        boards[2]
    );
    let out = run_with_input(&["query", "tonga", "--table", path, "--batch"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines.len(), 4);
    assert!(lines[2]["error"].as_str().unwrap().contains("cannot arise"));
    for (rows, json) in boards.iter().zip([&lines[0], &lines[1], &lines[3]]) {
        let board = format!("4\n{}\n", rows.replace('/', "\n"));
        let single = stdout(&run_with_input(
            &["query", "tonga", "--table", path],
            &board,
        ));
        assert!(single.contains(&format!("to move: {}\n", json["to_move"].as_str().unwrap())));
        assert!(single.contains(&format!("value: {}\n", json["value"])));
        let optimal: Vec<String> = json["optimal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|rc| format!("{} {}", rc[0], rc[1]))
            .collect();
        assert!(single.contains(&format!("optimal: {}\n", optimal.join(", "))));
        let moves = json["moves"].as_array().unwrap();
        assert_eq!(moves.len(), rows.matches('.').count());
        for m in moves {
            let line = format!("move {} {}: value {}\n", m["row"], m["col"], m["value"]);
            assert!(single.contains(&line), "{single} lacks {line}");
        }
        assert_eq!(
            json["board"],
            serde_json::json!(rows.split('/').collect::<Vec<_>>())
        );
    }
    // The optimal line: the first optimal square of each board it meets,
    // to a full board worth the value to the mover.
    let query = ["query", "tonga", "--table", path, "--batch"];
    let answer = |rows: &str| json_lines(&stdout(&run_with_input(&query, rows))).remove(0);
    let start = json_lines(&stdout(&run_with_input(
        &[&query[..], &["--line"]].concat(),
        boards[0],
    )))
    .remove(0);
    let line = start["line"].as_array().unwrap();
    assert_eq!(line.len(), boards[0].matches('.').count());
    let mut rows: Vec<Vec<u8>> = boards[0].split('/').map(|r| r.bytes().collect()).collect();
    for (ply, step) in line.iter().enumerate() {
        assert_eq!(step["by_mover"], ply % 2 == 0);
        let current = answer(&String::from_utf8(rows.join(&b'/')).unwrap());
        let [row, col] = [&step["row"], &step["col"]].map(|v| v.as_u64().unwrap() as usize);
        assert_eq!(
            current["optimal"][0],
            serde_json::json!([row, col]),
            "{current}"
        );
        rows[row][col] = current["to_move"].as_str().unwrap().as_bytes()[0];
    }
    let full = format!("4\n{}\n", String::from_utf8(rows.join(&b'\n')).unwrap());
    let full = Board::parse(&full).unwrap();
    let black = full.points(Colour::Black) as i64 - full.points(Colour::White) as i64;
    assert_eq!(
        black,
        start["value"].as_i64().unwrap(),
        "Black moves first here: {full}"
    );
    let text = stdout(&run_with_input(
        &["query", "tonga", "--table", path, "--line"],
        board,
    ));
    assert!(
        text.contains("optimal line (the first optimal square each turn, row-major): B "),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("the line's difference for the mover: {black}\n")),
        "{text}"
    );
    // The line's last board, full: no optimal square, and it says why.
    let text = stdout(&run_with_input(
        &["query", "tonga", "--table", path],
        &format!("4\n{full}"),
    ));
    assert!(
        text.contains("optimal: none (the board is full)\n"),
        "{text}"
    );
    // A damaged record is no fault of the batch's line: it ends the batch.
    let damaged = dir.path().join("damaged.tab");
    std::fs::copy(path, &damaged).unwrap();
    common::tamper_payload(&damaged, 0, 5);
    let out = run_with_input(
        &[
            "query",
            "tonga",
            "--table",
            damaged.to_str().unwrap(),
            "--batch",
        ],
        "..../..../..../....\n",
    );
    assert_one_line_error(&out, "damaged.tab: corrupted: record 0");
    // A row left out between slashes is named, not taken for a missing row.
    let out = run_with_input(&query, "BW..//..W./....\n");
    let error = json_lines(&stdout(&out)).remove(0);
    assert_eq!(error["error"], "row 2 of 4 is empty", "{error}");
    // The export's first lines, checked against the endgame solver (the
    // whole export is 10 million lines; the reader leaves after 2000).
    let exported = common::first_lines(&["export", path], 2000);
    assert_eq!(exported.len(), 2000);
    for line in exported.iter().step_by(97) {
        let json: serde_json::Value = serde_json::from_str(line).unwrap();
        let rows = common::json_strs(&json["board"]);
        let board = Board::parse(&format!("4\n{}\n", rows.join("\n"))).unwrap();
        let mover = match json["to_move"].as_str().unwrap() {
            "B" => Colour::Black,
            _ => Colour::White,
        };
        assert_eq!(board.to_move(), mover, "{line}");
        let value = Endgame::new(&board).unwrap().solve(mover);
        assert_eq!(json["value"], value, "{line}");
    }
}

fn result_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("result"))
        .map(String::from)
        .collect()
}

#[test]
fn served_player_over_pipes_plays_like_the_built_in_one() {
    // `best` has no random choices, so both ways must give the same games.
    // Its budget sets its plan, so both sides get the same one: `--timeout`
    // in process, `--budget` served. Its wall-clock safety net acts only past
    // 60% of it (36 min of thinking in a game), so timing cannot change a move.
    const BUDGET: &str = "3600";
    let served = serve_command(&format!("tonga --agent best --budget {BUDGET}"));
    let args = [
        "--sizes",
        "6,8",
        "--games",
        "2",
        "--seed",
        "5",
        "--timeout",
        BUDGET,
    ];
    let out = tabula()
        .args(["referee", "tonga", "--player", &served])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let remote = result_lines(&stdout(&out));
    let out = tabula()
        .args(["referee", "tonga", "--agent", "best"])
        .args(args)
        .output()
        .unwrap();
    let local = result_lines(&stdout(&out));
    assert_eq!(remote.len(), 4);
    assert_eq!(remote, local);
    assert!(stdout(&out).contains("overall "));
}

#[test]
fn a_served_player_with_a_tiny_budget_steps_down_and_still_plays_every_move() {
    // 10 ms for the game: the plan and the safety net leave only the cheapest
    // work, which must still give legal answers; the referee's own limit is wide.
    let served = serve_command("tonga --agent best --budget 0.01");
    let out = tabula()
        .args(["referee", "tonga", "--player", &served])
        .args(["--sizes", "6,10", "--games", "2", "--timeout", "600"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = result_lines(&stdout(&out));
    assert_eq!(lines.len(), 4);
    for line in lines {
        // No fault reason after the four numbers.
        assert_eq!(line.split_whitespace().count(), 5, "{line}");
    }
}

#[test]
fn misbehaving_players_lose_their_games_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.log");
    // A short limit only where the reason is a timeout: elsewhere a loaded
    // machine must not turn the fault into one.
    for (player, reason, timeout) in [
        ("read l; echo 9 9; sleep 1000", "off the 6x6 board", "60"),
        (
            "read l; echo hello; sleep 1000",
            "invalid answer 'hello'",
            "60",
        ),
        ("exit 3", "player exited (exit status: 3)", "60"),
        ("sleep 1000", "timed out", "0.5"),
    ] {
        let options = format!(
            "--sizes 6 --games 2 --timeout {timeout} --transcript {}",
            log.display()
        );
        let out = referee_player("tonga", player, &options);
        assert!(out.status.success(), "{}", stderr(&out));
        let lines = result_lines(&stdout(&out));
        assert_eq!(lines.len(), 2, "{}", stdout(&out));
        for line in &lines {
            assert!(line.contains(reason), "{line} lacks {reason}");
            // The server filled the board: one isle of 36 or 35 stones at least.
            let words: Vec<i64> = line
                .split(' ')
                .skip(2)
                .take(3)
                .map(|w| w.parse().unwrap())
                .collect();
            assert!(words[2] < 0, "{line}");
        }
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(logged.contains("# game 1 N 6"), "{logged}");
    }
    let out = run(&["referee", "tonga", "--agent", "nobody"]);
    assert_one_line_error(&out, "--agent nobody: unknown agent (known: random");
    let out = run(&["referee", "tonga", "--agent", "random", "--sizes", "7"]);
    assert_one_line_error(&out, "--sizes");
}

#[test]
fn memory_limits_the_player_and_not_the_built_in_agents() {
    // The player reports its limit (in KiB) on stderr and exits: the fault names both.
    let out = tabula()
        .args(["referee", "tonga", "--player", "ulimit -v >&2; exit 3"])
        .args(words("--sizes 6 --games 1 --timeout 60 --memory 64"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "player exited (exit status: 3, under a memory limit of 64 MiB); stderr: 65536"
        ),
        "{text}"
    );
    // Under a lower hard limit of the referee's own, the player gets that one
    // (raising it would need root), and the fault says so.
    let referee = format!(
        "ulimit -v 2000000; exec '{}' referee tonga --player 'ulimit -v >&2; exit 3' \
         --sizes 6 --games 1 --timeout 60 --memory 4096",
        env!("CARGO_BIN_EXE_tabula")
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &referee])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("(exit status: 3, under a memory limit of 1953 MiB); stderr: 2000000"),
        "{text}"
    );
    let out = run(&["referee", "tonga", "--agent", "greedy", "--memory", "64"]);
    assert_one_line_error(
        &out,
        "'--agent <NAME>' cannot be used with '--memory <MIB>'",
    );
    let out = run(&["referee", "tonga", "--player", "true", "--memory", "0"]);
    assert_one_line_error(&out, "invalid value '0' for '--memory <MIB>'");
}

#[test]
fn serve_answers_the_line_protocol() {
    let out = run_with_input(
        &["serve", "tonga", "--agent", "greedy"],
        "init 6 -1 -1\nmove 9 9\nhello\nend\ninit 6 2 2\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    let first: Vec<usize> = lines[0].split(' ').map(|w| w.parse().unwrap()).collect();
    assert!(first.len() == 2 && first[0] < 6 && first[1] < 6);
    assert!(lines[1].starts_with("error: "), "{text}");
    assert!(lines[2].starts_with("error: unknown method"), "{text}");
    assert_eq!(lines[3], "ok");
    assert_ne!(lines[4], "2 2");
}

#[test]
fn verify_writes_markdown_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let args = words("verify tonga --games 2 --sizes 6 --agents random,server");
    let out = tabula()
        .args(&args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("| random"), "{text}");
    assert!(text.contains("| server"), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["players"][0]["sizes"][0]["case_score"]["n"], 2);
    // Same seed, same report.
    let again = tabula().args(&args).output().unwrap();
    assert_eq!(stdout(&again), text);
}

#[test]
fn input_for_a_program_that_does_not_read_it_is_no_failure() {
    // More than a pipe holds, for a command that exits without reading.
    let out = run_with_input(&["--version"], &"x".repeat(1 << 20));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("tabula "), "{}", stdout(&out));
}

#[test]
fn time_limits_are_checked() {
    common::assert_timeouts_refused("tonga");
}

#[test]
fn referee_json_has_every_game_with_its_score_and_the_total() {
    // A greedy player, then one that answers nonsense on its second move.
    let fixed = [
        "referee", "tonga", "--sizes", "6,8", "--games", "2", "--seed", "3",
    ];
    let nonsense = "read a; echo 0 0; read a; echo nonsense; cat > /dev/null";
    for seat in [vec!["--agent", "greedy"], vec!["--player", nonsense]] {
        let text = common::run_ok(&fixed, &seat);
        let lines: Vec<&str> = text.lines().collect();
        let json = common::run_ok(&fixed, &[&seat[..], &["--json", "-"]].concat());
        let report: serde_json::Value =
            serde_json::from_str(&json).expect("--json - is JSON alone");
        let cases = report["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 4);
        assert_eq!(lines.len(), 5, "{text}");
        let mut total = 0.0;
        for (case, line) in cases.iter().zip(&lines) {
            let (player, server) = (
                case["player_points"].as_i64().unwrap(),
                case["server_points"].as_i64().unwrap(),
            );
            let mut expect = format!("result {} {player} {server} {}", case["n"], player - server);
            if let Some(reason) = case["fault"].as_str() {
                expect = format!("{expect} {reason}");
            }
            assert_eq!(&expect, line);
            let score = case["score"].as_f64().unwrap();
            let difference = (player - server) as f64;
            assert!((score - difference.signum() * difference.abs().sqrt()).abs() < 1e-9);
            total += score;
        }
        assert_eq!(report["total"].as_f64(), Some(total));
        assert_eq!(lines[4], format!("overall {total:.3} over 4 games"));
        let faults = cases.iter().filter(|c| !c["fault"].is_null()).count();
        assert_eq!(faults, if seat[0] == "--player" { 4 } else { 0 }, "{json}");
        // The fault's kind, for scripts, beside its reason.
        for case in cases {
            assert_eq!(case["fault"].is_null(), case["fault_kind"].is_null());
        }
        if seat[0] == "--player" {
            assert_eq!(cases[0]["fault_kind"], "malformed-answer", "{json}");
        }
        // How the run was made: its arguments and seed.
        let args = common::json_strs(&report["run"]["args"]);
        assert_eq!(args, [&fixed[..], &seat[..], &["--json", "-"]].concat());
        assert_eq!(report["run"]["seed"], 3);
        assert_eq!(report["run"]["version"], env!("CARGO_PKG_VERSION"));
    }
}
