//! How `tabula build` solves a Mancala table: in memory, out of core (in a
//! memory map of the file), or with the ranks of an MPI job (`mpiexec -n R
//! tabula build ... --distributed`, rank 0 writing the file).

use std::path::Path;
use std::time::Instant;

use clap::Args;
use tabula_solver::retrograde::{self, Images};
use tabula_tables::distributed::Keep;
use tabula_tables::typed::Tabulated;
use tabula_tables::{Records, resume};

use crate::memory::check_memory;
use crate::out::outln;
use crate::progress::bar;

/// The build's options shared by the Mancala games.
#[derive(Args, Clone, Debug)]
pub struct BuildMode {
    /// Solve in a memory map of the output file: memory holds the pages in use, not the table.
    #[arg(long)]
    out_of_core: bool,
    /// Solve with every rank of an MPI job (run under `mpiexec -n R`; needs the `mpi` feature).
    #[arg(long, conflicts_with = "out_of_core")]
    distributed: bool,
    /// With --distributed: after a layer, once this many seconds have passed
    /// since the last snapshot (and ten times as long as it took), every rank
    /// writes its share to `FILE.rank-R-of-N.layer-L`; the same command
    /// started again goes on from the latest layer every rank has. 0: after
    /// every layer.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 60,
        requires = "distributed"
    )]
    snapshot_secs: u64,
    /// With --distributed: what each rank keeps while solving. `whole`: the
    /// whole table, each rank reading every child itself and sending only
    /// what it solved (the faster); the ranks on rank 0's machine solve in
    /// its copy (the mapped file), those of every other machine share one
    /// in memory, so every machine needs the table's memory. `share`:
    /// its share of the records, so the job holds the table once (for tables
    /// larger than one machine's memory), and every child owned elsewhere
    /// costs a message. `auto`: `whole` when every rank runs on rank 0's
    /// machine, else `share`.
    #[arg(long, value_enum, default_value_t = KeepArg::Auto, requires = "distributed")]
    keep: KeepArg,
    /// Store each board's value alone (1 byte), no optimal-move mask: `query`,
    /// `play` and `check` derive the moves from the children. Builds out of core.
    #[arg(long)]
    values_only: bool,
    /// When an out-of-core build copies each solved board to its rotations:
    /// `when-solved` is the fastest but keeps the whole table's pages in use;
    /// `last-pass` keeps them to about one board per rotation class until a
    /// last pass writes the copies in order (for tables larger than memory).
    /// Default: `when-solved` if the table takes at most half the memory
    /// available (`MemAvailable`, or less under a cgroup limit or `ulimit -v`),
    /// else `last-pass`; a stopped build goes on in the mode it started in.
    /// Builds out of core.
    #[arg(long, value_enum, conflicts_with = "distributed")]
    images: Option<ImagesArg>,
}

/// `--keep`'s values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum KeepArg {
    Auto,
    Share,
    Whole,
}

/// How a distributed build runs: what each rank keeps, and how long it
/// goes between snapshots at least.
#[derive(Clone, Copy, Debug)]
// Read only by the MPI build.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub struct DistributedPlan {
    /// What each rank keeps.
    pub keep: Keep,
    /// How long between snapshots, at least (zero: after every layer).
    pub every: std::time::Duration,
}

/// `--images`' values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ImagesArg {
    WhenSolved,
    LastPass,
}

impl BuildMode {
    /// With `--distributed`, how the build runs (`--keep`, `--snapshot-secs`).
    pub fn distributed_plan(&self) -> Option<DistributedPlan> {
        let keep = match self.keep {
            KeepArg::Auto => Keep::Auto,
            KeepArg::Share => Keep::Share,
            KeepArg::Whole => Keep::Whole,
        };
        let every = std::time::Duration::from_secs(self.snapshot_secs);
        self.distributed.then_some(DistributedPlan { keep, every })
    }

    fn records(&self) -> Records {
        match self.values_only {
            true => Records::ValuesOnly,
            false => Records::WithMoves,
        }
    }

    /// Builds `game`'s table at `path`: with MPI when distributed, out of core
    /// when asked (or given `--images`), for values only, or above `max_in_memory` boards, else with
    /// `in_memory`; then prints `wrote PATH (WHAT), how, in T ms`. An MPI rank
    /// other than 0 prints nothing.
    pub fn build_and_report<T: Tabulated>(
        &self,
        game: &T,
        path: &Path,
        max_in_memory: u64,
        what: &str,
        in_memory: impl FnOnce() -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let started = Instant::now();
        let spec = self.records().spec(game);
        let how = if let Some(plan) = self.distributed_plan() {
            match distributed(game, path, self.records(), plan)? {
                Some(ranks) => format!(" with {ranks} MPI rank(s)"),
                None => return Ok(()),
            }
        } else if self.out_of_core
            || self.values_only
            || self.images.is_some()
            || spec.entries > max_in_memory
        {
            let table_bytes = spec.entries * spec.layout.record_size() as u64;
            let images = match self.images {
                Some(ImagesArg::WhenSolved) => Images::WhenSolved,
                Some(ImagesArg::LastPass) => Images::LastPass,
                // A stopped build goes on as it started.
                None => match resume::partial_images(path) {
                    Some(images) => images,
                    None => match crate::memory::available_memory() {
                        Some(bytes) if table_bytes <= bytes / 2 => Images::WhenSolved,
                        _ => Images::LastPass,
                    },
                },
            };
            let progress = bar(spec.entries as usize, "boards solved in the mapped file");
            let solved = |done| progress.set_position(done);
            let resumed = resume::build_out_of_core_resumable_as(
                game,
                path,
                self.records(),
                images,
                &solved,
            )?;
            progress.finish_and_clear();
            if let Some(line) = resumed.said(path, "layers") {
                eprintln!("{line}");
            }
            match images {
                Images::WhenSolved => " out of core".to_string(),
                Images::LastPass => " out of core, symmetric copies in a last pass".to_string(),
            }
        } else {
            check_memory_for_in_memory_build(spec.entries, spec.layout.record_size(), what)?;
            in_memory()?;
            String::new()
        };
        report_written(path, what, &how, started)
    }
}

/// Prints `wrote PATH (WHAT)HOW in T ms`, T since `started`.
pub fn report_written(path: &Path, what: &str, how: &str, started: Instant) -> anyhow::Result<()> {
    outln!(
        "wrote {} ({what}){how} in {:.1} ms",
        crate::common::shown(path),
        started.elapsed().as_secs_f64() * 1e3
    )?;
    Ok(())
}

/// Bytes an in-memory build of `entries` records of `record_size` bytes holds
/// at its peak: the solution, then the encoded records beside it.
pub fn in_memory_build_bytes(entries: u64, record_size: usize) -> u64 {
    entries.saturating_mul(retrograde::SOLVE_BYTES_PER_STATE + record_size as u64)
}

/// Refuses an in-memory build that cannot fit in the memory available: the
/// allocation would abort the process, or the kernel would kill it midway.
fn check_memory_for_in_memory_build(
    entries: u64,
    record_size: usize,
    what: &str,
) -> anyhow::Result<()> {
    check_memory(
        in_memory_build_bytes(entries, record_size),
        &format!("an in-memory build of {what}"),
        "build with --out-of-core, or lower --max-boards",
    )
}

/// Builds `game`'s table with every rank of the MPI job; `Some(ranks)` on
/// rank 0, which wrote `path` and printed the bytes sent on stderr, `None`
/// on the others.
#[cfg(feature = "mpi")]
pub fn distributed<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    plan: DistributedPlan,
) -> anyhow::Result<Option<usize>> {
    use anyhow::Context;
    use tabula_solver::distributed::Exchange;
    use tabula_tables::distributed::build_distributed_as;
    use tabula_tables::mpi_group::MpiGroup;

    let group = MpiGroup::init().context("MPI could not be initialised")?;
    let (rank, ranks) = (group.rank(), group.size());
    if rank != 0 {
        build_distributed_as(
            game,
            path,
            records,
            &group,
            plan.keep,
            (&|_| {}, plan.every),
        )
        .with_context(|| format!("rank {rank} of {ranks}"))?;
        return Ok(None);
    }
    let entries = game.spec().entries;
    let progress = bar(
        entries as usize,
        &format!("boards solved by {ranks} MPI rank(s)"),
    );
    let report = |done| progress.set_position(done);
    let traffic = build_distributed_as(
        game,
        path,
        records,
        &group,
        plan.keep,
        (&report, plan.every),
    )?;
    progress.finish_and_clear();
    report_traffic(&traffic, path, ranks);
    Ok(Some(ranks))
}

/// Rank 0's lines on stderr after a distributed build: what it reused,
/// what the ranks sent each other, and how long they took.
#[cfg(feature = "mpi")]
fn report_traffic(traffic: &tabula_tables::distributed::Traffic, path: &Path, ranks: usize) {
    if traffic.reused_layers > 0 {
        eprintln!(
            "resumed: {} of {} layers reused from every rank's snapshot {}.rank-R-of-{ranks}.layer-{} \
             (checked), the rest built",
            traffic.reused_layers,
            traffic.layers,
            path.display(),
            traffic.reused_layers - 1
        );
    }
    let sent = format!(
        "sent {:.1} bytes a state between ranks while solving ({:.0} MB for {:.1} M states)",
        traffic.solving_per_state(),
        traffic.solving as f64 / 1e6,
        traffic.states as f64 / 1e6,
    );
    match traffic.copies {
        None => eprintln!(
            "{sent}, then {:.0} MB of records to rank 0",
            traffic.gathering as f64 / 1e6
        ),
        Some(copies) => {
            let listed = format!(
                "{:.1} bytes a state ({:.0} MB)",
                copies.listed as f64 / traffic.states.max(1) as f64,
                copies.listed as f64 / 1e6
            );
            let copy = match copies.in_memory {
                true => "rank 0's copy (in memory)",
                false => "rank 0's copy (the output file)",
            };
            match copies.count {
                1 => eprintln!(
                    "{sent}; every rank solved in {copy}; the ranks of another machine \
                     would share a copy and receive the solved states, {listed}"
                ),
                count => eprintln!(
                    "{sent}; {} of {ranks} rank(s) solved in {copy}, the others in {} \
                     other copies (one a machine), each of which received the solved \
                     states, {listed}",
                    copies.with_member_0,
                    count - 1
                ),
            }
        }
    }
    let (least, most) = traffic.exchange_time;
    eprintln!(
        "solved in {:.2} s, of which each rank spent {:.2} s to {:.2} s in exchanges \
         (waiting for the slowest rank, and moving the bytes)",
        traffic.solve_time.as_secs_f64(),
        least.as_secs_f64(),
        most.as_secs_f64()
    );
}

/// Without the `mpi` feature there is no MPI to run on.
#[cfg(not(feature = "mpi"))]
pub fn distributed<T: Tabulated>(
    _game: &T,
    _path: &Path,
    _records: Records,
    _plan: DistributedPlan,
) -> anyhow::Result<Option<usize>> {
    anyhow::bail!(
        "--distributed needs a tabula built with MPI: cargo build --release --features mpi \
         (with an MPI library and libclang installed; see the README)"
    )
}
