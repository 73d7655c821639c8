//! Golden playthroughs: a few seeded random games of every game listed in
//! `support::for_each_game`, written out state by state in
//! `tests/playthroughs/<game>.txt` (each seat's view, the legal moves and
//! the move played in the game's notation, the scores). The test plays them
//! again and fails with a diff when the text differs, so that any change of
//! rules, views or notation shows in review.
//!
//! After a change meant to alter them, write them anew and review the diff:
//!
//! ```text
//! TABULA_UPDATE_PLAYTHROUGHS=1 cargo test -p tabula-verify --test playthroughs
//! ```

mod support;

use std::fmt::Write as _;
use std::path::PathBuf;

use tabula_solver::Turn;

use support::{Playout, Subject, playout};

/// The seeds of each game's playthroughs.
const SEEDS: [u64; 2] = [1, 2];

/// Plies written out of one game; longer games are cut (their end is still given).
const MAX_WRITTEN: usize = 40;

/// The variable that writes the files instead of comparing them.
const UPDATE: &str = "TABULA_UPDATE_PLAYTHROUGHS";

/// `text` on its line, or below it and indented when it has several; no blank lines.
fn indented(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    match lines.len() {
        1 => format!(" {}", lines[0]),
        _ => format!("\n    {}", lines.join("\n    ")),
    }
}

/// The views of `state`: one line when every seat sees the same.
fn views<G: Subject>(state: &G, out: &mut String) {
    let seen: Vec<String> = (0..state.seats())
        .map(|seat| indented(&G::render(&state.view(seat))))
        .collect();
    if seen.iter().all(|v| *v == seen[0]) {
        writeln!(out, "  view (every seat):{}", seen[0]).unwrap();
    } else {
        for (seat, view) in seen.iter().enumerate() {
            writeln!(out, "  view of seat {seat}:{view}").unwrap();
        }
    }
}

/// One game written out state by state.
fn write_game<G: Subject>(seed: u64, game: &Playout<G>, out: &mut String) {
    writeln!(out, "== seed {seed}: {:?}", game.params).unwrap();
    for (ply, (state, &(turn, mv))) in game.states.iter().zip(&game.moves).enumerate() {
        if ply == MAX_WRITTEN {
            writeln!(out, "... {} more plies", game.moves.len() - ply).unwrap();
            break;
        }
        writeln!(out, "ply {ply}: {turn} to move").unwrap();
        views(state, out);
        let legal: Vec<String> = state.moves().iter().map(|&m| state.move_text(m)).collect();
        writeln!(out, "  legal: {}", legal.join(", ")).unwrap();
        writeln!(out, "  scores: {:?}", &state.scores()[..]).unwrap();
        writeln!(out, "  played: {}", state.move_text(mv)).unwrap();
    }
    let end = game.states.last().expect("a start");
    let over = if end.turn() == Turn::Over {
        "over"
    } else {
        "not over"
    };
    writeln!(out, "end after {} plies ({over})", game.moves.len()).unwrap();
    views(end, out);
    writeln!(out, "  scores: {:?}", &end.scores()[..]).unwrap();
}

/// The playthroughs of `G`, as its file holds them.
fn playthroughs<G: Subject>(name: &str) -> String {
    let mut out = format!(
        "# Golden playthroughs of {name} (seeded random games); written by\n\
         # {UPDATE}=1 cargo test -p tabula-verify --test playthroughs\n"
    );
    for seed in SEEDS {
        write_game(seed, &playout::<G>(seed), &mut out);
    }
    out
}

/// Compares the playthroughs of `G` with its file, or writes the file when asked.
fn check<G: Subject>(name: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/playthroughs")
        .join(format!("{name}.txt"));
    let fresh = playthroughs::<G>(name);
    if std::env::var_os(UPDATE).is_some() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder is made");
        std::fs::write(&path, &fresh).expect("the playthroughs are written");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    if kept != fresh {
        let diff = similar::TextDiff::from_lines(&kept, &fresh)
            .unified_diff()
            .context_radius(2)
            .header("kept", "played now")
            .to_string();
        panic!(
            "the playthroughs of {name} differ from {} (if meant, run with {UPDATE}=1):\n{diff}",
            path.display()
        );
    }
}

macro_rules! playthrough {
    ($name:ident, $game:ty) => {
        #[test]
        fn $name() {
            check::<$game>(stringify!($name));
        }
    };
}

for_each_game!(playthrough);
