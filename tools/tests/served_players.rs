//! A built-in player plays the same games in-process (`referee --agent NAME`)
//! as served over pipes (`referee --player "tabula serve GAME --agent NAME"`)
//! with the same seed, random players included.

mod common;

use common::{run, stderr, stdout};

#[test]
fn a_served_player_plays_as_the_same_player_in_process() {
    let bin = env!("CARGO_BIN_EXE_tabula");
    let cases: [(&str, &[&str], &str); 5] = [
        ("kalah", &[], "random"),
        ("tonga", &["--sizes", "6", "--games", "3"], "random"),
        ("tonga", &["--sizes", "6", "--games", "2"], "greedy"),
        ("reversi", &["--sizes", "7", "--cases", "2"], "random"),
        ("dominoes", &["--cases", "5:4", "--games", "6"], "random"),
    ];
    for (game, args, agent) in cases {
        let seed = ["--seed", "9"];
        let served = format!("{bin} serve {game} --agent {agent} --seed 9");
        let inside = run(&[&["referee", game, "--agent", agent][..], args, &seed].concat());
        let outside = run(&[&["referee", game, "--player", &served][..], args, &seed].concat());
        assert!(inside.status.success(), "{game}: {}", stderr(&inside));
        assert!(outside.status.success(), "{game}: {}", stderr(&outside));
        assert_eq!(stdout(&inside), stdout(&outside), "{game} {agent}");
    }
}
