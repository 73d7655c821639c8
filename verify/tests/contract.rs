//! The contract every game keeps with the match loop, the logs and the
//! searches, checked on random reachable states of every game listed in
//! `support::for_each_game` (a new game is checked by being added there).
//!
//! Each case is a seeded random playout from a seeded start (a small case of
//! the game); every state of it, from the start to the end, must keep:
//! - the legal moves are what the seat to move may work out from its view;
//! - `check_move` accepts every legal move and refuses moves of other states
//!   of the game and moves out of range;
//! - a determinized state (`Determinize::sample`) shows each seat its view;
//! - `scores()` has one finite entry per seat;
//! - `forfeit` ends the game (or leaves it as it stands, for the referee to stop);
//! - chance outcomes have positive weights that sum as the game says;
//! - each legal move's notation reads back as the same move;
//!
//! and the playout itself must end within the game's bound, and its log line,
//! written and read back as `--log` does, must replay to the same states, also
//! when a fault cut the game short.

mod support;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula_solver::Turn;
use tabula_verify::record::{At, GameLine, read_log, replay};

use support::{Playout, Subject, playout, record};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        // A failure names its seed in the message; no files in the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Runs every check on the playout of `seed`.
fn holds_to_contract<G: Subject>(seed: u64) {
    let playout = playout::<G>(seed);
    ends_within_bound(&playout);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let seen: Vec<G::Move> = playout.moves.iter().map(|&(_, mv)| mv).collect();
    for state in &playout.states {
        moves_agree_with_views(state);
        check_move_is_exact(state, &seen);
        determinized_views_agree(state, &mut rng);
        scores_per_seat(state);
        forfeit_ends(state);
        chance_weights(state);
        notation_reads_back(state);
    }
    log_line_replays(&playout, seed);
}

fn ends_within_bound<G: Subject>(playout: &Playout<G>) {
    let start = &playout.states[0];
    let end = playout.states.last().expect("a start");
    assert!(
        end.is_over() && playout.moves.len() <= start.max_plies(),
        "the game from {start:?} is not over after {} plies (bound {})",
        playout.moves.len(),
        start.max_plies()
    );
}

fn moves_agree_with_views<G: Subject>(state: &G) {
    let legal: Vec<G::Move> = state.moves().to_vec();
    match state.turn() {
        Turn::Over => assert!(legal.is_empty(), "moves {legal:?} after the end: {state:?}"),
        Turn::Chance => assert!(
            !legal.is_empty(),
            "a chance turn without outcomes: {state:?}"
        ),
        Turn::Seat(seat) => {
            let seen = G::view_moves(&state.view(seat)).to_vec();
            assert_eq!(
                seen, legal,
                "seat {seat}'s view allows other moves: {state:?}"
            );
            assert!(
                !legal.is_empty(),
                "seat {seat} to move without a move: {state:?}"
            );
        }
    }
}

fn check_move_is_exact<G: Subject>(state: &G, seen: &[G::Move]) {
    let legal = state.moves();
    for &mv in legal.iter() {
        assert!(
            state.check_move(mv).is_ok(),
            "legal move {mv:?} refused: {state:?}"
        );
    }
    let off = state.off_moves();
    for &mv in seen.iter().chain(&off).filter(|mv| !legal.contains(mv)) {
        assert!(
            state.check_move(mv).is_err(),
            "{mv:?} is not among the moves {:?} but is accepted: {state:?}",
            &legal[..]
        );
    }
}

fn determinized_views_agree<G: Subject>(state: &G, rng: &mut ChaCha8Rng) {
    for seat in 0..state.seats() {
        let view = state.view(seat);
        let sampled = G::sample(&view, seat, rng);
        assert_eq!(
            format!("{:?}", sampled.view(seat)),
            format!("{view:?}"),
            "a state sampled from seat {seat}'s view shows it another view"
        );
    }
}

fn scores_per_seat<G: Subject>(state: &G) {
    let scores = state.scores();
    assert_eq!(
        scores.len(),
        state.seats(),
        "scores {scores:?} of {state:?}"
    );
    assert!(scores.iter().all(|s| s.is_finite()), "scores {scores:?}");
}

fn forfeit_ends<G: Subject>(state: &G) {
    let Turn::Seat(seat) = state.turn() else {
        return;
    };
    let mut after = state.clone();
    after.forfeit(seat);
    assert!(
        after.is_over() || format!("{after:?}") == format!("{state:?}"),
        "seat {seat}'s forfeit leaves a game going on: {after:?}"
    );
    assert_eq!(after.scores().len(), state.seats());
}

fn chance_weights<G: Subject>(state: &G) {
    if state.turn() != Turn::Chance {
        return;
    }
    let weights: Vec<f64> = state
        .moves()
        .iter()
        .map(|&mv| state.chance_weight(mv))
        .collect();
    assert!(
        weights.iter().all(|w| w.is_finite() && *w > 0.0),
        "chance weights {weights:?} of {state:?}"
    );
    if let Some(total) = state.chance_total() {
        let sum: f64 = weights.iter().sum();
        assert!(
            (sum - total).abs() <= 1e-9 * total.max(1.0),
            "chance weights sum to {sum}, not {total}: {state:?}"
        );
    }
}

fn notation_reads_back<G: Subject>(state: &G) {
    for &mv in state.moves().iter() {
        let text = state.move_text(mv);
        assert_eq!(
            state.parse_move(&text),
            Ok(mv),
            "'{text}' does not read back as {mv:?} in {state:?}"
        );
    }
}

/// Writes the playout's log line as `--log` does, reads it back and replays it:
/// whole, and cut by a fault of the seat to move at a ply drawn from `seed`.
fn log_line_replays<G: Subject>(playout: &Playout<G>, seed: u64) {
    let plies = playout.moves.len();
    let cut = (seed as usize) % (plies + 1);
    let mut cases = vec![(plies, None)];
    if let Turn::Seat(seat) = playout.states[cut].turn() {
        cases.push((cut, Some(seat)));
    }
    for (plies, fault) in cases {
        let game = record(playout, plies, fault);
        let at = At::new(seed, 0, "case", 0);
        let text = serde_json::to_string(&GameLine::new(&game, &playout.params, &at))
            .expect("a line serializes");
        let lines = read_log(&text).expect("the line reads back");
        let states = replay::<G>(&lines[0])
            .unwrap_or_else(|e| panic!("the log line does not replay: {e}\n{text}"));
        let expected: Vec<String> = playout.states[..=plies]
            .iter()
            .chain(fault.map(|_| &game.end))
            .map(|s| format!("{s:?}"))
            .collect();
        let replayed: Vec<String> = states.iter().map(|s| format!("{s:?}")).collect();
        assert_eq!(replayed, expected, "the replay's states differ\n{text}");
    }
}

macro_rules! contract {
    ($name:ident, $game:ty) => {
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name(seed in any::<u64>()) {
                holds_to_contract::<$game>(seed);
            }
        }
    };
}

for_each_game!(contract);
