//! Kalah endgame tables in the command line: `build kalah --max-seeds S`,
//! `--endgame FILE` for the searching verbs, and `info`, `check` and
//! `export` of the files (game `kalah-endgame` in their headers).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use tabula_solver::kalah::{Endgame, KalahSpace, Rules, check_endgame};
use tabula_tables::kalah::{self as table, EndgameTable, KalahEndgame};
use tabula_tables::{Records, Table};

use super::{ExportedBoard, sides};
use crate::export::write_entries;
use crate::progress::bar;
use crate::registry::{GameEntry, TableHooks};

/// `--endgame FILE`: an endgame table the search probes.
#[derive(Args, Clone, Debug, Default)]
pub struct EndgameArgs {
    /// An endgame table (`build kalah --max-seeds S`) of the game's pits and
    /// rules: the search takes the value of every position with at most its
    /// seeds from it and searches nothing below.
    #[arg(long, value_name = "FILE")]
    endgame: Option<PathBuf>,
}

impl EndgameArgs {
    /// The table, opened and checked to be of `rules`' pits and rules.
    pub fn open(&self, rules: &Rules) -> anyhow::Result<Option<Endgame>> {
        self.open_for(std::slice::from_ref(rules))
    }

    /// The table, opened and checked to be of the pits and rules of every
    /// one of `games` (none: checked only as a file).
    pub fn open_for(&self, games: &[Rules]) -> anyhow::Result<Option<Endgame>> {
        let Some(path) = &self.endgame else {
            return Ok(None);
        };
        let table = table::open_endgame(path)?;
        for rules in games {
            check_endgame(&table, rules)
                .with_context(|| format!("--endgame {}", path.display()))?;
        }
        Ok(Some(Arc::new(table)))
    }
}

/// Builds the endgame table of `rules`' pits and rules up to `max_seeds`
/// seeds: out of core and resumably, or with every rank of an MPI job as
/// `distributed` says (the same bytes; a stopped MPI build goes on from its
/// ranks' latest snapshot).
pub fn build(
    rules: &Rules,
    max_seeds: u32,
    path: &Path,
    distributed: Option<crate::table_build::DistributedPlan>,
) -> anyhow::Result<()> {
    let Some(boards) = KalahSpace::boards_up_to(rules.pits, max_seeds) else {
        anyhow::bail!("--max-seeds {max_seeds}: more seeds than a Kalah index covers");
    };
    let game = KalahEndgame::new(*rules, max_seeds);
    let started = Instant::now();
    let what = format!(
        "{boards} boards of {} pits a side with at most {max_seeds} seeds, values only",
        rules.pits
    );
    let how = match distributed {
        Some(plan) => {
            match crate::table_build::distributed(&game, path, Records::ValuesOnly, plan)? {
                Some(ranks) => format!(" with {ranks} MPI rank(s)"),
                None => return Ok(()),
            }
        }
        None => {
            build_resumably(&game, boards, path)?;
            " out of core".to_string()
        }
    };
    crate::table_build::report_written(path, &what, &how, started)
}

/// Builds the endgame table of `game` out of core, going on from a stopped build's finished layers.
fn build_resumably(game: &KalahEndgame, boards: u64, path: &Path) -> anyhow::Result<()> {
    let progress = bar(boards as usize, "boards solved in the mapped file");
    let kill_at = test_kill_after();
    let resumed = table::build_endgame(path, game, &|done| {
        progress.set_position(done);
        if kill_at.is_some_and(|at| done >= at) {
            kill_self();
        }
    })?;
    progress.finish_and_clear();
    if resumed.reused > 0 {
        eprintln!(
            "resumed {}: {} of {} seed layers reused (checked), the rest built",
            tabula_tables::atomic::partial_path(path).display(),
            resumed.reused,
            resumed.layers
        );
    }
    Ok(())
}

/// Test-only: when set to a number of boards, the endgame build kills itself
/// (SIGKILL, as a user's `kill -9` would) once its progress passes it.
pub const KILL_AFTER_BOARDS: &str = "TABULA_TEST_KILL_AFTER_BOARDS";

/// The [`KILL_AFTER_BOARDS`] point, if set.
fn test_kill_after() -> Option<u64> {
    std::env::var(KILL_AFTER_BOARDS).ok()?.parse().ok()
}

/// Ends the process at once, as a kill does: nothing is cleaned up.
fn kill_self() {
    // SAFETY: a plain system call; the process does not come back from it.
    unsafe {
        libc::raise(libc::SIGKILL);
    }
}

/// The checked table of a file whose header names `kalah-endgame`.
fn typed(table: Table) -> anyhow::Result<EndgameTable> {
    let game = KalahEndgame::of_params(table.header().params)
        .map_err(anyhow::Error::msg)
        .context("the header's parameters")?;
    Ok(EndgameTable::new_for(game, table)?)
}

/// `tabula info` for an endgame table.
fn describe(table: &Table) -> anyhow::Result<String> {
    let game = KalahEndgame::of_params(table.header().params)
        .map_err(anyhow::Error::msg)
        .context("the header's parameters")?;
    table.expect(&tabula_tables::Tabulated::spec(&game))?;
    Ok(format!(
        "every board of Kalah with {} pits a side and at most {} seeds in the pits, for any \
         seeds a pit at the start; capture {}, end {} (the header's parameters: pits, most \
         seeds, capture 0 always / 1 non-empty, end 0 after-any-move / 1 mover-stuck)",
        game.rules.pits,
        game.max_seeds,
        game.rules.capture.name(),
        game.rules.ending.name()
    ))
}

/// `tabula check` for an endgame table.
fn check(table: Table, progress: tabula_solver::retrograde::Progress<'_>) -> anyhow::Result<usize> {
    Ok(typed(table)?.check_records_with(progress)?)
}

/// `tabula export` for an endgame table.
fn export(
    table: Table,
    out: &mut dyn std::io::Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    write_entries(&typed(table)?, out, progress, |entry| ExportedBoard {
        board: sides(&entry.position),
        value: entry.value,
        optimal: entry.optimal.iter().map(|p| p + 1).collect(),
    })
}

/// The registration of the endgame tables' game: hidden, with no verbs of
/// its own (`kalah`'s build and search them); only its files' readings.
pub fn entry() -> GameEntry {
    GameEntry::new(
        table::ENDGAME,
        "Kalah endgame tables: every board of m pits a side with at most S seeds",
    )
    .hidden()
    .tables(TableHooks {
        describe,
        check,
        export,
    })
}
