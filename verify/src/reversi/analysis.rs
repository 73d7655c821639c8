//! MultiplayerReversi's analysis: a four-seat game has no exact two-player value; the built-in players' evaluations are not wired yet. So its moves are drawn and listed, unvalued.

use std::path::PathBuf;

use crate::analysis::{AnalysisError, Analyst, DefaultStart, Exact, Unvalued, no_tables};

impl DefaultStart for tabula_solver::reversi::Board {}

/// MultiplayerReversi's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    no_tables("reversi", tables)?;
    Ok(Box::new(Exact(
        Unvalued::<tabula_solver::reversi::Board>::default(),
    )))
}
