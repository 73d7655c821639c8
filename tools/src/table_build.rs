//! How `tabula build` solves a Mancala table: in memory, out of core (in a
//! memory map of the file), or with the ranks of an MPI job (`mpiexec -n R
//! tabula build ... --distributed`, rank 0 writing the file).

use std::path::Path;

use clap::Args;
use tabula_tables::Records;
use tabula_tables::typed::{self, Tabulated};

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
    /// Store each board's value alone (1 byte), no optimal-move mask: `query`,
    /// `play` and `check` derive the moves from the children. Builds out of core.
    #[arg(long)]
    values_only: bool,
}

impl BuildMode {
    fn records(&self) -> Records {
        match self.values_only {
            true => Records::ValuesOnly,
            false => Records::WithMoves,
        }
    }

    /// Builds `game`'s table at `path`: with MPI when distributed, out of core
    /// when asked, for values only, or above `max_in_memory` boards, else with
    /// `in_memory`. Returns how, for the report (`""` or `" with R MPI
    /// rank(s)"`), or `None` on an MPI rank other than 0, which says nothing.
    pub fn build<T: Tabulated>(
        &self,
        game: &T,
        path: &Path,
        max_in_memory: u64,
        in_memory: impl FnOnce() -> anyhow::Result<()>,
    ) -> anyhow::Result<Option<String>> {
        let entries = game.spec().entries;
        if self.distributed {
            return Ok(distributed(game, path, self.records())?
                .map(|ranks| format!(" with {ranks} MPI rank(s)")));
        }
        if self.out_of_core || self.values_only || entries > max_in_memory {
            let progress = bar(entries as usize, "boards solved in the mapped file");
            typed::build_out_of_core_for(game, path, self.records(), &|done| {
                progress.set_position(done)
            })?;
            progress.finish_and_clear();
        } else {
            in_memory()?;
        }
        Ok(Some(String::new()))
    }
}

/// Builds `game`'s table with every rank of the MPI job; `Some(ranks)` on
/// rank 0, which wrote `path`, `None` on the others.
#[cfg(feature = "mpi")]
fn distributed<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
) -> anyhow::Result<Option<usize>> {
    use anyhow::Context;
    use tabula_solver::distributed::Exchange;
    use tabula_tables::distributed::build_distributed_for;
    use tabula_tables::mpi_group::MpiGroup;

    let group = MpiGroup::init().context("MPI could not be initialised")?;
    let (rank, ranks) = (group.rank(), group.size());
    if rank != 0 {
        build_distributed_for(game, path, records, &group, &|_| {})
            .with_context(|| format!("rank {rank} of {ranks}"))?;
        return Ok(None);
    }
    let entries = game.spec().entries;
    let progress = bar(
        entries as usize,
        &format!("boards solved by {ranks} MPI rank(s)"),
    );
    build_distributed_for(game, path, records, &group, &|done| {
        progress.set_position(done)
    })?;
    progress.finish_and_clear();
    Ok(Some(ranks))
}

/// Without the `mpi` feature there is no MPI to run on.
#[cfg(not(feature = "mpi"))]
fn distributed<T: Tabulated>(
    _game: &T,
    _path: &Path,
    _records: Records,
) -> anyhow::Result<Option<usize>> {
    anyhow::bail!(
        "--distributed needs a tabula built with MPI: cargo build --release --features mpi \
         (with an MPI library and libclang installed; see the README)"
    )
}
