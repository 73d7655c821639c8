//! `tabula analyze`: a referee's log marked move by move, the values
//! checked against `tabula query`, and bad input refused in one line.

mod common;

use std::io::Write;
use std::process::Stdio;

use common::{assert_one_line_error, stderr, stdout, tabula};
use serde_json::Value;
use tabula_solver::tothello;
use tabula_verify::record::Notation;

#[test]
fn an_ioiwari_log_is_marked_with_the_querys_values() {
    let dir = tempfile::tempdir().unwrap();
    let log = common::random_ioiwari_log(dir.path());
    let games = analyzed(&log);
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
    let out = analyze(&log, &["--game", "3"]);
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
    let out = analyze(&log, &[]);
    assert_one_line_error(&out, "not a game log");
    // A Kalah table given to an Ioiwari log.
    let table = dir.path().join("k.tab");
    let table = table.to_str().unwrap();
    common::build("kalah --pits 2 --seeds 2", table);
    let (games, _) = common::log_of(dir.path(), "referee ioiwari --agent greedy1");
    let out = analyze(&games, &["--table", table]);
    assert_one_line_error(&out, "a table of kalah, not of ioiwari");
    let out = analyze(&games, &["--game", "5"]);
    assert_one_line_error(&out, "--game 5: the log has 1 games");
}

/// `tabula ARGS --log FILE`, then `tabula analyze FILE --json`: the log's
/// games and their analyses.
fn logged_analyses(dir: &std::path::Path, args: &str) -> Vec<(Value, Value)> {
    let (log, games) = common::log_of(dir, args);
    games.into_iter().zip(analyzed(&log)).collect()
}

/// `tabula analyze LOG ARGS`.
fn analyze(log: &std::path::Path, args: &[&str]) -> std::process::Output {
    tabula()
        .arg("analyze")
        .arg(log)
        .args(args)
        .output()
        .unwrap()
}

/// `tabula analyze LOG --json`, which must succeed: a JSON line a game.
fn analyzed(log: &std::path::Path) -> Vec<Value> {
    let out = analyze(log, &["--json"]);
    assert!(out.status.success(), "{}: {}", log.display(), stderr(&out));
    common::json_lines(&stdout(&out))
}

/// Every game's last move is marked (the endgame is searched exactly), and
/// its value after is the logged final margin for its mover; no move before
/// the ply `first_ply` gives for a logged game, where its endgame can start
/// at the earliest, is.
fn endgames_are_marked(games: &[(Value, Value)], first_ply: impl Fn(&Value) -> u64) {
    for (line, analysis) in games {
        let marks = analysis["marks"].as_array().unwrap();
        assert!(!marks.is_empty(), "{analysis}");
        assert!(
            marks[0]["ply"].as_u64().unwrap() >= first_ply(line),
            "{analysis}"
        );
        let last = marks.last().unwrap();
        let moves = line["moves"].as_array().unwrap();
        // Nothing is marked before chance's last move (Dominoes' last draw).
        if let Some(chance) = moves.iter().rposition(|m| m["seat"].is_null()) {
            assert!(
                marks[0]["ply"].as_u64().unwrap() > chance as u64,
                "{analysis}"
            );
        }
        let last_seat_move = moves.iter().rposition(|m| !m["seat"].is_null()).unwrap();
        assert_eq!(
            last["ply"].as_u64().unwrap(),
            last_seat_move as u64,
            "{analysis}"
        );
        let scores = line["scores"].as_array().unwrap();
        let seat = last["seat"].as_u64().unwrap() as usize;
        let margin = scores[seat].as_f64().unwrap() - scores[1 - seat].as_f64().unwrap();
        assert_eq!(last["after"].as_f64().unwrap(), margin, "{analysis}");
        for mark in marks {
            let (best, after) = (
                mark["best"].as_i64().unwrap(),
                mark["after"].as_i64().unwrap(),
            );
            assert_eq!(mark["loss"].as_i64().unwrap(), best - after, "{mark}");
            assert_eq!(mark["before"].as_i64().unwrap(), best, "{mark}");
        }
    }
}

#[test]
fn tothello_tonga_and_dominoes_endgames_are_marked() {
    let dir = tempfile::tempdir().unwrap();
    // Tothello from 14 empty squares: as many placements before as the start has more.
    let games = logged_analyses(
        dir.path(),
        "verify tothello --openings 2 --depths 1 --exact 6",
    );
    assert!(!games.is_empty());
    endgames_are_marked(&games, |line| {
        let start = tothello::Position::from_start_json(&line["start"]).unwrap();
        u64::from(start.empties()) - 14
    });
    // PseudoTonga from 16 empty squares of 36.
    let games = logged_analyses(
        dir.path(),
        "referee tonga --agent random --sizes 6 --games 2",
    );
    endgames_are_marked(&games, |_| 20);
    // Dominoes once the stock is empty: a position with a stock is never marked.
    let games = logged_analyses(
        dir.path(),
        "verify dominoes --players random --opponents heaviest --cases 5:7 --games 6",
    );
    // A game whose stock was never emptied has no move marked.
    let emptied: Vec<(Value, Value)> = games
        .into_iter()
        .filter(|(_, analysis)| !analysis["marks"].as_array().unwrap().is_empty())
        .collect();
    assert!(!emptied.is_empty());
    endgames_are_marked(&emptied, |_| 1);
}
