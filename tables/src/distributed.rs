//! Building a table with a group of processes: each member solves its share
//! ([`tabula_solver::distributed::solve_shared`]), then sends it to member 0,
//! which writes the file exactly as [`crate::typed::build_out_of_core_for`]
//! does (same bytes). The group is any [`Exchange`]: MPI ranks (`crate::mpi_group`,
//! with the `mpi` feature) or threads ([`ThreadGroup`]).

use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Duration;

use tabula_solver::distributed::{self, Exchange, Ownership, Share};
use tabula_solver::retrograde::{Progress, SolveError};

pub use tabula_solver::distributed::ThreadGroup;

use crate::format::{TableError, write_table_mapped};
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
}

impl Traffic {
    /// The bytes sent while solving per state of the table.
    pub fn solving_per_state(&self) -> f64 {
        self.solving as f64 / self.states.max(1) as f64
    }
}

/// Builds the table of `game` with every member of `group`, each calling it
/// with the same game; member 0 writes `path` atomically (the others ignore
/// it). `progress` gets the states the group has finished.
pub fn build_distributed_for<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    group: &impl Exchange,
    progress: Progress<'_>,
) -> Result<Traffic, DistributedError> {
    let spec = records.spec(game);
    let space = game.space();
    let mask_bytes = usize::from(spec.layout.mask_bytes);
    let solve = || {
        distributed::solve_shared(&space, group, mask_bytes, progress).map_err(|error| {
            DistributedError::Solve {
                game: spec.game,
                error,
            }
        })
    };
    let traffic = |share: &Share| Traffic {
        solving: share.sent,
        gathering: (1..group.size())
            .map(|m| share.ownership.local_len(m) * share.record_size as u64)
            .sum(),
        states: spec.entries,
        solve_time: share.solving,
        exchange_time: (
            share.exchanging.iter().min().copied().unwrap_or_default(),
            share.exchanging.iter().max().copied().unwrap_or_default(),
        ),
    };
    if group.rank() != 0 {
        if !receive_go(group) {
            return Err(DistributedError::NoOutput);
        }
        let share = solve()?;
        send_share(group, &share);
        return Ok(traffic(&share));
    }
    if let Err(error) = one_byte_values(&spec, path) {
        send_go(group, false);
        return Err(error.into());
    }
    let (mut started, mut sent) = (false, None);
    let written = write_table_mapped(path, &spec, &records.description(game), |payload, _| {
        started = true;
        send_go(group, true);
        let share = solve()?;
        sent = Some(traffic(&share));
        gather(group, share, payload);
        Ok::<(), DistributedError>(())
    });
    if !started {
        send_go(group, false);
    }
    written??;
    Ok(sent.expect("a written table was solved"))
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
fn gather(group: &impl Exchange, share: Share, records: &[AtomicU8]) {
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
        place(0, round * GATHER_RECORDS, share_slice(&share, round));
        let incoming = group.exchange(vec![Vec::new(); group.size()]);
        for (member, bytes) in incoming.iter().enumerate().skip(1) {
            place(member, round * GATHER_RECORDS, bytes);
        }
    }
}
