//! `tabula replay` pages in a real browser: for each game, a small log made
//! by the binary, its page loaded in headless Chromium at the last move of a
//! game (`#game=K&move=end`), and the scores the page shows checked against
//! the log. Chromium is `/usr/bin/chromium`, or the path in `TABULA_CHROMIUM`;
//! without it each test says on one line that it was skipped, or fails when
//! `TABULA_REQUIRE_BROWSER=1` (as `scripts/test` sets it);
//! `TABULA_SKIP_BROWSER=1` skips them even with a browser.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{stderr, tabula, words};
use tabula_verify::record::{GameLine, read_log};

/// How long one page may take before Chromium is killed and the test fails.
const BROWSER_LIMIT: Duration = Duration::from_secs(60);

/// Runs `tabula ARGS --log FILE` in `dir`, then `tabula replay`; returns the
/// log's games and the page.
fn logged_page(dir: &Path, args: &[&str]) -> (Vec<GameLine>, PathBuf) {
    let log = dir.join("games.jsonl");
    let out = tabula().args(args).arg("--log").arg(&log).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let lines = read_log(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert!(!lines.is_empty(), "{args:?} logged no game");
    let page = dir.join("replay.html");
    let out = common::replay_page(&log, &[], Some(&page));
    assert!(out.status.success(), "{}", stderr(&out));
    (lines, page)
}

/// The DOM of `page#fragment` after its script ran, from headless Chromium;
/// Chromium is killed and the test fails after [`BROWSER_LIMIT`].
fn dump_dom(browser: &Path, page: &Path, fragment: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}#{fragment}", page.display());
    let mut child = Command::new(browser)
        .args(words("--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (done, result) = mpsc::channel();
    // Both pipes are read to their end by threads, so Chromium never blocks on a full pipe.
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = out.read_to_string(&mut text).map(|_| text);
        let _ = done.send(read);
    });
    match result.recv_timeout(BROWSER_LIMIT) {
        Ok(read) => {
            let status = child.wait().unwrap();
            let dom = read.expect("chromium's output is text");
            let log = errors.join().unwrap_or_default();
            assert!(
                status.success(),
                "chromium failed on {url}: {status}\n{log}"
            );
            assert!(
                dom.contains("id=\"scores\""),
                "no page in the dump: {dom}\n{log}"
            );
            dom
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish {url} in {BROWSER_LIMIT:?}: killed");
        }
    }
}

/// The text of the element with `id` in `dom` (no nested tags).
fn text_of(dom: &str, id: &str) -> String {
    let open = format!("id=\"{id}\"");
    let start = dom
        .find(&open)
        .unwrap_or_else(|| panic!("no #{id} in {dom}"));
    let start = start + dom[start..].find('>').unwrap() + 1;
    let end = start + dom[start..].find('<').unwrap();
    dom[start..end].replace("&amp;", "&")
}

/// Whether a score shown to 3 decimals is the logged one.
fn close(shown: f64, logged: f64) -> bool {
    (shown - logged).abs() <= 0.0005 + 1e-12
}

/// The numbers after each `seat K` in `scores: seat 0 1, seat 1 0`.
fn shown_scores(dom: &str) -> Vec<f64> {
    let text = text_of(dom, "scores");
    let list = text
        .strip_prefix("scores: ")
        .unwrap_or_else(|| panic!("{text}"));
    list.split(", ")
        .enumerate()
        .map(|(k, item)| {
            let value = item
                .strip_prefix(&format!("seat {k} "))
                .unwrap_or_else(|| panic!("{text}"));
            value.parse().unwrap_or_else(|_| panic!("{text}"))
        })
        .collect()
}

/// Loads the last game of the log made by `args` at its last move, checks the
/// scores and the position the page shows; returns the DOM and the game.
fn check_last_game(args: &[&str], extra: &str) -> Option<(String, GameLine)> {
    let browser = common::chromium()?;
    let dir = tempfile::tempdir().unwrap();
    let (lines, page) = logged_page(dir.path(), args);
    let k = lines.len() - 1;
    let line = lines[k].clone();
    let dom = dump_dom(&browser, &page, &format!("game={k}&move=end{extra}"));
    let shown = shown_scores(&dom);
    assert_eq!(shown.len(), line.scores.len(), "{args:?}");
    for (&shown, &logged) in shown.iter().zip(&line.scores) {
        assert!(close(shown, logged), "{args:?}: {shown} for {logged}");
    }
    let steps = line.moves.len() + usize::from(line.fault.is_some());
    assert_eq!(
        text_of(&dom, "position"),
        format!("move {steps} of {steps}")
    );
    let title = format!(
        "{}, {}, game {}",
        line.game, line.case_label, line.game_index
    );
    assert_eq!(text_of(&dom, "title"), title);
    let result = text_of(&dom, "result");
    let finals = result
        .strip_prefix("final scores: ")
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("{result}"));
    let finals: Vec<f64> = finals
        .split(" / ")
        .map(|s| s.parse().unwrap_or_else(|_| panic!("{result}")))
        .collect();
    assert_eq!(finals.len(), line.scores.len(), "{result}");
    for (&shown, &logged) in finals.iter().zip(&line.scores) {
        assert!(close(shown, logged), "{result}: {shown} for {logged}");
    }
    Some((dom, line))
}

#[test]
fn chromium_shows_nim_final_scores() {
    check_last_game(
        &["referee", "nim", "--agent", "random", "--heaps", "5,7"],
        "",
    );
}

#[test]
fn chromium_shows_kalah_final_scores() {
    check_last_game(
        &[
            "verify", "kalah", "--pits", "3", "--seeds", "3", "--games", "1",
        ],
        "",
    );
}

#[test]
fn chromium_shows_ioiwari_final_scores() {
    check_last_game(&["referee", "ioiwari", "--agent", "random", "--all"], "");
}

#[test]
fn chromium_shows_tonga_final_scores_and_isles_by_size() {
    let Some((dom, _)) = check_last_game(
        &[
            "referee", "tonga", "--agent", "random", "--sizes", "6", "--games", "2",
        ],
        "",
    ) else {
        return;
    };
    // A full board: every cell is shaded by its isle's size, and the legend says how.
    assert_eq!(dom.matches("class=\"isle-").count(), 36, "{dom}");
    assert!(text_of(&dom, "legend").starts_with("isle size"));
}

#[test]
fn chromium_shows_tothello_final_scores() {
    check_last_game(
        &words("verify tothello --openings 1 --depths 1 --exact 6"),
        "",
    );
}

#[test]
fn chromium_shows_dominoes_final_scores_and_hides_the_other_hand() {
    let Some((dom, line)) = check_last_game(
        &words("referee dominoes --agent random --opponent heaviest --cases 5:4 --games 2"),
        "&view=0",
    ) else {
        return;
    };
    let states = tabula_verify::record::replay::<tabula_solver::dominoes::Match>(&line).unwrap();
    let end = states.last().unwrap();
    // Seat 0's view: its own tiles face up, seat 1's as backs.
    let hand = |seat: usize| {
        let start = dom.find(&format!("id=\"hand-{seat}\"")).unwrap();
        let end = start + dom[start..].find("</div>").unwrap();
        dom[start..end].to_string()
    };
    let (own, other) = (hand(0), hand(1));
    assert_eq!(own.matches("class=\"tile\"").count(), end.hand(0).len());
    assert_eq!(own.matches("class=\"tile back\"").count(), 0);
    assert_eq!(
        other.matches("class=\"tile back\"").count(),
        end.hand(1).len()
    );
    for tile in end.hand(1).iter() {
        assert!(
            !other.contains(&format!(">{tile}<")),
            "{tile} shown: {other}"
        );
    }
}

#[test]
fn chromium_shows_reversi_final_scores() {
    let Some((dom, line)) = check_last_game(
        &words("referee reversi --agent greedy --sizes 7 --cases 1 --generations 2 --ga-games 10"),
        "",
    ) else {
        return;
    };
    // Case scores such as 1.0408163265306123 are shown to 3 decimals.
    assert!(
        line.scores.iter().any(|s| s.fract() != 0.0),
        "{:?}",
        line.scores
    );
    let result = text_of(&dom, "result");
    for number in result["final scores: ".len()..].split(" / ") {
        let decimals = number.split('.').nth(1).unwrap_or("");
        assert!(decimals.len() <= 3, "{result}");
    }
}
