//! Ioiwari (IOI 2001): a Mancala game on 7 pits arranged in a circle.
//!
//! Pits are labelled 1..7 clockwise; internally they are `0..7`. A pit holds at
//! most 5 beads during play, so a board is a 7-digit base-6 number: its
//! [`Board::index`] is dense over all `6^7` boards. Every move lowers the number
//! of beads in the pits, which is what makes the retrograde layers.
//!
//! The variants live here too: [`Params`] (pits, capacity, starting boards),
//! [`Ring`], a board of up to [`MAX_RING`] pits, and [`RingSpace`], its
//! state space; [`Sowable`] and [`BankMatch`] play the IOI game and the
//! variants alike.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use crate::game::{Game, IllegalMove, Scores, Seat, Turn};

use crate::retrograde::{Edge, StateSpace};
use crate::{MoveList, ZeroSum};

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

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, beads) in self.pits.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{beads}")?;
        }
        Ok(())
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
                visit(Edge {
                    slot: pit,
                    reward: sowing.difference(),
                    child: index.wrapping_add_signed(delta as i64),
                    keeps_turn: false,
                });
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

/// Most pits of a parameterised board ([`Ring`]).
pub const MAX_RING: usize = 13;
/// Fewest pits of a parameterised board.
pub const MIN_RING: usize = 2;
/// Largest pit capacity of a parameterised board.
pub const MAX_CAP: u8 = 9;

/// The parameters of an Ioiwari variant: the ring, the capacity, and the
/// starting boards. [`Params::default`] is the IOI 2001 game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// Pits around the ring (IOI: 7).
    pub pits: u8,
    /// Most beads a pit holds during play (IOI: 5): a full pit pays the sower, and a
    /// last bead on it or on an empty pit goes to the opponent.
    pub cap: u8,
    /// Beads on a starting board (IOI: 20).
    pub beads: u32,
    /// Fewest beads in a starting pit (IOI: 2).
    pub low: u8,
    /// Most beads in a starting pit (IOI: 4).
    pub high: u8,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            pits: PITS as u8,
            cap: MAX_BEADS,
            beads: START_BEADS,
            low: 2,
            high: 4,
        }
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pits {} cap {} beads {} start {}..{}",
            self.pits, self.cap, self.beads, self.low, self.high
        )
    }
}

impl Params {
    /// Checked parameters: 2..=13 pits, capacity 2..=9, `low <= high <= cap`,
    /// and `beads` reachable with every pit in `low..=high`.
    pub fn new(pits: u8, cap: u8, beads: u32, low: u8, high: u8) -> Result<Params, IoiwariError> {
        let params = Params {
            pits,
            cap,
            beads,
            low,
            high,
        };
        let bad = |why: String| Err(IoiwariError::BadParams(why));
        if !(MIN_RING..=MAX_RING).contains(&usize::from(pits)) {
            return bad(format!("{pits} pits, a ring has {MIN_RING} to {MAX_RING}"));
        }
        if !(2..=MAX_CAP).contains(&cap) {
            return bad(format!("capacity {cap}, it is 2 to {MAX_CAP}"));
        }
        if low > high || high > cap {
            return bad(format!(
                "a starting pit holds {low} to {high} beads, which must lie within 0..={cap}"
            ));
        }
        let (least, most) = (
            u32::from(low) * u32::from(pits),
            u32::from(high) * u32::from(pits),
        );
        if !(least..=most).contains(&beads) {
            return bad(format!(
                "{beads} beads cannot fill {pits} pits with {low} to {high} each ({least} to {most})"
            ));
        }
        Ok(params)
    }

    /// Whether the table of these parameters is the IOI table (7 pits, capacity 5).
    pub fn is_ioi_table(&self) -> bool {
        usize::from(self.pits) == PITS && self.cap == MAX_BEADS
    }

    /// Number of boards, `(cap + 1)^pits`.
    pub fn boards(&self) -> u64 {
        u64::from(self.cap + 1).pow(u32::from(self.pits))
    }

    /// Every starting board (each pit in `low..=high`, `beads` in all), in index order.
    pub fn starting_rings(&self) -> Vec<Ring> {
        let mut out = Vec::new();
        let mut pits = [0u8; MAX_RING];
        self.fill(0, self.beads, &mut pits, &mut out);
        out.sort_by_key(Ring::index);
        out
    }

    fn fill(&self, at: usize, left: u32, pits: &mut [u8; MAX_RING], out: &mut Vec<Ring>) {
        let n = usize::from(self.pits);
        if at == n {
            if left == 0 {
                out.push(Ring {
                    pits: *pits,
                    len: self.pits,
                    cap: self.cap,
                });
            }
            return;
        }
        let rest = (n - at - 1) as u32;
        for beads in self.low..=self.high {
            let b = u32::from(beads);
            if b <= left
                && left - b >= rest * u32::from(self.low)
                && left - b <= rest * u32::from(self.high)
            {
                pits[at] = beads;
                self.fill(at + 1, left - b, pits, out);
            }
        }
        pits[at] = 0;
    }

    /// The starting instances modulo rotation, each as the rotation whose
    /// reversed digits sort first, sorted by them (the IOI table's order).
    pub fn instances(&self) -> Vec<Ring> {
        let mut canonical: Vec<Ring> = self
            .starting_rings()
            .into_iter()
            .map(|r| r.canonical_rotation())
            .collect();
        canonical.sort_by_key(Ring::reversed_digits);
        canonical.dedup();
        canonical
    }
}

/// A board of a parameterised Ioiwari: up to [`MAX_RING`] pits of capacity `cap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ring {
    pits: [u8; MAX_RING],
    len: u8,
    cap: u8,
}

impl Ring {
    /// The board of `params` with these pit counts (checked).
    pub fn new(params: &Params, pits: &[u8]) -> Result<Ring, IoiwariError> {
        if pits.len() != usize::from(params.pits) {
            return Err(IoiwariError::PitCount {
                expected: usize::from(params.pits),
                found: pits.len(),
            });
        }
        let mut ring = Ring {
            pits: [0; MAX_RING],
            len: params.pits,
            cap: params.cap,
        };
        for (i, &beads) in pits.iter().enumerate() {
            if beads > params.cap {
                return Err(IoiwariError::TooManyBeads {
                    pit: i + 1,
                    beads: u32::from(beads),
                    cap: params.cap,
                });
            }
            ring.pits[i] = beads;
        }
        Ok(ring)
    }

    /// Parses whitespace-separated bead counts, pit 1 first.
    pub fn parse(params: &Params, text: &str) -> Result<Ring, IoiwariError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() != usize::from(params.pits) {
            return Err(IoiwariError::PitCount {
                expected: usize::from(params.pits),
                found: words.len(),
            });
        }
        let mut pits = Vec::with_capacity(words.len());
        for (i, word) in words.iter().enumerate() {
            let beads: u32 = word.parse().map_err(|_| IoiwariError::NotANumber {
                pit: i + 1,
                text: word.to_string(),
            })?;
            if beads > u32::from(params.cap) {
                return Err(IoiwariError::TooManyBeads {
                    pit: i + 1,
                    beads,
                    cap: params.cap,
                });
            }
            pits.push(beads as u8);
        }
        Ring::new(params, &pits)
    }

    /// The board with the given dense index (pit 1 the least significant base-(cap+1) digit).
    pub fn from_index(params: &Params, mut index: u64) -> Ring {
        let base = u64::from(params.cap) + 1;
        let mut pits = [0u8; MAX_RING];
        for pit in pits.iter_mut().take(usize::from(params.pits)) {
            *pit = (index % base) as u8;
            index /= base;
        }
        Ring {
            pits,
            len: params.pits,
            cap: params.cap,
        }
    }

    /// Dense index of the board among the `(cap+1)^pits` boards.
    pub fn index(&self) -> u64 {
        let base = u64::from(self.cap) + 1;
        self.pits()
            .iter()
            .rev()
            .fold(0, |acc, &beads| acc * base + u64::from(beads))
    }

    /// The pit counts, pit 1 first.
    pub fn pits(&self) -> &[u8] {
        &self.pits[..usize::from(self.len)]
    }

    /// Beads left in the pits.
    pub fn beads(&self) -> u32 {
        self.pits().iter().map(|&b| u32::from(b)).sum()
    }

    /// Whether every pit is empty (the game is over).
    pub fn is_empty(&self) -> bool {
        self.pits().iter().all(|&b| b == 0)
    }

    /// Whether `pit` can be played.
    pub fn is_legal(&self, pit: Pit) -> bool {
        pit < self.len && self.pits[usize::from(pit)] > 0
    }

    /// Plays `pit` (non-empty) and reports the beads banked.
    pub fn sow(&mut self, pit: Pit) -> Sowing {
        let len = usize::from(self.len);
        // Place values are not needed here: unit steps are free to compute.
        let place = [0isize; MAX_RING];
        sow_ring(
            &mut self.pits[..len],
            self.cap,
            &place[..len],
            usize::from(pit),
        )
        .0
    }

    /// The board turned by `k` pits: pit `i` of the result is pit `i + k` of this one.
    pub fn rotated(&self, k: usize) -> Ring {
        let n = usize::from(self.len);
        let mut out = *self;
        for i in 0..n {
            out.pits[i] = self.pits[(i + k) % n];
        }
        out
    }

    /// The pit digits read from the last pit down to pit 1.
    pub fn reversed_digits(&self) -> Vec<u8> {
        self.pits().iter().rev().copied().collect()
    }

    /// The rotation whose reversed digit string sorts first.
    pub fn canonical_rotation(&self) -> Ring {
        (0..usize::from(self.len))
            .map(|k| self.rotated(k))
            .min_by_key(Ring::reversed_digits)
            .expect("a ring has pits")
    }

    /// The same board as a 7-pit [`Board`], when it is one of the IOI game.
    pub fn to_board(&self) -> Option<Board> {
        (usize::from(self.len) == PITS && self.cap == MAX_BEADS).then(|| {
            let mut pits = [0u8; PITS];
            pits.copy_from_slice(self.pits());
            Board { pits }
        })
    }
}

impl From<Board> for Ring {
    fn from(board: Board) -> Ring {
        let mut pits = [0u8; MAX_RING];
        pits[..PITS].copy_from_slice(&board.pits);
        Ring {
            pits,
            len: PITS as u8,
            cap: MAX_BEADS,
        }
    }
}

impl fmt::Display for Ring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, beads) in self.pits().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{beads}")?;
        }
        Ok(())
    }
}

impl ZeroSum for Ring {
    type Move = Pit;
    type Moves = MoveList<Pit, MAX_RING>;

    fn legal_moves(&self) -> Self::Moves {
        (0..self.len).filter(|&p| self.is_legal(p)).collect()
    }

    fn play(&mut self, pit: Pit) -> i32 {
        self.sow(pit).difference()
    }

    fn is_over(&self) -> bool {
        self.is_empty()
    }
}

impl Sowable for Ring {
    fn pit_count(&self) -> usize {
        usize::from(self.len)
    }
    fn is_empty(&self) -> bool {
        Ring::is_empty(self)
    }
    fn is_legal(&self, pit: Pit) -> bool {
        Ring::is_legal(self, pit)
    }
    fn sow(&mut self, pit: Pit) -> Sowing {
        Ring::sow(self, pit)
    }
}

/// A game of an Ioiwari variant as the referee holds it (like [`Match`]).
pub type RingMatch = BankMatch<Ring>;

/// Every board of an Ioiwari variant as a [`StateSpace`], layered by beads,
/// one board per rotation class solved (as [`IoiwariSpace`] does for the IOI game).
#[derive(Clone, Copy, Debug)]
pub struct RingSpace {
    params: Params,
    place: [isize; MAX_RING],
    len: u64,
    base: Divisor,
}

impl RingSpace {
    /// The space of `params`' boards.
    pub fn new(params: Params) -> RingSpace {
        let mut place = [0isize; MAX_RING];
        let base = isize::from(params.cap) + 1;
        let mut p = 1isize;
        for v in place.iter_mut().take(usize::from(params.pits)) {
            *v = p;
            p *= base;
        }
        RingSpace {
            params,
            place,
            len: params.boards(),
            base: Divisor::new(u32::from(params.cap) + 1),
        }
    }

    /// Calls `visit(pit, sowing, child, index change)` for every legal move of board `index`.
    #[inline(always)]
    fn for_each_sowing(&self, index: u64, mut visit: impl FnMut(usize, Sowing, &Ring, isize)) {
        let ring = Ring {
            pits: self.digits(index),
            len: self.params.pits,
            cap: self.params.cap,
        };
        let n = usize::from(self.params.pits);
        for pit in 0..n {
            if ring.pits[pit] > 0 {
                let mut child = ring;
                let (sowing, delta) =
                    sow_ring(&mut child.pits[..n], ring.cap, &self.place[..n], pit);
                visit(pit, sowing, &child, delta);
            }
        }
    }

    /// The pits of board `index`, pit 1 first: one 64-bit division splits the
    /// index into two halves that 32-bit divisions take apart.
    #[inline]
    fn digits(&self, index: u64) -> [u8; MAX_RING] {
        let n = usize::from(self.params.pits);
        let half = n / 2;
        let split = self.place[half] as u64;
        let mut pits = [0u8; MAX_RING];
        let (mut low, mut high) = ((index % split) as u32, (index / split) as u32);
        for pit in &mut pits[..half] {
            let (rest, beads) = self.base.div_rem(low);
            (*pit, low) = (beads as u8, rest);
        }
        for pit in &mut pits[half..n] {
            let (rest, beads) = self.base.div_rem(high);
            (*pit, high) = (beads as u8, rest);
        }
        pits
    }

    fn rotated_index(&self, index: u64, k: usize) -> u64 {
        let n = usize::from(self.params.pits);
        let low = self.place[k] as u64;
        index / low + (index % low) * self.place[n - k] as u64
    }
}

impl StateSpace for RingSpace {
    fn len(&self) -> u64 {
        self.len
    }

    fn num_layers(&self) -> usize {
        usize::from(self.params.pits) * usize::from(self.params.cap) + 1
    }

    fn layer(&self, index: u64) -> usize {
        Ring::from_index(&self.params, index).beads() as usize
    }

    fn is_canonical(&self, index: u64) -> bool {
        (1..usize::from(self.params.pits)).all(|k| self.rotated_index(index, k) >= index)
    }

    fn for_each_image(&self, index: u64, best: u64, mut visit: impl FnMut(u64, u64)) {
        let n = usize::from(self.params.pits);
        for k in 1..n {
            let image = self.rotated_index(index, k);
            if image == index {
                // Rotations repeat from the smallest period on.
                break;
            }
            visit(image, rotated_mask(best, k, n));
        }
    }

    #[inline]
    fn canonical(&self, index: u64) -> (u64, u32) {
        let n = usize::from(self.params.pits);
        least_rotation(&self.digits(index)[..n], &self.place)
    }

    /// Canonicalises each child from its pits, not from its index.
    fn for_each_edge_to_canonical(&self, index: u64, mut visit: impl FnMut(Edge)) {
        let n = usize::from(self.params.pits);
        self.for_each_sowing(index, |pit, sowing, child, _| {
            visit(Edge {
                slot: pit as u8,
                reward: sowing.difference(),
                child: least_rotation(&child.pits[..n], &self.place).0,
                keeps_turn: false,
            })
        });
    }

    /// Counts through the boards digit by digit instead of decoding each index.
    fn for_each_canonical(&self, indices: Range<u64>, mut visit: impl FnMut(u64, u64, u32)) {
        if indices.is_empty() {
            return;
        }
        let n = usize::from(self.params.pits);
        let mut pits = self.digits(indices.start);
        for index in indices {
            let (canonical, symmetry) = least_rotation(&pits[..n], &self.place);
            visit(index, canonical, symmetry);
            for pit in &mut pits[..n] {
                if *pit < self.params.cap {
                    *pit += 1;
                    break;
                }
                *pit = 0;
            }
        }
    }

    fn image_mask(&self, symmetry: u32, best: u64) -> u64 {
        rotated_mask(best, symmetry as usize, usize::from(self.params.pits))
    }

    fn class_size(&self, index: u64) -> u64 {
        ring_period(&self.digits(index)[..usize::from(self.params.pits)])
    }

    fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
        self.for_each_sowing(index, |pit, sowing, _, delta| {
            visit(Edge {
                slot: pit as u8,
                reward: sowing.difference(),
                child: index.wrapping_add_signed(delta as i64),
                keeps_turn: false,
            })
        });
    }

    fn terminal_value(&self, _index: u64) -> i32 {
        0
    }

    /// Every move banks a bead.
    fn has_same_layer_edges(&self) -> bool {
        false
    }

    /// The low pits' whole range: [`RingSpace::for_each_in_layer`] enumerates them by bead sum.
    fn layer_chunk(&self) -> u64 {
        self.place_or_len(self.low_pits())
    }

    /// Enumerates the boards with `layer` beads block by block of the low pits' range:
    /// the high pits' beads fix the low pits' sum, whose boards come out in order.
    fn for_each_in_layer(&self, layer: usize, indices: Range<u64>, mut visit: impl FnMut(u64)) {
        let low = self.low_pits();
        let block = self.place_or_len(low);
        let base = u64::from(self.params.cap) + 1;
        let cap = u32::from(self.params.cap);
        for high in indices.start / block..indices.end.div_ceil(block) {
            let mut rest = high;
            let mut beads = 0u32;
            while rest > 0 {
                beads += (rest % base) as u32;
                rest /= base;
            }
            let Some(need) = (layer as u32).checked_sub(beads) else {
                continue;
            };
            if need > cap * low as u32 {
                continue;
            }
            let first = high * block;
            let mut emit = |offset: u64| {
                let index = first + offset;
                if indices.contains(&index) {
                    visit(index);
                }
            };
            digits_summing(low, need, cap, base, 0, &mut emit);
        }
    }
}

impl RingSpace {
    /// The pits enumerated inside one chunk: about 4096 boards' worth, at most all.
    fn low_pits(&self) -> usize {
        let n = usize::from(self.params.pits);
        (1..=n).find(|&k| self.place_or_len(k) >= 4096).unwrap_or(n)
    }

    /// Place value of pit `k`, or the number of boards for `k` = pits.
    fn place_or_len(&self, k: usize) -> u64 {
        if k < usize::from(self.params.pits) {
            self.place[k] as u64
        } else {
            self.len
        }
    }
}

/// Calls `visit(prefix * base^digits + rest)` for every `digits`-digit number
/// `rest` in base `base` (digits at most `cap`) whose digits sum to `sum`, in increasing order.
fn digits_summing(
    digits: usize,
    sum: u32,
    cap: u32,
    base: u64,
    prefix: u64,
    visit: &mut impl FnMut(u64),
) {
    if digits == 0 {
        if sum == 0 {
            visit(prefix);
        }
        return;
    }
    let below = cap * (digits as u32 - 1);
    for d in sum.saturating_sub(below)..=sum.min(cap) {
        digits_summing(
            digits - 1,
            sum - d,
            cap,
            base,
            prefix * base + u64::from(d),
            visit,
        );
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
            let space = RingSpace::new(Params::new(pits, cap, 0, 0, cap).unwrap());
            let chunk = space.layer_chunk();
            assert!(chunk > 1 && chunk <= space.len());
            for layer in 0..space.num_layers() {
                let plain: Vec<u64> = (0..space.len())
                    .filter(|&i| space.layer(i) == layer)
                    .collect();
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
        use crate::distributed::tests::shared_records_of;
        let params = Params::new(6, 4, 0, 0, 4).unwrap();
        let space = RingSpace::new(params);
        let alone = crate::retrograde::tests::records_of(&space, 1).unwrap();
        // The builder's own blocks, and blocks cutting across them.
        for (members, block) in [(2, space.layer_chunk()), (3, 125), (4, 7)] {
            let shared = shared_records_of(&space, members, block, 1, 4096);
            assert_eq!(shared, alone, "{members} members, blocks of {block}");
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
