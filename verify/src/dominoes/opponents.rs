//! `server`: our stand-in for the TopCoder server, whose strategy is lost.
//!
//! The statement says the server "follows a deterministic and a learned
//! strategy to evaluate the positions of each possible move". So does this
//! one: for every legal placement it looks at the position after it, as its
//! seat sees it, and plays the one with the best linear evaluation
//! [`evaluate`]; the weights [`SHIPPED`] were learned offline by self-play
//! ([`super::train`]). A placement that wins at once (empty hand, or a blocked
//! line with fewer pips) is played before any other; one that loses a blocked
//! line at once is played last. Ties go to [`heavy_key`].

use tabula_solver::Seat;
use tabula_solver::dominoes::{Match, Move, Position, Side, Tile, Tiles, View};

use super::ladder::{Numbers, Reading, ends_after, heavy_key, number_bit, numbers_of};
use crate::agent::Agent;

/// The number of features of the evaluation.
pub const FEATURES: usize = 12;

/// The weights of the evaluation, one per feature.
pub type Weights = [f64; FEATURES];

/// The features' names, in order (see [`features_at`]).
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "own pips / 10",
    "own tiles that fit the new ends",
    "new ends it can answer (0-2)",
    "distinct numbers in hand",
    "doubles in hand",
    "unseen tiles that fit the new ends",
    "new ends the other seat cannot hold (0-2)",
    "new ends equal",
    "own pips / 10, stock empty",
    "unseen tiles that fit the new ends, stock empty",
    "own tiles that fit the new ends, stock empty",
    "the move blocks the line in a tie",
];

/// The shipped weights, printed by `tabula dominoes train` with its defaults
/// (`--seed 2009 --generations 30 --games 100`, see
/// [`super::train::TrainConfig::shipped`]; about 290 000 games, seconds on
/// two cores); a test checks that training reproduces them exactly.
pub const SHIPPED: Weights = [
    0.3484962587845912,  // own pips / 10
    -0.630018496278475,  // own tiles that fit the new ends
    1.417133002694085,   // new ends it can answer (0-2)
    -1.058203017205607,  // distinct numbers in hand
    -0.9900904003055431, // doubles in hand
    -1.3442156718201526, // unseen tiles that fit the new ends
    1.1687306270699098,  // new ends the other seat cannot hold (0-2)
    0.4216824097810549,  // new ends equal
    -0.3717903050404265, // own pips / 10, stock empty
    0.9908686403891447,  // unseen tiles that fit the new ends, stock empty
    1.0761297061096848,  // own tiles that fit the new ends, stock empty
    0.38455277279618905, // the move blocks the line in a tie
];

/// What a placement leads to, as the mover sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outlook {
    /// The mover wins at once.
    Win,
    /// The mover loses at once (a blocked line with more pips).
    Loss,
    /// The game goes on (or ends in a tie, feature 11): the features.
    Features([f64; FEATURES]),
}

/// The features of the position after `tile` is placed at `side`, the ends
/// before the move being `ends` and the stock empty if `late`.
///
/// `hand` is the mover's hand as a set, `unseen` the tiles it cannot see
/// (the other hand and the stock; with an empty stock exactly the other hand)
/// and `lacks` the numbers the other seat cannot hold ([`Reading::lacks`]).
pub fn features_at(
    ends: (u8, u8),
    late: bool,
    hand: Tiles,
    unseen: Tiles,
    lacks: Numbers,
    tile: Tile,
    side: Side,
) -> Outlook {
    let mut rest = hand;
    rest.remove(tile);
    if rest.is_empty() {
        return Outlook::Win;
    }
    let (l, r) = ends_after(ends, tile, side);
    let fitting = Tiles::matching(l, r);
    let own_fit = rest.and(fitting).len();
    let unseen_fit = unseen.and(fitting).len();
    let pips = rest.pips();
    let mut tie = 0.0;
    if late && unseen_fit == 0 && own_fit == 0 {
        // Nobody can place or draw: the line is blocked, the pips decide.
        match pips.cmp(&unseen.pips()) {
            std::cmp::Ordering::Less => return Outlook::Win,
            std::cmp::Ordering::Greater => return Outlook::Loss,
            std::cmp::Ordering::Equal => tie = 1.0,
        }
    }
    let answers = |n: u8| f64::from(u8::from(!rest.and(Tiles::suit(n)).is_empty()));
    let lacked = |n: u8| f64::from(u8::from(lacks & number_bit(n) != 0));
    let doubles = rest.iter().filter(|t| t.is_double()).count();
    let late_only = |x: f64| if late { x } else { 0.0 };
    Outlook::Features([
        f64::from(pips) / 10.0,
        f64::from(own_fit),
        answers(l) + answers(r),
        f64::from(numbers_of(rest).count_ones()),
        doubles as f64,
        f64::from(unseen_fit),
        lacked(l) + lacked(r),
        f64::from(u8::from(l == r)),
        late_only(f64::from(pips) / 10.0),
        late_only(f64::from(unseen_fit)),
        late_only(f64::from(own_fit)),
        tie,
    ])
}

/// The linear evaluation `weights · features`.
pub fn evaluate(weights: &Weights, features: &[f64; FEATURES]) -> f64 {
    weights.iter().zip(features).map(|(w, f)| w * f).sum()
}

/// The order of placements of the server: immediate wins, then the
/// evaluation, immediate losses last, ties by [`heavy_key`].
#[derive(Clone, Copy, Debug)]
struct Rank {
    class: u8,
    value: f64,
    heavy: (u32, u8, bool),
}

impl Rank {
    /// A placement's rank: an immediate win first, a loss last, else by its evaluation.
    fn of(outlook: Outlook, weights: &Weights, heavy: (u32, u8, bool)) -> Rank {
        let (class, value) = match outlook {
            Outlook::Win => (2, 0.0),
            Outlook::Loss => (0, 0.0),
            Outlook::Features(f) => (1, evaluate(weights, &f)),
        };
        Rank {
            class,
            value,
            heavy,
        }
    }
}

impl PartialEq for Rank {
    fn eq(&self, other: &Rank) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Rank {}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Rank) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rank {
    fn cmp(&self, other: &Rank) -> std::cmp::Ordering {
        self.class
            .cmp(&other.class)
            .then(self.value.total_cmp(&other.value))
            .then(self.heavy.cmp(&other.heavy))
    }
}

/// The server: a one-move look-ahead with a linear evaluation.
#[derive(Clone, Debug)]
pub struct Server {
    weights: Weights,
    reading: Reading,
}

impl Default for Server {
    fn default() -> Server {
        Server::new(SHIPPED)
    }
}

impl Server {
    /// A server evaluating with `weights`.
    pub fn new(weights: Weights) -> Server {
        Server {
            weights,
            reading: Reading::new(),
        }
    }

    /// Its weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }
}

/// The server's placement in a position with every tile's place known, as
/// the mover sees it: the other hand and the stock unseen, `missing` the
/// numbers it has read the other seat to lack; the draw or pass when no
/// tile fits. (Playouts use it as a model of the opponent.)
pub fn position_move(pos: &Position, weights: &Weights, missing: Numbers) -> Move {
    let m = usize::from(pos.mover);
    let hand = pos.hands[m];
    let unseen = pos.hands[1 - m].or(pos.stock);
    let lacks = missing | !numbers_of(unseen);
    let late = pos.stock.is_empty();
    let ends = (pos.left, pos.right);
    let mut best: Option<(Rank, Move)> = None;
    for &mv in pos.moves().iter() {
        let Move::Place(tile, side) = mv else {
            return mv;
        };
        let outlook = features_at(ends, late, hand, unseen, lacks, tile, side);
        let rank = Rank::of(outlook, weights, heavy_key(tile, side));
        if best.as_ref().is_none_or(|(b, _)| rank > *b) {
            best = Some((rank, mv));
        }
    }
    best.expect("a mover has a move").1
}

impl Agent<Match> for Server {
    fn name(&self) -> String {
        "server".into()
    }

    fn start_game(&mut self, _seat: Seat, view: &View) {
        self.reading.start_game(view);
    }

    fn choose(&mut self, view: &View) -> Move {
        let (ends, late, unseen) = (view.ends(), view.stock == 0, view.unseen());
        let weights = &self.weights;
        self.reading.choose(view, |hand, lacks, tile, side| {
            let outlook = features_at(ends, late, hand, unseen, lacks, tile, side);
            Rank::of(outlook, weights, heavy_key(tile, side))
        })
    }
}
