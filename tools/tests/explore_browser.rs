//! `tabula explore`'s page in a real browser: headless Chromium driven
//! through the DevTools protocol (`browser/cdp_bridge.py`, a standard-library
//! Python bridge over `--remote-debugging-pipe`), by clicks. For each game:
//! open the page, play moves by clicking, check the values shown (against
//! `tabula query` where the game has a batch query), undo, set up a position
//! or a variant, open a logged game with its marks, and reload the address.
//!
//! Chromium is `/usr/bin/chromium` or `TABULA_CHROMIUM`; without it, or
//! without `python3`, each test says so on one line and is skipped, unless
//! `TABULA_REQUIRE_BROWSER=1`. Nothing waits a fixed time: the page's state is
//! polled until it is the one expected, within a generous overall deadline.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::{stderr, stdout, tabula};
use serde_json::{Value, json};

/// How long one test's page may take to reach any one state.
const DEADLINE: Duration = Duration::from_secs(120);

/// Chromium and Python, or `None` when the test is skipped.
fn browser() -> Option<PathBuf> {
    let path = common::chromium()?;
    let python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    common::needs("python3", python, "TABULA_REQUIRE_BROWSER").then_some(path)
}

/// `tabula explore ARGS`, with a time limit that a loaded machine meets, and its page open in `chromium`.
fn served(chromium: &Path, args: &[&str]) -> (common::Explorer, Page) {
    let server = common::explore(&[args, &["--time-limit", "20"][..]].concat());
    let mut page = Page::open(chromium, "about:blank");
    page.navigate(&format!("http://{}/", server.1));
    (server, page)
}

/// A page in headless Chromium, through the bridge.
struct Page {
    bridge: Child,
    commands: ChildStdin,
    answers: Receiver<String>,
}

impl Drop for Page {
    fn drop(&mut self) {
        // The bridge kills Chromium when its input ends, or when it is killed.
        let _ = self.bridge.kill();
        let _ = self.bridge.wait();
    }
}

impl Page {
    fn open(chromium: &Path, url: &str) -> Page {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/cdp_bridge.py");
        let mut bridge = Command::new("python3")
            .arg(script)
            .arg(chromium)
            .arg(url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 starts");
        let commands = bridge.stdin.take().unwrap();
        let out = bridge.stdout.take().unwrap();
        let (send, answers) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let mut page = Page {
            bridge,
            commands,
            answers,
        };
        assert_eq!(page.answer()["result"], "attached");
        page
    }

    fn answer(&mut self) -> Value {
        let line = self
            .answers
            .recv_timeout(DEADLINE)
            .expect("the browser answers in time");
        serde_json::from_str(&line).unwrap()
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let command = json!({ "method": method, "params": params });
        writeln!(self.commands, "{command}").unwrap();
        let answer = self.answer();
        assert!(answer["error"].is_null(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// The value of the expression `js` in the page (a promise awaited).
    fn eval(&mut self, js: &str) -> Value {
        let params = json!({ "expression": js, "returnByValue": true, "awaitPromise": true });
        let found = self.call("Runtime.evaluate", params);
        assert!(found["exceptionDetails"].is_null(), "{js}: {found}");
        found["result"]["value"].clone()
    }

    /// Polls `js` until it is neither `null`, `false` nor absent; its value.
    fn until(&mut self, what: &str, js: &str) -> Value {
        let end = Instant::now() + DEADLINE;
        loop {
            let found = self.eval(&format!(
                "(()=>{{try{{return {js}}}catch(e){{return null}}}})()"
            ));
            if !(found.is_null() || found == Value::Bool(false)) {
                return found;
            }
            let error = self.eval("document.getElementById('err')?.textContent||''");
            assert!(
                Instant::now() < end,
                "the page never showed {what} ({error})"
            );
            // A short pause between polls, not a wait for a state.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        self.ready();
    }

    fn reload(&mut self) {
        self.eval("document.body.dataset.shown='';0");
        self.call("Page.reload", json!({}));
        self.ready();
    }

    /// Waits for the page to have shown a position since it (re)loaded.
    fn ready(&mut self) {
        self.until("a position", "document.body.dataset.shown>=1");
    }

    fn click(&mut self, selector: &str) {
        let js = format!(
            "(()=>{{const e=document.querySelector({});if(!e)return false;e.click();return true}})()",
            json!(selector)
        );
        assert_eq!(
            self.eval(&js),
            Value::Bool(true),
            "nothing to click at {selector}"
        );
    }

    /// Sets a form field's value (as typing would) and tells the page.
    fn fill(&mut self, id: &str, text: &str) {
        let js = format!(
            "(()=>{{const e=document.getElementById({});e.value={};e.dispatchEvent(new Event('change'));return true}})()",
            json!(id),
            json!(text)
        );
        assert_eq!(self.eval(&js), Value::Bool(true));
    }

    /// Clicks the legal move `mv` and waits for the move list to grow to `plies`.
    fn play(&mut self, mv: &str, plies: usize) {
        self.click(&format!("#legal button[data-move='{mv}']"));
        self.until_plies(plies);
    }

    /// Types `board` into the set-up box (the game's board syntax, or JSON)
    /// and sets it up; waits until the page has shown it.
    fn set_up(&mut self, board: &str) {
        let shown = self.eval("Number(document.body.dataset.shown)");
        self.fill("start", board);
        self.click("#setup");
        self.until(
            "the position set up",
            &format!("Number(document.body.dataset.shown)>{shown}&&document.querySelectorAll('#legal button').length>0"),
        );
    }

    /// Clicks the board's cell that plays `mv` and waits for the move list to grow to `plies`.
    fn click_board(&mut self, mv: &str, plies: usize) {
        self.click(&format!("#board td[data-move='{mv}']"));
        self.until_plies(plies);
    }

    /// The logged moves marked as mistakes.
    fn mistakes(&mut self) -> Value {
        self.eval("[...document.querySelectorAll('#moves span.mistake')].map(s=>s.textContent)")
    }

    fn until_plies(&mut self, plies: usize) {
        self.until(
            &format!("{plies} moves"),
            &format!("document.querySelectorAll('#moves span').length==={plies}&&!document.querySelector('#vsnote').textContent.startsWith('thinking')"),
        );
    }

    /// The legal moves shown, with their values (`null` when unknown).
    fn legal(&mut self) -> Vec<(String, Value)> {
        let found = self.eval(
            "[...document.querySelectorAll('#legal button')].map(b=>[b.dataset.move,b.dataset.value===''?null:Number(b.dataset.value)])",
        );
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| (pair[0].as_str().unwrap().to_string(), pair[1].clone()))
            .collect()
    }

    /// The position's value as shown (`+2`, `0`, `?`) and the moves list.
    fn state(&mut self) -> (String, String) {
        let found = self.eval("[document.getElementById('value').textContent,document.getElementById('moves').textContent]");
        (
            found[0].as_str().unwrap().to_string(),
            found[1].as_str().unwrap().to_string(),
        )
    }
}

/// `tabula query GAME ARGS --batch` of one board: its JSON answer.
fn query(args: &[&str], board: &str) -> Value {
    let out = common::run_with_input(args, &format!("{board}\n"));
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap()
}

/// Each move's value as `query` gives it, by pit label.
fn query_moves(answer: &Value) -> Vec<(String, Value)> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["pit"].to_string(), m["value"].clone()))
        .collect()
}

/// `tabula analyze LOG --game K --json`: game K's marks.
fn analysis_of(log: &Path, k: usize) -> Value {
    let out = tabula()
        .arg("analyze")
        .arg(log)
        .args(["--game", &k.to_string(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn signed(value: i64) -> String {
    if value > 0 {
        format!("+{value}")
    } else {
        value.to_string()
    }
}

/// The shown value's number (`+3 for seat 0` is 3).
fn shown_value(shown: &str) -> Option<i64> {
    shown
        .split(' ')
        .next()?
        .trim_start_matches('+')
        .parse()
        .ok()
}

#[test]
fn ioiwari_plays_undoes_sets_up_opens_a_log_and_reloads() {
    let Some(chromium) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let log = common::random_ioiwari_log(dir.path());
    let (_server, mut page) = served(&chromium, &["ioiwari", "--log", log.to_str().unwrap()]);
    // The start's values are `query`'s.
    let start = "4 3 2 4 2 3 2";
    let answer = query(&["query", "ioiwari", "--batch"], start);
    page.until(
        "the values",
        "document.querySelectorAll('#legal button').length>0",
    );
    assert_eq!(page.legal(), query_moves(&answer));
    let (value, _) = page.state();
    assert!(
        value.starts_with(&signed(answer["value"].as_i64().unwrap())),
        "{value}"
    );
    // Play a move by clicking; its value becomes the position's, for the other seat.
    let (mv, after) = page.legal()[0].clone();
    page.play(&mv, 1);
    let (value, moves) = page.state();
    assert_eq!(
        shown_value(&value),
        Some(-after.as_i64().unwrap()),
        "{value}"
    );
    assert_eq!(moves, format!("1. {mv}"));
    // Undo, and the start is back; redo.
    page.click("#undo");
    page.until_plies(0);
    assert!(
        page.state()
            .0
            .starts_with(&signed(answer["value"].as_i64().unwrap()))
    );
    page.click("#redo");
    page.until_plies(1);
    // Reload by the address: the same position.
    page.reload();
    page.until_plies(1);
    assert_eq!(page.state().1, format!("1. {mv}"));
    // Play against the optimal player: it answers, and keeps the value.
    page.fill("player", "optimal");
    page.fill("cseat", "1");
    page.eval("document.getElementById('playing').click();0");
    page.until_plies(2);
    let (value, _) = page.state();
    assert_eq!(
        shown_value(&value),
        Some(after.as_i64().unwrap()),
        "{value}"
    );
    page.eval("document.getElementById('playing').click();0");
    // Set up a position: its values are `query`'s.
    let board = "2 2 2 2 2 2 2";
    page.fill(
        "start",
        &json!({ "board": board, "mover": 0, "banks": [3, 3] }).to_string(),
    );
    page.click("#setup");
    page.until_plies(0);
    let answer = query(&["query", "ioiwari", "--batch"], board);
    assert_eq!(page.legal(), query_moves(&answer));
    // Type a board as `query` reads it: its values are `query`'s.
    let typed = "3 3 3 3 3 3 2";
    page.set_up(typed);
    let answer = query(&["query", "ioiwari", "--batch"], typed);
    assert_eq!(page.legal(), query_moves(&answer));
    assert!(
        page.state()
            .0
            .starts_with(&signed(answer["value"].as_i64().unwrap())),
        "{:?}",
        page.state()
    );
    // Play pit 4 by clicking it on the board: its value becomes the position's, for the other seat.
    let after = query_moves(&answer)[3].1.as_i64().unwrap();
    page.click_board("4", 1);
    assert_eq!(shown_value(&page.state().0), Some(-after));
    // A malformed board is named, and the position stays.
    page.fill("start", "3 3 x");
    page.click("#setup");
    page.until(
        "the reason",
        "document.getElementById('err').textContent.includes(\"bad board '3 3 x'\")",
    );
    assert_eq!(page.state().1, "1. 4");
    // Open game 2 of the log: its moves, marked as `analyze` marks them.
    let analysis = analysis_of(&log, 2);
    let plies = analysis["moves"].as_u64().unwrap() as usize;
    page.fill("logk", "2");
    page.click("#openlog");
    page.until_plies(plies);
    let lost = page.eval("[...document.querySelectorAll('#moves span.mistake')].length");
    assert_eq!(lost, analysis["lost_value"], "{analysis}");
    // The address names the logged game: a reload reopens it, marks and all, where it was.
    let marked = page.mistakes();
    page.click("#undo");
    page.until_plies(plies - 1);
    assert!(
        page.eval("location.hash")
            .as_str()
            .unwrap()
            .contains("log=2")
    );
    page.reload();
    page.until_plies(plies - 1);
    page.click("#redo");
    page.until_plies(plies);
    assert_eq!(page.mistakes(), marked);
}

#[test]
fn kalah_variant_values_match_query_and_survive_a_reload() {
    let Some(chromium) = browser() else { return };
    let (_server, mut page) = served(&chromium, &["kalah"]);
    page.until(
        "the variant form",
        "document.getElementById('v_pits')!==null",
    );
    page.fill("v_pits", "3");
    page.fill("v_seeds", "2");
    page.fill("v_capture", "non-empty");
    page.click("#newvariant");
    page.until(
        "the variant",
        "document.getElementById('start').value.includes('non-empty')&&document.querySelectorAll('#legal button').length===3",
    );
    let rules = ["--pits", "3", "--seeds", "2", "--no-empty-capture"];
    let answer = query(
        &[&["query", "kalah", "--batch"][..], &rules[..]].concat(),
        "2 2 2 / 2 2 2",
    );
    page.until(
        "every value",
        "[...document.querySelectorAll('#legal button')].every(b=>b.dataset.value!=='')",
    );
    assert_eq!(page.legal(), query_moves(&answer));
    let (mv, _) = page.legal()[2].clone();
    page.play(&mv, 1);
    let before = page.state();
    // The address keeps the variant and the position.
    page.reload();
    page.until_plies(1);
    page.until(
        "the values",
        "document.getElementById('value').textContent!==''",
    );
    assert_eq!(page.state(), before);
    assert_eq!(
        page.eval("document.getElementById('v_capture').value"),
        "non-empty"
    );
    // A board typed as `query` reads it, in the variant chosen: `query`'s values.
    let typed = "2 0 3 / 2 2 1";
    page.set_up(typed);
    page.until(
        "every value",
        "[...document.querySelectorAll('#legal button')].every(b=>b.dataset.value!=='')",
    );
    let answer = query(
        &[&["query", "kalah", "--batch"][..], &rules[..]].concat(),
        typed,
    );
    assert_eq!(page.legal(), query_moves(&answer));
    assert_eq!(shown_value(&page.state().0), answer["value"].as_i64());
    // Pit 3 played by clicking the board.
    let after = query_moves(&answer)[1].clone();
    page.click_board(&after.0, 1);
    assert_eq!(page.state().1, format!("1. {}", after.0));
}

/// Opens `tabula explore GAME` on the page, pastes the first game of the log
/// of `args`, and checks each marked move's value before it as the page
/// shows it (clicking back to it in the move list) against `analyze`.
fn logged_game_is_shown_with_its_values(game: &str, args: &str) {
    let Some(chromium) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (log, lines) = common::log_of(dir.path(), args);
    let (_server, mut page) = served(&chromium, &[game]);
    let analysis = analysis_of(&log, 0);
    page.fill("logline", &lines[0].to_string());
    page.click("#openline");
    let plies = lines[0]["moves"].as_array().unwrap().len();
    page.until_plies(plies);
    let marks = analysis["marks"].as_array().unwrap();
    for mark in marks.iter().rev().take(3) {
        let ply = mark["ply"].as_u64().unwrap() as usize;
        // Clicking move `ply` (from 1) shows the position before move `ply + 1`.
        page.eval(&format!(
            "document.querySelectorAll('#moves span')[{}].click();0",
            ply - 1
        ));
        page.until_plies(ply);
        page.until(
            "the value",
            "document.getElementById('value').textContent!==''",
        );
        let (value, _) = page.state();
        assert_eq!(
            shown_value(&value),
            mark["before"].as_i64(),
            "{mark} {value}"
        );
        let best = page.legal().iter().filter_map(|(_, v)| v.as_i64()).max();
        assert_eq!(best, mark["best"].as_i64(), "{mark}");
    }
    // Undo one move more, and play it again by clicking.
    let moves = page.eval("S.moves");
    let last = moves.as_array().unwrap().last().cloned();
    if let Some(last) = last {
        let len = moves.as_array().unwrap().len();
        page.click("#undo");
        page.until_plies(len - 1);
        page.play(last.as_str().unwrap(), len);
    }
    // The address round trip: the same position, the pasted game's marks kept.
    let value = page.state().0;
    let moves = page.eval("S.moves");
    let marked = page.mistakes();
    page.reload();
    page.until_plies(moves.as_array().unwrap().len());
    page.until(
        "the value",
        "document.getElementById('value').textContent!==''",
    );
    assert_eq!(page.state().0, value);
    assert_eq!(page.eval("S.moves"), moves);
    assert_eq!(page.mistakes(), marked);
}

#[test]
fn tothello_endgame_values_are_shown() {
    logged_game_is_shown_with_its_values(
        "tothello",
        "verify tothello --openings 1 --depths 1 --exact 6",
    );
}

#[test]
fn tonga_endgame_values_are_shown() {
    logged_game_is_shown_with_its_values(
        "tonga",
        "referee tonga --agent random --sizes 6 --games 1",
    );
}

#[test]
fn dominoes_endgame_values_are_shown() {
    logged_game_is_shown_with_its_values(
        "dominoes",
        "verify dominoes --players random --opponents heaviest --cases 5:7 --games 2",
    );
}

#[test]
fn nim_is_played_against_the_optimal_player() {
    let Some(chromium) = browser() else { return };
    let (_server, mut page) = served(&chromium, &["nim"]);
    page.fill("cseat", "1");
    page.fill("player", "optimal");
    page.eval("document.getElementById('playing').click();0");
    // Heap 10: taking 2 leaves 8, a loss for the optimal player too.
    page.until(
        "the moves",
        "document.querySelectorAll('#legal button').length===3",
    );
    page.play("2", 2);
    let (value, _) = page.state();
    assert_eq!(shown_value(&value), Some(1), "{value}");
}

#[test]
fn reversi_shows_what_its_players_would_play() {
    let Some(chromium) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_, lines) = common::log_of(
        dir.path(),
        "referee reversi --agent greedy --sizes 7 --cases 1 --generations 2 --ga-games 10",
    );
    let (_server, mut page) = served(&chromium, &["reversi"]);
    page.fill("start", &lines[0]["start"].to_string());
    page.click("#setup");
    let hints = page.until(
        "the players' moves",
        "document.getElementById('hints').textContent||null",
    );
    for player in ["paranoid", "brs", "greedy", "weights", "best"] {
        assert!(hints.as_str().unwrap().contains(player), "{hints}");
    }
    let (mv, _) = page.legal()[0].clone();
    page.play(&mv, 1);
    page.click("#undo");
    page.until_plies(0);
    // A square is played by clicking it on the board.
    page.click_board(&mv, 1);
}
