//! Every referee lets a tested program that played without a fault read its
//! last lines and exit by itself, instead of killing it as the game ends,
//! and kills one that has just faulted at once.

mod common;

use common::{run, stderr, words};

/// Runs `tabula referee GAME ARGS --player 'PLAYER; echo done >> marker'`
/// and returns how many of the player's processes reached the end of their
/// command: the marker is written only by a process that was not killed.
fn finished_runs(game: &str, args: &[&str], player: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("done.txt");
    let command = format!("{player}; echo done >> {}", marker.display());
    let out = run(&[&["referee", game][..], args, &["--player", &command]].concat());
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    match std::fs::read_to_string(&marker) {
        Ok(text) => text.lines().filter(|l| *l == "done").count(),
        Err(_) => 0,
    }
}

/// The referees, each with small options, and a built-in player served over pipes.
fn referees() -> Vec<(&'static str, Vec<&'static str>, String, usize)> {
    let bin = env!("CARGO_BIN_EXE_tabula");
    // One process per game (Ioiwari, Kalah, PseudoTonga), per case
    // (MultiplayerReversi) or per run (Dominoes, Nim, Tothello).
    [
        (
            "ioiwari",
            "--pits 4 --cap 4 --beads 10 --all",
            "play ioiwari --pits 4 --cap 4",
            3,
        ),
        (
            "kalah",
            "--pits 2 --seeds 2",
            "serve kalah --pits 2 --seeds 2 --agent optimal",
            2,
        ),
        (
            "tonga",
            "--sizes 4 --games 2",
            "serve tonga --agent greedy",
            2,
        ),
        (
            "reversi",
            "--sizes 7 --cases 1",
            "serve reversi --agent greedy",
            1,
        ),
        (
            "dominoes",
            "--cases 5:4 --games 4",
            "serve dominoes --agent heaviest",
            1,
        ),
        ("tothello", "--cases 3", "serve tothello", 1),
        ("nim", "--heaps 5", "serve nim --agent optimal", 1),
    ]
    .into_iter()
    .map(|(game, args, player, processes)| {
        (game, words(args), format!("{bin} {player}"), processes)
    })
    .collect()
}

#[test]
fn a_player_that_played_cleanly_ends_by_itself_in_every_referee() {
    for (game, args, player, processes) in referees() {
        assert_eq!(finished_runs(game, &args, &player), processes, "{game}");
    }
}

#[test]
fn a_player_that_timed_out_is_killed_at_once_in_every_referee() {
    // It reads its first request and stalls for 2 s, then would write the
    // marker: a referee that gave it the 5 s grace after its time-out would
    // let it (a loaded machine could only hide that, never fail this test).
    let stalled = "read l; sleep 2";
    for (game, args, _, _) in referees() {
        let args = [&args[..], &["--timeout", "1"]].concat();
        assert_eq!(finished_runs(game, &args, stalled), 0, "{game}");
    }
}
