//! Ioiwari variants: a ring of up to [`MAX_RING`] pits of capacity up to
//! [`MAX_CAP`] ([`Params`], [`Ring`]), its referee's match ([`RingMatch`]) and
//! its state space ([`RingSpace`]), solved like the IOI game's.

use super::*;
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

    /// Most beads a pit holds (the variant's capacity).
    pub fn cap(&self) -> u8 {
        self.cap
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
        write_pits(f, self.pits())
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

    /// [`Self::rotated_index`] by one pit: the first pit's digit goes to the
    /// top, by one multiplication while the index fits in 32 bits (a 64-bit
    /// division a rotation was a tenth of a build's time).
    #[inline(always)]
    fn rotated_once(&self, index: u64) -> u64 {
        let top = self.place[usize::from(self.params.pits) - 1] as u64;
        match u32::try_from(index) {
            Ok(small) => {
                let (rest, first) = self.base.div_rem(small);
                u64::from(rest) + u64::from(first) * top
            }
            Err(_) => self.rotated_index(index, 1),
        }
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
        // Through `digits`' precomputed divisions: `tabula check` asks this of
        // every child, and a plain u64 division a pit made it most of the check.
        let n = usize::from(self.params.pits);
        self.digits(index)[..n]
            .iter()
            .map(|&beads| usize::from(beads))
            .sum()
    }

    fn is_canonical(&self, index: u64) -> bool {
        let mut image = index;
        (1..usize::from(self.params.pits)).all(|_| {
            image = self.rotated_once(image);
            image >= index
        })
    }

    fn for_each_image(&self, index: u64, best: u64, mut visit: impl FnMut(u64, u64)) {
        let n = usize::from(self.params.pits);
        let mut image = index;
        for k in 1..n {
            image = self.rotated_once(image);
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
            visit(sowing.edge(pit as u8, least_rotation(&child.pits[..n], &self.place).0))
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
            visit(sowing.edge(pit as u8, index.wrapping_add_signed(delta as i64)))
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
