//! Tothello's contest pieces on the shared core.
//!
//! - [`wire`]: the `bestMove` line protocol, both ends (`serve` and the checker);
//! - [`players`]: the built-in players `random`, `greedy` and `solver-dD-eE`;
//! - [`report`]: `verify tothello`, every pair of built-in players on seeded openings;
//! - [`checker`]: the `bestMove` checker behind `tabula referee tothello`;
//! - [`contest`]: that command's run and its result lines;
//! - [`terminal`]: a person at the terminal against the solver (`tabula play tothello`).

pub mod analysis;
pub mod checker;
pub mod contest;
pub mod draw;
pub mod notation;
pub mod players;
pub mod report;
pub mod terminal;
pub mod wire;

pub use checker::{
    Answerer, Case, CheckReport, Failure, MAX_WRONG, random_valid_board, referee_best_move,
    test_cases,
};
pub use players::{AgentKind, TothelloAgent};
pub use report::{PairResult, TournamentConfig, TournamentReport, opening, run_tournament};
pub use terminal::play_terminal;
pub use wire::{RequestError, answer, answer_request, request_line};
