//! Small things a new user trips on, each through the binary: the contests'
//! names for the games, a hint with the games' names, draws in the Kalah
//! plot, plots that fit a screen, one word for seats on the replay page,
//! and `check` and `info` that say what they count.

mod common;

use common::{build, run, stderr, stdout, temp_file};

#[test]
fn the_contests_names_reach_their_games() {
    // The alias runs the game's verb: the same report as its own name.
    let args = |game| {
        [
            "referee", game, "--agent", "greedy", "--sizes", "4", "--seed", "5",
        ]
    };
    let by_alias = run(&args("pseudotonga"));
    assert!(by_alias.status.success(), "{}", stderr(&by_alias));
    assert_eq!(stdout(&by_alias), stdout(&run(&args("tonga"))));
    let help = run(&["referee", "multiplayerreversi", "--help"]);
    assert!(help.status.success(), "{}", stderr(&help));
    assert!(stdout(&help).contains("getNextMove") || stdout(&help).contains("MultiplayerReversi"));
    let extra = run(&["pseudotonga", "--help"]);
    assert!(extra.status.success(), "{}", stderr(&extra));
    assert!(stdout(&run(&["games"])).contains("also: multiplayerreversi"));
}

#[test]
fn an_unknown_game_is_told_the_games_names() {
    let out = run(&["verify", "othello"]);
    assert_eq!(out.status.code(), Some(2));
    let line = stderr(&out);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("'othello'"), "{line}");
    assert!(
        line.contains("the games of `tabula verify`: ioiwari, kalah,")
            && line.contains("tonga (pseudotonga)")
            && line.contains("reversi (multiplayerreversi)"),
        "{line}"
    );
    // Nim is the hidden example game, and `tabula build` has no Tothello.
    assert!(!line.contains("nim"), "{line}");
    let build = stderr(&run(&["build", "othello"]));
    assert!(!build.contains("tothello"), "{build}");
    let top = stderr(&run(&["othello"]));
    assert!(top.contains("the games are ioiwari"), "{top}");
}

#[test]
fn the_kalah_plot_draws_its_draws() {
    let (_dir, svg) = temp_file("kalah.svg");
    // Kalah(3,1) is a draw with optimal play: optimal against greedy draws every game.
    let out = run(&[
        "verify", "kalah", "--pits", "3", "--seeds", "1", "--games", "10", "--plot", &svg,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("| optimal vs greedy | Kalah(3, 1) | 20    | 0/20/0"));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("optimal vs greedy: draws"), "{text}");
    assert!(text.contains("win and draw rates"), "{text}");
}

#[test]
fn plots_fit_1200_pixels_with_their_legend() {
    let (_dir, svg) = temp_file("ioiwari.svg");
    // The 51 instances were 2,022 pixels wide.
    let out = run(&["verify", "ioiwari", "--games", "10", "--plot", &svg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&svg).unwrap();
    let width: u32 = text
        .split("width=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|w| w.parse().ok())
        .expect("the svg's width");
    assert!((760..=1200).contains(&width), "width {width}");
    assert!(text.contains("legend (bars: 95% interval)"));
}

#[test]
fn the_replay_page_says_seat_as_the_log_does() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("kalah.jsonl");
    let page = dir.path().join("kalah.html");
    let (log, page) = (log.to_str().unwrap(), page.to_str().unwrap());
    let out = run(&["referee", "kalah", "--agent", "greedy", "--log", log]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(log).unwrap().contains("\"seat\":0"));
    let out = run(&["replay", log, "-o", page]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(page).unwrap();
    assert!(html.contains("seat 0 to move") && html.contains("seat 0's pits below"));
    assert!(!html.contains("player 1") && !html.contains("player 2"));
}

#[test]
fn check_and_info_say_what_they_count() {
    let (_dir, table) = temp_file("k22.tab");
    build("kalah --pits 2 --seeds 2", &table);
    let info = stdout(&run(&["info", &table]));
    assert!(info.contains("entries: 495\n"), "{info}");
    assert!(
        info.contains("`tabula check` counts those that hold a position"),
        "{info}"
    );
    let check = stdout(&run(&["check", &table]));
    assert!(
        check.contains(
            "407 records consistent: the positions among its 495 entries, each checked \
             against its moves; the other 88 are slots of the index that hold no position"
        ),
        "{check}"
    );
}
