//! Retrograde analysis shared by a group of members (MPI ranks, or threads in
//! tests), each owning a share of every layer.
//!
//! [`solve_shared`] computes exactly the records of
//! [`retrograde::solve_records`](crate::retrograde::solve_records), but a
//! member holds only the records of the states it owns ([`Ownership`]): the
//! index space is cut into blocks of [`StateSpace::layer_chunk`] indices, dealt
//! a group of consecutive blocks at a time, one to each member in a shuffled
//! order, so every member owns a slice of every layer. A layer is solved
//! in rounds; in each, every member takes its next batch of states, asks the
//! owners for the values of the children it does not own (two batched
//! all-to-alls: the owners' local indices out, in the fewest bytes that hold
//! them, the values back), and solves the batch. Each solved state that has
//! symmetric images elsewhere goes to their owners once, with the next
//! round's requests; the owners work out the images and their masks
//! themselves, before they answer. How messages travel is the group's business:
//! [`Exchange`], implemented by [`ThreadGroup`] here and by MPI in
//! `tabula-tables`.

pub mod whole;

use std::ops::Range;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use crate::retrograde::{
    Edge, MARK, Progress, SolveError, StateSpace, WAITING, best_of, prefetch, record_byte,
};

/// A group of members that exchange messages all with all, in lock step.
pub trait Exchange {
    /// This member's number, in `0..size()`.
    fn rank(&self) -> usize;

    /// The number of members.
    fn size(&self) -> usize;

    /// Sends `outgoing[member]` to every member (itself included) and returns
    /// what each member sent to this one, by sender.
    ///
    /// Collective: every member calls it the same number of times, with one
    /// message per member.
    fn exchange(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
}

/// Which member owns which state, and where a member keeps it.
///
/// The blocks of `block` indices come in groups of `members` consecutive
/// blocks, and each group gives one block to each member, in an order a hash
/// of the group's number picks. (Plain round-robin, block `b` to member
/// `b % members`, let the parity of one pit decide the owner of an Ioiwari
/// ring's boards, and the canonical boards of the large layers split 43 : 57
/// between 2 members.) Member `m` keeps its block of group `g` as its `g`-th
/// block, so a member's records stay contiguous and the division that finds
/// the owner also finds the local index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ownership {
    len: u64,
    block: u64,
    members: u64,
    /// Division by `block` and by `members`, done for every move.
    by_block: Divisor,
    by_members: Divisor,
}

impl Ownership {
    /// Blocks of `block` indices of `0..len`, dealt to `members` members a group at a time.
    pub fn new(len: u64, block: u64, members: usize) -> Ownership {
        let (block, members) = (block.max(1), members.max(1) as u64);
        Ownership {
            len,
            block,
            members,
            by_block: Divisor::new(block),
            by_members: Divisor::new(members),
        }
    }

    /// The number of indices per block.
    pub fn block(&self) -> u64 {
        self.block
    }

    /// The fewest bytes that hold every member's local indices (at least 1).
    pub fn local_bytes(&self) -> usize {
        let most = (0..self.members as usize)
            .map(|member| self.local_len(member))
            .max()
            .unwrap_or(0)
            .saturating_sub(1);
        (64 - most.leading_zeros() as usize).div_ceil(8).max(1)
    }

    /// Where in its group the block of `member` in group `group` lies.
    #[inline]
    fn slot(&self, group: u64, member: u64) -> u64 {
        let turn = self.turn(group);
        if member >= turn {
            member - turn
        } else {
            member + self.members - turn
        }
    }

    /// How far group `group`'s deal is turned: the member owning its first block.
    #[inline]
    fn turn(&self, group: u64) -> u64 {
        // Fibonacci hashing: the high half of the product mixes every bit of `group`.
        let hash = group.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        hash - self.by_members.div(hash) * self.members
    }

    /// The member owning `index`.
    #[inline]
    pub fn owner(&self, index: u64) -> usize {
        self.place(index).owner as usize
    }

    /// The owner of `index` and where it keeps it, in one pass of the divisions.
    #[inline]
    pub fn place(&self, index: u64) -> Place {
        if self.members == 1 {
            // A group of one: a predictable branch instead of three products.
            return Place {
                owner: 0,
                local: index,
            };
        }
        let block = self.by_block.div(index);
        let group = self.by_members.div(block);
        let owner = block - group * self.members + self.turn(group);
        Place {
            owner: (if owner >= self.members {
                owner - self.members
            } else {
                owner
            }) as u32,
            local: group * self.block + (index - block * self.block),
        }
    }

    /// Where the owner of `index` keeps it among its own states.
    #[inline]
    pub fn local(&self, index: u64) -> u64 {
        if self.members == 1 {
            return index;
        }
        let block = self.by_block.div(index);
        self.by_members.div(block) * self.block + (index - block * self.block)
    }

    /// The index that `member` keeps at `local`.
    #[inline]
    pub fn global(&self, member: usize, local: u64) -> u64 {
        let group = self.by_block.div(local);
        let block = group * self.members + self.slot(group, member as u64);
        block * self.block + (local - group * self.block)
    }

    /// The block `member` owns in group `group`, if the blocks reach it.
    fn block_of(&self, member: usize, group: u64) -> Option<u64> {
        let block = group * self.members + self.slot(group, member as u64);
        (block < self.len.div_ceil(self.block)).then_some(block)
    }

    /// The number of states `member` owns.
    pub fn local_len(&self, member: usize) -> u64 {
        let blocks = self.len.div_ceil(self.block);
        if blocks == 0 {
            return 0;
        }
        let full_groups = blocks / self.members;
        let in_last_group = self.block_of(member, full_groups).is_some();
        let owned = (full_groups + u64::from(in_last_group)) * self.block;
        let last_block_start = (blocks - 1) * self.block;
        if self.owner(last_block_start) == member {
            owned - (blocks * self.block - self.len)
        } else {
            owned
        }
    }

    /// The blocks of `member` meeting `range`, clipped to it, in index order.
    pub fn blocks_in(
        &self,
        member: usize,
        range: Range<u64>,
    ) -> impl Iterator<Item = Range<u64>> + use<> {
        let this = *self;
        let groups = if range.is_empty() {
            0..0
        } else {
            range.start / self.block / self.members
                ..(range.end.div_ceil(self.block)).div_ceil(self.members)
        };
        groups.filter_map(move |group| {
            let block = this.block_of(member, group)?;
            let clipped = (block * this.block).max(range.start)
                ..((block + 1) * this.block).min(range.end).min(this.len);
            (clipped.start < clipped.end).then_some(clipped)
        })
    }
}

/// A state's owner and its index among the owner's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The member owning the state.
    pub owner: u32,
    /// Where the owner keeps it ([`Ownership::local`]).
    pub local: u64,
}

/// Division by a fixed number: a multiplication when the dividend fits in 32
/// bits (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
/// 2019: for 2 <= d < 2^32 and n < 2^32, n / d is the high half of
/// ceil(2^64 / d) * n), a division otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Divisor {
    d: u64,
    /// ceil(2^64 / d), or 0 when `d` is 1 or too large.
    magic: u64,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        let magic = if (2..1 << 32).contains(&d) {
            u64::MAX / d + 1
        } else {
            0
        };
        Divisor { d, magic }
    }

    /// `n / d`.
    #[inline]
    fn div(self, n: u64) -> u64 {
        if self.magic != 0 && n >> 32 == 0 {
            ((u128::from(self.magic) * u128::from(n)) >> 64) as u64
        } else if self.d == 1 {
            n
        } else {
            n / self.d
        }
    }
}

/// The records one member owns, in the table's layout (see [`Ownership::local`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Share {
    /// Who owns what.
    pub ownership: Ownership,
    /// This member's number.
    pub member: usize,
    /// Bytes per record: the i8 value, then the mask bytes.
    pub record_size: usize,
    /// The records, `record_size` bytes each, in local order.
    pub records: Vec<u8>,
    /// The bytes the whole group sent to other members while solving.
    pub sent: u64,
    /// How long the slowest member took to solve its share (not counting
    /// the time [`Resume::finished`] took).
    pub solving: Duration,
    /// How long each member spent in exchanges while solving (waiting for
    /// the others, and moving the bytes), by member.
    pub exchanging: Vec<Duration>,
}

/// States a member solves per round: bounds the messages of a round (a few MB).
const ROUND_STATES: usize = 1 << 15;

/// How many reads ahead a record's cache line is asked for.
const AHEAD: usize = 16;

/// Bytes at the head of a round's first message: last, failed, stored,
/// waiting, and the length of the images.
const HEADER_BYTES: usize = 26;

/// Told after each layer the group finished, with this member's records and
/// the states the group has finished in this solve (as its progress says);
/// every member is told at the same point, so it may exchange messages.
pub type LayerFinished<'a> = &'a mut dyn FnMut(usize, &[u8], u64);

/// Where a member's solve starts, and whom it tells of each finished layer:
/// what a stopped build needs to go on.
pub struct Resume<'a> {
    /// The first layer to solve; the records of those below are already solved.
    pub first_layer: usize,
    /// Called after each layer the group finished.
    pub finished: Option<LayerFinished<'a>>,
}

impl Resume<'_> {
    /// Every layer solved, nobody told.
    pub fn from_scratch() -> Resume<'static> {
        Resume {
            first_layer: 0,
            finished: None,
        }
    }
}

/// Who owns which state of `space` when `members` solve it.
pub fn ownership_of<S: StateSpace>(space: &S, members: usize) -> Ownership {
    Ownership::new(space.len(), space.layer_chunk(), members)
}

/// The bytes of `member`'s records of `space` with `mask_bytes` mask bytes
/// each, when `members` solve it (`None` past the address space).
pub fn share_bytes<S: StateSpace>(
    space: &S,
    members: usize,
    member: usize,
    mask_bytes: usize,
) -> Option<usize> {
    let states = ownership_of(space, members).local_len(member);
    usize::try_from(states).ok()?.checked_mul(1 + mask_bytes)
}

/// Solves `space` together with the other members of `group`; every member
/// calls it with the same space and `mask_bytes`, and gets its [`Share`] of
/// the records [`retrograde::solve_records`](crate::retrograde::solve_records)
/// writes. An error on one member is every member's error (the others get
/// [`SolveError::Peer`]). `progress` gets the states the whole group finished.
pub fn solve_shared<S: StateSpace>(
    space: &S,
    group: &impl Exchange,
    mask_bytes: usize,
    progress: Progress<'_>,
) -> Result<Share, SolveError> {
    let records = share_bytes(space, group.size(), group.rank(), mask_bytes).ok_or(
        SolveError::TooLarge("a member's share does not fit in memory"),
    )?;
    let resume = Resume::from_scratch();
    solve_shared_into(space, group, mask_bytes, vec![0; records], resume, progress)
}

/// [`solve_shared`] into `records` (of [`share_bytes`], all zero or as a
/// stopped solve left them), from `resume.first_layer` on, telling
/// `resume.finished` of each layer: every member must pass the same first layer.
pub fn solve_shared_into<S: StateSpace>(
    space: &S,
    group: &impl Exchange,
    mask_bytes: usize,
    records: Vec<u8>,
    resume: Resume<'_>,
    progress: Progress<'_>,
) -> Result<Share, SolveError> {
    let ownership = ownership_of(space, group.size());
    let round = ROUND_STATES;
    solve_shared_in(
        space, group, ownership, mask_bytes, records, round, resume, progress,
    )
}

/// [`solve_shared_into`] with the blocks and the round size given (tests use small ones).
#[allow(clippy::too_many_arguments)]
fn solve_shared_in<S: StateSpace>(
    space: &S,
    group: &impl Exchange,
    ownership: Ownership,
    mask_bytes: usize,
    mut records: Vec<u8>,
    round_states: usize,
    mut resume: Resume<'_>,
    progress: Progress<'_>,
) -> Result<Share, SolveError> {
    if mask_bytes > 8 {
        return Err(SolveError::TooLarge("more than 8 mask bytes"));
    }
    let record_size = 1 + mask_bytes;
    let local_len = usize::try_from(ownership.local_len(group.rank()))
        .ok()
        .and_then(|n| n.checked_mul(record_size))
        .ok_or(SolveError::TooLarge(
            "a member's share does not fit in memory",
        ))?;
    if records.len() != local_len {
        return Err(SolveError::TooLarge(
            "a member's records are not its share's size",
        ));
    }
    let mut member = Member {
        space,
        group,
        ownership,
        rank: group.rank(),
        mask_bytes,
        record_size,
        round_states: round_states.max(1),
        records: &mut records,
        done: 0,
        edges: Vec::new(),
        starts: Vec::new(),
        child_values: Vec::new(),
        places: Vec::new(),
        index_bytes: ownership.local_bytes(),
        meter: Meter::default(),
    };
    let (started, mut telling) = (Instant::now(), Duration::ZERO);
    for layer in resume.first_layer..space.num_layers() {
        member.solve_layer(layer, progress)?;
        if let Some(finished) = resume.finished.as_mut() {
            let told = Instant::now();
            finished(layer, member.records, member.done);
            telling += told.elapsed();
        }
    }
    // The report is of the solve: snapshots are not part of it.
    let solving = started.elapsed().saturating_sub(telling);
    // Every member learns what the group sent, how long each member spent
    // in exchanges and how long the slowest took, for the build's report.
    let Totals {
        sent,
        exchanging,
        solving,
        ..
    } = member.meter.totals(group, solving, 0);
    let rank = member.rank;
    Ok(Share {
        ownership,
        member: rank,
        record_size,
        records,
        sent,
        solving,
        exchanging,
    })
}

/// What a member's exchanges cost so far: the bytes it sent to the others
/// and the time they took (waiting for the others, and moving the bytes).
#[derive(Default)]
struct Meter {
    sent: u64,
    exchanging: Duration,
}

/// What every member of a group learns of the whole solve, for the build's report.
struct Totals {
    /// The bytes the group sent to other members.
    sent: u64,
    /// Each member's time in exchanges, by member.
    exchanging: Vec<Duration>,
    /// The slowest member's solve.
    solving: Duration,
    /// The sum of the members' `extra`.
    extra: u64,
}

impl Meter {
    /// [`Exchange::exchange`], counting the bytes sent to other members and the time it takes.
    fn exchange(&mut self, group: &impl Exchange, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let rank = group.rank();
        self.sent += (outgoing.iter().enumerate())
            .filter(|&(to, _)| to != rank)
            .map(|(_, message)| message.len() as u64)
            .sum::<u64>();
        let started = Instant::now();
        let incoming = group.exchange(outgoing);
        self.exchanging += started.elapsed();
        incoming
    }

    /// Every member tells the others its bytes, exchange time, solving
    /// time and `extra` (collective).
    fn totals(&self, group: &impl Exchange, solving: Duration, extra: u64) -> Totals {
        let mut status = self.sent.to_le_bytes().to_vec();
        status.extend_from_slice(&(self.exchanging.as_nanos() as u64).to_le_bytes());
        status.extend_from_slice(&(solving.as_nanos() as u64).to_le_bytes());
        status.extend_from_slice(&extra.to_le_bytes());
        let statuses = group.exchange(vec![status; group.size()]);
        let field = |status: &Vec<u8>, k: usize| read_uint(&status[8 * k..8 * k + 8]);
        let nanos = |status: &Vec<u8>, k: usize| Duration::from_nanos(field(status, k));
        Totals {
            sent: statuses.iter().map(|s| field(s, 0)).sum(),
            exchanging: statuses.iter().map(|s| nanos(s, 1)).collect(),
            solving: statuses
                .iter()
                .map(|s| nanos(s, 2))
                .max()
                .unwrap_or(solving),
            extra: statuses.iter().map(|s| field(s, 3)).sum(),
        }
    }
}

/// One member's state while solving.
struct Member<'a, S, X> {
    space: &'a S,
    group: &'a X,
    ownership: Ownership,
    rank: usize,
    mask_bytes: usize,
    record_size: usize,
    round_states: usize,
    records: &'a mut [u8],
    /// States the whole group has finished.
    done: u64,
    /// A round's moves, where each state's start, and their children's
    /// values: kept from round to round, so that no round allocates them.
    edges: Vec<Edge>,
    starts: Vec<usize>,
    child_values: Vec<i8>,
    /// Where each of the round's moves' children is kept.
    places: Vec<Place>,
    /// Bytes of a local index in a request ([`Ownership::local_bytes`]).
    index_bytes: usize,
    /// What its exchanges cost so far.
    meter: Meter,
}

/// What a round told every member.
#[derive(Default)]
struct RoundSummary {
    all_done: bool,
    waiting: u64,
    failed: Option<usize>,
    /// A state of this member still waiting, and one unknown child of it.
    stuck: Option<(u64, u64)>,
    /// This member's own failure.
    error: Option<SolveError>,
}

impl<S: StateSpace, X: Exchange> Member<'_, S, X> {
    fn value(&self, index: u64) -> i8 {
        self.records[self.ownership.local(index) as usize * self.record_size] as i8
    }

    fn write(&mut self, index: u64, value: i8, mask: u64) {
        let at = self.ownership.local(index) as usize * self.record_size;
        self.records[at] = value as u8;
        self.records[at + 1..at + self.record_size]
            .copy_from_slice(&mask.to_le_bytes()[..self.mask_bytes]);
    }

    /// [`Meter::exchange`] with this member's group.
    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        self.meter.exchange(self.group, outgoing)
    }

    /// Calls `rewrite(self, state)` for every state of `layer` this member
    /// owns, a block at a time (so that only one block's states are listed).
    fn for_each_own(&mut self, layer: usize, mut rewrite: impl FnMut(&mut Self, u64)) {
        let scan = self.space.layer_range(layer).unwrap_or(0..self.space.len());
        let mut states = Vec::new();
        for block in self.ownership.blocks_in(self.rank, scan) {
            states.clear();
            self.space
                .for_each_in_layer(layer, block, |index| states.push(index));
            for &index in &states {
                rewrite(self, index);
            }
        }
    }

    fn solve_layer(&mut self, layer: usize, progress: Progress<'_>) -> Result<(), SolveError> {
        let same_layer = self.space.has_same_layer_edges();
        if same_layer {
            self.for_each_own(layer, |member, index| member.write(index, MARK, 0));
        }
        let mut left = u64::MAX;
        loop {
            let summary = self.scan(layer, progress)?;
            if summary.waiting == 0 {
                break;
            }
            if summary.waiting == left || !same_layer {
                let (index, child) = summary.stuck.unwrap_or((0, 0));
                return Err(SolveError::Cycle {
                    layer,
                    states: summary.waiting as usize,
                    index,
                    child,
                });
            }
            left = summary.waiting;
        }
        if same_layer {
            // A symmetric image nobody copied to reads 0, as in `solve_records`.
            self.for_each_own(layer, |member, index| {
                if member.value(index) == MARK {
                    member.write(index, 0, 0);
                }
            });
        }
        Ok(())
    }

    /// One pass over the layer: every waiting canonical state whose children are known is solved.
    ///
    /// A round takes two exchanges: the first carries the previous round's
    /// solved states with images elsewhere and its status together with this
    /// round's requests, the second the answers. (Each exchange waits for the
    /// slowest member, so the images ride with the requests.)
    fn scan(&mut self, layer: usize, progress: Progress<'_>) -> Result<RoundSummary, SolveError> {
        let scan = self.space.layer_range(layer).unwrap_or(0..self.space.len());
        let mut blocks = self.ownership.blocks_in(self.rank, scan);
        let same_layer = self.space.has_same_layer_edges();
        let mut pending: Vec<u64> = Vec::new();
        let mut batch: Vec<u64> = Vec::new();
        let mut total = RoundSummary::default();
        let mut exhausted = false;
        // Nothing solved before the first round.
        let mut solved = BatchSolved::new(self.group.size());
        loop {
            while !exhausted && pending.len() < self.round_states {
                match blocks.next() {
                    Some(block) => self.space.for_each_in_layer(layer, block, |index| {
                        if self.space.is_canonical(index)
                            && (!same_layer || self.value(index) == MARK)
                        {
                            pending.push(index);
                        }
                    }),
                    None => exhausted = true,
                }
            }
            let take = pending.len().min(self.round_states);
            batch.clear();
            batch.extend(pending.drain(..take));
            let requests = self.requests(&batch);
            let (summary, answers) = self.share(solved, requests);
            progress(self.done);
            total.waiting += summary.waiting;
            total.stuck = total.stuck.or(summary.stuck);
            if let Some(error) = summary.error {
                return Err(error);
            }
            if let Some(member) = summary.failed {
                return Err(SolveError::Peer { member });
            }
            if summary.all_done {
                return Ok(total);
            }
            self.receive_answers(answers);
            // `last`: this member has nothing more to solve in this scan.
            solved = self.solve_batch(&batch, exhausted && pending.is_empty());
        }
    }

    /// Lists the batch's moves in `self.edges` (those of state `b` at
    /// `starts[b]..starts[b + 1]`) and returns the requests for the children
    /// other members own, in the order of the moves (duplicates and all), so
    /// that the answers line up with the moves without a search.
    #[inline(never)] // once a round: a profile tells the phases apart
    fn requests(&mut self, batch: &[u64]) -> Vec<Vec<u8>> {
        let (ownership, width) = (self.ownership, self.index_bytes);
        let rank = self.rank as u32;
        let mut asked: Vec<Vec<u8>> = vec![Vec::new(); self.group.size()];
        let (edges, starts, places) = (&mut self.edges, &mut self.starts, &mut self.places);
        edges.clear();
        starts.clear();
        places.clear();
        for &index in batch {
            starts.push(edges.len());
            self.space.for_each_edge(index, |edge| {
                let place = ownership.place(edge.child);
                if place.owner != rank {
                    asked[place.owner as usize]
                        .extend_from_slice(&place.local.to_le_bytes()[..width]);
                }
                places.push(place);
                edges.push(edge);
            });
        }
        starts.push(edges.len());
        asked
    }

    /// Sends the answers to this round's requests and puts the values of
    /// the moves' children, this member's and the answers, in `self.child_values`.
    #[inline(never)] // once a round: a profile tells the phases apart
    fn receive_answers(&mut self, answers: Vec<Vec<u8>>) {
        let answers = self.exchange(answers);
        let mut next = vec![0usize; self.group.size()];
        let mut child_values = std::mem::take(&mut self.child_values);
        child_values.clear();
        let rank = self.rank as u32;
        let local_record =
            |place: &Place| self.records[place.local as usize * self.record_size..].as_ptr();
        for place in self.places.iter().take(AHEAD) {
            if place.owner == rank {
                prefetch(local_record(place));
            }
        }
        for (k, place) in self.places.iter().enumerate() {
            if let Some(ahead) = self.places.get(k + AHEAD)
                && ahead.owner == rank
            {
                prefetch(local_record(ahead));
            }
            child_values.push(if place.owner == rank {
                self.records[place.local as usize * self.record_size] as i8
            } else {
                let owner = place.owner as usize;
                next[owner] += 1;
                answers[owner][next[owner] - 1] as i8
            });
        }
        self.child_values = child_values;
    }

    /// The values of the states at the local indices `request` lists, each
    /// read a few after its cache line is asked for (they are anywhere).
    fn answer(&self, request: &[u8]) -> Vec<u8> {
        // A constant width lets the compiler read each index in one load.
        match self.index_bytes {
            1 => self.answer_in::<1>(request),
            2 => self.answer_in::<2>(request),
            3 => self.answer_in::<3>(request),
            4 => self.answer_in::<4>(request),
            5 => self.answer_in::<5>(request),
            6 => self.answer_in::<6>(request),
            7 => self.answer_in::<7>(request),
            _ => self.answer_in::<8>(request),
        }
    }

    /// [`Self::answer`] for indices of `W` bytes.
    #[inline(never)] // once a round: a profile tells the phases apart
    fn answer_in<const W: usize>(&self, request: &[u8]) -> Vec<u8> {
        let size = self.record_size;
        let at = |k: usize| {
            let mut full = [0u8; 8];
            full[..W].copy_from_slice(&request[k * W..(k + 1) * W]);
            u64::from_le_bytes(full) as usize * size
        };
        let count = request.len() / W;
        for k in 0..AHEAD.min(count) {
            prefetch(self.records[at(k)..].as_ptr());
        }
        (0..count)
            .map(|k| {
                if k + AHEAD < count {
                    prefetch(self.records[at(k + AHEAD)..].as_ptr());
                }
                self.records[at(k)]
            })
            .collect()
    }

    /// Solves the batch's states whose children are known (their moves and
    /// values are `self.edges`, `self.starts` and `self.child_values`),
    /// writes them and the images this member owns, and counts the waiting
    /// ones; `last` says this member has nothing more to solve in this scan.
    #[inline(never)] // once a round: a profile tells the phases apart
    fn solve_batch(&mut self, batch: &[u64], last: bool) -> BatchSolved {
        let mut solved = BatchSolved::new(self.group.size());
        solved.last = last;
        let mut images = Outbox::new(self.group.size());
        let (edges, starts, child_values) = (
            std::mem::take(&mut self.edges),
            std::mem::take(&mut self.starts),
            std::mem::take(&mut self.child_values),
        );
        for (b, &index) in batch.iter().enumerate() {
            let moves = starts[b]..starts[b + 1];
            let values = &child_values[moves.clone()];
            let (value, mask) = best_of(self.space, index, &edges[moves.clone()], |k, _| values[k]);
            if value == WAITING {
                solved.waiting += 1;
                if solved.stuck.is_none() {
                    let unknown = values.iter().position(|&v| v == MARK);
                    let child = unknown.map_or(index, |k| edges[moves.start + k].child);
                    solved.stuck = Some((index, child));
                }
                continue;
            }
            let byte = match record_byte(index, value, mask, self.mask_bytes) {
                Ok(byte) => byte,
                Err(e) => {
                    solved.error.get_or_insert(e);
                    continue;
                }
            };
            self.write(index, byte, mask);
            solved.stored += 1 + self.write_images(index, byte, mask, &mut images);
        }
        (self.edges, self.starts, self.child_values) = (edges, starts, child_values);
        solved.images = images.messages;
        solved
    }

    /// Writes the images of the solved state `index` that this member owns,
    /// and puts the state in the message of every other member owning some
    /// (once: the owner works its images out, [`Self::write_received`]).
    /// Returns the number of images.
    fn write_images(&mut self, index: u64, byte: i8, mask: u64, outbox: &mut Outbox) -> u64 {
        let (space, ownership, rank) = (self.space, self.ownership, self.rank);
        let (local, mask_bytes) = (ownership.local(index), self.mask_bytes);
        let mut count = 0;
        // The other owners (below 64) of some image, told once after the loop.
        let mut elsewhere = 0u64;
        space.for_each_image(index, mask, |image, image_mask| {
            count += 1;
            match ownership.owner(image) {
                owner if owner == rank => self.write(image, byte, image_mask),
                owner if owner < 64 => elsewhere |= 1 << owner,
                owner => outbox.tell(owner, local, byte, mask, mask_bytes),
            }
        });
        while elsewhere != 0 {
            let owner = elsewhere.trailing_zeros() as usize;
            outbox.tell(owner, local, byte, mask, mask_bytes);
            elsewhere &= elsewhere - 1;
        }
        count
    }

    /// Writes the images this member owns of the states `sender` solved and
    /// listed in `body` ([`Outbox::tell`]).
    #[inline(never)] // once a round: a profile tells the phases apart
    fn write_received(&mut self, sender: usize, mut body: &[u8]) {
        let (space, ownership, rank) = (self.space, self.ownership, self.rank);
        let mut local = 0u64;
        while !body.is_empty() {
            let (delta, used) = read_varint(body);
            local = local.wrapping_add(unzigzag(delta) as u64);
            let byte = body[used] as i8;
            let mask = read_uint(&body[used + 1..used + 1 + self.mask_bytes]);
            body = &body[used + 1 + self.mask_bytes..];
            let index = ownership.global(sender, local);
            space.for_each_image(index, mask, |image, image_mask| {
                if ownership.owner(image) == rank {
                    self.write(image, byte, image_mask);
                }
            });
        }
    }

    /// Sends every member the previous round's images and status and this
    /// round's requests, and reads theirs: writes the images received, sums
    /// the group's status (all done, the first failed member, waiting
    /// states) and answers the requests, once every image is written.
    #[inline(never)] // once a round: a profile tells the phases apart
    fn share(
        &mut self,
        solved: BatchSolved,
        requests: Vec<Vec<u8>>,
    ) -> (RoundSummary, Vec<Vec<u8>>) {
        let BatchSolved {
            stored,
            images,
            error,
            last,
            waiting,
            stuck,
        } = solved;
        // Every message starts with the sender's status: last, failed, stored
        // (solved states and their images, wherever they are kept), waiting,
        // and the length of the images that come before the requests.
        let outgoing = images
            .into_iter()
            .zip(requests)
            .map(|(body, request)| {
                let mut message = Vec::with_capacity(HEADER_BYTES + body.len() + request.len());
                message.push(u8::from(last));
                message.push(u8::from(error.is_some()));
                message.extend_from_slice(&stored.to_le_bytes());
                message.extend_from_slice(&waiting.to_le_bytes());
                message.extend_from_slice(&(body.len() as u64).to_le_bytes());
                message.extend_from_slice(&body);
                message.extend_from_slice(&request);
                message
            })
            .collect();
        let incoming = self.exchange(outgoing);
        let mut summary = RoundSummary {
            all_done: true,
            stuck,
            error,
            ..RoundSummary::default()
        };
        let mut requests = Vec::with_capacity(incoming.len());
        for (sender, message) in incoming.iter().enumerate() {
            let (status, rest) = message.split_at(HEADER_BYTES);
            summary.all_done &= status[0] == 1;
            if status[1] == 1 && summary.failed.is_none() {
                summary.failed = Some(sender);
            }
            // A sender's count holds the states it solved and all their images.
            self.done += read_uint(&status[2..10]);
            summary.waiting += read_uint(&status[10..18]);
            let (body, request) = rest.split_at(read_uint(&status[18..26]) as usize);
            self.write_received(sender, body);
            requests.push(request);
        }
        let answers = requests
            .iter()
            .map(|request| self.answer(request))
            .collect();
        (summary, answers)
    }
}

/// What a member's part of a round solved: records stored (with their
/// images), the images for each member, the first error, whether it was the
/// member's last round of the scan, and the states still waiting (with one).
struct BatchSolved {
    stored: u64,
    images: Vec<Vec<u8>>,
    error: Option<SolveError>,
    last: bool,
    waiting: u64,
    stuck: Option<(u64, u64)>,
}

impl BatchSolved {
    /// Nothing solved, for a group of `members`.
    fn new(members: usize) -> BatchSolved {
        BatchSolved {
            stored: 0,
            images: vec![Vec::new(); members],
            error: None,
            last: false,
            waiting: 0,
            stuck: None,
        }
    }
}

/// A round's messages of solved states with images elsewhere, a member each:
/// per state, its local index (a zigzag varint of the difference from the
/// previous one in the message), its value byte and its mask bytes.
struct Outbox {
    messages: Vec<Vec<u8>>,
    /// The local index last put in each message.
    last: Vec<Option<u64>>,
}

impl Outbox {
    fn new(members: usize) -> Outbox {
        Outbox {
            messages: vec![Vec::new(); members],
            last: vec![None; members],
        }
    }

    /// Tells `member` about the state at `local` (once, however many of its images it owns).
    fn tell(&mut self, member: usize, local: u64, byte: i8, mask: u64, mask_bytes: usize) {
        let last = &mut self.last[member];
        if *last == Some(local) {
            return;
        }
        let message = &mut self.messages[member];
        let delta = local.wrapping_sub(last.unwrap_or(0)) as i64;
        write_varint(message, zigzag(delta));
        message.push(byte as u8);
        message.extend_from_slice(&mask.to_le_bytes()[..mask_bytes]);
        *last = Some(local);
    }
}

/// The little-endian number in `bytes` (at most 8).
#[inline]
fn read_uint(bytes: &[u8]) -> u64 {
    // A byte at a time: a copy of a variable length into a word was a call
    // to memcpy and a stalled load, a tenth of a rank's time in a profile.
    bytes
        .iter()
        .rev()
        .fold(0, |n, &byte| (n << 8) | u64::from(byte))
}

/// Signed to unsigned, small magnitudes to small numbers.
fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    (n >> 1) as i64 ^ -((n & 1) as i64)
}

/// Appends `n` in LEB128: 7 bits a byte, low first, the high bit saying more follow.
fn write_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The LEB128 number at the start of `bytes`, and its length.
fn read_varint(bytes: &[u8]) -> (u64, usize) {
    let mut n = 0u64;
    for (k, &byte) in bytes.iter().enumerate() {
        n |= u64::from(byte & 0x7f) << (7 * k);
        if byte < 0x80 {
            return (n, k + 1);
        }
    }
    panic!("a message ends inside a number")
}

/// Members that are threads of one process, for tests and for one machine without MPI.
pub struct ThreadGroup {
    rank: usize,
    mailbox: Arc<Mailbox>,
}

struct Mailbox {
    size: usize,
    barrier: Barrier,
    /// `slots[to][from]`: the message in flight.
    slots: Mutex<Vec<Vec<Vec<u8>>>>,
}

impl ThreadGroup {
    /// The `size` members of a new group, to be moved to one thread each.
    pub fn new(size: usize) -> Vec<ThreadGroup> {
        let mailbox = Arc::new(Mailbox {
            size,
            barrier: Barrier::new(size),
            slots: Mutex::new(vec![vec![Vec::new(); size]; size]),
        });
        (0..size)
            .map(|rank| ThreadGroup {
                rank,
                mailbox: Arc::clone(&mailbox),
            })
            .collect()
    }
}

impl Exchange for ThreadGroup {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.mailbox.size
    }

    fn exchange(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        assert_eq!(outgoing.len(), self.mailbox.size, "one message per member");
        {
            let mut slots = self.mailbox.slots.lock().expect("no member panicked");
            for (to, message) in outgoing.into_iter().enumerate() {
                slots[to][self.rank] = message;
            }
        }
        self.mailbox.barrier.wait();
        let incoming = {
            let mut slots = self.mailbox.slots.lock().expect("no member panicked");
            let empty = vec![Vec::new(); self.mailbox.size];
            std::mem::replace(&mut slots[self.rank], empty)
        };
        // Nobody posts the next round before everyone has taken this one.
        self.mailbox.barrier.wait();
        incoming
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::retrograde::tests::{Cyclic, ToySpace, Wide, records_of};

    /// The records of a solved group, reassembled in index order.
    fn assemble(shares: &[Share]) -> Vec<u8> {
        let ownership = shares[0].ownership;
        let size = shares[0].record_size;
        let len: u64 = (0..shares.len()).map(|m| ownership.local_len(m)).sum();
        let mut out = Vec::with_capacity(len as usize * size);
        for index in 0..len {
            let share = &shares[ownership.owner(index)];
            let at = ownership.local(index) as usize * size;
            out.extend_from_slice(&share.records[at..at + size]);
        }
        out
    }

    /// Solves `space` with `members` threads; every member's result.
    fn solve_in_threads<S: StateSpace>(
        space: &S,
        members: usize,
        block: u64,
        mask_bytes: usize,
        round_states: usize,
    ) -> Vec<Result<Share, SolveError>> {
        let ownership = Ownership::new(space.len(), block, members);
        std::thread::scope(|scope| {
            let handles: Vec<_> = ThreadGroup::new(members)
                .into_iter()
                .map(|group| {
                    scope.spawn(move || {
                        let records =
                            vec![0; ownership.local_len(group.rank()) as usize * (1 + mask_bytes)];
                        let resume = Resume::from_scratch();
                        let round = round_states;
                        solve_shared_in(
                            space,
                            &group,
                            ownership,
                            mask_bytes,
                            records,
                            round,
                            resume,
                            &|_| {},
                        )
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    /// The records a group of `members` solves, reassembled; panics on an error.
    pub(crate) fn shared_records_of<S: StateSpace>(
        space: &S,
        members: usize,
        block: u64,
        mask_bytes: usize,
        round_states: usize,
    ) -> Vec<u8> {
        let shares: Vec<Share> = solve_in_threads(space, members, block, mask_bytes, round_states)
            .into_iter()
            .map(|r| r.expect("solved"))
            .collect();
        assemble(&shares)
    }

    #[test]
    fn ownership_deals_each_group_of_blocks_one_to_each_member() {
        for (len, block, members) in [
            (100, 7, 3),
            (21, 7, 3),
            (5, 8, 4),
            (64, 1, 5),
            (0, 4, 2),
            (1000, 3, 2),
            (997, 10, 4),
        ] {
            let own = Ownership::new(len, block, members);
            let mut seen = vec![0u64; members];
            for index in 0..len {
                let member = own.owner(index);
                let local = own.local(index);
                assert_eq!(own.global(member, local), index);
                assert!(
                    local < own.local_len(member),
                    "{len} {block} {members}: {index}"
                );
                seen[member] += 1;
            }
            let blocks = len.div_ceil(block);
            for group in 0..blocks.div_ceil(members as u64) {
                let group_blocks =
                    group * members as u64..((group + 1) * members as u64).min(blocks);
                let mut owners: Vec<usize> = group_blocks.map(|b| own.owner(b * block)).collect();
                owners.sort_unstable();
                owners.dedup();
                let full = ((group + 1) * members as u64).min(blocks) - group * members as u64;
                assert_eq!(
                    owners.len() as u64,
                    full,
                    "{len} {block} {members}: group {group}"
                );
            }
            for (member, &count) in seen.iter().enumerate() {
                assert_eq!(own.local_len(member), count, "{len} {block} {members}");
                let listed: u64 = own.blocks_in(member, 0..len).map(|r| r.end - r.start).sum();
                assert_eq!(listed, count);
                for range in own.blocks_in(member, 3..len.saturating_sub(2)) {
                    assert!(range.start >= 3 && range.end <= len.saturating_sub(2));
                    assert!(range.clone().all(|i| own.owner(i) == member));
                }
            }
        }
        // The deal is shuffled: with 2 members, both orders come up.
        let own = Ownership::new(1000, 1, 2);
        let firsts: Vec<usize> = (0..500).map(|group| own.owner(2 * group)).collect();
        assert!(firsts.contains(&0) && firsts.contains(&1));
    }

    #[test]
    fn divisors_divide_as_division_does() {
        let ds = [
            1u64,
            2,
            3,
            5,
            7,
            10,
            7776,
            46_656,
            65_536,
            1 << 31,
            (1 << 32) - 1,
            1 << 32,
            u64::MAX,
        ];
        let ns = [
            0u64,
            1,
            2,
            7775,
            7776,
            7777,
            362_797_055,
            (1 << 32) - 1,
            1 << 32,
            u64::MAX,
        ];
        for d in ds {
            let divisor = Divisor::new(d);
            for n in ns
                .into_iter()
                .chain((0..1000).map(|k| k * 4_294_967 + k % 13))
            {
                assert_eq!(divisor.div(n), n / d, "{n} / {d}");
            }
        }
    }

    #[test]
    fn messages_encode_numbers_compactly_and_back() {
        for n in [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            1 << 40,
            -(1 << 40),
            i64::MAX,
            i64::MIN,
        ] {
            let mut out = Vec::new();
            write_varint(&mut out, zigzag(n));
            out.push(0xff);
            let (read, used) = read_varint(&out);
            assert_eq!((unzigzag(read), used), (n, out.len() - 1));
        }
        let mut out = Vec::new();
        write_varint(&mut out, zigzag(-3));
        assert_eq!(out.len(), 1);
        assert_eq!(read_uint(&0x0102_0304u64.to_le_bytes()[..3]), 0x02_0304);
        // 2 members of 60.5 M states hold 30.2 M each: 4 bytes; 4 members, 3.
        assert_eq!(Ownership::new(60_466_176, 7776, 2).local_bytes(), 4);
        assert_eq!(Ownership::new(60_466_176, 7776, 4).local_bytes(), 3);
        assert_eq!(Ownership::new(256, 1, 1).local_bytes(), 1);
        assert_eq!(Ownership::new(257, 1, 1).local_bytes(), 2);
        assert_eq!(Ownership::new(0, 1, 1).local_bytes(), 1);
    }

    /// The records a group of `members` solves each way (keeping shares;
    /// keeping the whole table, each member in a copy of its own and all in
    /// one), checked to be the same; panics on an error.
    pub(crate) fn group_records_of<S: StateSpace>(
        space: &S,
        members: usize,
        block: u64,
        mask_bytes: usize,
        round_states: usize,
    ) -> Vec<u8> {
        let shared = shared_records_of(space, members, block, mask_bytes, round_states);
        let whole = whole::tests::whole_records_of(space, members, block, mask_bytes, round_states);
        assert!(
            shared == whole,
            "{members} members: shares and whole tables differ"
        );
        shared
    }

    #[test]
    fn a_group_solves_the_records_one_process_solves() {
        for ranged in [false, true] {
            let space = ToySpace { ranged };
            let alone = records_of(&space, 1).unwrap();
            for members in 1..=4 {
                for block in [1, 3, 8, 64] {
                    for round in [1, 5, 1000] {
                        let solved = group_records_of(&space, members, block, 1, round);
                        assert_eq!(
                            solved, alone,
                            "{members} members, blocks {block}, rounds {round}"
                        );
                    }
                }
            }
        }
        let alone = records_of(&Wide, 4).unwrap();
        assert_eq!(group_records_of(&Wide, 3, 5, 4, 7), alone);
        // Values only.
        let space = ToySpace { ranged: true };
        assert_eq!(
            group_records_of(&space, 2, 3, 0, 4),
            records_of(&space, 0).unwrap()
        );
    }

    #[test]
    fn every_member_fails_when_one_does() {
        // The same cycle error as one process reports, or the failing member named.
        for members in [1, 2, 3] {
            let results = solve_in_threads(&Cyclic { ranged: true }, members, 1, 1, 1);
            for result in results {
                match result {
                    Err(SolveError::Cycle { layer, states, .. }) => {
                        assert_eq!((layer, states), (1, 2))
                    }
                    other => panic!("{members} members: {other:?}"),
                }
            }
        }
        // A mask that does not fit: the owner of the state reports it, the others name it.
        assert_out_of_range_named(&solve_in_threads(&Wide, 3, 4, 1, 2));
    }

    /// Checks a group's results when a mask did not fit: some members
    /// report it, and every other names one of them.
    pub(crate) fn assert_out_of_range_named<T: std::fmt::Debug>(results: &[Result<T, SolveError>]) {
        let failed: Vec<usize> = (results.iter().enumerate())
            .filter(|(_, r)| matches!(r, Err(SolveError::ValueOutOfRange { .. })))
            .map(|(member, _)| member)
            .collect();
        assert!(!failed.is_empty());
        for result in results {
            match result {
                Err(SolveError::ValueOutOfRange { .. }) => {}
                Err(SolveError::Peer { member }) => assert!(failed.contains(member)),
                other => panic!("{other:?}"),
            }
        }
    }
}
