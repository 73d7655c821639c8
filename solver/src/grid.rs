//! Square boards shared by the board games: a set of up to 256 squares and the
//! geometry of an N×N board (row/column ↔ square, neighbours, shifts).
//!
//! Squares are numbered `row * n + col`. Nothing here allocates after
//! [`Geometry::new`], so move generators can use it in their hot loops.

/// A square, `row * n + col`.
pub type Square = u8;

/// Largest board side: 16×16 = 256 squares fill a [`Squares`].
pub const MAX_SIDE: usize = 16;

/// A set of up to 256 squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Squares(pub [u64; 4]);

impl Squares {
    /// The empty set.
    pub const EMPTY: Squares = Squares([0; 4]);

    /// The set `{0, .., len-1}`.
    pub fn first(len: usize) -> Squares {
        let mut b = Squares::EMPTY;
        for (w, word) in b.0.iter_mut().enumerate() {
            let lo = w * 64;
            if len >= lo + 64 {
                *word = u64::MAX;
            } else if len > lo {
                *word = (1u64 << (len - lo)) - 1;
            }
        }
        b
    }

    /// The set holding only `square`.
    #[inline]
    pub fn single(square: usize) -> Squares {
        let mut b = Squares::EMPTY;
        b.set(square);
        b
    }

    /// Whether `square` is in the set.
    #[inline]
    pub fn has(&self, square: usize) -> bool {
        self.0[square >> 6] >> (square & 63) & 1 != 0
    }

    /// Adds `square`.
    #[inline]
    pub fn set(&mut self, square: usize) {
        self.0[square >> 6] |= 1 << (square & 63);
    }

    /// Removes `square`.
    #[inline]
    pub fn clear(&mut self, square: usize) {
        self.0[square >> 6] &= !(1 << (square & 63));
    }

    /// Number of squares in the set.
    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// Union.
    #[inline]
    pub fn or(self, other: Squares) -> Squares {
        Squares([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
            self.0[3] | other.0[3],
        ])
    }

    /// Intersection.
    #[inline]
    pub fn and(self, other: Squares) -> Squares {
        Squares([
            self.0[0] & other.0[0],
            self.0[1] & other.0[1],
            self.0[2] & other.0[2],
            self.0[3] & other.0[3],
        ])
    }

    /// Difference `self \ other`.
    #[inline]
    pub fn and_not(self, other: Squares) -> Squares {
        Squares([
            self.0[0] & !other.0[0],
            self.0[1] & !other.0[1],
            self.0[2] & !other.0[2],
            self.0[3] & !other.0[3],
        ])
    }

    /// Every square number raised by `k` (`0 <= k < 64`); squares past 255 drop out.
    #[inline]
    pub fn shift_up(self, k: u32) -> Squares {
        if k == 0 {
            return self;
        }
        let w = self.0;
        Squares([
            w[0] << k,
            w[1] << k | w[0] >> (64 - k),
            w[2] << k | w[1] >> (64 - k),
            w[3] << k | w[2] >> (64 - k),
        ])
    }

    /// Every square number lowered by `k` (`0 <= k < 64`); squares below 0 drop out.
    #[inline]
    pub fn shift_down(self, k: u32) -> Squares {
        if k == 0 {
            return self;
        }
        let w = self.0;
        Squares([
            w[0] >> k | w[1] << (64 - k),
            w[1] >> k | w[2] << (64 - k),
            w[2] >> k | w[3] << (64 - k),
            w[3] >> k,
        ])
    }

    /// The lowest square of the set, if any.
    #[inline]
    pub fn lowest(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|&w| w != 0)
            .map(|i| i * 64 + self.0[i].trailing_zeros() as usize)
    }

    /// The squares of the set in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        SquaresIter {
            words: self.0,
            at: 0,
        }
    }
}

/// The squares of a set in increasing order: a plain loop over the words
/// (a `flat_map` of per-word iterators cost more than the bits themselves).
struct SquaresIter {
    words: [u64; 4],
    at: usize,
}

impl Iterator for SquaresIter {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.at < 4 {
            let word = self.words[self.at];
            if word != 0 {
                self.words[self.at] = word & (word - 1);
                return Some(self.at * 64 + word.trailing_zeros() as usize);
            }
            self.at += 1;
        }
        None
    }
}

/// One of the 8 steps from a square to a neighbouring one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Row − 1.
    North,
    /// Row − 1, column + 1.
    NorthEast,
    /// Column + 1.
    East,
    /// Row + 1, column + 1.
    SouthEast,
    /// Row + 1.
    South,
    /// Row + 1, column − 1.
    SouthWest,
    /// Column − 1.
    West,
    /// Row − 1, column − 1.
    NorthWest,
}

impl Direction {
    /// All 8 directions, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// (row step, column step).
    #[inline]
    pub fn delta(self) -> (i32, i32) {
        match self {
            Direction::North => (-1, 0),
            Direction::NorthEast => (-1, 1),
            Direction::East => (0, 1),
            Direction::SouthEast => (1, 1),
            Direction::South => (1, 0),
            Direction::SouthWest => (1, -1),
            Direction::West => (0, -1),
            Direction::NorthWest => (-1, -1),
        }
    }

    /// The opposite direction.
    #[inline]
    pub fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 4) % 8]
    }
}

/// The orthogonal neighbours of `square` on an n×n board, in the order up,
/// left, right, down (row-major, so searches that follow it stay reproducible).
#[inline]
pub fn orthogonal_neighbours(n: usize, square: Square) -> arrayvec::ArrayVec<Square, 4> {
    let s = square as usize;
    let (r, c) = (s / n, s % n);
    let mut out = arrayvec::ArrayVec::new();
    if r > 0 {
        out.push((s - n) as Square);
    }
    if c > 0 {
        out.push((s - 1) as Square);
    }
    if c + 1 < n {
        out.push((s + 1) as Square);
    }
    if r + 1 < n {
        out.push((s + n) as Square);
    }
    out
}

/// The geometry of an n×n board: neighbours of every square, as lists and as
/// sets, and the masks that keep shifted sets from wrapping around the edges.
#[derive(Clone, Debug)]
pub struct Geometry {
    n: usize,
    all: Squares,
    /// Orthogonal neighbours (up, left, right, down) and their count.
    nbrs: Vec<([Square; 4], u8)>,
    masks: Vec<Squares>,
    /// All 8 neighbours, clockwise from north, and their count.
    nbrs8: Vec<([Square; 8], u8)>,
    /// Squares not in the first / last column.
    not_first_col: Squares,
    not_last_col: Squares,
}

impl Geometry {
    /// The geometry of the board side `n` (1 to 16).
    ///
    /// Panics on another side: sides are checked where boards are read.
    pub fn new(n: usize) -> Geometry {
        assert!((1..=MAX_SIDE).contains(&n), "board side {n} is not 1 to 16");
        let cells = n * n;
        let mut nbrs = Vec::with_capacity(cells);
        let mut masks = Vec::with_capacity(cells);
        let mut nbrs8 = Vec::with_capacity(cells);
        let (mut not_first_col, mut not_last_col) = (Squares::EMPTY, Squares::EMPTY);
        for s in 0..cells {
            let list = orthogonal_neighbours(n, s as Square);
            let mut arr = [0; 4];
            let mut mask = Squares::EMPTY;
            for (i, &nb) in list.iter().enumerate() {
                arr[i] = nb;
                mask.set(nb as usize);
            }
            nbrs.push((arr, list.len() as u8));
            masks.push(mask);
            let mut arr8 = [0; 8];
            let mut len8 = 0;
            for d in Direction::ALL {
                if let Some(nb) = step_on(n, s as Square, d) {
                    arr8[len8] = nb;
                    len8 += 1;
                }
            }
            nbrs8.push((arr8, len8 as u8));
            if s % n != 0 {
                not_first_col.set(s);
            }
            if s % n != n - 1 {
                not_last_col.set(s);
            }
        }
        Geometry {
            n,
            all: Squares::first(cells),
            nbrs,
            masks,
            nbrs8,
            not_first_col,
            not_last_col,
        }
    }

    /// Board side.
    #[inline]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of squares.
    #[inline]
    pub fn cells(&self) -> usize {
        self.n * self.n
    }

    /// Every square of the board.
    #[inline]
    pub fn all(&self) -> Squares {
        self.all
    }

    /// The square at (row, col).
    #[inline]
    pub fn square(&self, row: usize, col: usize) -> Square {
        (row * self.n + col) as Square
    }

    /// (row, col) of a square.
    #[inline]
    pub fn row_col(&self, square: Square) -> (usize, usize) {
        (square as usize / self.n, square as usize % self.n)
    }

    /// The square at a signed (row, col), if it is on the board.
    #[inline]
    pub fn checked_square(&self, row: i64, col: i64) -> Option<Square> {
        let n = self.n as i64;
        ((0..n).contains(&row) && (0..n).contains(&col))
            .then(|| self.square(row as usize, col as usize))
    }

    /// The orthogonal neighbours of a square (up, left, right, down).
    #[inline]
    pub fn neighbours(&self, square: Square) -> &[Square] {
        let (list, len) = &self.nbrs[square as usize];
        &list[..*len as usize]
    }

    /// The orthogonal neighbours of a square as a set.
    #[inline]
    pub fn neighbour_mask(&self, square: Square) -> Squares {
        self.masks[square as usize]
    }

    /// All 8 neighbours of a square, clockwise from north.
    #[inline]
    pub fn neighbours8(&self, square: Square) -> &[Square] {
        let (list, len) = &self.nbrs8[square as usize];
        &list[..*len as usize]
    }

    /// The square one step from `square` in `dir`, if it is on the board.
    #[inline]
    pub fn step(&self, square: Square, dir: Direction) -> Option<Square> {
        step_on(self.n, square, dir)
    }

    /// Every square of `set` moved one step in `dir`; squares leaving the board drop out.
    #[inline]
    pub fn shift(&self, set: Squares, dir: Direction) -> Squares {
        let n = self.n as u32;
        // Squares that would wrap into the next or previous row are dropped first.
        let (set, k, up) = match dir {
            Direction::North => (set, n, false),
            Direction::South => (set, n, true),
            Direction::East => (set.and(self.not_last_col), 1, true),
            Direction::West => (set.and(self.not_first_col), 1, false),
            Direction::NorthEast => (set.and(self.not_last_col), n - 1, false),
            Direction::NorthWest => (set.and(self.not_first_col), n + 1, false),
            Direction::SouthEast => (set.and(self.not_last_col), n + 1, true),
            Direction::SouthWest => (set.and(self.not_first_col), n - 1, true),
        };
        let moved = if up {
            set.shift_up(k)
        } else {
            set.shift_down(k)
        };
        moved.and(self.all)
    }
}

fn step_on(n: usize, square: Square, dir: Direction) -> Option<Square> {
    let (dr, dc) = dir.delta();
    let (r, c) = (
        (square as usize / n) as i32 + dr,
        (square as usize % n) as i32 + dc,
    );
    let side = n as i32;
    ((0..side).contains(&r) && (0..side).contains(&c)).then_some((r * side + c) as Square)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_set(rng: &mut ChaCha8Rng, cells: usize) -> Squares {
        let mut s = Squares::EMPTY;
        for c in 0..cells {
            if rng.random_range(0..3) == 0 {
                s.set(c);
            }
        }
        s
    }

    #[test]
    fn set_operations_agree_with_a_boolean_array() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let (a, b) = (random_set(&mut rng, 256), random_set(&mut rng, 256));
            let plain = |f: &dyn Fn(bool, bool) -> bool| -> Vec<usize> {
                (0..256).filter(|&c| f(a.has(c), b.has(c))).collect()
            };
            assert_eq!(a.or(b).iter().collect::<Vec<_>>(), plain(&|x, y| x || y));
            assert_eq!(a.and(b).iter().collect::<Vec<_>>(), plain(&|x, y| x && y));
            assert_eq!(
                a.and_not(b).iter().collect::<Vec<_>>(),
                plain(&|x, y| x && !y)
            );
            assert_eq!(a.count() as usize, a.iter().count());
            assert_eq!(a.lowest(), a.iter().next());
            for k in [0u32, 1, 5, 16, 17, 63] {
                let up: Vec<usize> = a
                    .iter()
                    .map(|c| c + k as usize)
                    .filter(|&c| c < 256)
                    .collect();
                assert_eq!(a.shift_up(k).iter().collect::<Vec<_>>(), up, "shift_up {k}");
                let down: Vec<usize> = a
                    .iter()
                    .filter(|&c| c >= k as usize)
                    .map(|c| c - k as usize)
                    .collect();
                assert_eq!(
                    a.shift_down(k).iter().collect::<Vec<_>>(),
                    down,
                    "shift_down {k}"
                );
            }
        }
        assert_eq!(Squares::first(70).count(), 70);
        assert_eq!(Squares::first(256).count(), 256);
        assert!(Squares::first(0).is_empty());
        assert_eq!(Squares::single(200).iter().collect::<Vec<_>>(), vec![200]);
        let mut s = Squares::EMPTY;
        s.set(130);
        assert!(s.has(130) && !s.has(129));
        s.clear(130);
        assert!(s.is_empty() && s.lowest().is_none());
    }

    /// Each direction's (row, col) offset, written out apart from [`Direction::delta`].
    const OFFSETS: [(Direction, i64, i64); 8] = [
        (Direction::North, -1, 0),
        (Direction::NorthEast, -1, 1),
        (Direction::East, 0, 1),
        (Direction::SouthEast, 1, 1),
        (Direction::South, 1, 0),
        (Direction::SouthWest, 1, -1),
        (Direction::West, 0, -1),
        (Direction::NorthWest, -1, -1),
    ];

    #[test]
    fn neighbours_and_shifts_agree_with_row_col_arithmetic() {
        for n in [1, 4, 6, 8, 12, 16] {
            let geo = Geometry::new(n);
            let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
            for s in 0..n * n {
                let sq = s as Square;
                let (r, c) = geo.row_col(sq);
                assert_eq!(geo.square(r, c), sq);
                assert_eq!(geo.checked_square(r as i64, c as i64), Some(sq));
                // Each step by hand: the direction's (row, col) offset, kept on the board.
                for (d, dr, dc) in OFFSETS {
                    let (rr, cc) = (r as i64 + dr, c as i64 + dc);
                    let side = n as i64;
                    let on_board = (0..side).contains(&rr) && (0..side).contains(&cc);
                    let expected = on_board.then(|| (rr * side + cc) as Square);
                    assert_eq!(geo.step(sq, d), expected, "n={n} ({r}, {c}) {d:?}");
                }
                // The plain way: every (dr, dc) in the direction order.
                let plain = |dirs: &[Direction]| -> Vec<Square> {
                    dirs.iter()
                        .filter_map(|d| {
                            let (dr, dc) = d.delta();
                            geo.checked_square(r as i64 + dr as i64, c as i64 + dc as i64)
                        })
                        .collect()
                };
                assert_eq!(geo.neighbours8(sq), plain(&Direction::ALL).as_slice());
                let up_left_right_down = [
                    Direction::North,
                    Direction::West,
                    Direction::East,
                    Direction::South,
                ];
                assert_eq!(geo.neighbours(sq), plain(&up_left_right_down).as_slice());
                let mask: Vec<usize> = geo.neighbour_mask(sq).iter().collect();
                let mut sorted: Vec<usize> =
                    geo.neighbours(sq).iter().map(|&x| x as usize).collect();
                sorted.sort();
                assert_eq!(mask, sorted);
                for d in Direction::ALL {
                    let back = geo.step(sq, d).and_then(|t| geo.step(t, d.opposite()));
                    assert!(back.is_none() || back == Some(sq));
                }
            }
            assert_eq!(geo.checked_square(-1, 0), None);
            assert_eq!(geo.checked_square(0, n as i64), None);
            for _ in 0..20 {
                let set = random_set(&mut rng, n * n);
                for d in Direction::ALL {
                    let plain: Vec<usize> = set
                        .iter()
                        .filter_map(|s| geo.step(s as Square, d).map(usize::from))
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    assert_eq!(
                        geo.shift(set, d).iter().collect::<Vec<_>>(),
                        plain,
                        "n={n} {d:?}"
                    );
                }
            }
        }
    }
}
