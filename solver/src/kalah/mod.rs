//! Kalah(m, n): m pits a side, n seeds in each pit at the start, a store each.
//!
//! Rules (Irving, Donkers and Uiterwijk, "Solving Kalah", ICGA Journal 23(3), 2000):
//! - The mover takes every seed of one of her non-empty pits and sows them one
//!   by one counterclockwise: her next pits, her own store, the opponent's pits,
//!   skipping the opponent's store, and around again.
//! - Last seed in her own store: she moves again.
//! - Last seed in one of her own pits that was empty: that seed and every seed
//!   of the opposite pit go to her store, even when the opposite pit is empty
//!   (the rule of Irving et al.; [`Capture::NonEmpty`] is the variant that
//!   captures only when the opposite pit holds seeds).
//! - End of the game ([`Ending::AfterAnyMove`], the default): as soon as, after
//!   a move, all the pits of one side are empty, the game ends and each player
//!   puts the seeds left on her own side into her own store.
//!   [`Ending::MoverStuck`] is the other common reading: the game ends only when
//!   the player to move has no seeds, and the opponent then takes the seeds on
//!   her own side.
//!
//! The value of a position is the mover's final store minus the opponent's,
//! counted from now on (seeds already in the stores do not change the play),
//! under optimal play of both sides.
//!
//! Positions are mover-relative: `pits[0..m]` are the mover's pits in sowing
//! order (pit `m - 1` is next to her store), `pits[m..2m]` the opponent's in her
//! sowing order. The mover's pit `p` faces the opponent's pit `m - 1 - p`.

use std::fmt;

use crate::game::{Determinize, Game, IllegalMove, Scores, Seat, Turn};
use crate::retrograde::{Edge, StateSpace};
use crate::{MoveList, ZeroSum};

mod endgame;
mod endgame_build;
mod search;
mod transposition;
pub use endgame::{Endgame, EndgameValues, OtherEndgame, Probed, check_endgame};
pub use endgame_build::solve_endgame_layer;
pub use search::{
    Bounds, CHECK_EVERY, Candidate, ExactSolver, Limits, Root, SearchOptions, SearchProgress,
    solve_position, start_value,
};

/// Most pits a side.
pub const MAX_PITS: usize = 6;
/// Most seeds a pit at the start.
pub const MAX_SEEDS: usize = 10;

/// Which last-seed captures happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Capture {
    /// Last seed in an own empty pit always captures (Irving et al.).
    #[default]
    Always,
    /// Only when the opposite pit holds seeds.
    NonEmpty,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ending {
    /// After any move that leaves one side's pits all empty; each side's seeds go to its owner.
    #[default]
    AfterAnyMove,
    /// When the player to move has no seeds; the opponent takes the seeds on her side.
    MoverStuck,
}

impl Capture {
    /// The rule's name as logs and reports spell it (`always`, `non-empty`).
    pub fn name(self) -> &'static str {
        match self {
            Capture::Always => "always",
            Capture::NonEmpty => "non-empty",
        }
    }

    /// The rule of that name.
    pub fn from_name(name: &str) -> Option<Capture> {
        named([Capture::Always, Capture::NonEmpty], name, Capture::name)
    }
}

impl Ending {
    /// The rule's name as `--ending` spells it (`after-any-move`, `mover-stuck`).
    pub fn name(self) -> &'static str {
        match self {
            Ending::AfterAnyMove => "after-any-move",
            Ending::MoverStuck => "mover-stuck",
        }
    }

    /// The rule of that name.
    pub fn from_name(name: &str) -> Option<Ending> {
        named(
            [Ending::AfterAnyMove, Ending::MoverStuck],
            name,
            Ending::name,
        )
    }
}

/// The rule of `all` that `name_of` calls `name`.
fn named<T: Copy>(all: [T; 2], name: &str, name_of: fn(T) -> &'static str) -> Option<T> {
    all.into_iter().find(|&rule| name_of(rule) == name)
}

/// The parameters of a Kalah game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Pits a side (m).
    pub pits: u8,
    /// Seeds a pit at the start (n).
    pub seeds: u8,
    /// The capture rule.
    pub capture: Capture,
    /// The end-of-game rule.
    pub ending: Ending,
}

/// Why rules or a move were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KalahError {
    /// Pits a side out of range.
    #[error("Kalah has 1 to {MAX_PITS} pits a side, not {0}")]
    Pits(u8),
    /// Seeds a pit out of range.
    #[error("Kalah has 1 to {MAX_SEEDS} seeds a pit, not {0}")]
    Seeds(u8),
    /// A move names no pit of the mover.
    #[error("'{0}' is not a pit label 1..{1}")]
    BadLabel(String, u8),
    /// A board's text is not two sides of seed counts split by one `/`.
    #[error("{0}")]
    BadSides(String),
}

impl Rules {
    /// Kalah(m, n) with the rules of Irving et al.; checked.
    pub fn new(pits: u8, seeds: u8) -> Result<Rules, KalahError> {
        if pits == 0 || usize::from(pits) > MAX_PITS {
            return Err(KalahError::Pits(pits));
        }
        if seeds == 0 || usize::from(seeds) > MAX_SEEDS {
            return Err(KalahError::Seeds(seeds));
        }
        Ok(Rules {
            pits,
            seeds,
            capture: Capture::Always,
            ending: Ending::AfterAnyMove,
        })
    }

    /// The same rules with another capture rule.
    pub fn with_capture(self, capture: Capture) -> Rules {
        Rules { capture, ..self }
    }

    /// The same rules with another end-of-game rule.
    pub fn with_ending(self, ending: Ending) -> Rules {
        Rules { ending, ..self }
    }

    /// All seeds of the game.
    pub fn total_seeds(&self) -> u32 {
        2 * u32::from(self.pits) * u32::from(self.seeds)
    }

    /// The starting position, first player to move.
    pub fn start(&self) -> Kalah {
        let mut pits = [0u8; 2 * MAX_PITS];
        for pit in pits.iter_mut().take(2 * usize::from(self.pits)) {
            *pit = self.seeds;
        }
        Kalah { rules: *self, pits }
    }
}

/// A pit of the mover, `0..m` (the label shown to people is one more).
pub type Pit = u8;

/// A Kalah position, seen from the player to move (stores left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kalah {
    rules: Rules,
    pits: [u8; 2 * MAX_PITS],
}

/// What one move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Sowing {
    /// Seeds put into the mover's store (the end-of-game sweep included).
    pub mover: u32,
    /// Seeds put into the opponent's store (only by the end-of-game sweep).
    pub opponent: u32,
    /// Whether the mover moves again.
    pub again: bool,
}

impl Kalah {
    /// A position from both sides' pits (mover's first, each in sowing order).
    pub fn from_pits(rules: Rules, mover: &[u8], opponent: &[u8]) -> Kalah {
        let m = usize::from(rules.pits);
        assert!(mover.len() == m && opponent.len() == m, "{m} pits a side");
        let mut pits = [0u8; 2 * MAX_PITS];
        pits[..m].copy_from_slice(mover);
        pits[m..2 * m].copy_from_slice(opponent);
        Kalah { rules, pits }
    }

    /// The rules.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Both sides' pits, the mover's first.
    pub fn pits(&self) -> &[u8] {
        &self.pits[..2 * usize::from(self.rules.pits)]
    }

    /// Seeds left on the board.
    pub fn seeds(&self) -> u32 {
        self.pits.iter().map(|&s| u32::from(s)).sum()
    }

    /// Seeds on a side: 0 the mover's, 1 the opponent's.
    pub fn side(&self, side: usize) -> u32 {
        let m = usize::from(self.rules.pits);
        self.pits[side * m..(side + 1) * m]
            .iter()
            .map(|&s| u32::from(s))
            .sum()
    }

    /// Whether the game is over: no seed on the board, or (under
    /// [`Ending::MoverStuck`]) none on the mover's side.
    pub fn is_finished(&self) -> bool {
        self.side(0) == 0
    }

    /// Whether play can reach this board: under [`Ending::AfterAnyMove`] a
    /// board with one side empty and seeds on the other cannot arise, since
    /// the move that emptied the side ended the game.
    pub fn arises(&self) -> bool {
        self.rules.ending == Ending::MoverStuck || (self.side(0) == 0) == (self.side(1) == 0)
    }

    /// Whether the mover may play `pit`.
    pub fn is_legal(&self, pit: Pit) -> bool {
        pit < self.rules.pits && self.pits[usize::from(pit)] > 0
    }

    /// The position with the sides swapped (the other player to move).
    pub fn flipped(&self) -> Kalah {
        let m = usize::from(self.rules.pits);
        let mut pits = [0u8; 2 * MAX_PITS];
        pits[..m].copy_from_slice(&self.pits[m..2 * m]);
        pits[m..2 * m].copy_from_slice(&self.pits[..m]);
        Kalah {
            rules: self.rules,
            pits,
        }
    }

    /// Plays `pit` (legal) for the mover without turning the board; returns the
    /// stores' gains and whether she moves again.
    pub fn sow(&mut self, pit: Pit) -> Sowing {
        let m = usize::from(self.rules.pits);
        let ring = 2 * m + 1;
        let from = usize::from(pit);
        let seeds = usize::from(self.pits[from]);
        debug_assert!(seeds > 0, "sowing from an empty pit");
        self.pits[from] = 0;
        // Whole laps first: every pit and the mover's store get one seed a lap.
        let (laps, rest) = (seeds / ring, seeds % ring);
        let mut result = Sowing {
            mover: laps as u32,
            ..Sowing::default()
        };
        if laps > 0 {
            for p in self.pits[..2 * m].iter_mut() {
                *p += laps as u8;
            }
        }
        // Ring position r: 0..m the mover's pits, m her store, m+1.. the opponent's pits.
        let mut at = from;
        for _ in 0..rest {
            at = if at + 1 == ring { 0 } else { at + 1 };
            match at.cmp(&m) {
                std::cmp::Ordering::Less => self.pits[at] += 1,
                std::cmp::Ordering::Equal => result.mover += 1,
                std::cmp::Ordering::Greater => self.pits[at - 1] += 1,
            }
        }
        if seeds > 0 && at == m {
            result.again = true;
        } else if at < m && self.pits[at] == 1 {
            let facing = 2 * m - 1 - at;
            if self.rules.capture == Capture::Always || self.pits[facing] > 0 {
                result.mover += 1 + u32::from(self.pits[facing]);
                self.pits[at] = 0;
                self.pits[facing] = 0;
            }
        }
        let (own, other) = (self.side(0), self.side(1));
        let ends = match self.rules.ending {
            Ending::AfterAnyMove => own == 0 || other == 0,
            // The next mover is stuck: the opponent, or the mover after another move.
            Ending::MoverStuck => {
                if result.again {
                    own == 0
                } else {
                    other == 0
                }
            }
        };
        if ends {
            result.mover += own;
            result.opponent += other;
            self.pits = [0; 2 * MAX_PITS];
            result.again = false;
        }
        result
    }

    /// The position after `pit` from the next mover's side, with the move's result.
    pub fn child(&self, pit: Pit) -> (Kalah, Sowing) {
        let mut next = *self;
        let sowing = next.sow(pit);
        if !sowing.again {
            next = next.flipped();
        }
        (next, sowing)
    }

    /// Dense index of the position in the [`KalahSpace`] of its rules.
    pub fn index(&self) -> u64 {
        rank(self.pits(), binomials())
    }
}

impl fmt::Display for Kalah {
    /// `mover pits / opponent pits`, each in sowing order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = usize::from(self.rules.pits);
        let side = |s: &[u8]| {
            s.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        write!(
            f,
            "{} / {}",
            side(&self.pits[..m]),
            side(&self.pits[m..2 * m])
        )
    }
}

/// Reads a board's two sides, `3 3 3 / 3 3 3`: seed counts, `rules.pits` a
/// side, split by one `/` (which side moves is the caller's to say).
pub fn parse_sides(text: &str, rules: &Rules) -> Result<[Vec<u8>; 2], KalahError> {
    let m = usize::from(rules.pits);
    let bad = |why: String| KalahError::BadSides(why);
    let (Some((a, b)), 1) = (text.split_once('/'), text.matches('/').count()) else {
        return Err(bad("give one side's pits, one '/', then the other's".into()));
    };
    let side = |t: &str| -> Result<Vec<u8>, KalahError> {
        let pits = t
            .split_whitespace()
            .map(|w| {
                w.parse::<u8>()
                    .map_err(|_| bad(format!("'{w}' is not a seed count")))
            })
            .collect::<Result<Vec<u8>, _>>()?;
        match pits.len() == m {
            true => Ok(pits),
            false => Err(bad(format!("a side has {m} pits, found {}", pits.len()))),
        }
    };
    Ok([side(a)?, side(b)?])
}

/// Parses a pit label `1..=m` into a pit.
pub fn parse_label(label: &str, rules: &Rules) -> Result<Pit, KalahError> {
    match label.trim().parse::<u8>() {
        Ok(n) if n >= 1 && n <= rules.pits => Ok(n - 1),
        _ => Err(KalahError::BadLabel(label.trim().to_string(), rules.pits)),
    }
}

impl ZeroSum for Kalah {
    type Move = Pit;
    type Moves = MoveList<Pit, MAX_PITS>;

    fn legal_moves(&self) -> Self::Moves {
        (0..self.rules.pits).filter(|&p| self.is_legal(p)).collect()
    }

    fn play(&mut self, pit: Pit) -> i32 {
        let (next, sowing) = self.child(pit);
        *self = next;
        sowing.mover as i32 - sowing.opponent as i32
    }

    fn keeps_turn(&self, pit: Pit) -> bool {
        self.child(pit).1.again
    }

    fn final_value(&self) -> i32 {
        // Only under MoverStuck can a position without moves hold seeds: the opponent's.
        -(self.side(1) as i32)
    }
}

/// A game of Kalah as the referee holds it: seat 0 moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Match {
    /// The board, seen from the seat to move.
    pub position: Kalah,
    /// The seat to move.
    pub mover: Seat,
    /// Seat 0's store and seat 1's.
    pub stores: [u32; 2],
}

impl Match {
    /// A game from the start of `rules`.
    pub fn new(rules: Rules) -> Match {
        Match {
            position: rules.start(),
            mover: 0,
            stores: [0, 0],
        }
    }

    /// Seat 0's store minus seat 1's.
    pub fn difference(&self) -> i32 {
        self.stores[0] as i32 - self.stores[1] as i32
    }
}

impl Game for Match {
    type Move = Pit;
    type Moves = MoveList<Pit, MAX_PITS>;
    type View = Match;
    type Observation = Pit;
    type Params = Rules;

    fn seats(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.position.legal_moves().is_empty() {
            Turn::Over
        } else {
            Turn::Seat(self.mover)
        }
    }

    fn moves(&self) -> Self::Moves {
        self.position.legal_moves()
    }

    fn apply(&mut self, pit: Pit) {
        let (next, sowing) = self.position.child(pit);
        self.stores[self.mover] += sowing.mover;
        self.stores[1 - self.mover] += sowing.opponent;
        if !sowing.again {
            self.mover = 1 - self.mover;
        }
        self.position = next;
        if self.position.legal_moves().is_empty() {
            // Under MoverStuck the opponent of a stuck mover takes her own seeds.
            let rest = self.position.side(1);
            self.stores[1 - self.mover] += rest;
            self.position.pits = [0; 2 * MAX_PITS];
        }
    }

    fn scores(&self) -> Scores {
        self.stores.iter().map(|&s| f64::from(s)).collect()
    }

    fn view(&self, _seat: Seat) -> Match {
        *self
    }

    fn observe(&self, pit: Pit, _seat: Seat) -> Pit {
        pit
    }

    fn view_moves(view: &Match) -> Self::Moves {
        view.position.legal_moves()
    }

    fn check_move(&self, pit: Pit) -> Result<(), IllegalMove> {
        if pit >= self.position.rules.pits {
            Err(IllegalMove(format!(
                "there is no pit {}",
                u32::from(pit) + 1
            )))
        } else if self.turn() == Turn::Over {
            Err(IllegalMove("the game is over".into()))
        } else if !self.position.is_legal(pit) {
            Err(IllegalMove(format!("pit {} is empty", pit + 1)))
        } else {
            Ok(())
        }
    }
}

/// Largest board a binomial table covers: 2 × [`MAX_PITS`] pits, seeds up to 2 × 6 × 10.
const BINOM_N: usize = 2 * MAX_PITS * MAX_SEEDS + 2 * MAX_PITS + 1;
const BINOM_K: usize = 2 * MAX_PITS + 1;

/// `C(n, k)` for `n < BINOM_N`, `k < BINOM_K` (saturating, never needed that large).
type Binomials = [[u64; BINOM_K]; BINOM_N];

const fn binomial_table() -> Binomials {
    let mut t = [[0u64; BINOM_K]; BINOM_N];
    let mut n = 0;
    while n < BINOM_N {
        t[n][0] = 1;
        let mut k = 1;
        while k < BINOM_K {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1].saturating_add(t[n - 1][k])
            };
            k += 1;
        }
        n += 1;
    }
    t
}

static BINOMIALS: Binomials = binomial_table();

fn binomials() -> &'static Binomials {
    &BINOMIALS
}

/// Index of a board of `pits.len()` pits: all boards with fewer seeds come
/// first, then colex rank of the bar positions within its seed count.
fn rank(pits: &[u8], c: &Binomials) -> u64 {
    let k = pits.len();
    let total: usize = pits.iter().map(|&s| usize::from(s)).sum();
    // Boards of k pits with fewer seeds: C(total - 1 + k, k).
    let mut index = if total == 0 { 0 } else { c[total - 1 + k][k] };
    let mut bar = 0usize;
    for (j, &s) in pits[..k - 1].iter().enumerate() {
        bar += usize::from(s);
        index += c[bar + j][j + 1];
    }
    index
}

/// The board of `k` pits with index `index` (inverse of [`rank`]).
fn unrank(mut index: u64, k: usize, c: &Binomials, out: &mut [u8]) {
    // The seed count: the largest total with C(total - 1 + k, k) <= index.
    let mut total = 0usize;
    while c[total + k][k] <= index {
        total += 1;
    }
    if total > 0 {
        index -= c[total - 1 + k][k];
    }
    // Bars b_0 < ... < b_{k-2} in 0..total+k-1, ranked by sum of C(b_j, j+1).
    let mut upper = total + k - 1;
    let mut next = total + k - 1;
    for j in (0..k - 1).rev() {
        let mut b = upper - 1;
        while c[b][j + 1] > index {
            b -= 1;
        }
        index -= c[b][j + 1];
        out[j + 1] = (next - b - 1) as u8;
        next = b;
        upper = b;
    }
    out[0] = next as u8;
}

/// Every board of a Kalah game with at most its seeds, as a [`StateSpace`]
/// layered by seeds on the board (layer ranges are contiguous).
#[derive(Clone, Copy, Debug)]
pub struct KalahSpace {
    rules: Rules,
    /// The most seeds a board of the space holds in its pits.
    max_seeds: u32,
}

impl KalahSpace {
    /// The space of `rules`.
    pub fn new(rules: Rules) -> KalahSpace {
        KalahSpace::endgame(rules, rules.total_seeds())
    }

    /// Every board of `rules`' pits with at most `max_seeds` seeds, whatever
    /// the seeds a pit at the start: an endgame table's space. A board's index
    /// is the same in every space of its pit count (seeds first, then colex),
    /// and its value does not depend on `rules.seeds`.
    pub fn endgame(rules: Rules, max_seeds: u32) -> KalahSpace {
        KalahSpace { rules, max_seeds }
    }

    /// The most seeds a board of the space holds.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// The rules of the space's positions.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Boards of `pits` pits a side with at most `max_seeds` seeds:
    /// `C(max_seeds + 2 pits, 2 pits)`, or `None` beyond what the index covers.
    pub fn boards_up_to(pits: u8, max_seeds: u32) -> Option<u64> {
        let k = 2 * usize::from(pits);
        let n = max_seeds as usize + k;
        (n < BINOM_N && k < BINOM_K).then(|| binomials()[n][k])
    }

    /// The position of `index`.
    pub fn position(&self, index: u64) -> Kalah {
        let m = usize::from(self.rules.pits);
        let mut pits = [0u8; 2 * MAX_PITS];
        unrank(index, 2 * m, binomials(), &mut pits);
        Kalah {
            rules: self.rules,
            pits,
        }
    }

    fn boards_below(&self, seeds: u32) -> u64 {
        let k = 2 * usize::from(self.rules.pits);
        if seeds == 0 {
            0
        } else {
            binomials()[seeds as usize - 1 + k][k]
        }
    }
}

impl StateSpace for KalahSpace {
    fn len(&self) -> u64 {
        self.boards_below(self.max_seeds + 1)
    }

    fn num_layers(&self) -> usize {
        self.max_seeds as usize + 1
    }

    fn layer(&self, index: u64) -> usize {
        // The seed count alone, as `unrank` finds it first: `tabula check` asks
        // this of every child, and the whole board cost most of the check.
        let k = 2 * usize::from(self.rules.pits);
        let c = binomials();
        let mut seeds = 0;
        while c[seeds + k][k] <= index {
            seeds += 1;
        }
        seeds
    }

    fn layer_range(&self, layer: usize) -> Option<std::ops::Range<u64>> {
        let s = layer as u32;
        Some(self.boards_below(s)..self.boards_below(s + 1))
    }

    /// Under [`Ending::AfterAnyMove`] a board with one side empty and seeds on
    /// the other never arises.
    fn is_state(&self, index: u64) -> bool {
        self.position(index).arises()
    }

    fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
        let position = self.position(index);
        for pit in 0..self.rules.pits {
            if position.is_legal(pit) {
                let (child, sowing) = position.child(pit);
                visit(Edge {
                    slot: pit,
                    reward: sowing.mover as i32 - sowing.opponent as i32,
                    child: child.index(),
                    keeps_turn: sowing.again,
                });
            }
        }
    }

    fn terminal_value(&self, index: u64) -> i32 {
        self.position(index).final_value()
    }
}

/// Perfect information: the view is the whole state.
impl Determinize for Match {
    fn sample(view: &Match, _seat: Seat, _rng: &mut impl rand::Rng) -> Match {
        *view
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::search::memo_negamax;

    fn rules(m: u8, n: u8) -> Rules {
        Rules::new(m, n).unwrap()
    }

    #[test]
    fn a_board_reads_as_two_sides_of_m_seed_counts() {
        let rules = Rules::new(3, 3).unwrap();
        assert_eq!(
            parse_sides(" 0 5 5 /5 5 4 ", &rules).unwrap(),
            [vec![0, 5, 5], vec![5, 5, 4]]
        );
        for (text, problem) in [
            ("3 3 3 3 3 3", "one '/'"),
            ("3 3 3 / 3 3 3 / 3", "one '/'"),
            ("3 3 / 3 3 3", "a side has 3 pits, found 2"),
            ("3 3 x / 3 3 3", "'x' is not a seed count"),
            ("3 3 3 / 3 3 -1", "'-1' is not a seed count"),
        ] {
            let error = parse_sides(text, &rules).unwrap_err().to_string();
            assert!(error.contains(problem), "{text}: {error}");
        }
    }

    #[test]
    fn rule_names_round_trip() {
        for capture in [Capture::Always, Capture::NonEmpty] {
            assert_eq!(Capture::from_name(capture.name()), Some(capture));
        }
        for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
            assert_eq!(Ending::from_name(ending.name()), Some(ending));
        }
        assert_eq!(Capture::from_name("sometimes"), None);
        assert_eq!(Ending::from_name("never"), None);
    }

    #[test]
    fn sowing_skips_the_opponents_store_and_keeps_the_turn_in_ones_own() {
        let r = rules(3, 3);
        // Last seed in the store: another move.
        let mut p = Kalah::from_pits(r, &[3, 3, 3], &[3, 3, 3]);
        let s = p.sow(0);
        assert_eq!((s.mover, s.again), (1, true));
        assert_eq!(p.pits(), &[0, 4, 4, 3, 3, 3]);
        // 9 seeds from pit 1 (of 3): one lap of 7 (pit 1 included), then own 2 and own 3.
        let mut p = Kalah::from_pits(r, &[9, 0, 0], &[1, 1, 1]);
        let s = p.sow(0);
        assert_eq!((s.mover, s.again), (1, false));
        assert_eq!(p.pits(), &[1, 2, 2, 2, 2, 2]);
    }

    #[test]
    fn capture_even_from_an_empty_opposite_pit_unless_the_variant() {
        let r = rules(3, 3);
        // Pit 1 sows one seed into empty pit 2, facing the opponent's pit 2 (index 4).
        let p = Kalah::from_pits(r, &[1, 0, 2], &[1, 5, 1]);
        let (child, s) = p.child(0);
        assert_eq!((s.mover, s.opponent, s.again), (6, 0, false));
        assert_eq!(child.pits(), &[1, 0, 1, 0, 0, 2]);
        // The opposite pit empty: Irving et al. capture the one seed...
        let p = Kalah::from_pits(r, &[1, 0, 2], &[1, 0, 1]);
        let (child, s) = p.child(0);
        assert_eq!(s.mover, 1);
        assert_eq!(child.pits(), &[1, 0, 1, 0, 0, 2]);
        // ...the variant leaves it.
        let p = Kalah::from_pits(r.with_capture(Capture::NonEmpty), &[1, 0, 2], &[1, 0, 1]);
        let (child, s) = p.child(0);
        assert_eq!(s.mover, 0);
        assert_eq!(child.pits(), &[1, 0, 1, 0, 1, 2]);
    }

    #[test]
    fn a_side_left_empty_ends_the_game() {
        let r = rules(2, 1);
        // The mover's last seed goes to her store and her side is empty: the
        // opponent keeps her 3, under the default rule, at once.
        let p = Kalah::from_pits(r, &[0, 1], &[2, 1]);
        let (child, s) = p.child(1);
        assert_eq!((s.mover, s.opponent, s.again), (1, 3, false));
        assert!(child.pits().iter().all(|&x| x == 0));
        // Under MoverStuck the same: the mover moves again but has no seeds.
        let p = Kalah::from_pits(r.with_ending(Ending::MoverStuck), &[0, 1], &[2, 1]);
        let (_, s) = p.child(1);
        assert_eq!((s.mover, s.opponent), (1, 3));
        // Emptying one's side without keeping the turn: MoverStuck plays on.
        let p = Kalah::from_pits(r.with_ending(Ending::MoverStuck), &[0, 2], &[2, 1]);
        let (child, s) = p.child(1);
        assert_eq!((s.mover, s.opponent, s.again), (1, 0, false));
        assert_eq!(child.pits(), &[3, 1, 0, 0]);
    }

    #[test]
    fn rank_and_unrank_are_inverse_and_dense() {
        let r = rules(2, 2);
        let space = KalahSpace::new(r);
        for index in 0..space.len() {
            let p = space.position(index);
            assert_eq!(p.index(), index);
            assert!(p.seeds() <= 8);
            assert_eq!(space.layer(index), p.seeds() as usize);
            let range = space.layer_range(space.layer(index)).unwrap();
            assert!(range.contains(&index));
        }
        assert_eq!(space.len(), 495); // C(12, 4): boards of 4 pits with at most 8 seeds.
        // The start maps back to itself and sits in the top layer (all 8 seeds).
        let start = r.start().index();
        assert_eq!(space.position(start), r.start());
        assert_eq!(space.layer(start), 8);
        assert!(space.layer_range(8).unwrap().contains(&start));
    }

    /// The published first-player results of Irving et al. for m <= 3.
    const PUBLISHED: [(u8, &str); 3] = [(1, "DLWLWD"), (2, "WLLLWW"), (3, "DWWWWL")];

    fn outcome(v: i32) -> char {
        match v.signum() {
            1 => 'W',
            0 => 'D',
            _ => 'L',
        }
    }

    #[test]
    fn alpha_beta_matches_a_hashmap_negamax_on_small_games() {
        for m in 1..=2u8 {
            for n in 1..=4u8 {
                for capture in [Capture::Always, Capture::NonEmpty] {
                    for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
                        let r = rules(m, n).with_capture(capture).with_ending(ending);
                        let mut memo = HashMap::new();
                        let start = r.start();
                        let expected = memo_negamax(&start, &mut memo);
                        assert_eq!(solve_position(&start, 12).0, expected, "{r:?}");
                        // Also from every position the plain search met, each
                        // afresh and all through one kept (small, so colliding) table.
                        let mut kept = ExactSolver::new(6);
                        for (position, &value) in &memo {
                            assert_eq!(solve_position(position, 10).0, value, "{position}");
                            assert_eq!(kept.value(position), value, "{position}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn published_results_for_one_to_three_pits() {
        for (m, expected) in PUBLISHED {
            let got: String = (1..=6)
                .map(|n| outcome(start_value(&rules(m, n), 20)))
                .collect();
            assert_eq!(got, expected, "Kalah({m}, 1..6)");
        }
    }

    /// Margins from the start with the standard capture (only from a
    /// non-empty opposite pit), as listed by an independent public solver
    /// (cneisler/mancala-solver's README, same end rule).
    #[test]
    fn margins_with_the_standard_capture_match_an_independent_solver() {
        for (m, n, margin) in [
            (4, 3, 6),
            (4, 4, 2),
            (5, 2, 2),
            (5, 3, 6),
            (6, 2, 6),
            (6, 3, 2),
        ] {
            let r = rules(m, n).with_capture(Capture::NonEmpty);
            assert_eq!(start_value(&r, 22), margin, "Kalah({m}, {n})");
        }
    }

    #[test]
    fn the_retrograde_table_matches_the_search() {
        for (m, n) in [(1, 4), (2, 3), (3, 2)] {
            for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
                let r = rules(m, n).with_ending(ending);
                let space = KalahSpace::new(r);
                let solution = crate::retrograde::solve(&space, false, &|_| {}).unwrap();
                let mut memo = HashMap::new();
                for index in (0..space.len()).step_by(7) {
                    if space.is_state(index) {
                        let p = space.position(index);
                        let v = memo_negamax(&p, &mut memo);
                        assert_eq!(i32::from(solution.values[index as usize]), v, "{p}");
                    }
                }
                let start = r.start().index() as usize;
                assert_eq!(
                    i32::from(solution.values[start]),
                    start_value(&r, 16),
                    "{r:?}"
                );
            }
        }
    }

    #[test]
    fn records_solved_in_place_equal_the_in_memory_solution() {
        for (m, n) in [(2, 3), (3, 2)] {
            for capture in [Capture::Always, Capture::NonEmpty] {
                let r = rules(m, n).with_capture(capture);
                let space = KalahSpace::new(r);
                let solution = crate::retrograde::solve(&space, true, &|_| {}).unwrap();
                let records = crate::retrograde::tests::records_of(&space, 1).unwrap();
                let expected = crate::retrograde::tests::encoded(&solution, 1);
                assert_eq!(records, expected, "{r:?}");
            }
        }
    }

    #[test]
    fn a_group_solves_the_records_one_process_solves() {
        use crate::distributed::tests::group_records_of;
        for capture in [Capture::Always, Capture::NonEmpty] {
            let space = KalahSpace::new(rules(3, 2).with_capture(capture));
            let alone = crate::retrograde::tests::records_of(&space, 1).unwrap();
            for (members, block) in [(2, space.layer_chunk()), (3, 97)] {
                let solved = group_records_of(&space, members, block, 1, 1000);
                assert_eq!(
                    solved, alone,
                    "{capture:?}, {members} members, blocks of {block}"
                );
            }
        }
    }

    #[test]
    fn a_match_keeps_the_stores() {
        let mut game = Match::new(rules(3, 3));
        Game::apply(&mut game, 0);
        // Last seed in the store: seat 0 again.
        assert_eq!(game.turn(), Turn::Seat(0));
        assert_eq!(game.stores, [1, 0]);
        assert!(game.check_move(0).is_err());
        while let Turn::Seat(_) = game.turn() {
            let mv = game.moves()[0];
            Game::apply(&mut game, mv);
        }
        assert_eq!(game.stores[0] + game.stores[1], 18);
    }
}
