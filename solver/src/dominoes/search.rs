//! Searches on [`Position`]: an exact solver once the stock is empty, and an
//! expectimax over draws while it is not.
//!
//! - [`Endgame`]: with the stock empty the game is a two-player game of
//!   perfect information (a pass is a move). Negamax alpha-beta through the
//!   shared [`crate::alphabeta`] search, values win 1 / tie 0 / loss -1 for
//!   the mover, with a table keyed by (mover's hand, other hand, ends with
//!   `(l, r)` ≡ `(r, l)`): the value does not depend on which seat moves.
//! - [`evaluate_moves`]: both hands known, the stock a set; a draw hands the
//!   drawer each stock tile with equal probability. Expectimax (max/min at
//!   placements, the mean at draws) with alpha-beta at placements and
//!   Ballard's Star1 bounds at draws, a transposition table ([`Table`]),
//!   iterative deepening under a node [`Budget`], the exact [`Endgame`] as
//!   soon as the stock is empty (and the hands hold at most
//!   [`ENDGAME_TILES`]) and the cheap [`horizon_value`] at the horizon. Values are the mover's expected score (win 1, tie ½, loss 0).
//!
//! Tables store moves as "tile on the end showing number x" rather than a
//! side, so a move read back is right for either orientation of the ends.

use std::time::Instant;

use bytemuck::Zeroable;

use super::position::{Position, PositionMoves};
use super::rules::{Move, Side};
use super::tiles::{Tile, Tiles};
use crate::alphabeta::{AlwaysReplace, Bound, EXACT, Searchable, Searcher, TableKey};
use crate::game::MoveList;

/// The result of a game with the stock empty, for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// The mover loses (score 0).
    Loss,
    /// Equal pips when blocked (score ½).
    Tie,
    /// The mover wins (score 1).
    Win,
}

impl Outcome {
    /// The contest's score: 1, ½ or 0.
    pub fn score(self) -> f64 {
        match self {
            Outcome::Loss => 0.0,
            Outcome::Tie => 0.5,
            Outcome::Win => 1.0,
        }
    }

    /// The negamax value: 1, 0 or -1.
    pub fn value(self) -> i32 {
        match self {
            Outcome::Loss => -1,
            Outcome::Tie => 0,
            Outcome::Win => 1,
        }
    }

    /// The outcome of a negamax value (its sign).
    pub fn of_value(value: i32) -> Outcome {
        match value.signum() {
            1 => Outcome::Win,
            0 => Outcome::Tie,
            _ => Outcome::Loss,
        }
    }

    /// The outcome of a score (1, ½ or 0).
    pub fn of_score(score: f64) -> Outcome {
        if score > 0.75 {
            Outcome::Win
        } else if score > 0.25 {
            Outcome::Tie
        } else {
            Outcome::Loss
        }
    }

    /// The same result seen by the other player.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Tie => Outcome::Tie,
            Outcome::Win => Outcome::Loss,
        }
    }
}

/// The mover's score in a finished position: 1, ½ or 0.
pub fn final_score(pos: &Position) -> f64 {
    let s = pos.score();
    if pos.mover == 0 { s } else { 1.0 - s }
}

/// A move as the tables store it: tile index | matched number << 8, or [`NO_TILE`].
type Code = u16;
/// The code of a pass or a draw.
const NO_TILE: Code = 0xFFFF;

fn encode(pos: &Position, mv: Move) -> Code {
    match mv {
        Move::Place(t, Side::Left) => t.index() as Code | Code::from(pos.left) << 8,
        Move::Place(t, Side::Right) => t.index() as Code | Code::from(pos.right) << 8,
        _ => NO_TILE,
    }
}

/// The ends `(low, high)` packed in the top byte of a key word.
fn ends_bits(left: u8, right: u8) -> u64 {
    let (lo, hi) = if left <= right {
        (left, right)
    } else {
        (right, left)
    };
    (u64::from(lo) | u64::from(hi) << 4) << 56
}

/// A table key: two words that together name the position exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Zeroable)]
pub struct Key(u64, u64);

impl TableKey for Key {
    #[inline]
    fn slot(self) -> usize {
        let h = (self.0 ^ self.1.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize
    }
}

/// A stock-empty position seen from the mover: its hand, the other, the ends.
#[derive(Clone, Copy, Debug)]
struct Node {
    mine: Tiles,
    theirs: Tiles,
    left: u8,
    right: u8,
}

/// A placement (tile, matched number) or the pass (`tile == NONE`), with its ordering key.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    tile: u8,
    end: u8,
    key: i16,
}

const NONE: u8 = 0xFF;

impl Node {
    fn of(pos: &Position) -> Node {
        let m = usize::from(pos.mover);
        Node {
            mine: pos.hands[m],
            theirs: pos.hands[1 - m],
            left: pos.left,
            right: pos.right,
        }
    }

    /// The ends after placing `tile` on the end showing `end`.
    #[inline]
    fn ends_after(&self, tile: Tile, end: u8) -> (u8, u8) {
        if end == self.left {
            (tile.other(end), self.right)
        } else {
            (self.left, tile.other(end))
        }
    }

    #[inline]
    fn candidate(&self, tile: Tile, end: u8) -> Candidate {
        let (l, r) = self.ends_after(tile, end);
        let blocks = self.theirs.and(Tiles::matching(l, r)).is_empty();
        // Blocking the opponent first, then doubles, then heavy tiles.
        let key = 64 * i16::from(blocks) + 24 * i16::from(tile.is_double()) + tile.pips() as i16;
        Candidate {
            tile: tile.index() as u8,
            end,
            key,
        }
    }
}

impl Searchable for Node {
    type Move = Code;
    type Candidate = Candidate;
    type Candidates = MoveList<Candidate, 18>;
    type Key = Key;

    #[inline]
    fn terminal(&self) -> Option<i32> {
        if self.theirs.is_empty() {
            return Some(-1);
        }
        if self.mine.is_empty() {
            return Some(1);
        }
        let ends = Tiles::matching(self.left, self.right);
        if self.mine.or(self.theirs).and(ends).is_empty() {
            let (a, b) = (self.mine.pips(), self.theirs.pips());
            return Some(match a.cmp(&b) {
                std::cmp::Ordering::Less => 1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => -1,
            });
        }
        None
    }

    #[inline]
    fn key(&self) -> Key {
        Key(
            self.mine.0 | ends_bits(self.left, self.right),
            self.theirs.0,
        )
    }

    #[inline]
    fn generate(&self, out: &mut Self::Candidates) {
        for t in self.mine.and(Tiles::suit(self.left)).iter() {
            out.push(self.candidate(t, self.left));
        }
        if self.right != self.left {
            for t in self.mine.and(Tiles::suit(self.right)).iter() {
                out.push(self.candidate(t, self.right));
            }
        }
        if out.is_empty() {
            out.push(Candidate {
                tile: NONE,
                end: 0,
                key: 0,
            });
        }
    }

    #[inline]
    fn move_of(&self, c: &Candidate) -> Code {
        if c.tile == NONE {
            NO_TILE
        } else {
            Code::from(c.tile) | Code::from(c.end) << 8
        }
    }

    #[inline]
    fn play(&self, c: &Candidate) -> Node {
        if c.tile == NONE {
            return Node {
                mine: self.theirs,
                theirs: self.mine,
                ..*self
            };
        }
        let tile = Tile::from_index(usize::from(c.tile)).expect("a generated tile");
        let (left, right) = self.ends_after(tile, c.end);
        let mut mine = self.mine;
        mine.remove(tile);
        Node {
            mine: self.theirs,
            theirs: mine,
            left,
            right,
        }
    }

    fn order(&self, moves: &mut [Candidate], table_move: Option<Code>) {
        // Insertion sort by key, biggest first: at most 18 moves.
        for i in 1..moves.len() {
            let c = moves[i];
            let mut j = i;
            while j > 0 && moves[j - 1].key < c.key {
                moves[j] = moves[j - 1];
                j -= 1;
            }
            moves[j] = c;
        }
        if let Some(tt) = table_move
            && let Some(i) = moves.iter().position(|c| self.move_of(c) == tt)
        {
            moves[..=i].rotate_right(1);
        }
    }
}

/// The exact solver for positions with an empty stock, with its table.
pub struct Endgame {
    table: AlwaysReplace<Code, Key>,
    /// Positions visited by every search so far.
    pub nodes: u64,
}

impl std::fmt::Debug for Endgame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endgame")
            .field("slots", &self.table.len())
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// The moves of a position with their values.
pub type MoveValues<V> = MoveList<(Move, V), 18>;

impl Endgame {
    /// A solver whose table has `2^bits` slots (24 bytes each).
    pub fn new(bits: u32) -> Endgame {
        Endgame {
            table: AlwaysReplace::new(bits),
            nodes: 0,
        }
    }

    /// Forgets every stored position (stored values stay valid across games
    /// and deals, so this is only to free the table's pages' contents).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The result of `pos` for its mover under perfect play. Panics if the stock is not empty.
    pub fn solve(&mut self, pos: &Position) -> Outcome {
        assert!(
            pos.stock.is_empty(),
            "the endgame solver needs an empty stock"
        );
        let mut searcher = Searcher::new(&mut self.table);
        let value = searcher.search(&Node::of(pos), -2, 2, EXACT);
        self.nodes += searcher.nodes;
        Outcome::of_value(value)
    }

    /// [`Endgame::solve`], giving up at `deadline` (then `None`). Panics if the stock is not empty.
    pub fn solve_until(&mut self, pos: &Position, deadline: Instant) -> Option<Outcome> {
        assert!(
            pos.stock.is_empty(),
            "the endgame solver needs an empty stock"
        );
        let mut searcher = Searcher::new(&mut self.table).until(deadline);
        let value = searcher.search(&Node::of(pos), -2, 2, EXACT);
        self.nodes += searcher.nodes;
        (!searcher.aborted()).then(|| Outcome::of_value(value))
    }

    /// Whether the mover of `pos` gets at least `outcome` (a null-window search, cheaper than [`Endgame::solve`]).
    pub fn at_least(&mut self, pos: &Position, outcome: Outcome) -> bool {
        assert!(
            pos.stock.is_empty(),
            "the endgame solver needs an empty stock"
        );
        let v = outcome.value();
        let mut searcher = Searcher::new(&mut self.table);
        let value = searcher.search(&Node::of(pos), v - 1, v, EXACT);
        self.nodes += searcher.nodes;
        value >= v
    }

    /// Every move of `pos` (as [`Position::moves`] lists them) with its exact result for the mover.
    pub fn move_outcomes(&mut self, pos: &Position) -> MoveValues<Outcome> {
        let mut out = MoveValues::new();
        for &mv in pos.moves().iter() {
            let child = pos.after(mv);
            let outcome = if child.is_over() {
                let s = child.score();
                Outcome::of_score(if pos.mover == 0 { s } else { 1.0 - s })
            } else {
                self.solve(&child).flip()
            };
            out.push((mv, outcome));
        }
        out
    }

    /// The moves of `pos` that reach its value (in [`Position::moves`] order).
    pub fn best_moves(&mut self, pos: &Position) -> PositionMoves {
        let values = self.move_outcomes(pos);
        let best = values.iter().map(|&(_, o)| o).max();
        values
            .iter()
            .filter(|&&(_, o)| Some(o) == best)
            .map(|&(mv, _)| mv)
            .collect()
    }

    /// One best move of `pos` and its result (the table's move when it has one).
    pub fn best_move(&mut self, pos: &Position) -> (Move, Outcome) {
        let values = self.move_outcomes(pos);
        let mut best = values[0];
        for &(mv, o) in values.iter() {
            if o > best.1 {
                best = (mv, o);
            }
        }
        best
    }
}

/// How much a chance search may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Positions visited (the chance search's and the endgame solver's
    /// together) after which no new deepening iteration is finished; the
    /// first iteration always completes. An endgame solve is not cut short,
    /// so a search may overshoot by one solve.
    pub nodes: u64,
    /// The deepest iteration, in plies (placements, passes and draws each count one).
    pub depth: u8,
}

impl Budget {
    /// No limit: the exact expectimax value (only for small stocks).
    pub const UNLIMITED: Budget = Budget {
        nodes: u64::MAX,
        depth: u8::MAX - 1,
    };

    /// At most `nodes` positions, any depth.
    pub const fn nodes(nodes: u64) -> Budget {
        Budget {
            nodes,
            depth: u8::MAX - 1,
        }
    }
}

/// One slot of the chance search's table (all zero bytes when empty).
#[derive(Clone, Copy, Debug, Zeroable)]
struct Entry {
    key: Key,
    lower: f64,
    upper: f64,
    /// Plies searched below, [`EXACT`] when no horizon was met; 0 for an empty slot.
    depth: u8,
    best: Code,
}

/// The tables of a chance search: its own (exact keys, bounds in `[-1, 1]`)
/// and the endgame solver's. Stored values hold for any game and deal (the
/// keys name the whole position), so one table may serve many searches.
pub struct Table {
    entries: Vec<Entry>,
    mask: usize,
    /// The exact solver used once the stock is empty.
    pub endgame: Endgame,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("entries", &self.entries.len())
            .field("endgame", &self.endgame)
            .finish()
    }
}

impl Table {
    /// `2^bits` slots for the chance search (40 bytes each) and as many for the endgame (24 bytes each).
    pub fn new(bits: u32) -> Table {
        Table {
            entries: crate::alphabeta::zeroed_slots(1 << bits),
            mask: (1 << bits) - 1,
            endgame: Endgame::new(bits),
        }
    }

    /// Forgets every stored position.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::zeroed());
        self.endgame.clear();
    }

    fn probe(&self, key: Key) -> Option<&Entry> {
        let e = &self.entries[key.slot() & self.mask];
        (e.depth != 0 && e.key == key).then_some(e)
    }

    fn store(&mut self, key: Key, depth: u8, value: f64, bound: Bound, best: Code) {
        // Values lie in [-1, 1]: a one-sided bound is completed by the other end.
        let (lower, upper) = match bound {
            Bound::Exact => (value, value),
            Bound::Lower => (value, 1.0),
            Bound::Upper => (-1.0, value),
        };
        self.entries[key.slot() & self.mask] = Entry {
            key,
            lower,
            upper,
            depth,
            best,
        };
    }
}

/// The key of a position with a stock: each tile is the mover's (bit in the
/// first word only), the other's (second only), the stock's (both) or on
/// the line (neither), plus the ends.
fn chance_key(pos: &Position) -> Key {
    let m = usize::from(pos.mover);
    Key(
        pos.hands[m].or(pos.stock).0 | ends_bits(pos.left, pos.right),
        pos.hands[1 - m].or(pos.stock).0,
    )
}

/// The cheap estimate at the horizon of a chance search: the mover's
/// expected score, a logistic of tiles in hand (each one fewer is worth
/// 0.5), pips in hand (0.05 each fewer) and whether the mover can place
/// now (±0.25). Never used where the result is known.
pub fn horizon_value(pos: &Position) -> f64 {
    let m = usize::from(pos.mover);
    let (mine, theirs) = (pos.hands[m], pos.hands[1 - m]);
    let tiles = f64::from(theirs.len()) - f64::from(mine.len());
    let pips = f64::from(theirs.pips()) - f64::from(mine.pips());
    let can = if pos.fitting().is_empty() {
        -0.25
    } else {
        0.25
    };
    1.0 / (1.0 + (-(0.5 * tiles + 0.05 * pips + can)).exp())
}

/// What a chance search found at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Each move of [`Position::moves`] with its expected score for the mover.
    pub moves: MoveValues<f64>,
    /// Whether the values are exact (no horizon was met).
    pub exact: bool,
    /// The depth of the last completed iteration.
    pub depth: u8,
    /// Positions visited, endgame solves included.
    pub nodes: u64,
}

impl Evaluation {
    /// A move with the highest value (the first one listed on ties).
    pub fn best(&self) -> (Move, f64) {
        let mut best = self.moves[0];
        for &(mv, v) in self.moves.iter() {
            if v > best.1 {
                best = (mv, v);
            }
        }
        best
    }
}

/// The most tiles in hand (both together) for which the chance search calls
/// the exact endgame solver, which cannot be cut short: bigger endgames are
/// searched under the budget like positions with a stock.
pub const ENDGAME_TILES: u32 = 18;

/// How far a bound may pass a value by floating-point rounding alone.
const ROUNDING: f64 = 1e-9;

/// A searched value with what it proves: the value, an upper or a lower
/// bound, and whether it was reached without any horizon. Values are
/// `2 * score - 1` in `[-1, 1]` inside the search, so that the other
/// player's view is an exact negation in floating point.
#[derive(Clone, Copy, Debug)]
struct Found {
    value: f64,
    bound: Bound,
    exact: bool,
}

impl Found {
    fn flip(self) -> Found {
        Found {
            value: -self.value,
            bound: match self.bound {
                Bound::Exact => Bound::Exact,
                Bound::Lower => Bound::Upper,
                Bound::Upper => Bound::Lower,
            },
            exact: self.exact,
        }
    }
}

struct Chance<'t> {
    table: &'t mut Table,
    nodes: u64,
    limit: u64,
    aborted: bool,
}

impl Chance<'_> {
    /// The mover's expected score of `pos` in the window `(alpha, beta)`, with what the result proves.
    fn search(&mut self, pos: &Position, alpha: f64, beta: f64, depth: u8) -> Found {
        if let Some(found) = self.leaf(pos, depth) {
            return found;
        }
        let key = chance_key(pos);
        let table_move = match self.probe(key, alpha, beta, depth) {
            Ok(found) => return found,
            Err(table_move) => table_move,
        };
        let (found, best_move) = if pos.fitting().is_empty() && pos.stock.is_empty() {
            // A pass in an endgame too big for the exact solver.
            let r = self.search(&pos.after(Move::Pass), -beta, -alpha, depth - 1);
            if self.aborted {
                return r;
            }
            (r.flip(), NO_TILE)
        } else if pos.fitting().is_empty() {
            (self.draw(pos, alpha, beta, depth), NO_TILE)
        } else {
            match self.best_move(pos, alpha, beta, depth, table_move) {
                Ok(found) => found,
                Err(aborted) => return aborted,
            }
        };
        // A search cut short (in a draw) stores nothing.
        if !self.aborted {
            self.table.store(
                key,
                if found.exact { EXACT } else { depth },
                found.value,
                found.bound,
                best_move,
            );
        }
        found
    }

    /// The value of `pos` without a search, when it has one: the search is
    /// over its node budget, the game is over, the exact endgame solver
    /// takes it, or the horizon is reached.
    fn leaf(&mut self, pos: &Position, depth: u8) -> Option<Found> {
        self.nodes += 1;
        if self.nodes > self.limit {
            self.aborted = true;
        }
        let (value, exact) = if self.aborted {
            (0.0, false)
        } else if pos.is_over() {
            (2.0 * final_score(pos) - 1.0, true)
        } else if pos.stock.is_empty() && pos.hands[0].len() + pos.hands[1].len() <= ENDGAME_TILES {
            let before = self.table.endgame.nodes;
            let value = f64::from(self.table.endgame.solve(pos).value());
            self.nodes += self.table.endgame.nodes - before;
            (value, true)
        } else if depth == 0 {
            (2.0 * horizon_value(pos) - 1.0, false)
        } else {
            return None;
        };
        Some(Found {
            value,
            bound: Bound::Exact,
            exact,
        })
    }

    /// What the table knows of `key` searched at least `depth` deep: `Ok`
    /// with a value or a bound that settles the window `(alpha, beta)`,
    /// else `Err` with the best move it keeps (`NO_TILE` for none).
    fn probe(&self, key: Key, alpha: f64, beta: f64, depth: u8) -> Result<Found, Code> {
        let Some(e) = self.table.probe(key) else {
            return Err(NO_TILE);
        };
        if e.depth >= depth {
            let exact = e.depth == EXACT;
            let settled = if e.lower == e.upper {
                Some((e.lower, Bound::Exact))
            } else if e.lower >= beta {
                Some((e.lower, Bound::Lower))
            } else if e.upper <= alpha {
                Some((e.upper, Bound::Upper))
            } else {
                None
            };
            if let Some((value, bound)) = settled {
                return Ok(Found {
                    value,
                    bound,
                    exact,
                });
            }
        }
        Err(e.best)
    }

    /// The moves of `pos`, the table's move first, then doubles, then by pips.
    fn ordered_moves(pos: &Position, table_move: Code) -> MoveList<(Move, i16), 18> {
        let mut moves = MoveList::<(Move, i16), 18>::new();
        for &mv in pos.moves().iter() {
            let key = if encode(pos, mv) == table_move {
                i16::MAX
            } else {
                match mv {
                    Move::Place(t, _) => 24 * i16::from(t.is_double()) + t.pips() as i16,
                    _ => 0,
                }
            };
            let mut k = moves.len();
            moves.push((mv, key));
            while k > 0 && moves[k - 1].1 < key {
                moves[k] = moves[k - 1];
                k -= 1;
            }
            moves[k] = (mv, key);
        }
        moves
    }

    /// The best placement of `pos` in the window `(alpha, beta)`: its value
    /// with what it proves, and its code; `Err` with the result of a search
    /// cut short.
    fn best_move(
        &mut self,
        pos: &Position,
        mut alpha: f64,
        beta: f64,
        depth: u8,
        table_move: Code,
    ) -> Result<(Found, Code), Found> {
        let mut best_exact = f64::NEG_INFINITY;
        let mut best_upper = f64::NEG_INFINITY;
        let mut best_move = NO_TILE;
        let mut exact = true;
        let mut cut = None;
        for &(mv, _) in Self::ordered_moves(pos, table_move).iter() {
            let child = pos.after(mv);
            let r = self.search(&child, -beta, -alpha, depth - 1).flip();
            if self.aborted {
                return Err(r);
            }
            exact &= r.exact;
            match r.bound {
                Bound::Lower => {
                    best_move = encode(pos, mv);
                    cut = Some(r.value);
                    break;
                }
                Bound::Upper => best_upper = best_upper.max(r.value),
                Bound::Exact => {
                    if r.value > best_exact {
                        best_exact = r.value;
                        best_move = encode(pos, mv);
                        if r.value > alpha {
                            alpha = r.value;
                            if alpha >= beta {
                                cut = Some(r.value);
                                break;
                            }
                        }
                    }
                }
            }
        }
        let found = match cut {
            Some(value) => Found {
                value,
                bound: Bound::Lower,
                exact,
            },
            // A bound that beats the best value only by rounding (Star1's
            // windows are sums and quotients) still fails low.
            None if best_upper > best_exact + ROUNDING => Found {
                value: best_upper,
                bound: Bound::Upper,
                exact,
            },
            None => Found {
                value: best_exact,
                bound: Bound::Exact,
                exact,
            },
        };
        Ok((found, best_move))
    }

    /// The mean over the stock's tiles of the drawer's value, with Star1
    /// cut-offs: the tiles not yet searched are worth between -1 and 1.
    fn draw(&mut self, pos: &Position, alpha: f64, beta: f64, depth: u8) -> Found {
        let n = f64::from(pos.stock.len());
        let mut sum = 0.0;
        let mut left = n;
        let mut exact = true;
        for t in pos.stock.iter() {
            left -= 1.0;
            let child = pos.after(Move::Drawn(t));
            let lo = n * alpha - sum - left;
            let hi = n * beta - sum + left;
            let r = self.search(&child, lo, hi, depth - 1);
            if self.aborted {
                return r;
            }
            exact &= r.exact;
            sum += r.value;
            match r.bound {
                Bound::Upper => {
                    return Found {
                        value: (sum + left) / n,
                        bound: Bound::Upper,
                        exact,
                    };
                }
                Bound::Lower => {
                    return Found {
                        value: (sum - left) / n,
                        bound: Bound::Lower,
                        exact,
                    };
                }
                Bound::Exact => {
                    if (sum + left) / n <= alpha && left > 0.0 {
                        return Found {
                            value: (sum + left) / n,
                            bound: Bound::Upper,
                            exact,
                        };
                    }
                    if (sum - left) / n >= beta && left > 0.0 {
                        return Found {
                            value: (sum - left) / n,
                            bound: Bound::Lower,
                            exact,
                        };
                    }
                }
            }
        }
        Found {
            value: sum / n,
            bound: Bound::Exact,
            exact,
        }
    }

    /// The value for the mover of `pos` of `mv`, searched exactly to `depth` (full window).
    fn move_value(&mut self, pos: &Position, mv: Move, depth: u8) -> Found {
        match mv {
            Move::Draw => self.search(pos, -3.0, 3.0, depth),
            _ => self.search(&pos.after(mv), -3.0, 3.0, depth - 1).flip(),
        }
    }
}

/// Each move of `pos` with its expected score for the mover (win 1, tie ½),
/// by iterative deepening under `budget`; exact when the tree fits.
///
/// With the stock empty and at most [`ENDGAME_TILES`] tiles in hand this is
/// the exact solver (values 0, ½, 1). A draw
/// is valued as the chance node it starts. The first iteration (one ply,
/// then the horizon value or the endgame) always completes; later ones are
/// kept only if they finish inside the budget.
pub fn evaluate_moves(pos: &Position, budget: &Budget, table: &mut Table) -> Evaluation {
    let moves = pos.moves();
    assert!(!pos.is_over(), "the game is over");
    let mut chance = Chance {
        table,
        nodes: 0,
        limit: u64::MAX,
        aborted: false,
    };
    let mut result = Evaluation {
        moves: MoveValues::new(),
        exact: false,
        depth: 0,
        nodes: 0,
    };
    let max_depth = budget.depth.clamp(1, u8::MAX - 1);
    for depth in 1..=max_depth {
        let mut values = MoveValues::new();
        let mut exact = true;
        for &mv in moves.iter() {
            let found = chance.move_value(pos, mv, depth);
            if chance.aborted {
                break;
            }
            debug_assert_eq!(found.bound, Bound::Exact);
            exact &= found.exact;
            values.push((mv, (found.value + 1.0) / 2.0));
        }
        if chance.aborted {
            break;
        }
        result = Evaluation {
            moves: values,
            exact,
            depth,
            nodes: chance.nodes,
        };
        if exact || chance.nodes >= budget.nodes {
            break;
        }
        chance.limit = budget.nodes;
    }
    result.nodes = chance.nodes;
    result
}

/// Counts the leaves of the game tree from `pos`, every draw branching on
/// each stock tile, and a placement at equal ends counted once per side
/// (as the referee lists them): the number of legal move sequences.
pub fn perft(pos: &Position) -> u64 {
    if pos.is_over() {
        return 1;
    }
    let moves = pos.moves();
    if moves[0] == Move::Draw {
        return pos
            .stock
            .iter()
            .map(|t| perft(&pos.after(Move::Drawn(t))))
            .sum();
    }
    let sides = if pos.left == pos.right { 2 } else { 1 };
    moves
        .iter()
        .map(|&mv| match mv {
            Move::Place(..) => sides * perft(&pos.after(mv)),
            _ => perft(&pos.after(mv)),
        })
        .sum()
}

/// Deliberately plain expectimax, the reference the searches are tested
/// against: the mover's expected score, with no table and no pruning.
pub fn reference_expectimax(pos: &Position) -> f64 {
    if pos.is_over() {
        return final_score(pos);
    }
    let moves = pos.moves();
    if moves[0] == Move::Draw {
        let n = f64::from(pos.stock.len());
        return pos
            .stock
            .iter()
            .map(|t| reference_expectimax(&pos.after(Move::Drawn(t))))
            .sum::<f64>()
            / n;
    }
    moves
        .iter()
        .map(|&mv| 1.0 - reference_expectimax(&pos.after(mv)))
        .fold(f64::NEG_INFINITY, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominoes::rules::{Deal, Match, Rules};
    use crate::game::{Game, Turn};
    use rand::seq::IndexedRandom;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Plain minimax with the stock empty: 1, 0 or -1 for the mover.
    fn plain_minimax(pos: &Position) -> i32 {
        if pos.is_over() {
            let s = final_score(pos);
            return (2.0 * s - 1.0) as i32;
        }
        pos.moves()
            .iter()
            .map(|&mv| -plain_minimax(&pos.after(mv)))
            .max()
            .unwrap()
    }

    /// The value of a root move by plain expectimax.
    fn plain_move_value(pos: &Position, mv: Move) -> f64 {
        match mv {
            Move::Draw => reference_expectimax(pos),
            _ => 1.0 - reference_expectimax(&pos.after(mv)),
        }
    }

    /// A random position: `count` tiles of the set over `0..n` split at
    /// random between the hands and the stock (`stock` of them), random ends.
    fn random_position(rng: &mut ChaCha8Rng, n: u8, count: usize, stock: usize) -> Position {
        let all: Vec<Tile> = Tiles::full(n).iter().collect();
        let picked: Vec<Tile> = all.sample(rng, count).copied().collect();
        let mut pos = Position {
            hands: [Tiles::EMPTY; 2],
            stock: Tiles::EMPTY,
            left: rng.random_range(0..n),
            right: rng.random_range(0..n),
            mover: rng.random_range(0..2),
        };
        for (i, &t) in picked.iter().enumerate() {
            if i < stock {
                pos.stock.insert(t);
            } else {
                pos.hands[rng.random_range(0..2)].insert(t);
            }
        }
        pos
    }

    /// A position reached by random play from a random deal, stopped once
    /// the stock holds at most `stock` tiles (`None` if the game ended first).
    fn played_position(rng: &mut ChaCha8Rng, rules: Rules, stock: u32) -> Option<Position> {
        let mut game = Match::new(&Deal::random(rules, rng));
        loop {
            if game.is_over() {
                return None;
            }
            let pos = Position::of(&game);
            if game.turn() != Turn::Chance && pos.stock.len() <= stock {
                return Some(pos);
            }
            let mv = *game.moves().choose(rng).unwrap();
            game.apply(mv);
        }
    }

    #[test]
    fn the_endgame_solver_matches_plain_minimax() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut checked, mut outcomes) = (0, [0; 3]);
        for bits in [1, 4, 16] {
            let mut endgame = Endgame::new(bits);
            for round in 0..300 {
                let pos = if round % 2 == 0 {
                    let n = rng.random_range(5..=7);
                    let count = rng.random_range(2..=12);
                    random_position(&mut rng, n, count, 0)
                } else {
                    let rules =
                        Rules::new(rng.random_range(5..=6), rng.random_range(5..=7)).unwrap();
                    match played_position(&mut rng, rules, 0) {
                        Some(pos) => pos,
                        None => continue,
                    }
                };
                if pos.is_over() {
                    continue;
                }
                let expected = plain_minimax(&pos);
                assert_eq!(endgame.solve(&pos).value(), expected, "{pos:?}");
                let v = Outcome::of_value(expected);
                assert!(
                    endgame.at_least(&pos, v)
                        && (v == Outcome::Win
                            || !endgame.at_least(&pos, Outcome::of_value(expected + 1)))
                );
                for &(mv, o) in endgame.move_outcomes(&pos).iter() {
                    assert_eq!(o.value(), -plain_minimax(&pos.after(mv)), "{pos:?} {mv:?}");
                }
                let best = endgame.best_moves(&pos);
                assert!(
                    best.iter()
                        .all(|&mv| -plain_minimax(&pos.after(mv)) == expected)
                );
                assert_eq!(endgame.best_move(&pos).1.value(), expected);
                checked += 1;
                outcomes[(expected + 1) as usize] += 1;
            }
        }
        // Every result occurs often, or the check proves little.
        assert!(
            checked > 500 && outcomes.iter().all(|&k| k >= 5),
            "{checked} {outcomes:?}"
        );
    }

    #[test]
    fn the_chance_search_matches_reference_expectimax() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let (mut checked, mut draws) = (0, 0);
        for bits in [2, 14] {
            let mut table = Table::new(bits);
            for round in 0..120 {
                let pos = if round % 2 == 0 {
                    let n = rng.random_range(5..=6);
                    let stock = rng.random_range(1..=4);
                    let count = stock + rng.random_range(2..=9);
                    random_position(&mut rng, n, count, stock)
                } else {
                    let rules = Rules::new(5, rng.random_range(5..=7)).unwrap();
                    match played_position(&mut rng, rules, 4) {
                        Some(pos) => pos,
                        None => continue,
                    }
                };
                if pos.is_over() {
                    continue;
                }
                let eval = evaluate_moves(&pos, &Budget::UNLIMITED, &mut table);
                assert!(eval.exact, "{pos:?}");
                assert_eq!(eval.moves.len(), pos.moves().len());
                for &(mv, v) in eval.moves.iter() {
                    let expected = plain_move_value(&pos, mv);
                    assert!(
                        (v - expected).abs() < 1e-9,
                        "{pos:?} {mv:?}: {v} vs {expected}"
                    );
                }
                draws += usize::from(!pos.stock.is_empty() && pos.fitting().is_empty());
                checked += 1;
            }
        }
        assert!(checked > 150 && draws > 10, "{checked} {draws}");
    }

    /// With a small budget the values are estimates, but in range, one per move, and deterministic.
    #[test]
    fn a_budgeted_search_answers_every_move_in_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        for rules in Rules::all() {
            let Some(pos) = played_position(&mut rng, rules, 45) else {
                continue;
            };
            let budget = Budget::nodes(2_000);
            let a = evaluate_moves(&pos, &budget, &mut Table::new(12));
            let b = evaluate_moves(&pos, &budget, &mut Table::new(12));
            assert_eq!(a, b);
            let moves = pos.moves();
            assert_eq!(
                a.moves.iter().map(|&(m, _)| m).collect::<Vec<_>>(),
                moves.to_vec()
            );
            assert!(a.moves.iter().all(|&(_, v)| (0.0..=1.0).contains(&v)));
            assert!(a.depth >= 1);
        }
    }

    /// Leaves of the game tree on the referee's state, by the general
    /// [`crate::perft`] walk (cut far below any game's end).
    fn match_perft(game: &Match) -> u64 {
        let counts = crate::perft::perft(game, 64);
        assert_eq!(counts.sequences[63], 0, "every game ends within 64 plies");
        counts.leaves(64)
    }

    /// Seeded deals of N=5 with H = 4..=7.
    fn perft_deals() -> Vec<Deal> {
        let mut rng = ChaCha8Rng::seed_from_u64(2009);
        (4..=7)
            .flat_map(|h| {
                let rules = Rules::new(5, h).unwrap();
                (0..3)
                    .map(|_| Deal::random(rules, &mut rng))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn perft_on_the_position_matches_the_referee() {
        for deal in perft_deals() {
            let game = Match::new(&deal);
            let fast = perft(&Position::of(&game));
            let plain = match_perft(&game);
            assert_eq!(fast, plain, "{deal:?}");
        }
    }

    /// Two hand-written deals, counted by both counters, pinned as a regression check.
    #[test]
    fn perft_counts_of_two_fixed_deals() {
        let t = Tile::new;
        let rules = |h| Rules::new(5, h).unwrap();
        let deals = [
            Deal {
                rules: rules(4),
                hands: [
                    [t(0, 1), t(2, 3), t(4, 4), t(0, 2)].into_iter().collect(),
                    [t(1, 3), t(3, 3), t(0, 4), t(1, 2)].into_iter().collect(),
                ],
            },
            Deal {
                rules: rules(6),
                hands: [
                    [t(0, 0), t(1, 4), t(2, 2), t(3, 4), t(0, 3), t(1, 1)]
                        .into_iter()
                        .collect(),
                    [t(0, 1), t(2, 4), t(1, 3), t(4, 4), t(2, 3), t(0, 2)]
                        .into_iter()
                        .collect(),
                ],
            },
        ];
        let counts: Vec<(u64, u64)> = deals
            .iter()
            .map(|d| {
                let game = Match::new(d);
                (perft(&Position::of(&game)), match_perft(&game))
            })
            .collect();
        assert_eq!(counts, vec![(134_046, 134_046), (21_032, 21_032)]);
    }
}
