//! Agents, referees, tournaments and reports for tabula.
//!
//! The shared pieces are written once and used by every game: the line
//! [`protocol`] of the TopCoder-style games, [`process`] for external players
//! over pipes, [`tournament`] for seeded parallel runs, [`stats`] and [`report`].

pub mod agent;
pub mod ioiwari;
pub mod process;
pub mod protocol;
pub mod report;
pub mod stats;
pub mod tonga;
pub mod tothello;
pub mod tournament;
