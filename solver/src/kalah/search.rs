//! The exact alpha-beta search of Kalah positions: the move candidates,
//! the [`Searchable`] view of a position, and [`ExactSolver`], which keeps one
//! transposition table from position to position and may probe an endgame table.

use super::{Endgame, Kalah, MAX_PITS, Pit, Probed, Rules};
use crate::alphabeta::{AlwaysReplace, EXACT, Searchable, Searcher, Transition};
use crate::{MoveList, ZeroSum};

/// A move candidate of the alpha-beta search: the pit, its result and the child.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub(super) pit: Pit,
    pub(super) reward: i32,
    pub(super) again: bool,
    pub(super) child: Kalah,
}

impl Searchable for Kalah {
    type Move = Pit;
    type Candidate = Candidate;
    type Candidates = MoveList<Candidate, MAX_PITS>;
    type Key = u64;

    fn terminal(&self) -> Option<i32> {
        self.is_finished().then(|| self.final_value())
    }

    /// The seeds still to sow are taken as shared evenly: the value of a
    /// depth-limited search is the store difference gained on the way.
    fn evaluate(&self) -> i32 {
        0
    }

    fn key(&self) -> u64 {
        self.index()
    }

    fn generate(&self, out: &mut Self::Candidates) {
        for pit in 0..self.rules.pits {
            if self.is_legal(pit) {
                let (child, sowing) = self.child(pit);
                out.push(Candidate {
                    pit,
                    reward: sowing.mover as i32 - sowing.opponent as i32,
                    again: sowing.again,
                    child,
                });
            }
        }
    }

    fn move_of(&self, candidate: &Candidate) -> Pit {
        candidate.pit
    }

    fn play(&self, candidate: &Candidate) -> Kalah {
        candidate.child
    }

    /// The table's move, then moves that keep the turn, then by reward.
    fn order(&self, moves: &mut [Candidate], table_move: Option<Pit>) {
        moves.sort_by_key(|c| {
            (
                Some(c.pit) != table_move,
                !c.again,
                -c.reward,
                std::cmp::Reverse(c.pit),
            )
        });
    }

    fn transition(&self, candidate: &Candidate) -> Transition {
        Transition {
            reward: candidate.reward,
            keeps_turn: candidate.again,
        }
    }
}

/// Exact values by alpha-beta, one transposition table kept from position to
/// position: a board's children, searched after it, are mostly found there.
pub struct ExactSolver {
    table: AlwaysReplace<Pit>,
    /// The endgame table probed at the leaves, if any.
    endgame: Option<Endgame>,
    /// Nodes searched so far, over every position.
    pub nodes: u64,
}

impl ExactSolver {
    /// A solver whose table has `2^table_bits` slots of 16 bytes.
    pub fn new(table_bits: u32) -> ExactSolver {
        ExactSolver {
            table: AlwaysReplace::new(table_bits),
            endgame: None,
            nodes: 0,
        }
    }

    /// The same solver, taking the value of every position whose seeds fit
    /// `endgame` from it (a table of the pits and rules of every position
    /// asked: see [`check_endgame`]).
    pub fn with_endgame(mut self, endgame: Option<Endgame>) -> ExactSolver {
        self.endgame = endgame;
        self
    }

    /// The exact value of `position` for its mover.
    pub fn value(&mut self, position: &Kalah) -> i32 {
        let mut searcher = Searcher::new(&mut self.table);
        let total = position.seeds() as i32;
        let probed = Probed::with(*position, self.endgame.as_deref());
        let value = searcher.search(&probed, -total - 1, total + 1, EXACT);
        self.nodes += searcher.nodes;
        value
    }
}

/// Exact value of `position` for its mover by alpha-beta with a table of
/// `2^table_bits` slots; also returns the number of nodes searched.
pub fn solve_position(position: &Kalah, table_bits: u32) -> (i32, u64) {
    let mut solver = ExactSolver::new(table_bits);
    let value = solver.value(position);
    (value, solver.nodes)
}

/// The first player's final margin from the start of `rules` under optimal play.
pub fn start_value(rules: &Rules, table_bits: u32) -> i32 {
    solve_position(&rules.start(), table_bits).0
}
