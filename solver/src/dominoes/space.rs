//! Every stock-empty position of a small set, as a dense state space for the
//! retrograde builder ([`crate::retrograde`]).
//!
//! With the stock empty, Dominoes is a two-player game of perfect information.
//! A position is: the played set `P` (the tiles on the line), its two open
//! ends `(left, right)`, and the split of the unplayed tiles between the
//! mover's hand and the other hand.
//!
//! # The index (dense: every index is a position)
//!
//! - Only played sets that can form a line with the given ends are indexed:
//!   `P` is non-empty, its tiles (as edges, doubles as loops, over the numbers)
//!   are connected, and the numbers of odd degree are exactly `{left, right}`
//!   when they differ, none when they are equal (an Euler trail from `left` to
//!   `right`). Each such `(P, left, right)` is a *block*.
//! - Hands are stored relative to the mover: bit j of the split says the j-th
//!   unplayed tile (in tile order) is in the mover's hand. Swapping seats does
//!   not change a value, so one record serves both sides to move, and the
//!   side to move is not part of the index (it is in every lookup).
//! - The mover's hand is never empty: a game ends when a hand empties, and
//!   the player who emptied it is never the one to move next. So a block of
//!   `k` unplayed tiles holds `2^k - 1` splits (split 0 is left out). Layer 0
//!   (every tile played) has no position at all.
//!
//! Blocks are ordered by the number of unplayed tiles (the layer), then by
//! `P`'s mask, then by the ends; the index is `block base + split - 1`. For
//! N = 5 (15 tiles) this is [`TABLE_POSITIONS`] = 13,885,410 indices, each a
//! real position; counted with the mover as a seat label, twice that.
//!
//! # Passes
//!
//! A seat that cannot place with the stock empty passes (a same-layer edge to
//! the same block with the hands swapped). Whether the last move was a pass is
//! not part of the state: the rules end the game as soon as neither hand fits,
//! so a pass is only ever played when the other seat can place, and two
//! passes in a row never happen. A rule that instead ends the game on the
//! second pass, scoring the same pips, gives every position the same value
//! (tested below against a solver that tracks the pass flag). For the same
//! reason passes form no cycle, as the builder requires.
//!
//! # Values and moves
//!
//! A value is the mover's result: 1 win, 0 tie, -1 loss (scores 1, ½, 0
//! shifted so that negamax holds). The table stores it in one signed byte,
//! the common format's smallest value field: 2 bits would save a third of a
//! 3-byte record but need a format of packed records, and the records are
//! read one at a time anyway. Move slots: `x < n` places the tile
//! `left-x` on the left end, `n + x` the tile `right-x` on the right end
//! (used only when the ends differ, as [`Position::moves`] does), `2n` passes.

use std::ops::Range;

use super::position::Position;
use super::rules::{Move, Side};
use super::tiles::{Tile, Tiles, tile_count};
use crate::retrograde::{Edge, StateSpace};

/// The result of a stock-empty game for the mover (the endgame search's type).
pub use super::search::Outcome;

/// The set size of the table (N = 5, 15 tiles).
pub const TABLE_NUMBERS: u8 = 5;
/// The largest set this space indexes (its lookup table has `2^tiles` entries).
pub const MAX_SPACE_NUMBERS: u8 = 5;
/// Positions of the N = 5 space (each for either side to move).
pub const TABLE_POSITIONS: u64 = 13_885_410;
/// Move slots of the N = 5 space: 5 left, 5 right, a pass.
pub const TABLE_SLOTS: u32 = 2 * TABLE_NUMBERS as u32 + 1;

/// Why a position has no index.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotIndexed {
    /// Tiles are left in the stock.
    #[error("the stock is not empty ({0} tiles)")]
    Stock(u32),
    /// A tile or an end lies outside the set.
    #[error("a tile or an end is outside the set over 0..{0}")]
    OutOfSet(u8),
    /// A tile is in both hands.
    #[error("tile {0} is in both hands")]
    Shared(Tile),
    /// The played tiles cannot form a line with these ends.
    #[error("the played tiles {played:?} cannot form a line with ends {left} and {right}")]
    NotALine {
        /// The tiles not in either hand.
        played: Tiles,
        /// The left end.
        left: u8,
        /// The right end.
        right: u8,
    },
    /// The mover's hand is empty: no game reaches it (the seat that empties its hand wins at once).
    #[error("the mover's hand is empty, which no game reaches")]
    EmptyMover,
}

/// The stock-empty positions over the numbers `0..n` (n ≤ [`MAX_SPACE_NUMBERS`]).
#[derive(Clone, Debug)]
pub struct DominoesSpace {
    numbers: u8,
    tiles: u32,
    /// Block number of the first block of each played set, by mask; `u32::MAX` for none.
    first_block: Vec<u32>,
    /// Per block: the played set, its ends, the first index.
    blocks: Vec<Block>,
    /// Index where each layer starts (layer k = k unplayed tiles), and the end.
    layer_start: Vec<u64>,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    played: u64,
    left: u8,
    right: u8,
    base: u64,
}

/// Whether `played` (non-empty) can lie as one line from `left` to `right`:
/// connected, and odd numbers exactly the two ends (none when they are equal).
fn is_line(played: Tiles, left: u8, right: u8) -> bool {
    if played.is_empty() {
        return false;
    }
    let mut odd = 0u32;
    let mut touched = 0u32;
    for t in played.iter() {
        odd ^= 1 << t.low();
        odd ^= 1 << t.high();
        touched |= 1 << t.low() | 1 << t.high();
    }
    let ends = if left == right {
        0
    } else {
        1 << left | 1 << right
    };
    if odd != ends || touched & 1 << left == 0 {
        return false;
    }
    // Connected: grow from `left` through the played tiles.
    let mut reached = 1u32 << left;
    loop {
        let mut grown = reached;
        for t in played.iter() {
            if reached & (1 << t.low() | 1 << t.high()) != 0 {
                grown |= 1 << t.low() | 1 << t.high();
            }
        }
        if grown == reached {
            return reached == touched;
        }
        reached = grown;
    }
}

/// The bits of `mask` at the positions of `set`'s bits, packed low (software pext).
#[inline]
fn pack(mask: u64, set: u64) -> u64 {
    let (mut out, mut set, mut bit) = (0, set, 0);
    while set != 0 {
        let low = set & set.wrapping_neg();
        if mask & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        set &= set - 1;
    }
    out
}

/// The low bits of `bits` spread to the positions of `set`'s bits (software pdep).
#[inline]
fn spread(bits: u64, set: u64) -> u64 {
    let (mut out, mut set, mut bit) = (0, set, 0);
    while set != 0 {
        let low = set & set.wrapping_neg();
        if bits >> bit & 1 != 0 {
            out |= low;
        }
        bit += 1;
        set &= set - 1;
    }
    out
}

/// A position in the space's own terms: hands relative to the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// The mover's hand (never empty).
    pub mine: Tiles,
    /// The other hand.
    pub theirs: Tiles,
    /// The left end.
    pub left: u8,
    /// The right end.
    pub right: u8,
}

impl State {
    /// The state after the mover places `tile` (`None`: passes), leaving the
    /// ends `left` and `right`: the other hand moves next.
    fn after(&self, tile: Option<Tile>, left: u8, right: u8) -> State {
        let mut mine = self.mine;
        if let Some(tile) = tile {
            mine.remove(tile);
        }
        State {
            mine: self.theirs,
            theirs: mine,
            left,
            right,
        }
    }

    /// The state of a stock-empty position.
    pub fn of(pos: &Position) -> State {
        let m = usize::from(pos.mover & 1);
        State {
            mine: pos.hands[m],
            theirs: pos.hands[1 - m],
            left: pos.left,
            right: pos.right,
        }
    }

    /// The position with `mover` to move.
    pub fn position(&self, mover: u8) -> Position {
        let m = usize::from(mover & 1);
        let mut hands = [self.theirs; 2];
        hands[m] = self.mine;
        Position {
            hands,
            stock: Tiles::EMPTY,
            left: self.left,
            right: self.right,
            mover: mover & 1,
        }
    }

    /// Whether the game is over: a hand is empty or neither fits.
    pub fn is_over(&self) -> bool {
        let ends = Tiles::matching(self.left, self.right);
        self.mine.is_empty()
            || self.theirs.is_empty()
            || self.mine.or(self.theirs).and(ends).is_empty()
    }

    /// The mover's value once over: 1, 0 or -1.
    pub fn final_value(&self) -> i32 {
        if self.mine.is_empty() {
            1
        } else if self.theirs.is_empty() {
            -1
        } else {
            match self.mine.pips().cmp(&self.theirs.pips()) {
                std::cmp::Ordering::Less => 1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => -1,
            }
        }
    }
}

impl DominoesSpace {
    /// The space over `0..numbers`; panics past [`MAX_SPACE_NUMBERS`] or below 1.
    pub fn new(numbers: u8) -> DominoesSpace {
        assert!(
            (1..=MAX_SPACE_NUMBERS).contains(&numbers),
            "numbers {numbers}"
        );
        let tiles = tile_count(numbers);
        let full = Tiles::full(numbers).0;
        let mut blocks = Vec::new();
        let mut first_block = vec![u32::MAX; 1 << tiles];
        let mut layer_start = Vec::with_capacity(tiles as usize + 1);
        let mut base = 0u64;
        for unplayed in 0..=tiles {
            layer_start.push(base);
            let splits = (1u64 << unplayed) - 1;
            for played in 1..=full {
                if played.count_ones() != tiles - unplayed {
                    continue;
                }
                for left in 0..numbers {
                    for right in 0..numbers {
                        if is_line(Tiles(played), left, right) {
                            if first_block[played as usize] == u32::MAX {
                                first_block[played as usize] = blocks.len() as u32;
                            }
                            blocks.push(Block {
                                played,
                                left,
                                right,
                                base,
                            });
                            base += splits;
                        }
                    }
                }
            }
        }
        layer_start.push(base);
        DominoesSpace {
            numbers,
            tiles,
            first_block,
            blocks,
            layer_start,
        }
    }

    /// The numbers of the set.
    pub fn numbers(&self) -> u8 {
        self.numbers
    }

    /// The number of `(played set, left, right)` combinations that form a line.
    pub fn lines(&self) -> usize {
        self.blocks.len()
    }

    /// The index of a state, or why it has none.
    pub fn index_of(&self, state: &State) -> Result<u64, NotIndexed> {
        let full = Tiles::full(self.numbers);
        if state.mine.or(state.theirs).minus(full) != Tiles::EMPTY
            || state.left >= self.numbers
            || state.right >= self.numbers
        {
            return Err(NotIndexed::OutOfSet(self.numbers));
        }
        if let Some(t) = state.mine.and(state.theirs).iter().next() {
            return Err(NotIndexed::Shared(t));
        }
        if state.mine.is_empty() {
            return Err(NotIndexed::EmptyMover);
        }
        let unplayed = state.mine.or(state.theirs);
        let played = full.minus(unplayed);
        let not_line = NotIndexed::NotALine {
            played,
            left: state.left,
            right: state.right,
        };
        let first = self.first_block[played.0 as usize];
        if first == u32::MAX {
            return Err(not_line);
        }
        let block = self.blocks[first as usize..]
            .iter()
            .take_while(|b| b.played == played.0)
            .find(|b| (b.left, b.right) == (state.left, state.right))
            .ok_or(not_line)?;
        Ok(block.base + pack(state.mine.0, unplayed.0) - 1)
    }

    /// The index of a stock-empty position (either side to move).
    pub fn index_of_position(&self, pos: &Position) -> Result<u64, NotIndexed> {
        if !pos.stock.is_empty() {
            return Err(NotIndexed::Stock(pos.stock.len()));
        }
        if pos.mover > 1 {
            return Err(NotIndexed::OutOfSet(self.numbers));
        }
        self.index_of(&State::of(pos))
    }

    /// The state at `index` (< `len()`).
    pub fn state(&self, index: u64) -> State {
        let b = self.blocks.partition_point(|b| b.base <= index) - 1;
        let block = self.blocks[b];
        let unplayed = Tiles::full(self.numbers).0 & !block.played;
        let mine = spread(index - block.base + 1, unplayed);
        State {
            mine: Tiles(mine),
            theirs: Tiles(unplayed & !mine),
            left: block.left,
            right: block.right,
        }
    }

    /// The slot of a legal move of `state` (`Draw`/`Drawn` have none).
    pub fn slot(&self, state: &State, mv: Move) -> Option<u32> {
        let n = u32::from(self.numbers);
        match mv {
            Move::Place(t, Side::Left) if t.has(state.left) => Some(u32::from(t.other(state.left))),
            Move::Place(t, Side::Right) if t.has(state.right) && state.left != state.right => {
                Some(n + u32::from(t.other(state.right)))
            }
            Move::Pass => Some(2 * n),
            _ => None,
        }
    }

    /// The move of `slot` in `state`, when it is legal there.
    pub fn slot_move(&self, state: &State, slot: u32) -> Option<Move> {
        let n = u32::from(self.numbers);
        let mv = if slot < n {
            Move::Place(Tile::new(state.left, slot as u8), Side::Left)
        } else if slot < 2 * n {
            Move::Place(Tile::new(state.right, (slot - n) as u8), Side::Right)
        } else if slot == 2 * n {
            Move::Pass
        } else {
            return None;
        };
        (self.legal_mask(state) >> slot & 1 == 1).then_some(mv)
    }

    /// The slots of the legal moves of `state`, as a mask (0 once over).
    pub fn legal_mask(&self, state: &State) -> u64 {
        let mut mask = 0;
        self.for_each_move(state, |slot, _, _| mask |= 1 << slot);
        mask
    }

    /// Calls `visit(slot, move, child)` for each legal move, in slot order.
    pub fn for_each_move(&self, state: &State, mut visit: impl FnMut(u32, Move, State)) {
        if state.is_over() {
            return;
        }
        let n = u32::from(self.numbers);
        let (l, r) = (state.left, state.right);
        let fits = state.mine.and(Tiles::matching(l, r));
        if fits.is_empty() {
            visit(2 * n, Move::Pass, state.after(None, l, r));
            return;
        }
        // By slot: each `x` names the tile `l-x` (or `r-x`), so walk numbers, not tiles.
        for x in 0..self.numbers {
            let t = Tile::new(l, x);
            if state.mine.contains(t) {
                visit(
                    u32::from(x),
                    Move::Place(t, Side::Left),
                    state.after(Some(t), x, r),
                );
            }
        }
        if l != r {
            for x in 0..self.numbers {
                let t = Tile::new(r, x);
                if state.mine.contains(t) {
                    let child = state.after(Some(t), l, x);
                    visit(n + u32::from(x), Move::Place(t, Side::Right), child);
                }
            }
        }
    }
}

impl StateSpace for DominoesSpace {
    fn len(&self) -> u64 {
        self.layer_start[self.tiles as usize + 1]
    }

    fn num_layers(&self) -> usize {
        self.tiles as usize + 1
    }

    fn layer(&self, index: u64) -> usize {
        self.layer_start.partition_point(|&s| s <= index) - 1
    }

    fn layer_range(&self, layer: usize) -> Option<Range<u64>> {
        Some(self.layer_start[layer]..self.layer_start[layer + 1])
    }

    fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
        let state = self.state(index);
        self.for_each_move(&state, |slot, _, child| {
            let child = self
                .index_of(&child)
                .expect("a move leads to an indexed state");
            visit(Edge {
                slot: slot as u8,
                reward: 0,
                child,
                keeps_turn: false,
            });
        });
    }

    fn terminal_value(&self, index: u64) -> i32 {
        self.state(index).final_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrograde::{check, solve};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    /// Whether the tiles of `set` can be laid one by one from `from`, ending at `to`
    /// (plain search over which tile comes next; no degree argument).
    fn can_lay(set: Tiles, from: u8, to: u8, memo: &mut HashMap<(u64, u8, u8), bool>) -> bool {
        if set.is_empty() {
            return from == to;
        }
        if let Some(&known) = memo.get(&(set.0, from, to)) {
            return known;
        }
        let ok = set
            .and(Tiles::suit(from))
            .iter()
            .any(|t| can_lay(set.minus(Tiles(t.bit())), t.other(from), to, memo));
        memo.insert((set.0, from, to), ok);
        ok
    }

    #[test]
    fn blocks_are_exactly_the_sets_that_lay_as_a_line() {
        for n in 1..=MAX_SPACE_NUMBERS {
            let space = DominoesSpace::new(n);
            let mut memo = HashMap::new();
            let mut expected = 0u64;
            let mut lines = 0;
            let m = tile_count(n);
            for played in 1..1u64 << m {
                for l in 0..n {
                    for r in 0..n {
                        let ok = can_lay(Tiles(played), l, r, &mut memo);
                        assert_eq!(ok, is_line(Tiles(played), l, r), "{played:#b} {l} {r}");
                        if ok {
                            lines += 1;
                            expected += (1 << (m - played.count_ones())) - 1;
                        }
                    }
                }
            }
            assert_eq!(space.lines(), lines);
            assert_eq!(space.len(), expected, "n = {n}");
        }
        assert_eq!(DominoesSpace::new(TABLE_NUMBERS).len(), TABLE_POSITIONS);
    }

    /// Every position of a small set, built from tile assignments, has exactly
    /// one index; both sides to move share it; every index is hit.
    #[test]
    fn small_spaces_index_every_position_once() {
        for n in 1..=4u8 {
            let space = DominoesSpace::new(n);
            let m = tile_count(n);
            let mut hits = vec![0u32; space.len() as usize];
            let mut memo = HashMap::new();
            for code in 0..3u64.pow(m) {
                let (mut hands, mut c) = ([Tiles::EMPTY; 2], code);
                for i in 0..m as usize {
                    match c % 3 {
                        1 => hands[0].insert(Tile::from_index(i).unwrap()),
                        2 => hands[1].insert(Tile::from_index(i).unwrap()),
                        _ => {}
                    }
                    c /= 3;
                }
                let played = Tiles::full(n).minus(hands[0].or(hands[1]));
                for (left, right) in (0..n).flat_map(|l| (0..n).map(move |r| (l, r))) {
                    for mover in 0..2u8 {
                        let pos = Position {
                            hands,
                            stock: Tiles::EMPTY,
                            left,
                            right,
                            mover,
                        };
                        // The opening tile is always on the line.
                        let real = !played.is_empty()
                            && can_lay(played, left, right, &mut memo)
                            && !hands[usize::from(mover)].is_empty();
                        match space.index_of_position(&pos) {
                            Ok(i) => {
                                assert!(real, "{pos:?}");
                                hits[i as usize] += 1;
                                assert_eq!(space.state(i), State::of(&pos));
                            }
                            Err(e) => assert!(!real, "{pos:?}: {e}"),
                        }
                    }
                }
            }
            assert!(hits.iter().all(|&h| h == 2), "n = {n}");
        }
    }

    #[test]
    fn index_and_state_round_trip_for_the_table() {
        let space = DominoesSpace::new(TABLE_NUMBERS);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..200_000 {
            let i = rng.random_range(0..space.len());
            let s = space.state(i);
            assert_eq!(space.index_of(&s), Ok(i));
            assert_eq!(space.layer(i), s.mine.or(s.theirs).len() as usize);
        }
        let mut pos = space.state(0).position(1);
        pos.stock.insert(Tile::new(0, 0));
        pos.hands[0].remove(Tile::new(0, 0));
        pos.hands[1].remove(Tile::new(0, 0));
        assert!(matches!(
            space.index_of_position(&pos),
            Err(NotIndexed::Stock(1))
        ));
    }

    /// A deliberately plain solver with the other reading of the rules: the
    /// game ends on a hand emptied or on two passes in a row (a pass flag in
    /// the state), never on a block seen in advance. Memoized in a HashMap.
    fn plain(pos: &Position, passed: bool, memo: &mut HashMap<(Position, bool), i32>) -> i32 {
        if pos.hands[0].is_empty() || pos.hands[1].is_empty() {
            return mover_value(pos);
        }
        if let Some(&v) = memo.get(&(*pos, passed)) {
            return v;
        }
        let hand = pos.hands[usize::from(pos.mover)];
        let fits = hand.and(Tiles::matching(pos.left, pos.right));
        let v = if fits.is_empty() {
            if passed {
                mover_value(pos)
            } else {
                -plain(&pos.after(Move::Pass), true, memo)
            }
        } else {
            let mut best = -2;
            for t in fits.iter() {
                for side in [Side::Left, Side::Right] {
                    let end = if side == Side::Left {
                        pos.left
                    } else {
                        pos.right
                    };
                    if t.has(end) {
                        best = best.max(-plain(&pos.after(Move::Place(t, side)), false, memo));
                    }
                }
            }
            best
        };
        memo.insert((*pos, passed), v);
        v
    }

    /// The mover's value of a finished position by the referee's scoring.
    fn mover_value(pos: &Position) -> i32 {
        let s = pos.score();
        let s = if pos.mover == 0 { s } else { 1.0 - s };
        (2.0 * s - 1.0) as i32
    }

    /// Values and optimal moves of the whole space against the plain solver;
    /// `sample` = None checks every state.
    fn against_plain(n: u8, sample: Option<usize>) {
        let space = DominoesSpace::new(n);
        let solution = solve(&space, true, &|_| {}).unwrap();
        assert_eq!(
            check(
                &space,
                |i| i32::from(solution.values[i as usize]),
                |i| solution.best[i as usize]
            ),
            Ok(space.len())
        );
        let mut memo = HashMap::new();
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(n));
        let indices: Vec<u64> = match sample {
            None => (0..space.len()).collect(),
            Some(k) => (0..k).map(|_| rng.random_range(0..space.len())).collect(),
        };
        let mut seen = [0usize; 3];
        for i in indices {
            let state = space.state(i);
            let value = i32::from(solution.values[i as usize]);
            seen[(value + 1) as usize] += 1;
            for mover in 0..2 {
                let pos = state.position(mover);
                // The flag never matters: a pass may have come before whenever
                // the other seat has no tile that fits.
                let other = pos.hands[usize::from(1 - mover)];
                let could_pass = other.and(Tiles::matching(pos.left, pos.right)).is_empty();
                for passed in [false, true] {
                    if passed && !could_pass {
                        continue;
                    }
                    assert_eq!(plain(&pos, passed, &mut memo), value, "{pos:?} {passed}");
                }
                let mut best = 0u64;
                let moves = if pos.is_over() {
                    Default::default()
                } else {
                    pos.moves()
                };
                for mv in moves.iter() {
                    let child = pos.after(*mv);
                    if -plain(&child, *mv == Move::Pass, &mut memo) == value {
                        best |= 1 << space.slot(&state, *mv).unwrap();
                    }
                }
                assert_eq!(best, solution.best[i as usize], "{pos:?}");
            }
        }
        // Below 4 numbers a blocked game never has equal pips: no tie.
        assert!(seen.iter().all(|&c| c > 0) || n < 4, "{seen:?}");
    }

    #[test]
    fn small_sets_match_the_plain_solver_everywhere() {
        for n in 2..=4 {
            against_plain(n, None);
        }
    }

    #[test]
    fn the_table_matches_the_plain_solver_on_random_positions() {
        against_plain(TABLE_NUMBERS, Some(3_000));
    }

    #[test]
    fn slots_name_the_moves_of_position_moves() {
        let space = DominoesSpace::new(TABLE_NUMBERS);
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..20_000 {
            let state = space.state(rng.random_range(0..space.len()));
            let pos = state.position(0);
            let mut mask = 0u64;
            for mv in pos.moves().iter() {
                if pos.is_over() {
                    break;
                }
                let slot = space.slot(&state, *mv).unwrap();
                assert_eq!(space.slot_move(&state, slot), Some(*mv));
                mask |= 1 << slot;
            }
            assert_eq!(space.legal_mask(&state), mask);
            assert!(mask < 1 << TABLE_SLOTS);
        }
    }
}
