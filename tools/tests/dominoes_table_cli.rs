//! `tabula build/info/check/query dominoes` end to end, on one built table.

use std::fs;

mod common;
use common::{assert_contains, json_lines, run, run_ok, run_with_input, stderr, stdout};

/// Exit status 2 and one stderr line that starts `error:` and says `problem`.
fn assert_one_line_error(out: &std::process::Output, problem: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(problem), "'{err}' does not say {problem}");
}

#[test]
fn build_info_check_and_query() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dominoes5.tab");
    let file = path.to_str().unwrap();
    let out = run(&["build", "dominoes", "--out", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_contains(&stdout(&out), "13885410 positions");

    let out = run(&["info", file]);
    assert!(stdout(&out).contains("game: dominoes"), "{}", stdout(&out));
    assert!(stdout(&out).contains("entries: 13885410"));
    let out = run(&["check", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("13885410 records consistent"));

    // Seat 0 holds 0-1 (fits left) and 2-4 (fits right); seat 1 holds 3-3 and 1-4.
    // Placing 0-1 on the left leaves the left end 1: seat 1 must play 1-4 and
    // is left with 3-3, while seat 0 plays 2-4 next and wins. Either first move wins.
    let query = ["query", "dominoes", "--table", file];
    for (position, says) in [
        (
            "0-1 2-4 / 3-3 1-4 / 0 2 / 0",
            ["win", "optimal: L 0-1, R 2-4"],
        ),
        // The same position with seat 1 to move: it has no tile for 0 or 2 and passes.
        ("0-1 2-4 / 3-3 1-4 / 0 2 / 1", ["loss", "optimal: PASS"]),
        // Blocked: no tile in hand shows 0, and the pips are equal (6 and 2 + 4).
        ("3-3 / 1-1 2-2 / 0 0 / 0", ["tie", "the game is over"]),
    ] {
        let text = run_ok(&query, &[position]);
        assert_contains(&text, &format!("result: {} for the mover", says[0]));
        assert_contains(&text, says[1]);
    }

    // The export's first lines (of 13.9 million; the reader leaves after
    // 3000) say what the batch query says of the same positions.
    let exported = common::first_lines(&["export", file], 3000);
    assert_eq!(exported.len(), 3000);
    let sample: Vec<serde_json::Value> = exported
        .iter()
        .step_by(59)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let positions: Vec<&str> = sample
        .iter()
        .map(|j| j["position"].as_str().unwrap())
        .collect();
    let keys = ["result", "optimal"];
    common::assert_batch_answers(["dominoes", file], &positions.join("\n"), &sample, keys);

    let cases = [
        ("0-1 / 2-2", "got 2 part(s)"),
        ("0-7 / - / 0 0 / 0", "out of range"),
        ("0-1 0-1 / - / 0 0 / 0", "tile 0-1 twice"),
        ("0-1 / 1-1 / 0 9 / 0", "right end '9'"),
        ("0-1 / 1-1 / 0 1 / 2", "mover '2'"),
        ("0-1 / 0-1 / 0 1 / 0", "in both hands"),
        ("0-1 2-4 / 3-3 1-4 / 0 0 / 0", "cannot form a line"),
        ("- / 3-3 / 0 0 / 0", "mover's hand is empty"),
    ];
    for (position, problem) in cases {
        let out = run(&["query", "dominoes", "--table", file, position]);
        assert_one_line_error(&out, problem);
    }
    // Many positions at once: a JSON line each, as the single queries say.
    let positions = [
        "0-1 2-4 / 3-3 1-4 / 0 2 / 0",
        "0-1 2-4 / 3-3 1-4 / 0 2 / 1",
        "3-3 / 1-1 2-2 / 0 0 / 0",
    ];
    let input = format!("{}\n\n{}\n", positions.join("\n"), cases[0].0);
    let out = run_with_input(&["query", "dominoes", "--table", file, "--batch"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines.len(), positions.len() + 1, "{}", stdout(&out));
    assert!(lines[3]["error"].as_str().unwrap().contains(cases[0].1));
    for (position, json) in positions.iter().zip(&lines) {
        let single = stdout(&run(&["query", "dominoes", "--table", file, position]));
        let result = format!(
            "result: {} for the mover\n",
            json["result"].as_str().unwrap()
        );
        assert!(single.contains(&result), "{single} / {json}");
        assert_eq!(json["over"], single.contains("the game is over"), "{json}");
        for m in json["moves"].as_array().unwrap() {
            let line = format!(
                "move {}: {} for the mover",
                m["move"].as_str().unwrap(),
                m["result"].as_str().unwrap()
            );
            assert!(single.contains(&line), "{single} / {m}");
        }
        assert_eq!(
            single.matches("\nmove ").count(),
            json["moves"].as_array().unwrap().len()
        );
    }
    let mut bytes = fs::read(&path).unwrap();
    bytes.truncate(bytes.len() / 2);
    let bad = dir.path().join("half.tab");
    fs::write(&bad, bytes).unwrap();
    let out = run(&["check", bad.to_str().unwrap()]);
    assert_one_line_error(&out, "truncated");
}
