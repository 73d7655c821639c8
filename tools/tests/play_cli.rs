//! `tabula play` for the games with opponents of their own (PseudoTonga,
//! Dominoes, MultiplayerReversi): a person at the terminal, played here by a
//! script that tries every answer in turn, end to end through the binary.

mod common;
use common::{assert_one_line_error, run_with_input, stderr, stdout, words};

/// Every `col row` (or `row col`) pair of a side, `rounds` times over: each
/// request finds its legal move among them, the others are refused.
fn every_square(n: usize, rounds: usize) -> String {
    let mut text = String::new();
    for _ in 0..rounds {
        for a in 0..n {
            for b in 0..n {
                text += &format!("{a} {b}\n");
            }
        }
    }
    text
}

/// The rows of the last board drawn (`0  B W . ...`), without their numbers.
fn last_board(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with("0 1 2"))
        .expect("a board is drawn");
    lines[header + 1..header + 1 + n]
        .iter()
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn a_tonga_game_is_played_to_its_end_and_scored_as_tonga_score_scores_it() {
    let out = run_with_input(
        &["play", "tonga", "--size", "6", "--game", "1"],
        &every_square(6, 40),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("You play "), "{text}");
    assert!(
        text.contains("White plays ") || text.contains("Black plays "),
        "{text}"
    );
    let board = last_board(&text, 6);
    assert!(board.iter().all(|row| !row.contains('.')), "{board:?}");
    let scored = run_with_input(&["tonga", "score"], &format!("6\n{}\n", board.join("\n")));
    let (b, w) = {
        let s = stdout(&scored);
        let words: Vec<&str> = s.split_whitespace().collect();
        (words[1].to_string(), words[3].to_string())
    };
    assert!(
        text.contains(&format!("Game over: Black {b}, White {w}: ")),
        "{text}"
    );
}

#[test]
fn a_dominoes_deal_is_played_to_its_end() {
    let mut typed = String::from("?\n");
    for _ in 0..60 {
        for answer in [
            "L0", "R0", "L1", "R1", "L2", "R2", "L3", "R3", "L4", "R4", "L5", "R5", "L6", "R6",
            "draw", "pass",
        ] {
            typed += answer;
            typed.push('\n');
        }
    }
    for seat in ["1", "2"] {
        let out = run_with_input(
            &[
                "play", "dominoes", "--case", "6:5", "--deal", "3", "--seat", seat,
            ],
            &typed,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.starts_with(&format!("You play player {seat}. ")),
            "{text}"
        );
        assert!(text.contains("legal moves: "), "{text}");
        assert!(text.contains("\nyour hand: 0:"), "{text}");
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("Game over: player 1 holds "), "{text}");
        assert!(last.ends_with(" wins") || last.ends_with("a tie"), "{last}");
    }
}

#[test]
fn a_reversi_case_is_played_to_its_end_against_the_referees_opponents() {
    let args = words("play reversi --size 7 --case 1 --generations 2 --ga-games 4");
    let out = run_with_input(&args, &every_square(7, 50));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("player 2 plays "), "{text}");
    let board = last_board(&text, 7);
    let owned: usize = board.iter().map(|row| row.matches('1').count()).sum();
    let last = text.lines().last().unwrap();
    let score = owned as f64 * 3.0 / 49.0;
    assert!(
        last.starts_with(&format!(
            "Game over: you (player 1) own {owned} cells, a case score of {score:.4}"
        )),
        "{last}"
    );
}

#[test]
fn quitting_ends_a_game_and_an_input_that_ends_first_is_an_error() {
    let out = run_with_input(&["play", "tonga", "--size", "4"], "quit\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run_with_input(&["play", "dominoes", "--case", "5:4"], "");
    assert_one_line_error_after_output(&out, "stdin: the input ended before the game did");
}

/// The game's first drawing is on stdout; the error is one line on stderr.
fn assert_one_line_error_after_output(out: &std::process::Output, problem: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(problem), "{err}");
}

#[test]
fn bad_options_are_one_line_errors() {
    for (args, problem) in [
        (
            &["play", "tonga", "--size", "7"][..],
            "--size: 7 is not an even board side",
        ),
        (
            // `--agent` is the older name of `--opponent`.
            &["play", "tonga", "--agent", "nobody"][..],
            "--opponent nobody: unknown agent",
        ),
        (
            &["play", "dominoes", "--case", "5:4,6:4"][..],
            "--case: give one case N:H, not 2",
        ),
        (&["play", "dominoes", "--case", "4:4"][..], "--case: "),
        (&["play", "dominoes", "--seat", "3"][..], "--seat"),
        (&["play", "reversi", "--size", "13"][..], "--size"),
    ] {
        let out = run_with_input(args, "");
        assert_one_line_error(&out, problem);
    }
}
