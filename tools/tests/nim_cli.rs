//! The toy game, registered like every other game, gets serve, referee and
//! verify from the shared core: these tests run them through the binary.

mod common;

use common::{assert_contains, referee_player, run, stderr, stdout, tabula};

fn serve_command() -> String {
    common::serve_command("nim --agent optimal")
}

#[test]
fn serve_answers_the_line_protocol_and_keeps_going_after_errors() {
    let out = common::run_with_input(
        &["serve", "nim", "--agent", "optimal"],
        "take 7\ntake 0\nfly 3\ntake 4\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(lines[0], "3");
    assert!(lines[1].starts_with("error: bad heap"), "{lines:?}");
    assert!(lines[2].starts_with("error: unknown method"), "{lines:?}");
    assert_eq!(lines[3], "1");
}

#[test]
fn a_served_player_over_pipes_plays_like_the_built_in_one() {
    let args = ["--heaps", "5,8,9", "--games", "4", "--seed", "3"];
    let remote = tabula()
        .args([
            "referee",
            "nim",
            "--player",
            &serve_command(),
            "--timeout",
            "60",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(remote.status.success(), "{}", stderr(&remote));
    let local = run(&[
        "referee", "nim", "--agent", "optimal", "--heaps", "5,8,9", "--games", "4", "--seed", "3",
    ]);
    assert_eq!(stdout(&remote), stdout(&local));
    // Optimal play wins heaps 5 and 9 moving first and heap 8 moving second.
    assert_contains(&stdout(&local), "total 6 of 12");
}

#[test]
fn the_referee_ends_as_every_game_s_does_json_and_strict() {
    let args = [
        "referee",
        "nim",
        "--player",
        "while read l; do echo 1; done",
    ];
    let args = [
        &args[..],
        &["--heaps", "5,8", "--games", "2", "--seed", "3"],
    ]
    .concat();
    let out = run(&[&args[..], &["--json", "-"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&out)).expect("--json - is JSON alone");
    let cases = json["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 4);
    let wins = cases.iter().filter(|c| c["outcome"] == "win").count();
    assert_eq!(json["total"], serde_json::json!(wins as f64));
    assert_eq!(json["run"]["seed"], 3);
    assert_eq!(cases[1]["heap"], 5);
    assert_eq!(cases[1]["seat"], 1);
    // A faulty player: every game lost with its reason, and --strict fails the run.
    let bad = [
        "referee",
        "nim",
        "--player",
        "while read l; do echo 9; done",
    ];
    let out = run(&[&bad[..], &["--heaps", "5", "--games", "2", "--strict"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("total 0 of 2"), "{}", stdout(&out));
    assert_contains(&stderr(&out), "lost 2 games to faults");
}

#[test]
fn misbehaving_players_lose_with_the_reason_and_the_run_goes_on() {
    // A short limit only where the reason is a timeout: elsewhere a loaded
    // machine must not turn the fault into one. The player serves the whole
    // run, so a bad one answers every request, not only the first.
    for (player, reason, kind, timeout) in [
        (
            "while read l; do echo 7; done",
            "illegal move: cannot take 7 from a heap of 5 (answer '7' to 'take 5')",
            "illegal-move",
            "60",
        ),
        (
            "while read l; do echo seven; done",
            "expected a count of stones, got 'seven' (to 'take 5')",
            "malformed-answer",
            "60",
        ),
        // Two lines written at once for each request: the second answers nothing.
        (
            "while read l; do printf '1\\n1\\n'; done",
            "wrote '1' with its answer '1' to 'take 5': one line answers a request",
            "malformed-answer",
            "60",
        ),
        ("exit 3", "exit status: 3", "crash", "60"),
        (
            "echo thinking >&2; exec sleep 1000",
            "player timed out (answer limit of 0.5 s); nothing came",
            "time-out",
            "0.5",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.json");
        let options = format!(
            "--heaps 5 --games 2 --timeout {timeout} --json {}",
            report.display()
        );
        let out = referee_player("nim", player, &options);
        assert!(out.status.success(), "{player}: {}", stderr(&out));
        let text = stdout(&out);
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.contains("loss") && first.contains(reason),
            "{player}: {text}"
        );
        assert!(text.contains("total 0 of 2"), "{player}: {text}");
        // The JSON names the fault's kind, for scripts.
        let json = std::fs::read_to_string(&report).unwrap();
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(json["cases"][0]["fault_kind"], kind, "{player}: {json}");
    }
}

#[test]
fn verify_is_reproducible_and_checks_its_options_first() {
    let a = run(&[
        "verify", "nim", "--games", "6", "--seed", "9", "--json", "-",
    ]);
    let b = run(&[
        "verify", "nim", "--games", "6", "--seed", "9", "--json", "-",
    ]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&a)).expect("--json - is JSON alone");
    assert_eq!(json["lines"].as_array().map(Vec::len), Some(3));
    assert_eq!(json["run"]["seed"], 9);
    assert_eq!(json["heaps"], serde_json::json!([5, 8, 9]));
    for bad in [
        &["verify", "nim", "--games", "0"][..],
        &["verify", "nim", "--json", "/nonexistent/dir/x.json"],
        &["referee", "nim", "--agent", "optimal", "--timeout", "1e20"],
        &["referee", "nim", "--agent", "nobody"],
    ] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(stdout(&out).is_empty(), "{bad:?}");
    }
}

#[test]
fn the_toy_game_is_registered_but_not_listed() {
    let out = run(&["games"]);
    assert!(stdout(&out).contains("ioiwari") && !stdout(&out).contains("nim"));
    let out = run(&["completions", "bash"]);
    assert!(out.status.success() && stdout(&out).contains("tabula"));
}

#[test]
fn games_names_each_games_players_and_serve_takes_them() {
    let out = run(&["games"]);
    let listing = stdout(&out);
    let players = |game: &str| -> Vec<String> {
        let mut lines = listing.lines().skip_while(|l| !l.starts_with(game));
        let line = lines
            .find(|l| l.trim_start().starts_with("players: "))
            .unwrap();
        let names = line.trim_start().strip_prefix("players: ").unwrap();
        names.split(", ").map(String::from).collect()
    };
    assert_eq!(listing.matches("players: ").count(), 6, "{listing}");
    for game in ["tonga", "dominoes"] {
        for name in players(game) {
            let out = common::run_with_input(&["serve", game, "--agent", &name], "");
            // A reference player that sees the other hand says why it cannot serve.
            let refused = stderr(&out).contains("which the protocol does not show");
            assert!(
                out.status.success() || refused,
                "{game} {name}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn a_line_that_is_not_text_loses_one_game_and_a_line_too_long_the_rest() {
    // The run's first answer is bad, every later one a legal `1` (a player
    // restarted after its fault does not repeat it: the marker file exists).
    let dir = tempfile::tempdir().unwrap();
    let first_bad = |bad: &str, marker: &str| {
        let marker = dir.path().join(marker);
        let m = marker.display();
        format!(
            "while read l; do if [ ! -e '{m}' ]; then touch '{m}'; {bad}; else echo 1; fi; done"
        )
    };
    let not_text = first_bad(r"printf '\377\n'", "not_text");
    let too_long = first_bad("head -c 5000 /dev/zero | tr '\\0' a; echo", "too_long");
    for (player, later) in [(not_text, None), (too_long, Some("longer than 4096 bytes"))] {
        let out = run(&[
            "referee",
            "nim",
            "--player",
            &player,
            "--heaps",
            "5",
            "--games",
            "2",
            "--timeout",
            "60",
        ]);
        assert!(out.status.success(), "{player}: {}", stderr(&out));
        let text = stdout(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("loss"), "{text}");
        assert!(!text.contains("timed out"), "{text}");
        match later {
            // The reading went on: the second game is played.
            None => {
                assert!(lines[0].contains("not text"), "{text}");
                assert!(
                    !lines[1].contains("fault") && !lines[1].contains("not text"),
                    "{text}"
                );
            }
            // The rest of the long line cannot be told from an answer: the case is lost.
            Some(reason) => {
                assert!(lines[0].contains(reason), "{text}");
                assert!(lines[1].contains(reason), "{text}");
            }
        }
    }
}
