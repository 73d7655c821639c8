//! Ioiwari (IOI 2001): a Mancala game on 7 pits arranged in a circle.
//!
//! Pits are labelled 1..7 clockwise; internally they are `0..7`. A pit holds at
//! most 5 beads during play, so a board is a 7-digit base-6 number: its
//! [`Board::index`] is dense over all `6^7` boards. Every move lowers the number
//! of beads in the pits, which is what makes the retrograde layers.
//!
//! The variants are in [`variant`] (re-exported here): [`Params`] (pits,
//! capacity, starting boards), [`Ring`], a board of up to [`MAX_RING`] pits,
//! and [`RingSpace`], its state space. [`Sowable`] and [`BankMatch`] play the
//! IOI game and the variants alike.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use crate::game::{Determinize, Game, IllegalMove, Scores, Seat, Turn};

use crate::retrograde::{Edge, StateSpace};
use crate::{MoveList, ZeroSum};

pub mod variant;
pub use variant::*;

/// Number of pits.
pub const PITS: usize = 7;
/// Most beads a pit can hold during play.
pub const MAX_BEADS: u8 = 5;
/// Number of distinct boards, `6^7`.
pub const NUM_BOARDS: usize = 279_936;
/// Beads on a starting board.
pub const START_BEADS: u32 = 20;

/// Place values of the pits in a board index.
const POW6: [isize; PITS] = [1, 6, 36, 216, 1296, 7776, 46656];

/// Boards are decoded four low pits and three high pits at a time from these tables.
const LOW: usize = 1296;
const LOW_DIGITS: [[u8; 4]; LOW] = digit_table::<4, LOW>();
const HIGH_DIGITS: [[u8; 3]; NUM_BOARDS / LOW] = digit_table::<3, { NUM_BOARDS / LOW }>();

/// The base-6 digits of `0..COUNT`, least significant first.
const fn digit_table<const DIGITS: usize, const COUNT: usize>() -> [[u8; DIGITS]; COUNT] {
    let mut table = [[0u8; DIGITS]; COUNT];
    let mut n = 0;
    while n < COUNT {
        let mut rest = n;
        let mut d = 0;
        while d < DIGITS {
            table[n][d] = (rest % 6) as u8;
            rest /= 6;
            d += 1;
        }
        n += 1;
    }
    table
}

/// A pit, `0..7` (the label shown to people is one more).
pub type Pit = u8;

/// The pits of an Ioiwari board; the banks are kept by whoever plays the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    pits: [u8; PITS],
}

/// What one move did: the beads each player banked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Sowing {
    /// Beads put into the mover's bank.
    pub mover: u8,
    /// Beads put into the opponent's bank.
    pub opponent: u8,
}

impl Sowing {
    /// This sowing of `pit` as a move of a space, to the state `child`: it
    /// banks the difference and passes the turn.
    fn edge(self, pit: u8, child: u64) -> Edge {
        Edge {
            slot: pit,
            reward: self.difference(),
            child,
            keeps_turn: false,
        }
    }

    /// The mover's gain minus the opponent's.
    pub fn difference(self) -> i32 {
        i32::from(self.mover) - i32::from(self.opponent)
    }
}

/// Why a board or a move was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IoiwariError {
    /// The board does not have as many pits as the game.
    #[error("a board has {expected} pits, found {found}")]
    PitCount {
        /// The game's pits.
        expected: usize,
        /// The board's.
        found: usize,
    },
    /// A pit count is not a non-negative whole number.
    #[error("pit {pit}: '{text}' is not a bead count")]
    NotANumber {
        /// Pit label, 1..7.
        pit: usize,
        /// The offending text.
        text: String,
    },
    /// A pit holds more beads than the game allows (5 in the IOI game).
    #[error("pit {pit} holds {beads} beads, at most {cap} are possible")]
    TooManyBeads {
        /// Pit label, from 1.
        pit: usize,
        /// The bead count given.
        beads: u32,
        /// The most a pit may hold.
        cap: u8,
    },
    /// A move names no pit.
    #[error("'{0}' is not a pit label 1..7")]
    BadLabel(String),
    /// A move names an empty pit.
    #[error("pit {0} is empty")]
    EmptyPit(u8),
    /// Variant parameters that make no game.
    #[error("bad Ioiwari parameters: {0}")]
    BadParams(String),
}

impl Board {
    /// The board with these pit counts; each must be at most 5.
    pub fn new(pits: [u8; PITS]) -> Result<Board, IoiwariError> {
        for (i, &beads) in pits.iter().enumerate() {
            if beads > MAX_BEADS {
                return Err(IoiwariError::TooManyBeads {
                    pit: i + 1,
                    beads: u32::from(beads),
                    cap: MAX_BEADS,
                });
            }
        }
        Ok(Board { pits })
    }

    /// The board with the given dense index (`index < 6^7`).
    #[inline]
    pub fn from_index(index: usize) -> Board {
        let [a, b, c, d] = LOW_DIGITS[index % LOW];
        let [e, f, g] = HIGH_DIGITS[index / LOW];
        Board {
            pits: [a, b, c, d, e, f, g],
        }
    }

    /// Dense index: pit 1 is the least significant base-6 digit.
    pub fn index(&self) -> usize {
        self.pits
            .iter()
            .rev()
            .fold(0, |acc, &beads| acc * 6 + beads as usize)
    }

    /// The pit counts, pit 1 first.
    pub fn pits(&self) -> [u8; PITS] {
        self.pits
    }

    /// Beads left in the pits.
    pub fn beads(&self) -> u32 {
        self.pits.iter().map(|&b| u32::from(b)).sum()
    }

    /// Whether every pit is empty (the game is over).
    pub fn is_empty(&self) -> bool {
        self.pits == [0; PITS]
    }

    /// Whether `pit` (0..7) can be played.
    pub fn is_legal(&self, pit: Pit) -> bool {
        (pit as usize) < PITS && self.pits[pit as usize] > 0
    }

    /// Plays `pit` (0..7, non-empty) and reports the beads banked.
    #[inline]
    pub fn sow(&mut self, pit: Pit) -> Sowing {
        self.sow_tracking_index(pit).0
    }

    /// Sows like [`Board::sow`] and also returns how the board's index changed.
    ///
    /// The retrograde builder visits every move of every board; updating the
    /// index as pits change is cheaper than encoding the child from scratch.
    #[inline]
    fn sow_tracking_index(&mut self, pit: Pit) -> (Sowing, isize) {
        let (sowing, delta) = sow_ring(&mut self.pits, MAX_BEADS, &POW6, pit as usize);
        (sowing, delta)
    }

    /// Plays the pit with this label ("1".."7"), checking it.
    pub fn sow_label(&mut self, label: &str) -> Result<Sowing, IoiwariError> {
        let pit = parse_label(label)?;
        if !self.is_legal(pit) {
            return Err(IoiwariError::EmptyPit(pit + 1));
        }
        Ok(self.sow(pit))
    }

    /// The board turned by `k` pits: pit `i` of the result is pit `i + k` of this one.
    pub fn rotated(&self, k: usize) -> Board {
        let mut pits = [0; PITS];
        for (i, pit) in pits.iter_mut().enumerate() {
            *pit = self.pits[(i + k) % PITS];
        }
        Board { pits }
    }

    /// The pit digits read from pit 7 down to pit 1: the official table's sort key.
    pub fn reversed_digits(&self) -> [u8; PITS] {
        let mut digits = self.pits;
        digits.reverse();
        digits
    }
}

/// Sows pit `pit` of a ring of pits holding at most `cap` beads, by the
/// Ioiwari rule, and returns the beads banked and how the index changed
/// (`place[i]` is pit i's place value). Shared by the 7-pit [`Board`] (where
/// it is inlined with its constants) and the parameterised [`Ring`].
#[inline(always)]
fn sow_ring(pits: &mut [u8], cap: u8, place: &[isize], pit: usize) -> (Sowing, isize) {
    let len = pits.len();
    let mut at = pit;
    let mut hand = pits[at];
    debug_assert!(hand > 0, "sowing from an empty pit");
    pits[at] = 0;
    let mut delta = -(hand as isize) * place[at];
    let mut banked = Sowing::default();
    while hand > 1 {
        at = if at + 1 == len { 0 } else { at + 1 };
        if pits[at] == cap {
            // A full pit pays one bead to the mover; the hand keeps its beads.
            pits[at] -= 1;
            banked.mover += 1;
            delta -= place[at];
        } else {
            pits[at] += 1;
            hand -= 1;
            delta += place[at];
        }
    }
    at = if at + 1 == len { 0 } else { at + 1 };
    let beads = pits[at];
    if beads >= 1 && beads < cap {
        banked.mover += beads + 1;
        pits[at] = 0;
        delta -= beads as isize * place[at];
    } else {
        banked.opponent += 1;
    }
    (banked, delta)
}

/// Parses a pit label "1".."7" into a pit 0..7.
pub fn parse_label(label: &str) -> Result<Pit, IoiwariError> {
    match label.trim().parse::<u8>() {
        Ok(n @ 1..=7) => Ok(n - 1),
        _ => Err(IoiwariError::BadLabel(label.trim().to_string())),
    }
}

impl FromStr for Board {
    type Err = IoiwariError;

    /// Seven whitespace-separated bead counts, pit 1 first.
    fn from_str(text: &str) -> Result<Board, IoiwariError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() != PITS {
            return Err(IoiwariError::PitCount {
                expected: PITS,
                found: words.len(),
            });
        }
        let mut pits = [0u8; PITS];
        for (i, word) in words.iter().enumerate() {
            let beads: u32 = word.parse().map_err(|_| IoiwariError::NotANumber {
                pit: i + 1,
                text: word.to_string(),
            })?;
            if beads > u32::from(MAX_BEADS) {
                return Err(IoiwariError::TooManyBeads {
                    pit: i + 1,
                    beads,
                    cap: MAX_BEADS,
                });
            }
            pits[i] = beads as u8;
        }
        Ok(Board { pits })
    }
}

/// The beads of each pit, space-separated (as a board is read and shown).
fn write_pits(f: &mut fmt::Formatter<'_>, pits: &[u8]) -> fmt::Result {
    for (i, beads) in pits.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{beads}")?;
    }
    Ok(())
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_pits(f, &self.pits)
    }
}

impl ZeroSum for Board {
    type Move = Pit;
    type Moves = MoveList<Pit, PITS>;

    fn legal_moves(&self) -> Self::Moves {
        (0..PITS as u8)
            .filter(|&p| self.pits[p as usize] > 0)
            .collect()
    }

    fn play(&mut self, pit: Pit) -> i32 {
        self.sow(pit).difference()
    }

    fn is_over(&self) -> bool {
        self.is_empty()
    }
}

/// A board that a two-player Ioiwari game sows: [`Board`] for the IOI game, [`Ring`] for a variant.
pub trait Sowable: ZeroSum<Move = Pit> + Copy + fmt::Debug + Send + Sync {
    /// The number of pits; a larger pit number does not exist.
    fn pit_count(&self) -> usize;
    /// Whether every pit is empty (the game is over).
    fn is_empty(&self) -> bool;
    /// Whether `pit` can be played.
    fn is_legal(&self, pit: Pit) -> bool;
    /// Plays `pit` (non-empty) and reports the beads banked.
    fn sow(&mut self, pit: Pit) -> Sowing;
}

// The trait forwards to the inherent methods so callers need not import it.
impl Sowable for Board {
    fn pit_count(&self) -> usize {
        PITS
    }
    fn is_empty(&self) -> bool {
        Board::is_empty(self)
    }
    fn is_legal(&self, pit: Pit) -> bool {
        Board::is_legal(self, pit)
    }
    fn sow(&mut self, pit: Pit) -> Sowing {
        Board::sow(self, pit)
    }
}

/// A game of Ioiwari or a variant as the referee holds it: the board, the seat to
/// move and both banks. Seat 0 is player 1 and moves first; both seats see everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BankMatch<B> {
    /// The pits.
    pub board: B,
    /// The seat to move.
    pub mover: Seat,
    /// The bank of player 1 (seat 0) and of player 2 (seat 1).
    pub banks: [u32; 2],
}

/// The IOI game on the 7-pit [`Board`].
pub type Match = BankMatch<Board>;

impl<B> BankMatch<B> {
    /// A game starting on `board` with empty banks, player 1 to move.
    pub fn new(board: B) -> BankMatch<B> {
        BankMatch {
            board,
            mover: 0,
            banks: [0, 0],
        }
    }

    /// Player 1's bank minus player 2's.
    pub fn difference(&self) -> i32 {
        self.banks[0] as i32 - self.banks[1] as i32
    }
}

impl<B: Sowable> Game for BankMatch<B> {
    type Move = Pit;
    type Moves = B::Moves;
    type View = BankMatch<B>;
    type Observation = Pit;
    type Params = B;

    fn seats(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.board.is_empty() {
            Turn::Over
        } else {
            Turn::Seat(self.mover)
        }
    }

    fn moves(&self) -> Self::Moves {
        self.board.legal_moves()
    }

    fn apply(&mut self, pit: Pit) {
        let sowing = self.board.sow(pit);
        self.banks[self.mover] += u32::from(sowing.mover);
        self.banks[1 - self.mover] += u32::from(sowing.opponent);
        self.mover = 1 - self.mover;
    }

    fn scores(&self) -> Scores {
        self.banks.iter().map(|&b| f64::from(b)).collect()
    }

    fn view(&self, _seat: Seat) -> BankMatch<B> {
        *self
    }

    fn observe(&self, pit: Pit, _seat: Seat) -> Pit {
        pit
    }

    fn view_moves(view: &BankMatch<B>) -> Self::Moves {
        view.board.legal_moves()
    }

    fn check_move(&self, pit: Pit) -> Result<(), IllegalMove> {
        if usize::from(pit) >= self.board.pit_count() {
            Err(IllegalMove(format!(
                "there is no pit {}",
                u32::from(pit) + 1
            )))
        } else if self.board.is_empty() {
            Err(IllegalMove("the game is over".into()))
        } else if !self.board.is_legal(pit) {
            Err(IllegalMove(format!("pit {} is empty", pit + 1)))
        } else {
            Ok(())
        }
    }
}

/// All 357 starting boards (20 beads, 2 to 4 in each pit), in index order.
pub fn starting_boards() -> Vec<Board> {
    (0..NUM_BOARDS)
        .map(Board::from_index)
        .filter(|b| b.beads() == START_BEADS && b.pits.iter().all(|&p| (2..=4).contains(&p)))
        .collect()
}

/// The 51 starting instances modulo rotation, in the official table's order.
///
/// Each is the rotation whose reversed digit string sorts first, and the rows
/// are sorted by that reversed string.
pub fn instances() -> Vec<Board> {
    let mut canonical: Vec<Board> = starting_boards()
        .into_iter()
        .map(canonical_rotation)
        .collect();
    canonical.sort_by_key(Board::reversed_digits);
    canonical.dedup();
    canonical
}

/// The rotation of `board` whose reversed digit string sorts first.
pub fn canonical_rotation(board: Board) -> Board {
    (0..PITS)
        .map(|k| board.rotated(k))
        .min_by_key(Board::reversed_digits)
        .expect("seven rotations")
}

/// Index of the board `Board::from_index(index).rotated(k)` for `k` in `1..7`, without decoding it.
#[inline]
fn rotated_index(index: usize, k: usize) -> usize {
    let low = POW6[k] as usize;
    index / low + (index % low) * POW6[PITS - k] as usize
}

/// The move mask of a ring of `pits` pits rotated by `k`: pit p of the board is pit p - k of its image.
fn rotated_mask(best: u64, k: usize, pits: usize) -> u64 {
    if k == 0 {
        return best;
    }
    ((best >> k) | (best << (pits - k))) & ((1 << pits) - 1)
}

/// A ring's pits packed 4 bits each, the last pit highest, so that numeric
/// order is index order and a rotation is a shift.
#[derive(Clone, Copy)]
struct PackedRing {
    packed: u64,
    bits: u32,
}

impl PackedRing {
    #[inline(always)]
    fn new(pits: &[u8]) -> PackedRing {
        let mut packed = 0u64;
        for &beads in pits.iter().rev() {
            packed = (packed << 4) | u64::from(beads);
        }
        PackedRing {
            packed,
            bits: 4 * pits.len() as u32,
        }
    }

    /// The ring rotated by `k` pits (pit i holding pit i + k), `0 < k < len`.
    #[inline(always)]
    fn rotated(self, k: u32) -> u64 {
        let all = (1u64 << self.bits) - 1;
        ((self.packed >> (4 * k)) | (self.packed << (self.bits - 4 * k))) & all
    }
}

/// The rotation of a ring with the smallest index, and the rotation that
/// carries it back to `pits` (for [`StateSpace::image_mask`]); `place[i]` is
/// pit i's place value.
#[inline(always)]
fn least_rotation(pits: &[u8], place: &[isize]) -> (u64, u32) {
    let n = pits.len();
    let ring = PackedRing::new(pits);
    let (mut least, mut rotation) = (ring.packed, 0);
    for k in 1..n as u32 {
        let rotated = ring.rotated(k);
        if rotated < least {
            (least, rotation) = (rotated, k);
        }
    }
    let mut index = 0;
    for &value in &place[..n] {
        index += (least & 15) * value as u64;
        least >>= 4;
    }
    (
        index,
        if rotation == 0 {
            0
        } else {
            n as u32 - rotation
        },
    )
}

/// The number of distinct rotations of a ring: its smallest period.
fn ring_period(pits: &[u8]) -> u64 {
    let n = pits.len() as u32;
    let ring = PackedRing::new(pits);
    (1..n)
        .find(|&k| ring.rotated(k) == ring.packed)
        .unwrap_or(n) as u64
}

/// Division of 32-bit numbers by a divisor fixed at run time, by one
/// multiplication (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019).
#[derive(Clone, Copy, Debug)]
struct Divisor {
    divisor: u64,
    inverse: u64,
}

impl Divisor {
    fn new(divisor: u32) -> Divisor {
        Divisor {
            divisor: u64::from(divisor),
            inverse: u64::MAX / u64::from(divisor) + 1,
        }
    }

    /// `(n / divisor, n % divisor)`.
    #[inline(always)]
    fn div_rem(&self, n: u32) -> (u32, u32) {
        let quotient = ((u128::from(self.inverse) * u128::from(n)) >> 64) as u32;
        let fraction = self.inverse.wrapping_mul(u64::from(n));
        let remainder = ((u128::from(fraction) * u128::from(self.divisor)) >> 64) as u32;
        (quotient, remainder)
    }
}

/// Every board of the game as a [`StateSpace`], layered by beads in the pits.
///
/// A board and its rotations have the same value, so one board per rotation
/// class is solved and the result copied to the other six.
#[derive(Clone, Copy, Debug, Default)]
pub struct IoiwariSpace;

impl StateSpace for IoiwariSpace {
    fn len(&self) -> u64 {
        NUM_BOARDS as u64
    }

    fn num_layers(&self) -> usize {
        PITS * MAX_BEADS as usize + 1
    }

    fn layer(&self, index: u64) -> usize {
        Board::from_index(index as usize).beads() as usize
    }

    fn is_canonical(&self, index: u64) -> bool {
        let index = index as usize;
        (1..PITS).all(|k| rotated_index(index, k) >= index)
    }

    #[inline]
    fn for_each_image(&self, index: u64, best: u64, mut visit: impl FnMut(u64, u64)) {
        let index = index as usize;
        for k in 1..PITS {
            let image = rotated_index(index, k);
            if image == index {
                // Only a board with all pits equal is its own rotation.
                break;
            }
            visit(image as u64, rotated_mask(best, k, PITS));
        }
    }

    #[inline]
    fn canonical(&self, index: u64) -> (u64, u32) {
        least_rotation(&Board::from_index(index as usize).pits, &POW6)
    }

    fn image_mask(&self, symmetry: u32, best: u64) -> u64 {
        rotated_mask(best, symmetry as usize, PITS)
    }

    fn class_size(&self, index: u64) -> u64 {
        ring_period(&Board::from_index(index as usize).pits)
    }

    #[inline]
    fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
        let board = Board::from_index(index as usize);
        for pit in 0..PITS as u8 {
            if board.pits[pit as usize] > 0 {
                let mut child = board;
                let (sowing, delta) = child.sow_tracking_index(pit);
                visit(sowing.edge(pit, index.wrapping_add_signed(delta as i64)));
            }
        }
    }

    fn terminal_value(&self, _index: u64) -> i32 {
        0
    }

    /// Every move banks a bead.
    fn has_same_layer_edges(&self) -> bool {
        false
    }
}

/// Perfect information: the view is the whole state.
impl<B: Sowable> Determinize for BankMatch<B> {
    fn sample(view: &BankMatch<B>, _seat: Seat, _rng: &mut impl rand::Rng) -> BankMatch<B> {
        *view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `canonical` names the class's smallest index and the rotation whose
    /// image, by `for_each_image`, is the state with the mask `image_mask` gives.
    fn check_canonical(space: &impl StateSpace, pits: usize) {
        let mut counted = Vec::new();
        // Odd pieces, so that the counting restarts mid-board.
        for start in (0..space.len()).step_by(997) {
            space.for_each_canonical(start..(start + 997).min(space.len()), |i, c, k| {
                counted.push((i, c, k))
            });
        }
        assert_eq!(counted.len() as u64, space.len());
        for index in 0..space.len() {
            let (canonical, symmetry) = space.canonical(index);
            assert_eq!(counted[index as usize], (index, canonical, symmetry));
            let (mut plain, mut to_canonical) = (Vec::new(), Vec::new());
            space.for_each_edge(index, |e| {
                plain.push(Edge {
                    child: space.canonical(e.child).0,
                    ..e
                })
            });
            space.for_each_edge_to_canonical(index, |e| to_canonical.push(e));
            assert_eq!(plain, to_canonical, "{index}");
            assert!(space.is_canonical(canonical), "{index} -> {canonical}");
            assert!(canonical <= index);
            let mut images = 0;
            space.for_each_image(canonical, 0, |_, _| images += 1);
            assert_eq!(space.class_size(canonical), 1 + images, "{canonical}");
            // A board repeating itself around the ring has a mask that repeats too.
            let masks = if images + 1 == pits as u64 {
                vec![1u64, 0b101, (1 << pits) - 2]
            } else {
                vec![0, (1 << pits) - 1]
            };
            for best in masks {
                let expected = if canonical == index {
                    assert_eq!(symmetry, 0);
                    Some(best)
                } else {
                    let mut found = None;
                    space.for_each_image(canonical, best, |image, mask| {
                        if image == index {
                            found = Some(mask);
                        }
                    });
                    found
                };
                assert_eq!(Some(space.image_mask(symmetry, best)), expected, "{index}");
            }
        }
    }

    #[test]
    fn divisor_divides_like_the_operators() {
        for d in 2..=10u32 {
            let divisor = Divisor::new(d);
            let ends = (0..100_000).chain(u32::MAX - 100_000..=u32::MAX);
            for n in ends.chain((0..u32::MAX).step_by(65_537)) {
                assert_eq!(divisor.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }

    #[test]
    fn canonical_states_and_their_images_agree_with_for_each_image() {
        check_canonical(&IoiwariSpace, PITS);
        for (pits, cap) in [(5, 3), (4, 9), (6, 2), (2, 4), (9, 2)] {
            let space = RingSpace::new(Params::new(pits, cap, 0, 0, cap).unwrap());
            check_canonical(&space, usize::from(pits));
        }
    }

    #[test]
    fn ring_layers_enumerate_like_the_plain_scan() {
        for (pits, cap) in [(5, 3), (4, 9), (7, 5), (3, 2)] {
            let params = Params::new(pits, cap, 0, 0, cap).unwrap();
            let space = RingSpace::new(params);
            let chunk = space.layer_chunk();
            assert!(chunk > 1 && chunk <= space.len());
            // A layer is the beads on the board, read the plain way.
            let beads = |i: u64| Ring::from_index(&params, i).beads() as usize;
            for i in 0..space.len() {
                assert_eq!(space.layer(i), beads(i), "pits {pits} cap {cap} index {i}");
            }
            for layer in 0..space.num_layers() {
                let plain: Vec<u64> = (0..space.len()).filter(|&i| beads(i) == layer).collect();
                // Chunk-aligned pieces and ragged ones.
                for step in [chunk, 1000] {
                    let mut got = Vec::new();
                    for start in (0..space.len()).step_by(step as usize) {
                        let end = (start + step).min(space.len());
                        space.for_each_in_layer(layer, start..end, |i| got.push(i));
                    }
                    assert_eq!(got, plain, "pits {pits} cap {cap} layer {layer}");
                }
            }
        }
    }

    #[test]
    fn ring_records_solved_in_place_equal_the_in_memory_solution() {
        for params in [Params::default(), Params::new(6, 4, 0, 0, 4).unwrap()] {
            let space = RingSpace::new(params);
            let solution = crate::retrograde::solve(&space, true, &|_| {}).unwrap();
            let records = crate::retrograde::tests::records_of(&space, 1).unwrap();
            let expected = crate::retrograde::tests::encoded(&solution, 1);
            assert_eq!(records, expected, "{params}");
        }
    }

    #[test]
    fn a_group_solves_the_ring_records_one_process_solves() {
        use crate::distributed::tests::group_records_of;
        let params = Params::new(6, 4, 0, 0, 4).unwrap();
        let space = RingSpace::new(params);
        let alone = crate::retrograde::tests::records_of(&space, 1).unwrap();
        // The builder's own blocks, and blocks cutting across them.
        for (members, block) in [(2, space.layer_chunk()), (3, 125), (4, 7)] {
            let solved = group_records_of(&space, members, block, 1, 4096);
            assert_eq!(solved, alone, "{members} members, blocks of {block}");
        }
    }

    /// The seed's example game: after each move, every pit and both banks.
    #[test]
    fn seed_example_game() {
        let mut board: Board = "4 3 2 4 2 3 2".parse().unwrap();
        let mut banks = [0u32; 2];
        let expected: [(&str, [u8; 7], [u32; 2]); 6] = [
            ("2", [4, 0, 3, 5, 0, 3, 2], [3, 0]),
            ("3", [4, 0, 0, 4, 1, 4, 0], [3, 4]),
            ("5", [4, 0, 0, 4, 0, 0, 0], [8, 4]),
            ("4", [0, 0, 0, 0, 1, 1, 1], [8, 9]),
            ("5", [0, 0, 0, 0, 0, 0, 1], [10, 9]),
            ("7", [0, 0, 0, 0, 0, 0, 0], [11, 9]),
        ];
        for (turn, (label, pits, bank)) in expected.iter().enumerate() {
            let mover = turn % 2;
            let sowing = board.sow_label(label).unwrap();
            banks[mover] += u32::from(sowing.mover);
            banks[1 - mover] += u32::from(sowing.opponent);
            assert_eq!(board.pits(), *pits, "pits after move {}", turn + 1);
            assert_eq!(banks, *bank, "banks after move {}", turn + 1);
        }
        assert!(board.is_over());
    }

    #[test]
    fn full_pit_pays_the_mover_and_hand_keeps_its_beads() {
        let mut board = Board::new([3, 5, 5, 0, 0, 0, 0]).unwrap();
        let sowing = board.sow(0);
        // Two full pits pay one each, then 0 -> 1, 0 -> 1, last bead on empty pit 6.
        assert_eq!(board.pits(), [0, 4, 4, 1, 1, 0, 0]);
        assert_eq!(
            sowing,
            Sowing {
                mover: 2,
                opponent: 1
            }
        );
    }

    #[test]
    fn last_bead_on_full_pit_goes_to_opponent() {
        let mut board = Board::new([0, 0, 0, 1, 5, 0, 0]).unwrap();
        assert_eq!(
            board.sow(3),
            Sowing {
                mover: 0,
                opponent: 1
            }
        );
        assert_eq!(board.pits(), [0, 0, 0, 0, 5, 0, 0]);
    }

    #[test]
    fn sowing_wraps_around_the_circle() {
        let mut board = Board::new([1, 0, 0, 0, 0, 0, 3]).unwrap();
        // From pit 7: pit 1 (1 -> 2), pit 2 (0 -> 1), last bead on pit 3 (empty).
        assert_eq!(
            board.sow(6),
            Sowing {
                mover: 0,
                opponent: 1
            }
        );
        assert_eq!(board.pits(), [2, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn index_round_trips_and_every_move_lowers_the_beads() {
        for index in 0..NUM_BOARDS {
            let board = Board::from_index(index);
            assert_eq!(board.index(), index);
            for &pit in board.legal_moves().iter() {
                let mut child = board;
                let sowing = child.sow(pit);
                let lost = board.beads() - child.beads();
                assert!(lost >= 1);
                assert_eq!(lost, u32::from(sowing.mover) + u32::from(sowing.opponent));
            }
        }
    }

    #[test]
    fn tracked_index_matches_a_fresh_encoding() {
        for index in 0..NUM_BOARDS {
            let board = Board::from_index(index);
            IoiwariSpace.for_each_edge(index as u64, |edge| {
                let mut child = board;
                let reward = child.sow(edge.slot).difference();
                assert_eq!((edge.child as usize, edge.reward), (child.index(), reward));
            });
        }
    }

    #[test]
    fn rotated_index_matches_rotated_board() {
        for index in (0..NUM_BOARDS).step_by(7) {
            let board = Board::from_index(index);
            for k in 1..PITS {
                assert_eq!(rotated_index(index, k), board.rotated(k).index());
            }
        }
        let canonical = (0..NUM_BOARDS)
            .filter(|&i| IoiwariSpace.is_canonical(i as u64))
            .count();
        // (6^7 - 6) / 7 classes of seven boards, and six boards with all pits equal.
        assert_eq!(canonical, (NUM_BOARDS - 6) / 7 + 6);
    }

    #[test]
    fn instance_counts() {
        assert_eq!(starting_boards().len(), 357);
        let instances = instances();
        assert_eq!(instances.len(), 51);
        for board in &instances {
            assert_eq!(canonical_rotation(*board), *board);
        }
    }

    #[test]
    fn malformed_boards_are_rejected() {
        assert_eq!(
            "1 2 3".parse::<Board>(),
            Err(IoiwariError::PitCount {
                expected: 7,
                found: 3
            })
        );
        assert!(matches!(
            "1 2 3 4 5 0 x".parse::<Board>(),
            Err(IoiwariError::NotANumber { pit: 7, .. })
        ));
        assert!(matches!(
            "1 2 3 4 5 -1 0".parse::<Board>(),
            Err(IoiwariError::NotANumber { pit: 6, .. })
        ));
        assert_eq!(
            "6 0 0 0 0 0 0".parse::<Board>(),
            Err(IoiwariError::TooManyBeads {
                pit: 1,
                beads: 6,
                cap: 5
            })
        );
        assert!(parse_label("8").is_err());
        assert!(parse_label("0").is_err());
        assert_eq!(parse_label(" 3 "), Ok(2));
    }

    #[test]
    fn a_match_keeps_the_banks_and_refuses_empty_pits() {
        // The seed's example through the general game: same banks as above.
        let mut game = Match::new("4 3 2 4 2 3 2".parse().unwrap());
        assert_eq!(game.turn(), Turn::Seat(0));
        assert_eq!(game.check_move(1), Ok(()), "pit 2 is legal at the start");
        for (k, pit) in [1u8, 2, 4, 3, 4, 6].into_iter().enumerate() {
            assert_eq!(game.turn(), Turn::Seat(k % 2));
            game.check_move(pit).unwrap();
            Game::apply(&mut game, pit);
        }
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!(game.banks, [11, 9]);
        assert_eq!(game.scores().as_slice(), &[11.0, 9.0]);
        assert_eq!(game.difference(), 2);
        let mut game = Match::new("4 3 2 4 2 3 2".parse().unwrap());
        Game::apply(&mut game, 1);
        assert_eq!(
            game.check_move(1),
            Err(IllegalMove("pit 2 is empty".into()))
        );
        assert!(game.check_move(7).is_err());
        assert_eq!(game.moves().as_slice(), &[0, 2, 3, 5, 6]);
    }

    #[test]
    fn the_default_ring_space_is_the_ioi_space() {
        let params = Params::default();
        let space = RingSpace::new(params);
        assert_eq!(space.len(), NUM_BOARDS as u64);
        for index in 0..NUM_BOARDS as u64 {
            let mut expected = Vec::new();
            IoiwariSpace.for_each_edge(index, |e| expected.push(e));
            let mut got = Vec::new();
            space.for_each_edge(index, |e| got.push(e));
            assert_eq!(got, expected, "board {index}");
            assert_eq!(space.is_canonical(index), IoiwariSpace.is_canonical(index));
            assert_eq!(space.layer(index), IoiwariSpace.layer(index));
        }
        let rings: Vec<Board> = params
            .instances()
            .iter()
            .map(|r| r.to_board().unwrap())
            .collect();
        assert_eq!(rings, instances());
        assert_eq!(params.starting_rings().len(), 357);
    }

    #[test]
    fn a_variant_space_matches_a_hashmap_negamax() {
        use crate::search::memo_negamax;
        use std::collections::HashMap;
        for (pits, cap) in [(5, 3), (6, 2), (4, 4)] {
            let params = Params::new(pits, cap, u32::from(pits), 1, 1).unwrap();
            let space = RingSpace::new(params);
            let solution = crate::retrograde::solve(&space, true, &|_| {}).unwrap();
            let mut memo = HashMap::new();
            for index in 0..space.len() {
                let ring = Ring::from_index(&params, index);
                assert_eq!(ring.index(), index);
                let value = memo_negamax(&ring, &mut memo);
                assert_eq!(i32::from(solution.values[index as usize]), value, "{ring}");
            }
            let checked = crate::retrograde::check(
                &space,
                |i| i32::from(solution.values[i as usize]),
                |i| solution.best[i as usize],
            );
            assert_eq!(checked, Ok(space.len()));
        }
    }

    #[test]
    fn variant_rules_use_the_capacity() {
        let params = Params::new(5, 3, 10, 1, 3).unwrap();
        // A full pit (3) pays the sower; the last bead on a full pit goes to the opponent.
        let mut ring = Ring::new(&params, &[3, 3, 0, 0, 3]).unwrap();
        let sowing = ring.sow(0);
        assert_eq!(ring.pits(), &[0, 2, 1, 1, 3]);
        assert_eq!(
            sowing,
            Sowing {
                mover: 1,
                opponent: 1
            }
        );
        assert!(Ring::parse(&params, "1 2 3 4 0").is_err());
        assert_eq!(
            Ring::parse(&params, "1 2 3").err(),
            Some(IoiwariError::PitCount {
                expected: usize::from(params.pits),
                found: 3
            })
        );
        assert!(Params::new(14, 5, 20, 1, 2).is_err());
        assert!(Params::new(7, 5, 40, 2, 4).is_err());
        assert!(Params::new(7, 5, 20, 4, 2).is_err());
        assert!(Params::new(7, 4, 20, 2, 5).is_err());
        // Rotation classes of 6 pits: a board of period 2 or 3 has fewer images.
        let p6 = Params::new(6, 2, 6, 0, 2).unwrap();
        let space = RingSpace::new(p6);
        let classes = (0..space.len()).filter(|&i| space.is_canonical(i)).count();
        // Necklaces of 6 beads in 3 colours: (3^6 + 3^3 + 2*3^2 + 2*3) / 6 = 130.
        assert_eq!(classes, 130);
    }
}
