//! The options every game shares, validated in one place, and the helpers
//! that print reports.
//!
//! Split by concern; everything is re-exported here, so a verb imports
//! `crate::common::X` whichever file holds it.

mod agents;
mod args;
mod log;
mod parse;
mod paths;
mod referee;
mod report;
mod serve;

pub use agents::*;
pub use args::*;
pub use log::*;
pub use parse::*;
pub use paths::*;
pub use referee::*;
pub use report::*;
pub use serve::*;
