//! `tabula build ... --distributed`: the table built by the ranks of an MPI
//! job (`mpiexec -n R tabula build ...`), rank 0 writing the file.

use std::path::Path;

use tabula_tables::Records;
use tabula_tables::typed::Tabulated;

/// Builds `game`'s table with every rank of the MPI job; `Some(ranks)` on
/// rank 0, which wrote `path` and reports, `None` on the others.
#[cfg(feature = "mpi")]
pub fn build<T: Tabulated>(
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
    let progress = crate::progress::bar(
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
pub fn build<T: Tabulated>(
    _game: &T,
    _path: &Path,
    _records: Records,
) -> anyhow::Result<Option<usize>> {
    anyhow::bail!(
        "--distributed needs a tabula built with MPI: cargo build --release --features mpi \
         (with an MPI library and libclang installed; see the README)"
    )
}
