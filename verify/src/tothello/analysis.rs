//! Tothello's analysis: its endgame search is not wired to the analysis yet. So its moves are drawn and listed, unvalued.

use std::path::PathBuf;

use crate::analysis::{AnalysisError, Analyst, DefaultStart, Exact, Unvalued, no_tables};

impl DefaultStart for tabula_solver::tothello::Position {}

/// Tothello's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    no_tables("tothello", tables)?;
    Ok(Box::new(Exact(
        Unvalued::<tabula_solver::tothello::Position>::default(),
    )))
}
