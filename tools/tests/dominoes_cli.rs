//! The `tabula` binary end to end for Dominoes: the tester and the served
//! player, over real processes and pipes.

mod common;
use common::{
    assert_one_line_error, case_lines, json_lines, reproducible_referee, run, run_ok,
    run_with_input, serve_command, served_and_built_in, sorted_keys, stderr, stdout, tabula, words,
};

/// `tabula referee dominoes` against `random` with `args`, which must succeed.
fn referee(args: &[&str]) -> String {
    run_ok(&["referee", "dominoes", "--opponent", "random"], args)
}

#[test]
fn a_small_run_is_reproducible_and_its_json_adds_up() {
    let args = ["--agent", "random", "--cases", "5:4,9:7", "--games", "12"];
    let (first, report) = reproducible_referee(referee, &args);
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines.len(), 3, "{first}");
    assert!(lines[0].starts_with("case 5 4 "), "{first}");
    assert!(lines[1].starts_with("case 9 7 "), "{first}");
    for line in &lines[..2] {
        let [score, w, t, l] = common::four_numbers(line, 3);
        assert_eq!((w + t + l, score), (12.0, w + t / 2.0), "{line}");
    }
    assert!(lines[2].starts_with("total ") && lines[2].ends_with(" of 24"));
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    assert_eq!(
        (cases[1]["n"].as_u64(), cases[1]["h"].as_u64()),
        (Some(9), Some(7))
    );
    let mut expected = words("n h games wins draws losses score faults fault_kinds first_fault");
    expected.sort();
    assert_eq!(sorted_keys(&cases[0]), expected);
    let total: f64 = cases.iter().map(|c| c["score"].as_f64().unwrap()).sum();
    assert_eq!(report["total"].as_f64(), Some(total));
    assert!(lines[2].starts_with(&format!("total {total} ")), "{first}");
}

#[test]
fn a_served_player_over_pipes_plays_exactly_like_the_built_in_one() {
    let served = serve_command("dominoes --agent random --seed 5");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    for paired in [false, true] {
        let mut args = vec!["--cases", "5:7,7:4,9:6", "--games", "20", "--seed", "5"];
        if paired {
            args.push("--paired");
        }
        let (remote, local) = served_and_built_in(referee, &served, &log, "random", &args);
        assert_eq!(case_lines(&remote).len(), 3, "{remote}");
        assert_eq!(remote, local, "paired: {paired}");
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(logged.contains("> init 5 7\n< 0\n> reset "), "{logged}");
        assert!(logged.contains("\n> play "), "{logged}");
    }
}

#[test]
fn misbehaving_players_lose_with_the_reason_and_the_run_goes_on() {
    let answering = |play: &str| {
        format!("while read l; do case \"$l\" in play*) echo {play};; *) echo 0;; esac; done")
    };
    // A short limit only where the reason is a timeout: elsewhere a loaded
    // machine must not turn the fault into one.
    for (player, reason, kind, timeout) in [
        (
            answering("hello"),
            "invalid answer 'hello': expected L<i>, R<i>, DRAW or PASS",
            "malformed-answer",
            "60",
        ),
        (
            answering("L99"),
            "index 99 is out of range",
            // The answer names no tile of the hand: it is no move at all.
            "malformed-answer",
            "60",
        ),
        // The stock is never empty at a game's first move.
        (
            answering("PASS"),
            "illegal move: cannot pass while",
            "illegal-move",
            "60",
        ),
        ("exit 3".to_string(), "exit status: 3", "crash", "60"),
        // Acknowledges `init`, then reads everything and never answers (the shell
        // keeps its output open).
        (
            "read l; echo 0; cat > /dev/null".to_string(),
            "timed out (case limit of 0.5 s)",
            "time-out",
            "0.5",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("report.json");
        let out = tabula()
            .args([
                "referee",
                "dominoes",
                "--opponent",
                "random",
                "--player",
                &player,
            ])
            .args(["--cases", "5:4,6:5", "--games", "3", "--timeout", timeout])
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        for case in report["cases"].as_array().unwrap() {
            assert_eq!(case["first_fault"]["game"].as_u64(), Some(0), "{case}");
            let why = case["first_fault"]["reason"].as_str().unwrap_or_default();
            assert!(why.contains(reason), "{player}: {why}");
            assert_eq!(case["first_fault"]["kind"], kind, "{player}: {case}");
            // Every game of the case was lost, and each by this kind here.
            assert_eq!(
                case["fault_kinds"],
                serde_json::json!({ kind: 3 }),
                "{case}"
            );
        }
        assert!(out.status.success(), "{player}: {}", stderr(&out));
        let text = stdout(&out);
        let lines = case_lines(&text);
        assert_eq!(lines.len(), 2, "{player}: {text}");
        for line in &lines {
            assert!(
                line.contains(" 0 0 0 3 faults 3, first in game 0: "),
                "{player}: {line}"
            );
            assert!(line.contains(reason), "{player}: {line} lacks {reason}");
        }
        assert!(text.ends_with("total 0 of 6\n"), "{player}: {text}");
    }
}

#[test]
fn a_stray_line_costs_one_game_and_the_player_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let serve = serve_command("dominoes --agent heaviest");
    // The first process prints one line nobody asked for with its answer to
    // `reset` (in one write, so that it is there when the answer is read);
    // every later one is the served player. Any integer acknowledges.
    let marker = dir.path().join("started");
    let player = format!(
        "if [ -e '{m}' ]; then exec {serve}; fi; touch '{m}'; \
         read l; echo 7; read l; printf '0\\nmy hand is ...\\n'; exec {serve}",
        m = marker.display()
    );
    let run = |player: &str, name: &str| {
        let transcript = dir.path().join(name);
        let args = ["--cases", "5:4,7:5", "--games", "6", "--transcript"];
        // A deterministic opponent: its games do not depend on how long game 0 lasted.
        let out = run_ok(
            &[
                "referee",
                "dominoes",
                "--opponent",
                "heaviest",
                "--player",
                player,
            ],
            &[&args[..], &[transcript.to_str().unwrap()]].concat(),
        );
        let games: Vec<String> = std::fs::read_to_string(&transcript)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("game ") || l.starts_with("# restarted"))
            .map(String::from)
            .collect();
        (out, games)
    };
    let (out, games) = run(&player, "stray.txt");
    let (_, clean) = run(&serve, "clean.txt");
    assert!(
        out.contains(
            "faults 1, first in game 0: wrote 'my hand is ...' with its answer '0' to 'reset 4-4'"
        ),
        "{out}"
    );
    assert_eq!(out.matches("faults").count(), 1, "{out}");
    assert!(
        games[1].starts_with("# restarted after its fault"),
        "{games:?}"
    );
    // Every later game is played as by a player that never strayed.
    assert_eq!(games.len(), clean.len() + 1, "{games:?}");
    assert_eq!(games[2..], clean[1..]);
}

#[test]
fn serve_answers_the_protocol_and_keeps_going_after_errors() {
    let out = run_with_input(
        &["serve", "dominoes", "--agent", "random"],
        "play 1 0-1 1 4-4 7\ninit 6 4\nreset 4-4\n\
         play 3 1-2 3-5 0-0 2 4-4 4-3 10\nplay 3 1-2 3-4 0-0 2 4-4 4-3 10\n\
         hello\nplay 2 1-2 0-0 2 4-4 4-3 10\nplay 2 1-2 0-0 2 4-4 4-3 0\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "error: play before init",
            "0",
            "0",
            "R1",
            "error: tile 4-3 is given twice",
            "error: unknown method 'hello'",
            "DRAW",
            "PASS"
        ],
        "{text}"
    );
}

#[test]
fn bad_options_are_refused_in_one_line_before_any_game() {
    let base = words("referee dominoes --agent random --opponent random");
    for (extra, problem) in [
        (
            &["--cases", "5:4,5:4"][..],
            "--cases: case 5:4 is given twice",
        ),
        (&["--cases", "4:4"], "--cases: N=4 H=4 is not a case"),
        (&["--cases", "5:8"], "--cases: N=5 H=8 is not a case"),
        (&["--cases", "5-4"], "--cases: '5-4' is not N:H"),
        (&["--cases", ""], "--cases: '' is not N:H"),
        (&["--games", "3", "--paired"], "--games 3: with --paired"),
    ] {
        let out = run(&[&base[..], extra].concat());
        assert_one_line_error(&out, problem);
    }
    let out = run(&words("referee dominoes --agent random --opponent nobody"));
    assert_one_line_error(&out, "--opponent nobody: unknown agent (known: random");
    let out = run(&words("referee dominoes --agent nobody --opponent random"));
    assert_one_line_error(&out, "--agent nobody: unknown agent");
    let out = run(&["serve", "dominoes", "--agent", "nobody"]);
    assert_one_line_error(&out, "--agent nobody: unknown agent");
    common::assert_timeouts_refused("dominoes");
}

#[test]
fn a_table_record_that_contradicts_its_children_stops_best_before_play() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.tab");
    let good = good.to_str().unwrap();
    run_ok(&["build", "dominoes", "-o", good], &[]);
    // A won position with moves (value 1, a non-empty mask) now says lost;
    // both checksums are recomputed, so only the records can tell.
    let mut bytes = std::fs::read(good).unwrap();
    let start = u64::from_le_bytes(bytes[80..88].try_into().unwrap()) as usize;
    let at = (start..bytes.len())
        .step_by(3)
        .find(|&i| bytes[i] == 1 && bytes[i + 1..i + 3] != [0, 0])
        .expect("a won position with moves");
    bytes[at] = (-1i8) as u8;
    let payload_hash = xxhash_rust::xxh3::xxh3_64(&bytes[start..]);
    bytes[104..112].copy_from_slice(&payload_hash.to_le_bytes());
    let header_hash = xxhash_rust::xxh3::xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
    let bad = dir.path().join("bad.tab");
    std::fs::write(&bad, bytes).unwrap();
    let bad = bad.to_str().unwrap();
    let outs = [
        run(&[
            "referee", "dominoes", "--agent", "best", "--table", bad, "--cases", "5:4", "--games",
            "2",
        ]),
        run_with_input(
            &["serve", "dominoes", "--agent", "best", "--table", bad],
            "",
        ),
        run(&["check", bad]),
    ];
    for out in outs {
        assert_one_line_error(&out, bad);
    }
    // The good table is accepted.
    run_ok(
        &["referee", "dominoes", "--agent", "best", "--table", good],
        &["--cases", "5:4", "--games", "2"],
    );
}

#[test]
fn a_verify_case_plays_the_same_games_alone_as_beside_other_cases() {
    let dir = tempfile::tempdir().unwrap();
    // The games of case 9:7 in a run of `cases`, each as its seats and moves.
    let games_of_9_7 = |cases: &str| -> Vec<(Vec<String>, Vec<String>)> {
        let log = dir
            .path()
            .join(format!("{}.jsonl", cases.replace([':', ','], "_")));
        let args = [
            "verify",
            "dominoes",
            "--players",
            "random,server",
            "--opponents",
            "server",
            "--games",
            "6",
            "--cases",
            cases,
            "--log",
            log.to_str().unwrap(),
        ];
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = std::fs::read_to_string(&log).unwrap();
        tabula_verify::record::read_log(&text)
            .unwrap()
            .into_iter()
            .filter(|game| game.case_label == "N=9 H=7")
            .map(|game| (game.seats, game.moves.into_iter().map(|m| m.mv).collect()))
            .collect()
    };
    let alone = games_of_9_7("9:7");
    assert_eq!(alone.len(), 2 * 6);
    assert_eq!(games_of_9_7("5:4,9:7"), alone);
    assert_eq!(games_of_9_7("all"), alone);
}

#[test]
fn deals_are_the_referees_hands_and_draws() {
    let deals = run_ok(
        &["dominoes", "deals"],
        &[
            "--cases", "5:4,7:5", "--deals", "10", "--seed", "7", "--json", "-",
        ],
    );
    let deals: serde_json::Value = serde_json::from_str(&deals).expect("--json - is JSON alone");
    assert_eq!(deals["run"]["seed"], 7, "{}", deals["run"]);
    assert_eq!(
        deals.get("seed"),
        None,
        "the seed is written once, as run.seed"
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let log_arg = log.to_str().unwrap();
    referee(&[
        "--agent", "random", "--cases", "5:4,7:5", "--games", "10", "--seed", "7", "--log", log_arg,
    ]);
    let games = json_lines(&std::fs::read_to_string(&log).unwrap());
    assert_eq!(games.len(), 20);
    let mut drawn_in_all = 0;
    for game in &games {
        let case = &deals["cases"][game["case"].as_u64().unwrap() as usize];
        assert_eq!(case["n"], game["params"]["n"]);
        // Unpaired, game g plays deal g.
        let deal = &case["deals"][game["game_index"].as_u64().unwrap() as usize];
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect()
        };
        let opener = deal["opener"].as_u64().unwrap() as usize;
        assert_eq!(game["start"]["opener"], opener);
        assert_eq!(game["start"]["line"][0], deal["opening"]);
        for seat in 0..2 {
            let mut dealt = strings(&deal["hands"][seat]);
            if seat == opener {
                dealt.retain(|t| t != deal["opening"].as_str().unwrap());
            }
            assert_eq!(strings(&game["start"]["hands"][seat]), dealt);
        }
        let drawn: Vec<String> = game["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| {
                m["move"]
                    .as_str()
                    .unwrap()
                    .strip_prefix("drawn ")
                    .map(String::from)
            })
            .collect();
        let stock = strings(&deal["stock"]);
        assert_eq!(drawn[..], stock[..drawn.len()]);
        drawn_in_all += drawn.len();
    }
    assert!(drawn_in_all > 20, "the games drew {drawn_in_all} tiles");
    let text = run_ok(
        &["dominoes", "deals"],
        &["--cases", "5:4", "--deals", "2", "--seed", "7"],
    );
    assert!(text.starts_with("case 5 4 deal 0: seat 0 "), "{text}");
    assert_eq!(text.lines().count(), 2);
}
