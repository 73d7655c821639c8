//! Learning `server`'s weights offline by self-play, and paired matches.
//!
//! The method is a seeded cross-entropy method over the weights. Each
//! generation samples a population around the current mean (candidate 0 is
//! the mean itself), scores every candidate over the same fresh paired deals
//! against `heaviest`, `blocker` and the current mean (self-play), and moves
//! the mean to the average of the best candidates. Every random number comes
//! from a named stream ([`stream`]) and the normal samples are sums of
//! uniforms (no transcendental functions), so a seed gives the same weights
//! bit for bit on every machine and thread count.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::dominoes::{Deal, Match, Rules};

use super::ladder::{Blocker, Heaviest};
use super::opponents::{FEATURES, Server, Weights};
use crate::agent::Agent;
use crate::arena::play_game;
use crate::seat::{Clock, Local, Player};
use crate::stats::Mean;
use crate::tournament::{Progress, Purpose, run, stream};

/// Builds an agent from its random stream.
pub type Maker<'a> = &'a (dyn Fn(ChaCha8Rng) -> Box<dyn Agent<Match>> + Sync);

/// The deal numbered `index` of round `round`: the case cycles through the
/// 20 cases ([`Rules::all`]), and the deal is drawn from the chance stream
/// (seed, chance, round, index, 0), whose continuation is returned for the
/// draws from the stock.
pub fn deal(seed: u64, round: u64, index: usize) -> (Deal, ChaCha8Rng) {
    let rules = Rules::all().nth(index % 20).expect("twenty cases");
    let mut chance = stream(seed, Purpose::Chance, round, index as u64, 0);
    let deal = Deal::random(rules, &mut chance);
    (deal, chance)
}

/// `a`'s results over one deal played twice, `a` holding each hand once.
///
/// Both games draw from the same continuation of the deal's chance stream.
/// Agent streams: (seed, agent, round, 2 × index + rotation, seat).
pub fn play_pair(a: Maker, b: Maker, seed: u64, round: u64, index: usize) -> [f64; 2] {
    let (deal, chance) = deal(seed, round, index);
    [0, 1].map(|rotation| {
        // Rotation 0: `a` in seat 0 (the deal's first hand); rotation 1: seat 1.
        let a_seat = rotation;
        let agent_game = 2 * index as u64 + rotation as u64;
        let rng = |seat: usize| stream(seed, Purpose::Agent, round, agent_game, seat as u64);
        let mut pa = Local(a(rng(a_seat)));
        let mut pb = Local(b(rng(1 - a_seat)));
        let mut clocks = vec![Clock::default(); 2];
        let start = Match::new(&deal);
        let rules = start.rules();
        let mut players: Vec<&mut dyn Player<Match>> = vec![&mut pa, &mut pb];
        for (p, player) in players.iter_mut().enumerate() {
            // In-process agents cannot fail.
            let _ = player.start_case(&rules, &mut clocks[p]);
        }
        let seating = if a_seat == 0 { [0, 1] } else { [1, 0] };
        let record = play_game(
            start,
            &mut players,
            &seating,
            &mut clocks,
            &mut chance.clone(),
        );
        assert!(record.fault.is_none(), "in-process agents play legally");
        record.scores[a_seat]
    })
}

/// The results of a paired match, from the first player's side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Games played (twice the deals).
    pub games: usize,
    /// Games won.
    pub wins: usize,
    /// Games tied.
    pub ties: usize,
    /// Games lost.
    pub losses: usize,
    /// Points per game over the deals, each deal's two games as one sample,
    /// with its 95% interval.
    pub per_deal: Mean,
}

impl Paired {
    /// Wins plus half the ties.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.ties as f64 / 2.0
    }

    /// Points per game.
    pub fn score(&self) -> f64 {
        self.points() / self.games as f64
    }
}

/// `a` against `b` over `deals` paired deals of round `round` (see [`play_pair`]), in parallel.
pub fn paired_match(
    a: Maker,
    b: Maker,
    deals: usize,
    seed: u64,
    round: u64,
    progress: Progress<'_>,
) -> Paired {
    let results = run(deals, progress, |i| play_pair(a, b, seed, round, i));
    let per_deal: Vec<f64> = results.iter().map(|[x, y]| (x + y) / 2.0).collect();
    let mut paired = Paired {
        games: 0,
        wins: 0,
        ties: 0,
        losses: 0,
        per_deal: Mean::of(&per_deal),
    };
    for score in results.into_iter().flatten() {
        paired.games += 1;
        match score {
            s if s > 0.75 => paired.wins += 1,
            s if s > 0.25 => paired.ties += 1,
            _ => paired.losses += 1,
        }
    }
    paired
}

/// The settings of a training run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TrainConfig {
    /// The seed of every stream.
    pub seed: u64,
    /// Generations of the cross-entropy method.
    pub generations: usize,
    /// Candidates per generation (the mean and `population - 1` samples).
    pub population: usize,
    /// Candidates kept to make the next mean.
    pub elite: usize,
    /// Paired deals per candidate and opponent in each generation.
    pub deals: usize,
}

impl TrainConfig {
    /// The run that made [`super::opponents::SHIPPED`]: `tabula dominoes train` with its defaults.
    pub const fn shipped() -> TrainConfig {
        TrainConfig {
            seed: 2009,
            generations: 30,
            population: 16,
            elite: 4,
            deals: 100,
        }
    }

    /// The games one generation plays.
    pub fn games_per_generation(&self) -> usize {
        self.population * OPPONENTS * self.deals * 2
    }

    /// The games the whole run plays.
    pub fn games(&self) -> usize {
        self.generations * self.games_per_generation()
    }
}

/// The opponents of every candidate: heaviest, blocker and the current mean.
const OPPONENTS: usize = 3;

/// The spread of the first generation, per weight.
const INITIAL_SIGMA: f64 = 1.0;

/// The smallest spread, so that the search never freezes.
const MIN_SIGMA: f64 = 0.05;

/// How much of the old spread a generation keeps.
const SIGMA_MEMORY: f64 = 0.3;

/// One generation of a training run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Generation {
    /// Its number, from 0.
    pub index: usize,
    /// The mean it sampled around.
    pub mean: Weights,
    /// The mean's score (points per game) against the three opponents.
    pub mean_score: f64,
    /// The best candidate's score.
    pub best_score: f64,
}

/// The result of a training run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trained {
    /// The final mean: the weights to ship.
    pub weights: Weights,
    /// Every generation, in order.
    pub history: Vec<Generation>,
}

/// An approximately standard normal sample: the sum of 12 uniforms, minus 6.
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    (0..12).map(|_| rng.random::<f64>()).sum::<f64>() - 6.0
}

/// Learns the weights of `server` (see the module's comment).
///
/// `progress` counts games; `on_generation` sees each generation as it ends.
pub fn train(
    config: &TrainConfig,
    progress: Progress<'_>,
    on_generation: &mut dyn FnMut(&Generation),
) -> Trained {
    assert!(config.population >= 2 && (1..=config.population).contains(&config.elite));
    let mut mean: Weights = [0.0; FEATURES];
    let mut sigma: Weights = [INITIAL_SIGMA; FEATURES];
    let mut history = Vec::with_capacity(config.generations);
    let per_generation = config.games_per_generation();
    for generation in 0..config.generations {
        let candidates: Vec<Weights> = (0..config.population)
            .map(|c| {
                if c == 0 {
                    return mean;
                }
                let mut rng = stream(config.seed, Purpose::Setup, generation as u64, c as u64, 0);
                std::array::from_fn(|i| mean[i] + sigma[i] * normal(&mut rng))
            })
            .collect();
        let incumbent = mean;
        let jobs = config.population * OPPONENTS * config.deals;
        let done = per_generation / 2 * generation;
        let counted = |n: usize| progress(2 * (done + n));
        let scores = run(jobs, &counted, |j| {
            let (c, rest) = (
                j / (OPPONENTS * config.deals),
                j % (OPPONENTS * config.deals),
            );
            let (opponent, index) = (rest / config.deals, rest % config.deals);
            let weights = candidates[c];
            let me = move |_: ChaCha8Rng| Box::new(Server::new(weights)) as Box<dyn Agent<Match>>;
            let other = move |_: ChaCha8Rng| -> Box<dyn Agent<Match>> {
                match opponent {
                    0 => Box::new(Heaviest),
                    1 => Box::new(Blocker::new()),
                    _ => Box::new(Server::new(incumbent)),
                }
            };
            let [x, y] = play_pair(&me, &other, config.seed, generation as u64, index);
            x + y
        });
        let per_candidate = OPPONENTS * config.deals;
        let fitness: Vec<f64> = scores
            .chunks(per_candidate)
            .map(|c| c.iter().sum::<f64>() / (2 * per_candidate) as f64)
            .collect();
        let mut order: Vec<usize> = (0..config.population).collect();
        // Stable: equal scores keep the lower index first.
        order.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]));
        let elite = &order[..config.elite];
        let report = Generation {
            index: generation,
            mean,
            mean_score: fitness[0],
            best_score: fitness[order[0]],
        };
        for i in 0..FEATURES {
            let k = config.elite as f64;
            let m = elite.iter().map(|&c| candidates[c][i]).sum::<f64>() / k;
            let var = elite
                .iter()
                .map(|&c| (candidates[c][i] - m) * (candidates[c][i] - m))
                .sum::<f64>()
                / k;
            mean[i] = m;
            sigma[i] = (SIGMA_MEMORY * sigma[i] + (1.0 - SIGMA_MEMORY) * var.sqrt()).max(MIN_SIGMA);
        }
        on_generation(&report);
        history.push(report);
    }
    Trained {
        weights: mean,
        history,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominoes::agent;
    use crate::dominoes::opponents::SHIPPED;

    fn small(seed: u64) -> TrainConfig {
        TrainConfig {
            seed,
            generations: 5,
            population: 8,
            elite: 2,
            deals: 40,
        }
    }

    fn quiet(config: &TrainConfig) -> Trained {
        train(config, &|_| {}, &mut |_| {})
    }

    #[test]
    fn training_is_reproducible_from_its_seed() {
        let a = quiet(&small(5));
        assert_eq!(a, quiet(&small(5)));
        assert_eq!(a.history.len(), 5);
        assert_ne!(a.weights, quiet(&small(6)).weights);
    }

    #[test]
    fn a_small_training_beats_random_weights() {
        let trained = quiet(&small(5)).weights;
        let mut rng = stream(99, Purpose::Setup, 0, 0, 0);
        let random: Weights = std::array::from_fn(|_| normal(&mut rng));
        let a = move |_| Box::new(Server::new(trained)) as Box<dyn Agent<Match>>;
        let b = move |_| Box::new(Server::new(random)) as Box<dyn Agent<Match>>;
        let result = paired_match(&a, &b, 4000, 8, 0, &|_| {});
        let score = result.per_deal;
        assert!(score.mean - score.ci95 > 0.5, "{score:?}");
    }

    /// `tabula dominoes train` with its defaults (a few seconds in the optimised test profile).
    #[test]
    fn the_shipped_weights_are_what_the_default_training_makes() {
        assert_eq!(quiet(&TrainConfig::shipped()).weights, SHIPPED);
    }

    fn versus(a: &str, b: &str, deals: usize) -> Paired {
        let ma = |rng| agent(a, rng).expect("registered");
        let mb = |rng| agent(b, rng).expect("registered");
        paired_match(&ma, &mb, deals, 2026, 0, &|_| {})
    }

    /// The ladder's order over fixed paired deals, by more than the 95%
    /// interval. `heaviest` is barely better than `random` (about 0.503), so
    /// that pairing needs many deals: 200 000 (400 000 games).
    #[test]
    fn server_beats_blocker_and_heaviest_and_heaviest_beats_random() {
        for (a, b, deals) in [
            ("server", "blocker", 20_000),
            ("server", "heaviest", 20_000),
            ("blocker", "heaviest", 20_000),
            ("heaviest", "random", 200_000),
        ] {
            let score = versus(a, b, deals).per_deal;
            assert!(score.mean - score.ci95 > 0.5, "{a} against {b}: {score:?}");
        }
    }
}
