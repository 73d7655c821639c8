//! Building a table with a group of processes, in one of two ways
//! ([`Keep`]). Keeping shares, each member solves its share
//! ([`tabula_solver::distributed::solve_shared_into`], snapshotting it now
//! and then, see [`build_distributed_for`]), then sends it to member 0,
//! which writes the file. Keeping the whole table, every member solves in a
//! copy of it ([`tabula_solver::distributed::whole`]): the members of
//! member 0's machine in its mapped file, the others each in memory. Either
//! way the file is exactly [`crate::typed::build_out_of_core_for`]'s (same
//! bytes). The group is any [`Exchange`]: MPI ranks (`crate::mpi_group`,
//! with the `mpi` feature) or threads ([`ThreadGroup`]).

mod whole;

pub use whole::Placing;

use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::{Duration, Instant};

use tabula_solver::distributed::{self, Exchange, Ownership, Resume, Share};
use tabula_solver::retrograde::{Progress, SolveError, StateSpace};

pub use tabula_solver::distributed::ThreadGroup;

use crate::format::{TableError, TableSpec, write_table_mapped};
use crate::shares::Shares;
use crate::typed::{Records, Tabulated, one_byte_values};

/// Records a member sends to member 0 per exchange while the table is gathered.
const GATHER_RECORDS: u64 = 1 << 20;

/// Why a distributed build failed.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    /// Writing the table failed (member 0 only).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The space could not be solved.
    #[error("{game} state space: {error}")]
    Solve {
        /// The game.
        game: &'static str,
        /// Why.
        error: SolveError,
    },
    /// Member 0 stopped before solving (it reports why), so nobody solved anything.
    #[error("member 0 could not start the table (see its error)")]
    NoOutput,
    /// Another member could not open or read its share of the build (it reports why).
    #[error("member {member} could not open its share of the build (see its error)")]
    PeerShare {
        /// The first such member.
        member: usize,
    },
    /// This member's machine has no room for a copy of the whole table.
    #[error(
        "a copy of the table needs {needed} bytes, and this rank's machine has {available} \
         available: build with --keep share, or with fewer machines' ranks"
    )]
    NoRoom {
        /// The table's bytes.
        needed: u64,
        /// The memory available.
        available: u64,
    },
    /// Another member's machine has no room for a copy of the whole table (it reports why).
    #[error("member {member} has no room for a copy of the table (see its error)")]
    PeerRoom {
        /// The first such member.
        member: usize,
    },
}

/// The bytes a distributed build's members sent each other (every member
/// gets the group's totals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// Sent to other members while solving: requests, answers, solved states
    /// with images elsewhere, and each round's status.
    pub solving: u64,
    /// Sent to member 0 while gathering the table: the other members' records.
    pub gathering: u64,
    /// The table's states.
    pub states: u64,
    /// How long the slowest member took to solve its share.
    pub solve_time: Duration,
    /// The least and the most time a member spent in exchanges while
    /// solving: waiting for the slowest member, and moving the bytes.
    pub exchange_time: (Duration, Duration),
    /// The layers a stopped build had finished on every member, checked and
    /// reused (0: built from the start).
    pub reused_layers: usize,
    /// The layers of the table.
    pub layers: usize,
    /// With [`Keep::Whole`], the copies of the table the members solved in.
    pub copies: Option<Copies>,
}

/// The copies of the table a [`Keep::Whole`] build solved in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copies {
    /// How many: member 0's file (with the members of its machine) and one
    /// for each member elsewhere.
    pub count: usize,
    /// The members that solved in member 0's copy.
    pub with_member_0: usize,
    /// Whether member 0's copy was in memory (a large table), not in the
    /// output's file.
    pub in_memory: bool,
    /// The bytes of every solved state as the messages list them: what each
    /// copy receives from the members of the others, together.
    pub listed: u64,
}

impl Traffic {
    /// The bytes sent while solving per state of the table.
    pub fn solving_per_state(&self) -> f64 {
        self.solving as f64 / self.states.max(1) as f64
    }
}

/// What each member of a distributed build keeps while the group solves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// [`Keep::Whole`] when every member runs on member 0's machine (the
    /// same kernel: they all solve in its file, in no more memory than one
    /// process), else [`Keep::Share`].
    #[default]
    Auto,
    /// Its share of the records: the group holds the table once, and every
    /// child owned elsewhere costs a request and an answer.
    Share,
    /// The whole table: the members on member 0's machine solve in its
    /// mapped file, every other member in a copy of its own in memory; each
    /// reads every child itself and sends only what it solved.
    Whole,
}

/// How long a distributed build goes between snapshots of its shares, at least.
pub const SNAPSHOT_EVERY: Duration = Duration::from_secs(60);

/// Builds the table of `game` with every member of `group`, each calling it
/// with the same game; member 0 writes `path` atomically (the others ignore
/// it). `progress` gets the states the group has finished.
///
/// Every [`SNAPSHOT_EVERY`] or so, after a layer, each member writes its
/// share to `FILE.rank-R-of-N.layer-L`: the same command
/// started again with as many members goes on from the latest layer every
/// member has a good snapshot of, and the snapshots are removed once member 0
/// has written the table.
pub fn build_distributed_for<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    group: &impl Exchange,
    progress: Progress<'_>,
) -> Result<Traffic, DistributedError> {
    build_distributed_snapshotting(game, path, records, group, (progress, SNAPSHOT_EVERY))
}

/// [`build_distributed_snapshotting`] with each member keeping what `keep` says.
pub fn build_distributed_as<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    group: &impl Exchange,
    keep: Keep,
    (progress, every): (Progress<'_>, Duration),
) -> Result<Traffic, DistributedError> {
    match keep {
        Keep::Auto => {
            let keep = match whole::one_machine(group) {
                true => Keep::Whole,
                false => Keep::Share,
            };
            build_distributed_as(game, path, records, group, keep, (progress, every))
        }
        Keep::Share => {
            build_distributed_snapshotting(game, path, records, group, (progress, every))
        }
        Keep::Whole => {
            let placing = Placing::default();
            whole::build_whole(game, path, records, group, (progress, every, placing))
        }
    }
}

/// [`build_distributed_as`] with [`Keep::Whole`] and its copies placed as
/// `placing` says (for tests: copies of their own, or in memory, on one
/// machine and with small tables).
#[doc(hidden)]
pub fn build_whole_placed<T: Tabulated>(
    (game, path, records): (&T, &Path, Records),
    group: &impl Exchange,
    placing: Placing,
    (progress, every): (Progress<'_>, Duration),
) -> Result<Traffic, DistributedError> {
    whole::build_whole(game, path, records, group, (progress, every, placing))
}

/// [`build_distributed_for`] with the time between snapshots given (`every`;
/// zero: after every layer).
pub fn build_distributed_snapshotting<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    group: &impl Exchange,
    (progress, every): (Progress<'_>, Duration),
) -> Result<Traffic, DistributedError> {
    let spec = records.spec(game);
    let timing = (progress, every);
    if group.rank() != 0 {
        if !receive_go(group) {
            return Err(DistributedError::NoOutput);
        }
        let send = |share: &Share| send_share(group, share);
        let (traffic, shares) = solve_share(game, path, records, group, timing, send)?;
        return Ok(finish_other_member(group, traffic, shares));
    }
    check_values(group, &spec, path)?;
    let (mut started, mut solved) = (false, None);
    let written = write_table_mapped(path, &spec, &records.description(game), |payload, _| {
        started = true;
        send_go(group, true);
        let gather = |share: &Share| gather(group, share, payload);
        solved = Some(solve_share(game, path, records, group, timing, gather)?);
        Ok::<(), DistributedError>(())
    });
    finish_member_0(group, started, written, solved)
}

/// Member 0 refuses a table whose values take more than a byte, and tells
/// the others not to start.
fn check_values(
    group: &impl Exchange,
    spec: &TableSpec,
    path: &Path,
) -> Result<(), DistributedError> {
    one_byte_values(spec, path).inspect_err(|_| send_go(group, false))?;
    Ok(())
}

/// A member other than 0 after solving: waits to hear whether the table is
/// written, and then removes its snapshots.
fn finish_other_member(group: &impl Exchange, traffic: Traffic, shares: Option<Shares>) -> Traffic {
    if receive_go(group) {
        discard(shares);
    }
    traffic
}

/// Member 0 after writing the table (or failing to): tells the others
/// whether it started, if it did not, and whether their snapshots may go,
/// if they solved; removes its own snapshots once the table is written.
fn finish_member_0(
    group: &impl Exchange,
    started: bool,
    written: Result<Result<(), DistributedError>, TableError>,
    solved: Option<(Traffic, Option<Shares>)>,
) -> Result<Traffic, DistributedError> {
    if !started {
        send_go(group, false);
    }
    let ok = matches!(written, Ok(Ok(())));
    let traffic = solved.as_ref().map(|(traffic, _)| *traffic);
    if let Some((_, shares)) = solved {
        // The others wait to hear whether their snapshots may go.
        send_go(group, ok);
        if ok {
            discard(shares);
        }
    }
    written??;
    Ok(traffic.expect("a written table was solved"))
}

/// Opens this member's snapshots, agrees with the others on the layer to go
/// on from, solves the rest (snapshotting as [`Checkpoints`] says), and
/// hands the share to `then` (the gathering).
fn solve_share<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    group: &impl Exchange,
    (progress, every): (Progress<'_>, Duration),
    then: impl FnOnce(&Share),
) -> Result<(Traffic, Option<Shares>), DistributedError> {
    let spec = records.spec(game);
    let space = game.space();
    let mask_bytes = usize::from(spec.layout.mask_bytes);
    let (rank, ranks) = (group.rank(), group.size());
    let ownership = distributed::ownership_of(&space, ranks);
    let bytes = ownership.local_len(rank) * spec.layout.record_size() as u64;
    let Resumed {
        mut shares,
        layer: resumed,
        snapshots,
    } = open_snapshots(path, &spec, group, bytes)?;
    let loaded = match (resumed, &shares) {
        (Some(layer), Some(shares)) => shares.load(layer).map(Some),
        _ => Ok(None),
    };
    let (records, before) =
        loaded_everywhere(group, loaded)?.unwrap_or_else(|| (vec![0; bytes as usize], 0));
    let mut checkpoints = Checkpoints::new(every, space.num_layers());
    let mut finished = |layer: usize, records: &[u8], done: u64| {
        if let Some(shares) = shares.as_mut().filter(|_| snapshots) {
            checkpoints.after((layer, records, before + done), group, shares)
        }
    };
    // The bar goes on from where the snapshot left it.
    let progress = &|done| progress(before + done);
    let first_layer = resumed.map_or(0, |layer| layer + 1);
    let resume = Resume {
        first_layer,
        finished: Some(&mut finished),
    };
    let solved =
        distributed::solve_shared_into(&space, group, mask_bytes, records, resume, progress)
            .map_err(|error| DistributedError::Solve {
                game: spec.game,
                error,
            })?;
    let traffic = Traffic {
        solving: solved.sent,
        gathering: (1..ranks)
            .map(|m| ownership.local_len(m) * solved.record_size as u64)
            .sum(),
        states: spec.entries,
        solve_time: solved.solving,
        exchange_time: (
            solved.exchanging.iter().min().copied().unwrap_or_default(),
            solved.exchanging.iter().max().copied().unwrap_or_default(),
        ),
        reused_layers: first_layer,
        layers: space.num_layers(),
        copies: None,
    };
    then(&solved);
    Ok((traffic, shares))
}

/// A member's snapshots, agreed on with the group.
struct Resumed {
    /// Kept also without snapshots, so that the end removes this run's files.
    shares: Option<Shares>,
    /// The layer to go on from (`None`: the start).
    layer: Option<usize>,
    /// Whether the group takes snapshots.
    snapshots: bool,
}

/// Opens this member's snapshots (of a share of `bytes` bytes) and agrees
/// with the others on the layer to go on from.
fn open_snapshots(
    path: &Path,
    spec: &TableSpec,
    group: &impl Exchange,
    bytes: u64,
) -> Result<Resumed, DistributedError> {
    // A rank without the output's directory on its node (no shared file
    // system) has nowhere to keep snapshots: the group then takes none.
    let place = crate::atomic::parent_of(path).is_dir();
    let member = (group.rank(), group.size());
    let opened = place.then(|| Shares::open(path, spec, member, bytes));
    let said = match &opened {
        None => Said::NoPlace,
        Some(Ok(shares)) => Said::Good(shares.good_layers()),
        Some(Err(_)) => Said::Failed,
    };
    let (layer, snapshots) = agree_on_snapshot(group, said)?;
    Ok(Resumed {
        shares: opened.transpose()?,
        layer,
        snapshots,
    })
}

/// Every member says whether it loaded its snapshot: one that could not
/// stops them all, before any solves.
fn loaded_everywhere<L>(
    group: &impl Exchange,
    loaded: Result<Option<L>, TableError>,
) -> Result<Option<L>, DistributedError> {
    let failed = all_say(group, loaded.is_ok()).iter().position(|&ok| !ok);
    match (loaded?, failed) {
        (_, Some(member)) => Err(DistributedError::PeerShare { member }),
        (loaded, None) => Ok(loaded),
    }
}

/// When the members snapshot their shares: after a layer, once `every` has
/// passed since the start or the last snapshot, and at least ten times as
/// long as the last snapshot took (so that snapshots cost at most a tenth
/// of the time; `every` zero: after every layer but the last); member 0's
/// clock decides for all.
struct Checkpoints {
    every: Duration,
    since: Instant,
    last_took: Duration,
    layers: usize,
}

impl Checkpoints {
    fn new(every: Duration, layers: usize) -> Checkpoints {
        Checkpoints {
            every,
            since: Instant::now(),
            last_took: Duration::ZERO,
            layers,
        }
    }

    /// Called on every member after `layer`: snapshots when member 0 says so,
    /// and drops the older snapshots once every member has written its own.
    fn after(
        &mut self,
        (layer, records, done): (usize, &[u8], u64),
        group: &impl Exchange,
        shares: &mut Shares,
    ) {
        let wait = match self.every.is_zero() {
            true => Duration::ZERO,
            false => self.every.max(self.last_took * 10),
        };
        let due = self.since.elapsed() >= wait;
        // The last layer is not worth a snapshot: the table follows at once.
        let due = group.rank() == 0 && due && layer + 1 < self.layers;
        if !all_say(group, due)[0] {
            return;
        }
        let started = Instant::now();
        let written = shares.snapshot(layer, records, done);
        if let Err(e) = &written {
            eprintln!("{e}: a stop goes on from the snapshot before");
        }
        if all_say(group, written.is_ok()).iter().all(|&ok| ok)
            && let Err(e) = shares.keep_only(layer)
        {
            eprintln!("{e}");
        }
        self.last_took = started.elapsed();
        self.since = Instant::now();
    }
}

/// Every member says `what`; what each said, by member.
fn all_say(group: &impl Exchange, what: bool) -> Vec<bool> {
    let heard = group.exchange(vec![vec![u8::from(what)]; group.size()]);
    heard.iter().map(|bytes| bytes == &[1]).collect()
}

/// What a member says of its snapshots before the build.
enum Said {
    /// The layers of its good snapshots (none, for a fresh build).
    Good(Vec<usize>),
    /// It has no place for snapshots (no output directory on its node).
    NoPlace,
    /// It could not open its share (it reports why).
    Failed,
}

/// Every member says what it has; all go on from the latest layer every
/// member has a good snapshot of (`None`: from the start), taking snapshots
/// unless a member has no place for them (the `bool`); or all stop when one
/// could not open its share (that member reports why).
fn agree_on_snapshot(
    group: &impl Exchange,
    said: Said,
) -> Result<(Option<usize>, bool), DistributedError> {
    let message: Vec<u64> = match &said {
        Said::Good(layers) => std::iter::once(1)
            .chain(layers.iter().map(|&l| l as u64))
            .collect(),
        Said::NoPlace => vec![2],
        Said::Failed => vec![0],
    };
    let message: Vec<u8> = message.into_iter().flat_map(u64::to_le_bytes).collect();
    let heard = group.exchange(vec![message; group.size()]);
    let lists: Vec<Vec<u64>> = heard
        .iter()
        .map(|bytes| {
            (bytes.chunks_exact(8))
                .map(|word| u64::from_le_bytes(word.try_into().unwrap_or_default()))
                .collect()
        })
        .collect();
    if let Some(member) = lists.iter().position(|list| list.first() == Some(&0)) {
        return match said {
            // This member's own error is the one to report.
            Said::Failed => Ok((None, false)),
            _ => Err(DistributedError::PeerShare { member }),
        };
    }
    if let Some(member) = lists.iter().position(|list| list.first() == Some(&2)) {
        if group.rank() == 0 {
            eprintln!(
                "rank {member} has not the output's directory on its node: \
                 this build takes no snapshots to go on from if stopped"
            );
        }
        return Ok((None, false));
    }
    let common = lists[0][1..]
        .iter()
        .filter(|layer| lists.iter().all(|list| list[1..].contains(layer)))
        .max();
    Ok((common.map(|&layer| layer as usize), true))
}

/// Removes a rank's snapshots once the table is written (a failure is said, not fatal: the table is whole).
fn discard(shares: Option<Shares>) {
    if let Some(Err(e)) = shares.map(Shares::discard) {
        eprintln!("the snapshots of this rank could not be removed: {e}");
    }
}

/// Member 0 tells the others whether the output file is ready.
fn send_go(group: &impl Exchange, go: bool) {
    group.exchange(vec![vec![u8::from(go)]; group.size()]);
}

/// The others hear from member 0 whether to go on.
fn receive_go(group: &impl Exchange) -> bool {
    let incoming = group.exchange(vec![Vec::new(); group.size()]);
    incoming[0] == [1]
}

/// How many exchanges gathering takes: the largest share over [`GATHER_RECORDS`].
fn gather_rounds(ownership: &Ownership, members: usize) -> u64 {
    (0..members)
        .map(|m| ownership.local_len(m).div_ceil(GATHER_RECORDS))
        .max()
        .unwrap_or(0)
}

/// The records of `share` sent in gathering round `round`.
fn share_slice(share: &Share, round: u64) -> &[u8] {
    let size = share.record_size as u64;
    let len = share.records.len() as u64;
    let start = (round * GATHER_RECORDS * size).min(len);
    let end = ((round + 1) * GATHER_RECORDS * size).min(len);
    &share.records[start as usize..end as usize]
}

fn send_share(group: &impl Exchange, share: &Share) {
    for round in 0..gather_rounds(&share.ownership, group.size()) {
        let mut outgoing = vec![Vec::new(); group.size()];
        outgoing[0] = share_slice(share, round).to_vec();
        group.exchange(outgoing);
    }
}

/// Member 0 copies every member's share into the table's records.
fn gather(group: &impl Exchange, share: &Share, records: &[AtomicU8]) {
    let (ownership, size) = (share.ownership, share.record_size);
    let block = ownership.block();
    // Copies records of `member` from local record `local` on: a block is contiguous in both.
    let place = |member: usize, mut local: u64, mut bytes: &[u8]| {
        while !bytes.is_empty() {
            let run = (block - local % block).min((bytes.len() / size) as u64);
            let (part, rest) = bytes.split_at(run as usize * size);
            let at = ownership.global(member, local) as usize * size;
            for (cell, &byte) in records[at..at + part.len()].iter().zip(part) {
                cell.store(byte, Relaxed);
            }
            local += run;
            bytes = rest;
        }
    };
    for round in 0..gather_rounds(&ownership, group.size()) {
        place(0, round * GATHER_RECORDS, share_slice(share, round));
        let incoming = group.exchange(vec![Vec::new(); group.size()]);
        for (member, bytes) in incoming.iter().enumerate().skip(1) {
            place(member, round * GATHER_RECORDS, bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member's answer when each says `good` (its good snapshots;
    /// `None`: it could not open its share).
    fn agreed(good: Vec<Option<Vec<usize>>>) -> Vec<Result<(Option<usize>, bool), String>> {
        let said = good
            .into_iter()
            .map(|good| good.map_or(Said::Failed, Said::Good));
        agreed_on(said.collect())
    }

    /// Every member's answer when each says what `said` holds.
    fn agreed_on(said: Vec<Said>) -> Vec<Result<(Option<usize>, bool), String>> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = ThreadGroup::new(said.len())
                .into_iter()
                .zip(said)
                .map(|(group, said)| {
                    scope.spawn(move || agree_on_snapshot(&group, said).map_err(|e| e.to_string()))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn the_group_goes_on_from_the_latest_snapshot_every_member_has() {
        // Stopped after member 0 listed layer 4 and before member 1 did.
        let both = agreed(vec![Some(vec![3, 4]), Some(vec![3])]);
        assert_eq!(both, vec![Ok((Some(3), true)); 2]);
        let none = agreed(vec![Some(vec![4]), Some(vec![3]), Some(vec![])]);
        assert_eq!(none, vec![Ok((None, true)); 3]);
        // A member with no place for snapshots: none taken, none used.
        let no_place = agreed_on(vec![Said::Good(vec![3]), Said::NoPlace]);
        assert_eq!(no_place, vec![Ok((None, false)); 2]);
        // A member that could not open its share: the others name it.
        let failed = agreed(vec![Some(vec![3]), None]);
        assert_eq!(failed[1], Ok((None, false)));
        let said = failed[0].as_ref().unwrap_err();
        assert!(said.contains("member 1 could not open its share"), "{said}");
    }
}
