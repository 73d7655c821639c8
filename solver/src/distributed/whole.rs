//! Retrograde analysis by a group whose members each read the whole table:
//! the group's time shrinks with its size, not its memory.
//!
//! Every member solves the canonical states of its blocks of each layer
//! ([`Ownership`], as in [`super::solve_shared`]) and writes them and their
//! images, reading every child where it is: no request and no answer per
//! child. Members that solve in one copy of the table (threads of a
//! process, processes of one machine mapping one file) see each other's
//! writes; after each round, every member sends the states it solved to the
//! members of the other copies, which write them and their images. A
//! finished layer is the same in every copy, and every copy ends whole.

use std::sync::atomic::AtomicU8;
use std::time::{Duration, Instant};

use super::{
    Exchange, Meter, Ownership, ROUND_STATES, read_uint, read_varint, unzigzag, write_varint,
    zigzag,
};
use crate::retrograde::{BATCH, Images, MARK, Progress, RecordRun, SolveError, StateSpace, stuck};

/// Bytes at the head of a round's message: last, failed, stored, waiting.
const HEADER_BYTES: usize = 18;

/// Told after each layer the group finished, with this member's records and
/// the states the group has finished (as its progress says); every member
/// is told at the same point, so it may exchange messages.
pub type WholeLayerFinished<'a> = &'a mut dyn FnMut(usize, &[AtomicU8], u64);

/// What a whole-table solve tells of itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeSolved {
    /// The bytes the whole group sent to other members while solving.
    pub sent: u64,
    /// The bytes of every solved state as a message lists it: what a copy
    /// of the table receives from the members of the others, together.
    pub listed: u64,
    /// How long the slowest member took (not counting the time the layer
    /// callback took).
    pub solving: Duration,
    /// How long each member spent in exchanges while solving, by member.
    pub exchanging: Vec<Duration>,
}

/// Solves `space` together with the other members of `group`: member `m`
/// solves in the copy of the table numbered `copies[m]` (members with the
/// same number share one), which this member holds in `records` (the layout
/// of [`solve_records`](crate::retrograde::solve_records) with
/// [`Images::WhenSolved`], all zero, or as a stopped solve left it below
/// `first_layer`), and tells `finished` of each layer. On return every copy
/// holds the records [`solve_records`](crate::retrograde::solve_records)
/// writes. An error on one member is every member's error (the others get
/// [`SolveError::Peer`]).
pub fn solve_whole<S: StateSpace>(
    space: &S,
    group: &impl Exchange,
    (records, mask_bytes, copies): (&[AtomicU8], usize, &[usize]),
    (first_layer, finished): (usize, Option<WholeLayerFinished<'_>>),
    progress: Progress<'_>,
) -> Result<WholeSolved, SolveError> {
    let ownership = super::ownership_of(space, group.size());
    let table = (records, mask_bytes, copies);
    let rounds = (ownership, ROUND_STATES);
    solve_whole_in(
        space,
        group,
        table,
        rounds,
        (first_layer, finished),
        progress,
    )
}

/// [`solve_whole`] with the blocks and the round size given (tests use small ones).
pub(crate) fn solve_whole_in<S: StateSpace>(
    space: &S,
    group: &impl Exchange,
    (records, mask_bytes, copies): (&[AtomicU8], usize, &[usize]),
    (ownership, round_states): (Ownership, usize),
    (first_layer, mut finished): (usize, Option<WholeLayerFinished<'_>>),
    progress: Progress<'_>,
) -> Result<WholeSolved, SolveError> {
    if copies.len() != group.size() {
        return Err(SolveError::TooLarge("a copy number for each member"));
    }
    let run = RecordRun::new(space, records, mask_bytes, Images::WhenSolved, &|_| {})?;
    let rank = group.rank();
    let mut member = Member {
        space,
        group,
        ownership,
        run,
        rank,
        copies,
        // The first member of each copy marks and clears its layers.
        keeper: copies.iter().position(|&c| c == copies[rank]) == Some(rank),
        shared: (1..copies.len()).any(|m| copies[..m].contains(&copies[m])),
        tells: tells(copies, rank),
        mask_bytes,
        round_states: round_states.max(1),
        done: 0,
        listed: 0,
        meter: Meter::default(),
    };
    let (started, mut telling) = (Instant::now(), Duration::ZERO);
    for layer in first_layer..space.num_layers() {
        member.solve_layer(layer, progress)?;
        if let Some(finished) = finished.as_mut() {
            let told = Instant::now();
            finished(layer, records, member.done);
            telling += told.elapsed();
        }
    }
    let solving = started.elapsed().saturating_sub(telling);
    let totals = member.meter.totals(group, solving, member.listed);
    Ok(WholeSolved {
        sent: totals.sent,
        listed: totals.extra,
        solving: totals.solving,
        exchanging: totals.exchanging,
    })
}

/// One member's state while solving.
struct Member<'a, S, X> {
    space: &'a S,
    group: &'a X,
    ownership: Ownership,
    run: RecordRun<'a, S>,
    rank: usize,
    /// The copy of the table each member solves in.
    copies: &'a [usize],
    /// Whether this member marks and clears the layers of its copy.
    keeper: bool,
    /// Whether some members share a copy (and wait for its keeper).
    shared: bool,
    /// The members this member sends its solved states to: one of each
    /// other copy, which writes them there.
    tells: Vec<bool>,
    mask_bytes: usize,
    round_states: usize,
    /// States the whole group has finished.
    done: u64,
    /// Bytes of the states this member solved, as a message lists them.
    listed: u64,
    /// What its exchanges cost so far.
    meter: Meter,
}

/// What a round told every member.
struct RoundSummary {
    all_done: bool,
    waiting: u64,
    failed: Option<usize>,
}

impl<S: StateSpace, X: Exchange> Member<'_, S, X> {
    /// Calls `visit` for every state of `layer`, in the whole index space.
    fn for_each_in_layer(&self, layer: usize, visit: impl FnMut(u64)) {
        let scan = self.space.layer_range(layer).unwrap_or(0..self.space.len());
        self.space.for_each_in_layer(layer, scan, visit);
    }

    fn solve_layer(&mut self, layer: usize, progress: Progress<'_>) -> Result<(), SolveError> {
        let same_layer = self.space.has_same_layer_edges();
        if same_layer {
            // The whole layer, in every copy: a child another member has not
            // yet solved must read as unknown, not as a value.
            if self.keeper {
                self.for_each_in_layer(layer, |index| self.run.write_value(index, MARK));
            }
            self.wait_for_keepers();
        }
        let mut left = u64::MAX;
        loop {
            let waiting = self.scan(layer, progress)?;
            if waiting == 0 {
                break;
            }
            if waiting == left || !same_layer {
                let chunks = self.run.chunks(layer);
                let value_at = |index| self.run.child_value_at(index);
                return Err(stuck(self.space, layer, waiting, &chunks, &value_at));
            }
            left = waiting;
        }
        if same_layer {
            // A symmetric image nobody copied to reads 0, as in `solve_records`.
            if self.keeper {
                self.for_each_in_layer(layer, |index| {
                    if self.run.value_at(index) == MARK {
                        self.run.write_value(index, 0);
                    }
                });
            }
            self.wait_for_keepers();
        }
        Ok(())
    }

    /// With a shared copy, nobody goes on before the other members of its
    /// copy have done their part (its keeper marked or cleared the layer,
    /// the others wrote what they received); every member calls this at
    /// the same points.
    fn wait_for_keepers(&mut self) {
        if self.shared {
            self.exchange(vec![Vec::new(); self.group.size()]);
        }
    }

    /// [`Meter::exchange`] with this member's group.
    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        self.meter.exchange(self.group, outgoing)
    }

    /// One pass over this member's blocks of the layer, in rounds: every
    /// waiting canonical state whose children are known is solved and sent
    /// to the others. Returns the states still waiting in the whole group.
    fn scan(&mut self, layer: usize, progress: Progress<'_>) -> Result<u64, SolveError> {
        let scan = self.space.layer_range(layer).unwrap_or(0..self.space.len());
        let mut blocks = self.ownership.blocks_in(self.rank, scan);
        let same_layer = self.space.has_same_layer_edges();
        let (mut pending, mut exhausted, mut waiting) = (Vec::new(), false, 0);
        loop {
            while !exhausted && pending.len() < self.round_states {
                match blocks.next() {
                    Some(block) => self.space.for_each_in_layer(layer, block, |index| {
                        if self.space.is_canonical(index)
                            && (!same_layer || self.run.value_at(index) == MARK)
                        {
                            pending.push(index);
                        }
                    }),
                    None => exhausted = true,
                }
            }
            let take = pending.len().min(self.round_states);
            let batch: Vec<u64> = pending.drain(..take).collect();
            let last = exhausted && pending.is_empty();
            let summary = self.round(&batch, last)?;
            progress(self.done);
            waiting += summary.waiting;
            if let Some(member) = summary.failed {
                return Err(SolveError::Peer { member });
            }
            if summary.all_done {
                // Another member of this copy may still be writing the last
                // round's states, which the next scan reads.
                self.wait_for_keepers();
                return Ok(waiting);
            }
        }
    }

    /// Solves `batch`, sends what it solved to every other member with this
    /// member's status, and writes what they solved.
    fn round(&mut self, batch: &[u64], last: bool) -> Result<RoundSummary, SolveError> {
        let (mut waiting, mut stored) = (0, 0);
        let mut body = Vec::new();
        let mut previous = 0u64;
        let mask_bytes = self.mask_bytes;
        let (copies, rank) = (self.copies, self.rank);
        let elsewhere = self.tells.iter().any(|&tell| tell);
        let mut listed = 0;
        for piece in batch.chunks(BATCH) {
            self.run.solve_batch(
                piece,
                &mut waiting,
                &mut stored,
                &mut |index, byte, mask| {
                    let delta = zigzag(index.wrapping_sub(previous) as i64);
                    previous = index;
                    // Counted also when nobody is told, for the build's report.
                    listed += varint_len(delta) + 1 + mask_bytes;
                    if elsewhere {
                        write_varint(&mut body, delta);
                        body.push(byte as u8);
                        body.extend_from_slice(&mask.to_le_bytes()[..mask_bytes]);
                    }
                },
            );
        }
        self.listed += listed as u64;
        let error = self.run.take_error();
        let mut status = Vec::with_capacity(HEADER_BYTES);
        status.push(u8::from(last));
        status.push(u8::from(error.is_some()));
        status.extend_from_slice(&stored.to_le_bytes());
        status.extend_from_slice(&waiting.to_le_bytes());
        let outgoing = (0..copies.len())
            .map(|member| match member {
                m if m == rank => Vec::new(),
                m if self.tells[m] => [&status[..], &body[..]].concat(),
                _ => status.clone(),
            })
            .collect();
        let incoming = self.exchange(outgoing);
        if let Some(error) = error {
            return Err(error);
        }
        let mut summary = RoundSummary {
            all_done: last,
            waiting,
            failed: None,
        };
        self.done += stored;
        for (sender, message) in incoming.iter().enumerate() {
            if sender == self.rank {
                continue;
            }
            let (status, body) = message.split_at(HEADER_BYTES);
            summary.all_done &= status[0] == 1;
            if status[1] == 1 && summary.failed.is_none() {
                summary.failed = Some(sender);
            }
            self.done += read_uint(&status[2..10]);
            summary.waiting += read_uint(&status[10..18]);
            // Empty unless this member writes the sender's states into its copy.
            self.write_received(body);
        }
        Ok(summary)
    }

    /// Writes the records another member solved and listed in `body`, and
    /// their images: [`RECEIVED_AHEAD`] states at a time, every line they
    /// write asked for first, so that the misses overlap.
    #[inline(never)] // once a round: a profile tells the phases apart
    fn write_received(&self, mut body: &[u8]) {
        let (space, run) = (self.space, &self.run);
        let mut states = [(0u64, 0i8, 0u64); RECEIVED_AHEAD];
        let mut index = 0u64;
        while !body.is_empty() {
            let mut filled = 0;
            while filled < RECEIVED_AHEAD && !body.is_empty() {
                let (delta, used) = read_varint(body);
                index = index.wrapping_add(unzigzag(delta) as u64);
                let byte = body[used] as i8;
                let mask = read_uint(&body[used + 1..used + 1 + self.mask_bytes]);
                body = &body[used + 1 + self.mask_bytes..];
                run.prefetch(index);
                space.for_each_image(index, mask, |image, _| run.prefetch(image));
                states[filled] = (index, byte, mask);
                filled += 1;
            }
            for &(index, byte, mask) in &states[..filled] {
                run.write(index, byte, mask);
                space.for_each_image(index, mask, |image, image_mask| {
                    run.write(image, byte, image_mask)
                });
            }
        }
    }
}

/// Whom member `rank` sends its solved states to: in each other copy, one
/// member, picked by `rank` among the copy's members, so that the members
/// of a copy share the writing.
fn tells(copies: &[usize], rank: usize) -> Vec<bool> {
    let members_of = |copy: usize| (0..copies.len()).filter(move |&m| copies[m] == copy);
    (0..copies.len())
        .map(|m| {
            let copy = copies[m];
            let count = members_of(copy).count();
            copy != copies[rank] && members_of(copy).nth(rank % count) == Some(m)
        })
        .collect()
}

/// The bytes of `n` in LEB128.
fn varint_len(n: u64) -> usize {
    (u64::BITS - (n | 1).leading_zeros()).div_ceil(7) as usize
}

/// Received states whose records and images are asked for before they are written.
const RECEIVED_AHEAD: usize = 16;

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::Ordering::Relaxed;

    use super::*;
    use crate::distributed::ThreadGroup;
    use crate::retrograde::tests::{Cyclic, ToySpace, Wide, records_of};

    /// Every copy's records and every member's result when threads solve
    /// `space`, member `m` in copy `copies[m]`.
    fn solve_in_threads<S: StateSpace>(
        space: &S,
        (copies, block, round): (&[usize], u64, usize),
        mask_bytes: usize,
    ) -> (Vec<Vec<u8>>, Vec<Result<WholeSolved, SolveError>>) {
        let ownership = Ownership::new(space.len(), block, copies.len());
        let len = space.len() as usize * (1 + mask_bytes);
        let tables: Vec<Vec<AtomicU8>> = (0..copies.len())
            .map(|_| (0..len).map(|_| AtomicU8::new(0)).collect())
            .collect();
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = ThreadGroup::new(copies.len())
                .into_iter()
                .map(|group| {
                    let records = &tables[copies[group.rank()]];
                    scope.spawn(move || {
                        let table = (&records[..], mask_bytes, copies);
                        let rounds = (ownership, round);
                        solve_whole_in(space, &group, table, rounds, (0, None), &|_| {})
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut used: Vec<usize> = copies.to_vec();
        used.sort_unstable();
        used.dedup();
        let records = used
            .iter()
            .map(|&c| tables[c].iter().map(|cell| cell.load(Relaxed)).collect())
            .collect();
        (records, results)
    }

    /// Checks that every copy of a group's table holds `alone`.
    fn assert_whole<S: StateSpace>(
        space: &S,
        (copies, block, round): (&[usize], u64, usize),
        mask_bytes: usize,
        alone: &[u8],
    ) {
        let (tables, results) = solve_in_threads(space, (copies, block, round), mask_bytes);
        for result in &results {
            assert!(result.is_ok(), "{result:?}");
        }
        for table in tables {
            assert!(
                table == alone,
                "copies {copies:?}, blocks {block}, rounds {round}"
            );
        }
    }

    /// The table a group of `members` solves, each member in its own copy
    /// and all in one; panics unless every copy is the same.
    pub(crate) fn whole_records_of<S: StateSpace>(
        space: &S,
        members: usize,
        block: u64,
        mask_bytes: usize,
        round: usize,
    ) -> Vec<u8> {
        let own: Vec<usize> = (0..members).collect();
        let (mut tables, _) = solve_in_threads(space, (&own, block, round), mask_bytes);
        let first = tables.swap_remove(0);
        let one = vec![0; members];
        assert_whole(space, (&one, block, round), mask_bytes, &first);
        first
    }

    #[test]
    fn each_other_copy_gets_a_member_s_states_once() {
        // Copy 0 of members 0 and 1, copy 2 of members 2, 3 and 4, copy 5 alone.
        let copies = [0, 0, 2, 2, 2, 5];
        for rank in 0..copies.len() {
            let tells = tells(&copies, rank);
            for copy in [0, 2, 5] {
                let told = (0..copies.len()).filter(|&m| tells[m] && copies[m] == copy);
                let expected = usize::from(copy != copies[rank]);
                assert_eq!(told.count(), expected, "member {rank}, copy {copy}");
            }
        }
        // The members of copy 2 share the writing of copy 0's states.
        let receivers: Vec<usize> = (0..2)
            .map(|rank| (2..5).find(|&m| tells(&copies, rank)[m]).unwrap())
            .collect();
        assert_eq!(receivers, vec![2, 3]);
    }

    #[test]
    fn varint_lengths_are_the_bytes_written() {
        for n in [0, 1, 127, 128, 16_383, 16_384, u64::MAX >> 1, u64::MAX] {
            let mut bytes = Vec::new();
            write_varint(&mut bytes, n);
            assert_eq!(varint_len(n), bytes.len(), "{n}");
        }
    }

    #[test]
    fn members_sharing_some_copies_solve_the_records_one_process_solves() {
        // Every member in a copy of its own, and all in one: `group_records_of`.
        for ranged in [false, true] {
            let space = ToySpace { ranged };
            let alone = records_of(&space, 1).unwrap();
            for copies in [&[0, 0, 2][..], &[0, 1, 1, 0], &[1, 1]] {
                for (block, round) in [(1, 1), (3, 5), (64, 1000)] {
                    assert_whole(&space, (copies, block, round), 1, &alone);
                }
            }
        }
    }

    #[test]
    fn every_member_keeping_the_whole_table_fails_when_one_does() {
        for copies in [&[0][..], &[0, 1], &[0, 1, 2], &[0, 0, 0], &[0, 0, 2]] {
            let (_, results) = solve_in_threads(&Cyclic { ranged: true }, (copies, 1, 1), 1);
            for result in results {
                match result {
                    Err(SolveError::Cycle { layer, states, .. }) => {
                        assert_eq!((layer, states), (1, 2))
                    }
                    other => panic!("copies {copies:?}: {other:?}"),
                }
            }
        }
        // A mask that does not fit: its solver reports it, the others name it.
        for copies in [&[0, 1, 2][..], &[0, 0, 0]] {
            let (_, results) = solve_in_threads(&Wide, (copies, 4, 2), 1);
            crate::distributed::tests::assert_out_of_range_named(&results);
        }
    }
}
