//! How well `best`'s model names the evolved opponents' moves, beside two
//! references, on games where player 1 plays paranoid search.
//!
//! Each case of side N (the referee's cases of seed 900) is played once with
//! player 1 as `paranoid`; every opponent move is then predicted, before it is
//! taken in, by the model (fed the choices as `best` is: a batch between two
//! of player 1's moves, then `steps` proposals of learning), and also by
//! another opponent's true weights and by the mover's true weights plus
//! U(−30, 30) noise per cell. For the model: how often its prediction is
//! right, and how often the move is among the 1, 2 or 3 moves most voted for
//! by its 32 candidates ranked for the mover.
//!
//! `cargo run --release -p tabula-verify --example reversi_predict -- N CASES [STEPS]`

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use tabula_solver::grid::Square;
use tabula_solver::reversi::search::{Evaluation, Kind, Limits, decide};
use tabula_solver::reversi::{Board, Rule, Weights};
use tabula_verify::reversi::evolve::Settings;
use tabula_verify::reversi::model::{CANDIDATES, Model, votes};
use tabula_verify::reversi::referee::opponents;

/// The predictors scored, in the order of [`Tally`].
const NAMES: [&str; 6] = [
    "the model's prediction",
    "another opponent's true weights",
    "the true weights + U(-30, 30)",
    "among the model's 1 most voted",
    "among the model's 2 most voted",
    "among the model's 3 most voted",
];

/// Per predictor: (right, asked).
type Tally = [(usize, usize); 6];

/// One case's opponents and their choices, in batches between player 1's moves.
fn record(n: usize, case: usize) -> (Vec<Weights>, Vec<Vec<(Board, Square)>>) {
    let (weights, _) = opponents(900, &Settings::new(n), case, &|_, _| {});
    let eval = Evaluation::new(n);
    let limits = Limits {
        depth: 16,
        nodes: 12_000,
    };
    let mut board = Board::start(n).unwrap();
    let mut batches = vec![Vec::new()];
    while let Some(seat) = board.mover() {
        let mv = if seat == 0 {
            if !batches.last().unwrap().is_empty() {
                batches.push(Vec::new());
            }
            decide(Kind::Paranoid, &board, 0, &eval, limits)
                .unwrap()
                .square
        } else {
            let mv = weights[seat - 1].choose(&board, Rule::default()).unwrap();
            batches.last_mut().unwrap().push((board, mv));
            mv
        };
        board.play(mv);
    }
    (weights, batches)
}

fn score(n: usize, case: usize, steps: usize) -> Tally {
    let (weights, batches) = record(n, case);
    let rule = Rule::default();
    let mut rng = ChaCha8Rng::seed_from_u64(case as u64);
    let mut model = Model::new(n, rule, &mut rng);
    let mut out: Tally = [(0, 0); 6];
    let mut count = |i: usize, right: bool| {
        out[i].0 += usize::from(right);
        out[i].1 += 1;
    };
    for batch in &batches {
        for (board, mv) in batch {
            let seat = board.mover().unwrap();
            if !model.choices().is_empty() {
                count(0, model.predict(board) == Some(*mv));
                let votes = votes(&model.ranked_for(seat, CANDIDATES), board, rule);
                for k in 1..=3 {
                    count(2 + k, votes.iter().take(k).any(|v| v.0 == *mv));
                }
            }
            if weights.len() > 1 {
                let other = &weights[if seat == 1 { 1 } else { 0 }];
                count(1, other.choose(board, rule) == Some(*mv));
            }
            let mut noisy = weights[seat - 1];
            for w in noisy.0.iter_mut() {
                *w += rng.random_range(-30.0..30.0);
            }
            count(2, noisy.choose(board, rule) == Some(*mv));
            model.observe(board, *mv);
        }
        model.learn(steps, &mut rng);
    }
    out
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: N CASES [STEPS]"))
        .collect();
    let (n, cases, steps) = match args[..] {
        [n, cases] => (n, cases, tabula_verify::reversi::best::LEARN_STEPS),
        [n, cases, steps] => (n, cases, steps),
        _ => panic!("usage: N CASES [STEPS]"),
    };
    let tallies: Vec<Tally> = (0..cases)
        .into_par_iter()
        .map(|case| score(n, case, steps))
        .collect();
    for (i, name) in NAMES.iter().enumerate() {
        let (right, asked) = tallies
            .iter()
            .fold((0, 0), |acc, t| (acc.0 + t[i].0, acc.1 + t[i].1));
        println!(
            "{n}x{n} {name}: {:.1}% of {asked}",
            100.0 * right as f64 / asked as f64
        );
    }
}
