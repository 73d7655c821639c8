//! Ioiwari's built-in players, for the IOI game and any variant's ring.

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use tabula_solver::ioiwari::{BankMatch, Pit, Sowable};
use tabula_tables::ioiwari::Ioiwari;
use tabula_tables::{Tabulated, TypedTable};

use crate::agent::{Agent, RandomAgent, looked_up};

use super::*;

/// The built-in players.
pub const AGENTS: [&str; 4] = ["optimal", "greedy1", "greedy2", "random"];

/// The built-in agent `name`, if there is one; `rng` is its random stream.
pub fn agent<B: IoiBoard>(
    name: &str,
    table: &Arc<TypedTable<B::Table>>,
    rng: ChaCha8Rng,
) -> Option<Box<dyn Agent<BankMatch<B>>>> {
    match name {
        "optimal" => Some(Box::new(OptimalAgent::new(table.clone()))),
        "greedy1" => Some(Box::new(Greedy1)),
        "greedy2" => Some(Box::new(Greedy2)),
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}

/// Plays the table's optimal move, the lowest optimal pit on ties.
///
/// The table must have passed [`tabula_tables::TypedTable::check_moves`] (or
/// have been built in memory): its moves are then known to be legal.
#[derive(Clone)]
pub struct OptimalAgent<G: Tabulated = Ioiwari> {
    table: Arc<TypedTable<G>>,
}

impl<G: Tabulated> OptimalAgent<G> {
    /// An optimal agent reading `table`.
    pub fn new(table: Arc<TypedTable<G>>) -> OptimalAgent<G> {
        OptimalAgent { table }
    }
}

// Over the table's game rather than the board, so that the table alone says
// which game the agent plays.
impl<G> Agent<BankMatch<G::Position>> for OptimalAgent<G>
where
    G: Tabulated<Move = Pit> + Send,
    G::Position: Sowable,
    G::Space: Send + Sync,
{
    fn name(&self) -> String {
        "optimal".into()
    }

    fn choose(&mut self, view: &BankMatch<G::Position>) -> Pit {
        // A variant's records are checked as they are read.
        looked_up(self.table.best_move(&view.board)).expect("a move on a board with beads")
    }
}

/// One-step greedy: the largest immediate bank difference, lowest pit on ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy1;

/// Two-step greedy: own immediate difference minus the opponent's best immediate reply.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy2;

/// The legal pit with the highest score, the lowest pit on ties.
fn argmax_lowest<B: Sowable>(board: &B, score: impl Fn(Pit) -> i32) -> Pit {
    let mut best: Option<(Pit, i32)> = None;
    for &pit in board.legal_moves().iter() {
        let s = score(pit);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((pit, s));
        }
    }
    best.expect("the game is not over").0
}

/// The best immediate difference the player to move can make (0 on an empty board).
fn best_immediate<B: Sowable>(board: &B) -> i32 {
    board
        .legal_moves()
        .iter()
        .map(|&pit| board.after(pit).1)
        .max()
        .unwrap_or(0)
}

impl<B: Sowable> Agent<BankMatch<B>> for Greedy1 {
    fn name(&self) -> String {
        "greedy1".into()
    }

    fn choose(&mut self, view: &BankMatch<B>) -> Pit {
        let board = &view.board;
        argmax_lowest(board, |pit| board.after(pit).1)
    }
}

impl<B: Sowable> Agent<BankMatch<B>> for Greedy2 {
    fn name(&self) -> String {
        "greedy2".into()
    }

    fn choose(&mut self, view: &BankMatch<B>) -> Pit {
        let board = &view.board;
        argmax_lowest(board, |pit| {
            let (child, gain) = board.after(pit);
            gain - best_immediate(&child)
        })
    }
}
