//! The exact Kalah search's transposition table: buckets of one or two
//! slots, a position's bounds, best pit and the work its search took.

use crate::alphabeta::{Bound, TableKey, prefetch};
use bytemuck::Zeroable;

/// A bound no value reaches: values are at most the seeds on a board (120).
pub(super) const NONE: i32 = 1 << 12;

/// What the table knows of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Known {
    /// The value is at least this (`-NONE` when unknown).
    pub lower: i32,
    /// The value is at most this (`NONE` when unknown).
    pub upper: i32,
    /// The best pit found, tried first.
    pub best: Option<u8>,
}

#[derive(Clone, Copy, Debug, Default, Zeroable)]
struct Slot {
    key: u64,
    value: i16,
    /// 0 empty, else 1 exact, 2 lower, 3 upper.
    bound: u8,
    /// The best pit plus one, 0 for none.
    best: u8,
    /// log2 of the nodes the position's search took: what a slot is worth keeping.
    work: u8,
}

/// `2^bits` slots of 16 bytes in buckets of `ways` (1: always replace; 2: one
/// slot keeps the position whose search took the most work, the other the latest).
pub(super) struct Buckets {
    slots: Vec<Slot>,
    ways: usize,
    /// Buckets less one (a power of two less one).
    mask: usize,
}

impl Buckets {
    /// An empty table of `2^bits` slots (at least `ways`), `ways` a bucket.
    pub fn new(bits: u32, ways: usize) -> Buckets {
        let len = (1usize << bits).max(ways);
        Buckets {
            slots: crate::alphabeta::zeroed_slots(len),
            ways,
            mask: len / ways - 1,
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key.slot() & self.mask) * self.ways
    }

    /// What is stored for `key`.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Known> {
        let at = self.bucket(key);
        let slot = self.slots[at..at + self.ways]
            .iter()
            .find(|s| s.bound != 0 && s.key == key)?;
        let value = i32::from(slot.value);
        let (lower, upper) = match slot.bound {
            1 => (value, value),
            2 => (value, NONE),
            _ => (-NONE, value),
        };
        Some(Known {
            lower,
            upper,
            best: slot.best.checked_sub(1),
        })
    }

    /// Starts loading the bucket of `key` into the cache.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.slots[self.bucket(key)]);
    }

    /// Whether prefetching pays: the table is far bigger than the cache.
    pub fn prefetches(&self) -> bool {
        self.slots.len() > crate::alphabeta::PREFETCH_SLOTS
    }

    /// Records `value` as a `bound` of `key`'s value, its search `nodes` long.
    #[inline]
    pub fn store(&mut self, key: u64, value: i32, bound: Bound, best: Option<u8>, nodes: u64) {
        let slot = Slot {
            key,
            value: value as i16,
            bound: match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            best: best.map_or(0, |p| p + 1),
            work: (64 - nodes.leading_zeros()) as u8,
        };
        let at = self.bucket(key);
        if self.ways == 1 {
            self.slots[at] = slot;
            return;
        }
        let [deep, recent] = &mut self.slots[at..at + 2] else {
            unreachable!("two ways a bucket")
        };
        if deep.key == key || deep.bound == 0 || slot.work >= deep.work {
            // The deep slot's old position, if another, is still worth a slot.
            if deep.key != key && deep.bound != 0 {
                *recent = *deep;
            }
            *deep = slot;
        } else {
            *recent = slot;
        }
    }
}
