//! Every referee lets a tested program that played without a fault read its
//! last lines and exit by itself, instead of killing it as the game ends.

mod common;

use common::{run, stderr};

/// Runs `tabula referee GAME ARGS --player 'PLAYER; echo done >> marker'` and
/// returns how many of the player's processes reached the end of their command.
fn finished_runs(game: &str, args: &[&str], player: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("done.txt");
    // The marker is written only once the player has exited on its own: a
    // process killed at the game's end never writes it.
    let command = format!(
        "{} {player}; echo done >> {}",
        env!("CARGO_BIN_EXE_tabula"),
        marker.display()
    );
    let out = run(&[&["referee", game][..], args, &["--player", &command]].concat());
    assert!(out.status.success(), "{game}: {}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    match std::fs::read_to_string(&marker) {
        Ok(text) => text.lines().filter(|l| *l == "done").count(),
        Err(_) => 0,
    }
}

#[test]
fn a_player_that_played_cleanly_ends_by_itself_in_every_referee() {
    // One process per game (Ioiwari, Kalah, PseudoTonga), per case
    // (MultiplayerReversi) or per run (Dominoes).
    let cases: [(&str, &[&str], &str, usize); 5] = [
        (
            "ioiwari",
            &["--pits", "4", "--cap", "4", "--beads", "10", "--all"],
            "play ioiwari --pits 4 --cap 4",
            3,
        ),
        (
            "kalah",
            &["--pits", "2", "--seeds", "2"],
            "serve kalah --pits 2 --seeds 2 --agent optimal",
            2,
        ),
        (
            "tonga",
            &["--sizes", "4", "--games", "2"],
            "serve tonga --agent greedy",
            2,
        ),
        (
            "reversi",
            &["--sizes", "7", "--cases", "1"],
            "serve reversi --agent greedy",
            1,
        ),
        (
            "dominoes",
            &["--cases", "5:4", "--games", "4"],
            "serve dominoes --agent heaviest",
            1,
        ),
    ];
    for (game, args, player, processes) in cases {
        assert_eq!(finished_runs(game, args, player), processes, "{game}");
    }
}
