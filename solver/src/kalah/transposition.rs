//! The exact Kalah search's transposition tables: buckets of one or two
//! slots, a position's bounds, best pit and the work its search took;
//! [`Buckets`] for one thread, [`SharedBuckets`] for several at once.

use std::sync::atomic::{AtomicU64, Ordering};

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

/// One position's entry: its key, bound, best pit and work.
#[derive(Clone, Copy, Debug, Default, Zeroable)]
pub(super) struct Slot {
    key: u64,
    value: i16,
    /// 0 empty, else 1 exact, 2 lower, 3 upper.
    bound: u8,
    /// The best pit plus one, 0 for none.
    best: u8,
    /// log2 of the nodes the position's search took: what a slot is worth keeping.
    work: u8,
}

/// Where a two-way bucket puts a new slot.
enum Replace {
    /// In the deep slot, over the same position or an empty slot.
    Deep,
    /// In the deep slot, its old position moved to the recent slot.
    DeepKeepingIt,
    /// In the recent slot: the deep one's position took more work.
    Recent,
}

impl Slot {
    /// The slot recording `value` as a `bound` of `key`'s value, its search `nodes` long.
    #[inline]
    fn new(key: u64, value: i32, bound: Bound, best: Option<u8>, nodes: u64) -> Slot {
        Slot {
            key,
            value: value as i16,
            bound: match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            best: best.map_or(0, |p| p + 1),
            work: (64 - nodes.leading_zeros()) as u8,
        }
    }

    /// What the slot, a full one, says of its position.
    #[inline]
    fn known(&self) -> Known {
        let value = i32::from(self.value);
        let (lower, upper) = match self.bound {
            1 => (value, value),
            2 => (value, NONE),
            _ => (-NONE, value),
        };
        Known {
            lower,
            upper,
            best: self.best.checked_sub(1),
        }
    }

    /// Where this slot goes in a two-way bucket whose deep slot is `deep`:
    /// the deep slot keeps the position whose search took the most work.
    #[inline]
    fn replaces(&self, deep: &Slot) -> Replace {
        if deep.key == self.key || deep.bound == 0 {
            Replace::Deep
        } else if self.work >= deep.work {
            // The deep slot's old position is still worth a slot.
            Replace::DeepKeepingIt
        } else {
            Replace::Recent
        }
    }

    /// The slot's fields but the key, packed in the low 40 bits.
    #[inline]
    fn data(&self) -> u64 {
        u64::from(self.value as u16)
            | u64::from(self.bound) << 16
            | u64::from(self.best) << 24
            | u64::from(self.work) << 32
    }

    /// The slot of `key` whose fields [`Slot::data`] packed.
    #[inline]
    fn unpack(key: u64, data: u64) -> Slot {
        Slot {
            key,
            value: data as u16 as i16,
            bound: (data >> 16) as u8,
            best: (data >> 24) as u8,
            work: (data >> 32) as u8,
        }
    }
}

/// The operations of a search on its table: [`Buckets`] for one thread,
/// `&SharedBuckets` for each of several.
pub(super) trait Table {
    /// What is stored for `key`.
    fn probe(&self, key: u64) -> Option<Known>;
    /// Records `value` as a `bound` of `key`'s value, its search `nodes` long.
    fn store(&mut self, key: u64, value: i32, bound: Bound, best: Option<u8>, nodes: u64);
    /// Starts loading the bucket of `key` into the cache.
    fn prefetch(&self, key: u64);
    /// Whether prefetching pays: the table is far bigger than the cache.
    fn prefetches(&self) -> bool;
}

/// `2^bits` slots of 16 bytes in buckets of `ways` (1: always replace; 2: one
/// slot keeps the position whose search took the most work, the other the latest).
pub(super) struct Slots<S> {
    slots: Vec<S>,
    ways: usize,
    /// Buckets less one (a power of two less one).
    mask: usize,
}

/// The table of one thread.
pub(super) type Buckets = Slots<Slot>;

/// The same table that several threads probe and store at once, without
/// locks: each slot two atomic words (a race may lose a slot's update,
/// never make up a bound).
pub(super) type SharedBuckets = Slots<AtomicSlot>;

impl<S: Zeroable> Slots<S> {
    /// An empty table of `2^bits` slots (at least `ways`), `ways` a bucket.
    pub fn new(bits: u32, ways: usize) -> Slots<S> {
        let len = (1usize << bits).max(ways);
        Slots {
            slots: crate::alphabeta::zeroed_slots(len),
            ways,
            mask: len / ways - 1,
        }
    }

    /// The first slot of `key`'s bucket.
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key.slot() & self.mask) * self.ways
    }
}

impl Table for Buckets {
    #[inline]
    fn probe(&self, key: u64) -> Option<Known> {
        let at = self.bucket(key);
        let slot = self.slots[at..at + self.ways]
            .iter()
            .find(|s| s.bound != 0 && s.key == key)?;
        Some(slot.known())
    }

    #[inline]
    fn store(&mut self, key: u64, value: i32, bound: Bound, best: Option<u8>, nodes: u64) {
        let slot = Slot::new(key, value, bound, best, nodes);
        let at = self.bucket(key);
        if self.ways == 1 {
            self.slots[at] = slot;
            return;
        }
        let [deep, recent] = &mut self.slots[at..at + 2] else {
            unreachable!("two ways a bucket")
        };
        match slot.replaces(deep) {
            Replace::Deep => *deep = slot,
            Replace::DeepKeepingIt => (*recent, *deep) = (*deep, slot),
            Replace::Recent => *recent = slot,
        }
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        prefetch(&self.slots[self.bucket(key)]);
    }

    fn prefetches(&self) -> bool {
        self.slots.len() > crate::alphabeta::PREFETCH_SLOTS
    }
}

/// A slot of [`SharedBuckets`]: the mixed key ([`mixed`]) XOR the data,
/// then the data ([`Slot::data`]). A slot torn between two threads' writes
/// holds one mixed key XOR another's data: as good as no position's, a miss.
#[derive(Default)]
pub(super) struct AtomicSlot([AtomicU64; 2]);

// SAFETY: an `AtomicU64` of zero bytes is a valid zero, as a `u64` is.
unsafe impl Zeroable for AtomicSlot {}

impl AtomicSlot {
    #[inline]
    fn load(&self) -> Slot {
        let data = self.0[1].load(Ordering::Relaxed);
        Slot::unpack(self.0[0].load(Ordering::Relaxed) ^ data, data)
    }

    #[inline]
    fn set(&self, slot: &Slot) {
        let data = slot.data();
        self.0[0].store(slot.key ^ data, Ordering::Relaxed);
        self.0[1].store(data, Ordering::Relaxed);
    }
}

/// `key` mixed, one to one: positions' indices are dense, so a key XOR a
/// slot's data would often be another position's; a mixed one almost never.
#[inline]
fn mixed(key: u64) -> u64 {
    // An odd factor: multiplication modulo 2^64 is then one to one.
    key.wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// The slots of [`SharedBuckets`] hold mixed keys ([`mixed`]).
impl Table for &SharedBuckets {
    #[inline]
    fn probe(&self, key: u64) -> Option<Known> {
        let at = self.bucket(key);
        let key = mixed(key);
        self.slots[at..at + self.ways]
            .iter()
            .map(AtomicSlot::load)
            .find(|s| s.bound != 0 && s.key == key)
            .map(|s| s.known())
    }

    #[inline]
    fn store(&mut self, key: u64, value: i32, bound: Bound, best: Option<u8>, nodes: u64) {
        let at = self.bucket(key);
        let slot = Slot::new(mixed(key), value, bound, best, nodes);
        if self.ways == 1 {
            self.slots[at].set(&slot);
            return;
        }
        let deep = self.slots[at].load();
        match slot.replaces(&deep) {
            Replace::Deep => self.slots[at].set(&slot),
            Replace::DeepKeepingIt => {
                self.slots[at + 1].set(&deep);
                self.slots[at].set(&slot);
            }
            Replace::Recent => self.slots[at + 1].set(&slot),
        }
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        prefetch(&self.slots[self.bucket(key)]);
    }

    fn prefetches(&self) -> bool {
        self.slots.len() > crate::alphabeta::PREFETCH_SLOTS
    }
}
