//! Dominoes's analysis: its exact search once the stock is empty is not wired to the analysis yet. So its moves are drawn and listed, unvalued.

use std::path::PathBuf;

use crate::analysis::{AnalysisError, Analyst, DefaultStart, Exact, Unvalued, no_tables};

impl DefaultStart for tabula_solver::dominoes::Match {}

/// Dominoes's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    no_tables("dominoes", tables)?;
    Ok(Box::new(Exact(
        Unvalued::<tabula_solver::dominoes::Match>::default(),
    )))
}
