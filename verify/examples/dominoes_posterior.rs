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
//! The games are the referee's (its deals and draws, paired, `best` in its
//! tested seat and kept for the whole case), played by the shared match loop.
//!
//! `cargo run --release -p tabula-verify --example dominoes_posterior -- N H GAMES [SEED]`

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use tabula_solver::Seat;
use tabula_solver::dominoes::inference::{Knowledge, OpponentModel, Sample, Sampler};
use tabula_solver::dominoes::{Match, Move, Rules, Tile, Tiles, View};
use tabula_verify::agent::Agent;
use tabula_verify::arena;
use tabula_verify::dominoes::model::LadderModel;
use tabula_verify::dominoes::referee::CaseSetup;
use tabula_verify::dominoes::{self};
use tabula_verify::seat::{Clock, Local, Player};
use tabula_verify::tournament::{Purpose, stream};

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

/// `best`, kept for the case as `verify` keeps it, with the other hand open
/// to its seat: at each decision it scores the samplers against the true
/// hand, then hides the hand and lets `best` choose.
struct Probe {
    best: Box<dyn Agent<Match>>,
    know: Knowledge,
    server: Arc<dyn OpponentModel>,
    draws: ChaCha8Rng,
    tallies: [[Tally; 2]; 2],
    decisions: usize,
    uniform: f64,
}

impl Agent<Match> for Probe {
    fn name(&self) -> String {
        "best".into()
    }

    fn start_case(&mut self, rules: &Rules) {
        self.best.start_case(rules);
    }

    fn start_game(&mut self, seat: Seat, view: &View) {
        let mut view = view.clone();
        view.open_hand = None;
        self.know = Knowledge::new(view.rules);
        let opening = view.line.first().map(|&(a, b)| Tile::new(a, b));
        self.know.start(view.rules, opening);
        self.best.start_game(seat, &view);
    }

    fn choose(&mut self, view: &View) -> Move {
        let mut view = view.clone();
        let truth = view
            .open_hand
            .take()
            .expect("the other hand is open to this seat");
        self.know.update(&view).expect("the views follow the rules");
        if view.stock > 0 && !self.know.acts().is_empty() {
            self.decisions += 1;
            self.uniform += uniform_loss(&view);
            let samplers: [Sampler; 2] = [
                self.know.sampler_with(&view, self.server.clone()),
                self.know.sampler(&view, 0.0),
            ];
            for (sampler, row) in samplers.iter().zip(&mut self.tallies) {
                for (&size, tally) in SIZES.iter().zip(row.iter_mut()) {
                    let deals: Vec<Sample> =
                        (0..size).map(|_| sampler.sample(&mut self.draws)).collect();
                    let total: f64 = deals.iter().map(|d| d.weight).sum();
                    let squares: f64 = deals.iter().map(|d| d.weight * d.weight).sum();
                    let (loss, ruled_out) = score(&deals, truth, view.unseen());
                    tally.effective += total * total / squares;
                    tally.loss += loss;
                    tally.ruled_out += ruled_out;
                }
            }
        }
        self.best.choose(&view)
    }
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
    let setup = CaseSetup {
        seed,
        games: games as usize,
        paired: true,
        open_hand: [true, false],
    };
    let mut probe = Local(Probe {
        best: dominoes::agent("best", stream(seed, Purpose::Agent, 0, 0, 0)).unwrap(),
        know: Knowledge::new(rules),
        // The server's policy alone (each other component kept at 0.1%).
        server: Arc::new(
            LadderModel::default().with_priors(&[0.995, 0.001, 0.001, 0.001, 0.001, 0.001]),
        ),
        draws: stream(seed, Purpose::Agent, 1, 0, 0),
        tallies: Default::default(),
        decisions: 0,
        uniform: 0.0,
    });
    let mut opponent =
        Local(dominoes::agent("server", stream(seed, Purpose::Agent, 0, 0, 1)).unwrap());
    let mut players: [&mut dyn Player<Match>; 2] = [&mut probe, &mut opponent];
    let mut clocks = [Clock::default(), Clock::default()];
    // The referee's deals and draws, the other hand open to the probed player.
    let records = arena::play_case(&rules, setup.games, &mut players, &mut clocks, |game| {
        setup.start(rules, game)
    });
    let points: f64 = records
        .iter()
        .enumerate()
        .map(|(game, r)| r.outcome(CaseSetup::tested_seat(game)).points())
        .sum();
    let probe = &probe.0;
    let d = probe.decisions as f64;
    println!(
        "N={n} H={h}: {games} games, best's points per game {:.3}",
        points / games as f64
    );
    println!(
        "{} decisions with a stock; log-loss per unseen tile:",
        probe.decisions
    );
    println!("  uniform guess            {:.4}", probe.uniform / d);
    for (name, row) in [
        "placements weighed by the server's policy",
        "placements not weighed",
    ]
    .iter()
    .zip(&probe.tallies)
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
