//! How much the views tell `best` about the other hand, measured against
//! the true hand in games of `best` against `server`.
//!
//! At each of `best`'s decisions with tiles left in the stock, the exact
//! sampler of the other hand draws deals under two readings of the views:
//! the placements weighed by the server's own policy (the model `best` comes
//! to hold against `server`), and the placements not weighed (only the
//! draws, passes and the opening bind). From the weighted deals, each unseen
//! tile's chance of being in the other hand; the mean log-loss per unseen
//! tile against the true hand, beside the uniform guess (every unseen tile
//! held with the same chance) and full knowledge (0). Also the effective
//! number of deals, (Σw)²/Σw², and how often a tile held got a chance below
//! 0.2% (with many deals, a sampler that rules the truth out; with few, also
//! a held tile that no deal happened to draw).
//!
//! `cargo run --release -p tabula-verify --example dominoes_posterior -- N H GAMES [SEED]`

use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula_solver::dominoes::inference::{Knowledge, OpponentModel, Sample, Sampler};
use tabula_solver::dominoes::{Match, Rules, Tile, Tiles, View};
use tabula_solver::{Game, Turn};
use tabula_verify::agent::Agent;
use tabula_verify::dominoes::model::LadderModel;
use tabula_verify::dominoes::{self, deal};

/// Deals drawn per reading: `best`'s 256, and many more for the posterior itself.
const SIZES: [usize; 2] = [256, 16_384];

/// Sums over decisions of one reading and sample size.
#[derive(Default)]
struct Tally {
    effective: f64,
    loss: f64,
    ruled_out: usize,
}

/// The mean log-loss per unseen tile of the deals' tile chances, and the
/// count of held tiles they rule out.
fn score(deals: &[Sample], truth: Tiles, unseen: Tiles) -> (f64, usize) {
    let total: f64 = deals.iter().map(|d| d.weight).sum();
    let mut loss = 0.0;
    let mut ruled_out = 0;
    for t in unseen.iter() {
        let held: f64 = deals
            .iter()
            .filter(|d| d.hand.contains(t))
            .map(|d| d.weight)
            .sum();
        let p = (held / total).clamp(1e-3, 1.0 - 1e-3);
        if truth.contains(t) {
            ruled_out += usize::from(p < 0.002);
            loss -= p.ln();
        } else {
            loss -= (1.0 - p).ln();
        }
    }
    (loss / f64::from(unseen.len()), ruled_out)
}

fn uniform_loss(view: &View) -> f64 {
    let unseen = f64::from(view.unseen().len());
    let p = f64::from(view.opponent_count()) / unseen;
    -(p * p.ln() + (1.0 - p) * (1.0 - p).ln())
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: N H GAMES [SEED]"))
        .collect();
    let (n, h, games, seed) = match args[..] {
        [n, h, g] => (n, h, g, 1),
        [n, h, g, s] => (n, h, g, s),
        _ => panic!("usage: N H GAMES [SEED]"),
    };
    let rules = Rules::new(n as u32, h as u32).expect("N 5..=9, H 4..=7");
    // The server's policy alone (each other component kept at 0.1%).
    let server: Arc<dyn OpponentModel> =
        Arc::new(LadderModel::default().with_priors(&[0.995, 0.001, 0.001, 0.001, 0.001, 0.001]));
    let mut chance = ChaCha8Rng::seed_from_u64(seed);
    let mut draws = ChaCha8Rng::seed_from_u64(seed + 1);
    let mut tallies: [[Tally; 2]; 2] = Default::default();
    let (mut decisions, mut uniform, mut points) = (0usize, 0.0, 0.0);
    for g in 0..games as usize {
        let me = g % 2;
        let mut state = Match::new(&deal(seed, rules, g / 2)).with_open_hand(me);
        let mut best = dominoes::agent("best", ChaCha8Rng::seed_from_u64(g as u64)).unwrap();
        let mut opponent = dominoes::agent("server", ChaCha8Rng::seed_from_u64(0)).unwrap();
        for seat in 0..2 {
            let mut view = state.view(seat);
            view.open_hand = None;
            let player = if seat == me { &mut best } else { &mut opponent };
            player.start_case(&rules);
            player.start_game(seat, &view);
        }
        let mut know = Knowledge::new(rules);
        let first = state.view(me);
        know.start(rules, first.line.first().map(|&(a, b)| Tile::new(a, b)));
        loop {
            let mv = match state.turn() {
                Turn::Over => break,
                Turn::Chance => state.sample_chance(&mut chance),
                Turn::Seat(s) if s == me => {
                    let mut view = state.view(s);
                    let truth = view.open_hand.take().expect("seat me sees the other hand");
                    know.update(&view).expect("the views follow the rules");
                    if view.stock > 0 && !know.acts().is_empty() {
                        decisions += 1;
                        uniform += uniform_loss(&view);
                        let samplers: [Sampler; 2] = [
                            know.sampler_with(&view, server.clone()),
                            know.sampler(&view, 0.0),
                        ];
                        for (sampler, row) in samplers.iter().zip(&mut tallies) {
                            for (&size, tally) in SIZES.iter().zip(row.iter_mut()) {
                                let deals: Vec<Sample> =
                                    (0..size).map(|_| sampler.sample(&mut draws)).collect();
                                let total: f64 = deals.iter().map(|d| d.weight).sum();
                                let squares: f64 = deals.iter().map(|d| d.weight * d.weight).sum();
                                let (loss, ruled_out) = score(&deals, truth, view.unseen());
                                tally.effective += total * total / squares;
                                tally.loss += loss;
                                tally.ruled_out += ruled_out;
                            }
                        }
                    }
                    best.choose(&view)
                }
                Turn::Seat(s) => {
                    let mut view = state.view(s);
                    view.open_hand = None;
                    opponent.choose(&view)
                }
            };
            state.apply(mv);
        }
        points += state.scores()[me];
    }
    let d = decisions as f64;
    println!(
        "N={n} H={h}: {games} games, best's points per game {:.3}",
        points / games as f64
    );
    println!("{decisions} decisions with a stock; log-loss per unseen tile:");
    println!("  uniform guess            {:.4}", uniform / d);
    for (name, row) in [
        "placements weighed by the server's policy",
        "placements not weighed",
    ]
    .iter()
    .zip(&tallies)
    {
        for (size, t) in SIZES.iter().zip(row) {
            println!(
                "  {name}, {size} deals: {:.4} (effective deals {:.0}, held tiles under 0.2%: {})",
                t.loss / d,
                t.effective / d,
                t.ruled_out
            );
        }
    }
}
