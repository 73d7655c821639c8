//! The genetic algorithm that made the contest's opponents, as the statement
//! describes it, with what it leaves open decided and exposed as settings.
//!
//! A population of 100 strategies starts with weights U(−50, 50). Each
//! generation plays [`Settings::games`] games between players drawn uniformly
//! (distinct within a game, seated in the order drawn); places earn 4/1/0
//! points with three players and 9/4/1/0 with four, and players tied on pieces
//! share the points of the places they span. The next generation is bred by
//! drawing two parents independently with probability proportional to their
//! points (uniformly if nobody scored); each cell takes one parent's weight,
//! chosen by a fair coin, plus U(−0.5, 0.5).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use tabula_solver::reversi::board::MAX_CELLS;
use tabula_solver::reversi::{Board, Rule, Weights};

/// The size of a population.
pub const POPULATION: usize = 100;

/// What the statement leaves open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Board side.
    pub n: usize,
    /// Generations: a fixed count, or `None` to draw it from 50..=100 per population.
    pub generations: Option<usize>,
    /// Games played per generation.
    pub games: usize,
    /// The opponents' corner-case rule.
    pub rule: Rule,
}

impl Settings {
    /// The defaults for side `n`: 50..=100 generations drawn per population, 100 games each.
    pub fn new(n: usize) -> Settings {
        Settings {
            n,
            generations: None,
            games: 100,
            rule: Rule::default(),
        }
    }
}

/// Points for places 1, 2, ... with `players` players.
pub fn place_points(players: usize) -> &'static [f64] {
    if players == 3 {
        &[4.0, 1.0, 0.0]
    } else {
        &[9.0, 4.0, 1.0, 0.0]
    }
}

/// Plays one game between `strategies` (seat order) to the end.
pub fn play_out(n: usize, strategies: &[&Weights], rule: Rule) -> Board {
    let mut board = Board::start(n).expect("sides are checked before");
    while let Some(seat) = board.mover() {
        let mv = strategies[seat]
            .choose(&board, rule)
            .expect("the mover has a move");
        board.play(mv);
    }
    board
}

/// Each seat's points from a finished game, ties sharing their places' points.
pub fn game_points(board: &Board) -> Vec<f64> {
    let p = board.players();
    let points = place_points(p);
    let counts: Vec<u32> = (0..p).map(|s| board.pieces(s).count()).collect();
    (0..p)
        .map(|s| {
            let above = counts.iter().filter(|&&c| c > counts[s]).count();
            let level = counts.iter().filter(|&&c| c == counts[s]).count();
            points[above..above + level].iter().sum::<f64>() / level as f64
        })
        .collect()
}

fn random_weights(rng: &mut ChaCha8Rng) -> Weights {
    let mut w = Weights([0.0; MAX_CELLS]);
    for x in w.0.iter_mut() {
        *x = rng.random_range(-50.0..50.0);
    }
    w
}

fn pick(points: &[f64], total: f64, rng: &mut ChaCha8Rng) -> usize {
    if total <= 0.0 {
        return rng.random_range(0..points.len());
    }
    let mut x = rng.random::<f64>() * total;
    for (i, &p) in points.iter().enumerate() {
        if x < p {
            return i;
        }
        x -= p;
    }
    points.len() - 1
}

/// One generation: plays the games, then breeds the next population.
pub fn generation(
    population: &[Weights],
    settings: &Settings,
    rng: &mut ChaCha8Rng,
) -> Vec<Weights> {
    let p = Board::players_for(settings.n);
    // The seats are drawn in order, the games (which draw nothing) played in
    // parallel, and the points added in order: the same population on any
    // number of threads.
    let seatings: Vec<Vec<usize>> = (0..settings.games)
        .map(|_| {
            let mut seats: Vec<usize> = Vec::with_capacity(p);
            while seats.len() < p {
                let i = rng.random_range(0..population.len());
                if !seats.contains(&i) {
                    seats.push(i);
                }
            }
            seats
        })
        .collect();
    let ends: Vec<Board> = seatings
        .par_iter()
        .map(|seats| {
            let players: Vec<&Weights> = seats.iter().map(|&i| &population[i]).collect();
            play_out(settings.n, &players, settings.rule)
        })
        .collect();
    let mut points = vec![0.0; population.len()];
    for (seats, end) in seatings.iter().zip(&ends) {
        for (seat, got) in game_points(end).into_iter().enumerate() {
            points[seats[seat]] += got;
        }
    }
    let total: f64 = points.iter().sum();
    (0..population.len())
        .map(|_| {
            let (a, b) = (pick(&points, total, rng), pick(&points, total, rng));
            let mut child = Weights([0.0; MAX_CELLS]);
            for (cell, x) in child.0.iter_mut().enumerate() {
                let parent = if rng.random::<bool>() { a } else { b };
                *x = population[parent].0[cell] + rng.random_range(-0.5..0.5);
            }
            child
        })
        .collect()
}

/// A final population from a new random one; `progress(done, total)` counts generations.
pub fn evolve(
    settings: &Settings,
    rng: &mut ChaCha8Rng,
    progress: &dyn Fn(usize, usize),
) -> Vec<Weights> {
    let generations = settings
        .generations
        .unwrap_or_else(|| rng.random_range(50..=100));
    let mut population: Vec<Weights> = (0..POPULATION).map(|_| random_weights(rng)).collect();
    for g in 0..generations {
        population = generation(&population, settings, rng);
        progress(g + 1, generations);
    }
    population
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// FNV-1a over every weight's bits: a population's fingerprint.
    fn fingerprint(population: &[Weights]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for w in population {
            for x in w.0 {
                h = (h ^ x.to_bits()).wrapping_mul(0x100_0000_01b3);
            }
        }
        h
    }

    #[test]
    fn speed_ups_keep_the_populations_bit_for_bit() {
        // Fingerprints taken before the speed-ups (Board::can_move, flips without division, Squares::iter).
        let expected: [(usize, u64); 3] = [
            (7, 0x34c1_9e85_d07f_73a6),
            (8, 0xb93f_27c9_0114_e8be),
            (12, 0x90d5_34d5_9fc6_8063),
        ];
        let got: Vec<(usize, u64)> = expected
            .iter()
            .map(|&(n, _)| {
                let settings = Settings {
                    generations: Some(3),
                    games: 30,
                    ..Settings::new(n)
                };
                let population = evolve(&settings, &mut ChaCha8Rng::seed_from_u64(11), &|_, _| {});
                (n, fingerprint(&population))
            })
            .collect();
        assert_eq!(got, expected, "{got:#x?}");
    }

    #[test]
    fn places_share_points_on_ties() {
        let rows = [
            "1122...", "33.....", ".......", ".......", ".......", ".......", ".......",
        ];
        let board = Board::from_rows(&rows, 0).unwrap();
        // Everyone holds two: the 4 + 1 + 0 points are shared.
        assert_eq!(game_points(&board), vec![5.0 / 3.0; 3]);
        let rows = [
            "1112233.", "4.......", "........", "........", "........", "........", "........",
            "........",
        ];
        let board = Board::from_rows(&rows, 0).unwrap();
        assert_eq!(game_points(&board), vec![9.0, 2.5, 2.5, 0.0]);
    }

    #[test]
    fn evolution_is_reproducible_and_breeds_near_its_parents() {
        let settings = Settings {
            generations: Some(2),
            games: 10,
            ..Settings::new(7)
        };
        let run = |seed| evolve(&settings, &mut ChaCha8Rng::seed_from_u64(seed), &|_, _| {});
        let a = run(1);
        assert_eq!(a, run(1));
        assert_ne!(a, run(2));
        assert_eq!(a.len(), POPULATION);
    }

    #[test]
    fn children_take_each_cell_from_one_of_two_parents_plus_small_noise() {
        // Member i weighs every cell 2i − 100, so each child cell names its parent.
        let population: Vec<Weights> = (0..POPULATION)
            .map(|i| Weights([2.0 * i as f64 - 100.0; MAX_CELLS]))
            .collect();
        let settings = Settings {
            games: 20,
            ..Settings::new(7)
        };
        let children = generation(&population, &settings, &mut ChaCha8Rng::seed_from_u64(3));
        assert_eq!(children.len(), POPULATION);
        let (mut crossed, mut noisy) = (0, 0);
        for child in &children {
            let mut parents = Vec::new();
            for &x in &child.0[..49] {
                let parent = ((x + 100.0) / 2.0).round();
                let noise = x - (2.0 * parent - 100.0);
                assert!(noise.abs() < 0.5, "noise {noise}");
                noisy += usize::from(noise.abs() > 0.25);
                if !parents.contains(&parent) {
                    parents.push(parent);
                }
            }
            assert!(parents.len() <= 2, "a child of {parents:?}");
            crossed += usize::from(parents.len() == 2);
        }
        // A fair coin per cell mixes two distinct parents in most children.
        assert!(crossed > POPULATION / 2, "{crossed} crossed");
        assert!(
            noisy > POPULATION * 49 / 4,
            "{noisy} cells moved by more than 0.25"
        );
    }

    #[test]
    fn parents_are_drawn_in_proportion_to_their_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let points = [1.0, 3.0, 0.0, 6.0];
        let mut counts = [0usize; 4];
        for _ in 0..100_000 {
            counts[pick(&points, 10.0, &mut rng)] += 1;
        }
        assert_eq!(counts[2], 0, "a member without points was drawn");
        for (&count, p) in counts.iter().zip(points) {
            // Seven standard deviations of the share at these counts.
            assert!((count as f64 / 1e5 - p / 10.0).abs() < 0.01, "{counts:?}");
        }
        // Nobody scored: uniform.
        let mut counts = [0usize; 4];
        for _ in 0..100_000 {
            counts[pick(&[0.0; 4], 0.0, &mut rng)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (c as f64 / 1e5 - 0.25).abs() < 0.01),
            "{counts:?}"
        );
    }
}
