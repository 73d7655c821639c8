//! Tiles and sets of tiles as bit masks.
//!
//! Tile `a-b` (a ≤ b) has index `b(b+1)/2 + a`, so the full set over `0..n`
//! is exactly the low `n(n+1)/2` bits of a [`Tiles`] mask, and every set of
//! tiles in a game fits one `u64`.

use std::fmt;
use std::str::FromStr;

/// The fewest numbers a set may have.
pub const MIN_NUMBERS: u8 = 5;
/// The most numbers a set may have (the statement's N ≤ 9).
pub const MAX_NUMBERS: u8 = 9;
/// The fewest tiles dealt to each hand.
pub const MIN_HAND: u8 = 4;
/// The most tiles dealt to each hand.
pub const MAX_HAND: u8 = 7;
/// The tiles of the largest set, N = 9.
pub const MAX_TILES: usize = tile_count(MAX_NUMBERS) as usize;

/// The number of tiles in the set over `0..n`: n(n+1)/2.
pub const fn tile_count(n: u8) -> u32 {
    n as u32 * (n as u32 + 1) / 2
}

/// One domino tile, an unordered pair of numbers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile(u8);

impl Tile {
    /// The tile with numbers `a` and `b`, in either order.
    pub const fn new(a: u8, b: u8) -> Tile {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        Tile(hi * (hi + 1) / 2 + lo)
    }

    /// The tile with this index (`b(b+1)/2 + a`, a ≤ b); `None` past the largest set.
    pub fn from_index(index: usize) -> Option<Tile> {
        (index < MAX_TILES).then_some(Tile(index as u8))
    }

    /// The tile's index in a [`Tiles`] mask.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The larger number.
    pub const fn high(self) -> u8 {
        HIGH[self.0 as usize]
    }

    /// The smaller number.
    pub const fn low(self) -> u8 {
        self.0 - HIGH[self.0 as usize] * (HIGH[self.0 as usize] + 1) / 2
    }

    /// The sum of its pips.
    pub const fn pips(self) -> u32 {
        self.low() as u32 + self.high() as u32
    }

    /// Whether both halves show the same number.
    pub const fn is_double(self) -> bool {
        self.low() == self.high()
    }

    /// Whether one half shows `number`.
    pub const fn has(self, number: u8) -> bool {
        self.low() == number || self.high() == number
    }

    /// The half that is left free when the tile is matched on `number` (which it must have).
    pub const fn other(self, number: u8) -> u8 {
        if self.low() == number {
            self.high()
        } else {
            self.low()
        }
    }

    /// The single-tile set.
    pub const fn bit(self) -> u64 {
        1 << self.0
    }
}

const HIGH: [u8; MAX_TILES] = {
    let mut high = [0u8; MAX_TILES];
    let mut b = 0;
    while b < MAX_NUMBERS {
        let mut a = 0;
        while a <= b {
            high[(b * (b + 1) / 2 + a) as usize] = b;
            a += 1;
        }
        b += 1;
    }
    high
};

/// The tiles that show `number`, for every number of the largest set.
const SUITS: [u64; MAX_NUMBERS as usize] = {
    let mut suits = [0u64; MAX_NUMBERS as usize];
    let mut i = 0;
    while i < MAX_TILES {
        let t = Tile(i as u8);
        suits[t.low() as usize] |= t.bit();
        suits[t.high() as usize] |= t.bit();
        i += 1;
    }
    suits
};

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.low(), self.high())
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.low(), self.high())
    }
}

/// Why a tile could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad tile '{text}': {reason}")]
pub struct TileError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Reads `a-b`, with both numbers below `numbers`, into its tile and the order written.
pub fn parse_oriented(text: &str, numbers: u8) -> Result<(u8, u8), TileError> {
    let bad = |reason| TileError {
        text: text.chars().take(40).collect(),
        reason,
    };
    let (a, b) = text.split_once('-').ok_or_else(|| bad("expected a-b"))?;
    let number = |s: &str| -> Result<u8, TileError> {
        if s.is_empty() || s.len() > 1 || !s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad("each half is one digit"));
        }
        let n = s.parse::<u8>().map_err(|_| bad("each half is one digit"))?;
        if n >= numbers {
            return Err(bad("a number is out of range for this set"));
        }
        Ok(n)
    };
    Ok((number(a)?, number(b)?))
}

impl FromStr for Tile {
    type Err = TileError;

    /// Reads `a-b` for the largest set; use [`parse_oriented`] to check against a smaller one.
    fn from_str(text: &str) -> Result<Tile, TileError> {
        let (a, b) = parse_oriented(text, MAX_NUMBERS)?;
        Ok(Tile::new(a, b))
    }
}

/// A set of tiles, one bit each.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Tiles(pub u64);

impl Tiles {
    /// No tiles.
    pub const EMPTY: Tiles = Tiles(0);

    /// Every tile over the numbers `0..n`.
    pub const fn full(n: u8) -> Tiles {
        Tiles((1u64 << tile_count(n)) - 1)
    }

    /// Every tile that shows `number`.
    pub const fn suit(number: u8) -> Tiles {
        Tiles(SUITS[number as usize])
    }

    /// The tiles that show `left` or `right`.
    pub const fn matching(left: u8, right: u8) -> Tiles {
        Tiles(SUITS[left as usize] | SUITS[right as usize])
    }

    /// Whether `tile` is in the set.
    pub const fn contains(self, tile: Tile) -> bool {
        self.0 & tile.bit() != 0
    }

    /// Adds `tile`.
    pub fn insert(&mut self, tile: Tile) {
        self.0 |= tile.bit();
    }

    /// Removes `tile`.
    pub fn remove(&mut self, tile: Tile) {
        self.0 &= !tile.bit();
    }

    /// The number of tiles.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The tiles in both sets.
    pub const fn and(self, other: Tiles) -> Tiles {
        Tiles(self.0 & other.0)
    }

    /// The tiles in either set.
    pub const fn or(self, other: Tiles) -> Tiles {
        Tiles(self.0 | other.0)
    }

    /// The tiles of `self` not in `other`.
    pub const fn minus(self, other: Tiles) -> Tiles {
        Tiles(self.0 & !other.0)
    }

    /// The sum of the pips of every tile.
    pub fn pips(self) -> u32 {
        self.iter().map(Tile::pips).sum()
    }

    /// The tiles in index order.
    pub fn iter(self) -> TilesIter {
        TilesIter(self.0)
    }
}

impl fmt::Debug for Tiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<Tile> for Tiles {
    fn from_iter<I: IntoIterator<Item = Tile>>(iter: I) -> Tiles {
        let mut set = Tiles::EMPTY;
        for t in iter {
            set.insert(t);
        }
        set
    }
}

/// The tiles of a set in index order.
#[derive(Clone, Debug)]
pub struct TilesIter(u64);

impl Iterator for TilesIter {
    type Item = Tile;

    fn next(&mut self) -> Option<Tile> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Tile(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for TilesIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_dense_and_round_trip() {
        for n in MIN_NUMBERS..=MAX_NUMBERS {
            let mut seen = Tiles::EMPTY;
            for b in 0..n {
                for a in 0..=b {
                    let t = Tile::new(b, a);
                    assert_eq!((t.low(), t.high()), (a, b));
                    assert!(!seen.contains(t));
                    seen.insert(t);
                    assert_eq!(t.to_string().parse::<Tile>(), Ok(t));
                }
            }
            assert_eq!(seen, Tiles::full(n));
            assert_eq!(seen.len(), tile_count(n));
        }
    }

    #[test]
    fn suits_hold_exactly_the_tiles_with_the_number() {
        for number in 0..MAX_NUMBERS {
            let by_scan: Tiles = Tiles::full(MAX_NUMBERS)
                .iter()
                .filter(|t| t.has(number))
                .collect();
            assert_eq!(Tiles::suit(number), by_scan);
            assert_eq!(by_scan.len(), u32::from(MAX_NUMBERS));
        }
        let t = Tile::new(3, 5);
        assert_eq!((t.other(3), t.other(5), t.pips()), (5, 3, 8));
    }

    #[test]
    fn bad_tiles_are_refused_with_a_reason() {
        for text in ["", "3", "3-", "-3", "a-1", "12-1", "1-2-3", " 1-2"] {
            assert!(text.parse::<Tile>().is_err(), "{text:?}");
        }
        let err = parse_oriented("5-1", 5).unwrap_err();
        assert!(err.to_string().contains("out of range"), "{err}");
        assert_eq!(parse_oriented("4-1", 5), Ok((4, 1)));
    }
}
