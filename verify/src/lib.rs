//! Agents, referees, tournaments and reports for tabula.
//!
//! The shared pieces are written once and used by every game:
//! - [`agent`]: the [`agent::Agent`] trait of in-process players, which see only their seat's view;
//! - [`seat`]: what sits in a seat (an agent, or an external program through a
//!   [`wire::Wire`]), faults and clocks;
//! - [`arena`]: the one match loop and its [`arena::GameRecord`];
//! - [`wire`] and [`protocol`]: how requests and answers look on a pipe, both ends;
//! - [`process`]: external programs over pipes;
//! - [`record`] and [`notation`]: game logs (JSON Lines), each game's notation, replays;
//! - [`plot`]: SVG plots of reports; [`replay`]: logged games as an HTML page;
//! - [`terminal`]: a person at the terminal in one seat (`tabula play`);
//! - [`tournament`]: named random streams, schedules and the parallel runner;
//!   [`round_robin`]: every pair of a game's own players on it;
//! - [`scoreboard`], [`stats`] and [`report`]: results as Markdown and JSON.

pub mod agent;
pub mod analysis;
pub mod arena;
pub mod dominoes;
pub mod ioiwari;
pub mod kalah;
pub mod nim;
pub mod notation;
pub mod plot;
pub mod process;
pub mod protocol;
pub mod record;
pub mod referee;
pub mod replay;
pub mod report;
pub mod reversi;
pub mod round_robin;
pub mod scoreboard;
pub mod seat;
pub mod stats;
pub mod terminal;
pub mod tonga;
pub mod tothello;
pub mod tournament;
pub mod wire;
