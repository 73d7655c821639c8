//! `tabula analyze`: a referee's log marked move by move, the values
//! checked against `tabula query`, and bad input refused in one line.

mod common;

use std::io::Write;
use std::process::Stdio;

use common::{assert_one_line_error, stderr, stdout, tabula};
use serde_json::Value;

#[test]
fn an_ioiwari_log_is_marked_with_the_querys_values() {
    let dir = tempfile::tempdir().unwrap();
    let log = common::random_ioiwari_log(dir.path());
    let out = tabula()
        .arg("analyze")
        .arg(&log)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let games: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(games.len(), 51);
    // The start's value, asked of `query` for every starting board at once.
    let boards: Vec<String> = games
        .iter()
        .map(|g| g["case_label"].as_str().unwrap().to_string())
        .collect();
    let mut query = tabula()
        .args(["query", "ioiwari", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    query
        .stdin
        .take()
        .unwrap()
        .write_all(boards.join("\n").as_bytes())
        .unwrap();
    let answers = query.wait_with_output().unwrap();
    let answers: Vec<Value> = stdout(&answers)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut mistakes = 0;
    for (game, answer) in games.iter().zip(&answers) {
        let marks = game["marks"].as_array().unwrap();
        assert_eq!(
            marks.len() as u64,
            game["moves"].as_u64().unwrap(),
            "{game}"
        );
        assert_eq!(marks[0]["before"], answer["value"], "{game}");
        let mut first = None;
        for mark in marks {
            let (best, after) = (
                mark["best"].as_i64().unwrap(),
                mark["after"].as_i64().unwrap(),
            );
            assert_eq!(mark["before"].as_i64().unwrap(), best, "{mark}");
            assert_eq!(mark["loss"].as_i64().unwrap(), best - after, "{mark}");
            let lost = best > after;
            // The optimal player 2 never gives anything away.
            if mark["seat"] == 1 {
                assert!(!lost, "{mark}");
            }
            if lost && first.is_none() {
                first = Some(mark["ply"].clone());
            }
            let changed = best.signum() > after.signum();
            assert_eq!(!mark["changed"].is_null(), changed, "{mark}");
        }
        assert_eq!(game["first_mistake"], first.clone().unwrap_or(Value::Null));
        mistakes += usize::from(first.is_some());
    }
    // A random player 1 makes mistakes.
    assert!(mistakes > 10, "{mistakes}");
    // The text names the totals of each game.
    let out = tabula()
        .arg("analyze")
        .arg(&log)
        .args(["--game", "3"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.starts_with("game 3: ioiwari, "), "{text}");
    assert!(
        text.lines().last().unwrap().starts_with("  totals: "),
        "{text}"
    );
}

#[test]
fn bad_logs_and_tables_get_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("bad.jsonl");
    std::fs::write(&log, "{\"game\":\"ioiwari\"}\n").unwrap();
    let out = tabula().arg("analyze").arg(&log).output().unwrap();
    assert_one_line_error(&out, "not a game log");
    // A Kalah table given to an Ioiwari log.
    let table = dir.path().join("k.tab");
    let out = tabula()
        .args(["build", "kalah", "--pits", "2", "--seeds", "2", "-o"])
        .arg(&table)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let games = dir.path().join("games.jsonl");
    let out = tabula()
        .args(["referee", "ioiwari", "--agent", "greedy1", "--log"])
        .arg(&games)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tabula()
        .arg("analyze")
        .arg(&games)
        .arg("--table")
        .arg(&table)
        .output()
        .unwrap();
    assert_one_line_error(&out, "a table of kalah, not of ioiwari");
    let out = tabula()
        .arg("analyze")
        .arg(&games)
        .args(["--game", "5"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--game 5: the log has 1 games");
}
