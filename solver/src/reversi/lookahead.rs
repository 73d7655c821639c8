//! A lookahead over one player's own moves, the other players being
//! deterministic policies (each plays its weights' choice under a [`Rule`]).
//!
//! With the opponents fixed, the game is a single-agent search: after each
//! own move the opponents' replies (and skipped turns) follow by computation,
//! so the tree branches only on own moves and its value is a plain maximum.
//! The search deepens one own move at a time within a node budget and stops
//! early once its value is exact (every line reached the end of the game):
//! that is the exact solve of the last empties, reached as soon as few remain.
//!
//! Values are in cells of the searching player. The end of the game is worth
//! the cells owned. A leaf cut by the depth is worth its cells owned, plus
//! [`CORNER`] per corner held (corners never turn back) and [`MOBILITY`] per
//! legal move (a player with choices can keep them): cheap terms that favour
//! positions that keep growing. A transposition table keyed by the board (and
//! remaining depth, unless exact) shares the subtrees reached by two orders.

use std::collections::HashMap;

use super::board::{Board, MAX_PLAYERS};
use super::opponents::{Rule, Weights};
use crate::game::Seat;
use crate::grid::Square;

/// The bonus of a held corner at a cut leaf, in cells.
pub const CORNER: f64 = 4.0;
/// The bonus of one legal move at a cut leaf, in cells.
pub const MOBILITY: f64 = 0.5;

/// The other players' policies: the weights each plays by, under one rule.
#[derive(Clone, Debug)]
pub struct Policies {
    /// Weights per seat; the searching player's entry is unused.
    pub weights: [Weights; MAX_PLAYERS],
    /// The corner cases of the weighted-ratio rule.
    pub rule: Rule,
}

impl Policies {
    /// `others[k]` plays seat `k + 1` (the searching player sits in seat 0).
    pub fn for_seat_zero(others: &[Weights], rule: Rule) -> Policies {
        let mut weights = [Weights([1.0; super::board::MAX_CELLS]); MAX_PLAYERS];
        for (k, w) in others.iter().enumerate() {
            weights[k + 1] = *w;
        }
        Policies { weights, rule }
    }

    /// Lets every player but `me` play its policy until `me` is to move or the game is over.
    pub fn advance(&self, board: &mut Board, me: Seat) {
        while let Some(seat) = board.mover() {
            if seat == me {
                return;
            }
            let mv = self.weights[seat]
                .choose(board, self.rule)
                .expect("the mover has a move");
            board.play(mv);
        }
    }
}

/// The cut-leaf evaluation for `me` (see the module's notes).
pub fn evaluate(board: &Board, me: Seat) -> f64 {
    let n = board.n();
    let g = board.geometry();
    let own = board.pieces(me);
    let corners = [
        g.square(0, 0),
        g.square(0, n - 1),
        g.square(n - 1, 0),
        g.square(n - 1, n - 1),
    ]
    .iter()
    .filter(|&&c| own.has(c as usize))
    .count();
    f64::from(own.count())
        + CORNER * corners as f64
        + MOBILITY * f64::from(board.moves_of(me).count())
}

/// The value of a finished game for `me`: its cells.
pub fn final_value(board: &Board, me: Seat) -> f64 {
    f64::from(board.pieces(me).count())
}

/// What a search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The move to play.
    pub mv: Square,
    /// Its value (cells, see the module's notes).
    pub value: f64,
    /// The depth in own moves of the last completed iteration.
    pub depth: usize,
    /// Whether the value is exact (every line reached the end).
    pub exact: bool,
    /// Nodes (own moves played with the replies that follow) in all.
    pub nodes: u64,
}

/// The search's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in own moves.
    pub max_depth: usize,
    /// Nodes after which no new iteration starts and the running one is abandoned.
    pub budget: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 64,
            budget: 20_000,
        }
    }
}

/// Iterative deepening over `me`'s moves.
pub struct Lookahead<'a> {
    me: Seat,
    policies: &'a Policies,
    limits: Limits,
    nodes: u64,
    table: HashMap<(Board, usize), (f64, bool)>,
}

/// A search ran out of budget.
struct OutOfBudget;

impl<'a> Lookahead<'a> {
    /// A search for `me` against `policies` within `limits`.
    pub fn new(me: Seat, policies: &'a Policies, limits: Limits) -> Lookahead<'a> {
        Lookahead {
            me,
            policies,
            limits,
            nodes: 0,
            table: HashMap::new(),
        }
    }

    /// The best move of `me`, who is to move on `board`.
    pub fn decide(&mut self, board: &Board) -> Decision {
        self.decide_all(board).0
    }

    /// [`Lookahead::decide`], with every move's value (row-major) from the
    /// last completed iteration.
    pub fn decide_all(&mut self, board: &Board) -> (Decision, Vec<(Square, f64)>) {
        assert_eq!(board.mover(), Some(self.me), "the searching player moves");
        let mut decision: Option<(Decision, Vec<(Square, f64)>)> = None;
        for depth in 1..=self.limits.max_depth.max(1) {
            // The first iteration always completes: a move is always found.
            let limited = decision.is_some();
            match self.root(board, depth, limited) {
                Ok((values, exact)) => {
                    let (mv, value) =
                        values.iter().fold(
                            values[0],
                            |best, &(m, v)| {
                                if v > best.1 { (m, v) } else { best }
                            },
                        );
                    let d = Decision {
                        mv,
                        value,
                        depth,
                        exact,
                        nodes: self.nodes,
                    };
                    decision = Some((d, values));
                    if exact {
                        break;
                    }
                }
                Err(OutOfBudget) => break,
            }
            if self.nodes >= self.limits.budget {
                break;
            }
        }
        let mut decision = decision.expect("the first iteration completes");
        decision.0.nodes = self.nodes;
        decision
    }

    /// Every move's value at `depth`, and whether all are exact.
    fn root(
        &mut self,
        board: &Board,
        depth: usize,
        limited: bool,
    ) -> Result<(Vec<(Square, f64)>, bool), OutOfBudget> {
        let mut values = Vec::new();
        let mut exact = true;
        for square in board.moves_of(self.me).iter() {
            let (value, sure) = self.after(board, square as Square, depth - 1, limited)?;
            exact &= sure;
            values.push((square as Square, value));
        }
        assert!(!values.is_empty(), "the searching player has a move");
        Ok((values, exact))
    }

    /// The value of playing `square`, then `depth` more own moves.
    fn after(
        &mut self,
        board: &Board,
        square: Square,
        depth: usize,
        limited: bool,
    ) -> Result<(f64, bool), OutOfBudget> {
        self.nodes += 1;
        if limited && self.nodes > self.limits.budget {
            return Err(OutOfBudget);
        }
        let mut next = *board;
        next.play(square);
        self.policies.advance(&mut next, self.me);
        self.value(&next, depth, limited)
    }

    /// The value of `board` (`me` to move, or over) with `depth` own moves left.
    fn value(
        &mut self,
        board: &Board,
        depth: usize,
        limited: bool,
    ) -> Result<(f64, bool), OutOfBudget> {
        if board.mover().is_none() {
            return Ok((final_value(board, self.me), true));
        }
        if depth == 0 {
            return Ok((evaluate(board, self.me), false));
        }
        if let Some(&found) = self
            .table
            .get(&(*board, 0))
            .or_else(|| self.table.get(&(*board, depth)))
        {
            return Ok(found);
        }
        let mut best = f64::NEG_INFINITY;
        let mut exact = true;
        for square in board.moves_of(self.me).iter() {
            let (value, sure) = self.after(board, square as Square, depth - 1, limited)?;
            exact &= sure;
            best = best.max(value);
        }
        // Exact values hold at every depth: they are filed under depth 0.
        let key = (*board, if exact { 0 } else { depth });
        self.table.insert(key, (best, exact));
        Ok((best, exact))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::board::MAX_CELLS;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_weights(rng: &mut ChaCha8Rng) -> Weights {
        let mut w = Weights([0.0; MAX_CELLS]);
        for x in w.0.iter_mut() {
            *x = rng.random_range(-50.0..50.0);
        }
        w
    }

    /// Plain recursion to `depth` own moves: no table, no budget.
    fn plain(board: &Board, policies: &Policies, depth: usize) -> (f64, Option<Square>) {
        let Some(seat) = board.mover() else {
            return (final_value(board, 0), None);
        };
        assert_eq!(seat, 0);
        if depth == 0 {
            return (evaluate(board, 0), None);
        }
        let mut best: (f64, Option<Square>) = (f64::NEG_INFINITY, None);
        for &mv in crate::Game::moves(board).iter() {
            let mut next = *board;
            next.play(mv);
            // The opponents' replies, one by one.
            while let Some(s) = next.mover() {
                if s == 0 {
                    break;
                }
                let reply = policies.weights[s].choose(&next, policies.rule).unwrap();
                next.play(reply);
            }
            let (v, _) = plain(&next, policies, depth - 1);
            if v > best.0 {
                best = (v, Some(mv));
            }
        }
        best
    }

    /// Positions with seat 0 to move, from games of random weights.
    fn positions(n: usize, seed: u64) -> Vec<(Board, Policies)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let p = Board::players_for(n);
        let others: Vec<Weights> = (1..p).map(|_| random_weights(&mut rng)).collect();
        let policies = Policies::for_seat_zero(&others, Rule::default());
        let mut board = Board::start(n).unwrap();
        let mut out = Vec::new();
        while let Some(seat) = board.mover() {
            if seat == 0 {
                out.push((board, policies.clone()));
                let moves = crate::Game::moves(&board);
                board.play(moves[rng.random_range(0..moves.len())]);
            } else {
                policies.advance(&mut board, 0);
            }
        }
        out
    }

    #[test]
    fn the_lookahead_matches_plain_recursion() {
        for n in [7, 8, 9] {
            let all = positions(n, n as u64);
            // Every fourth position, to keep the plain search small.
            for (board, policies) in all.iter().step_by(4) {
                for depth in 1..=3 {
                    let limits = Limits {
                        max_depth: depth,
                        budget: u64::MAX,
                    };
                    let d = Lookahead::new(0, policies, limits).decide(board);
                    let (value, mv) = plain(board, policies, depth);
                    assert_eq!(
                        (d.value, Some(d.mv)),
                        (value, mv),
                        "n {n} depth {depth}\n{board:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn near_the_end_the_search_is_exact_and_matches_a_full_solve() {
        for n in [7, 8] {
            let all = positions(n, 10 + n as u64);
            for (board, policies) in all.iter().rev().take(4) {
                let d = Lookahead::new(0, policies, Limits::default()).decide(board);
                assert!(d.exact, "n {n}");
                let (value, mv) = plain(board, policies, 64);
                assert_eq!((d.value, Some(d.mv)), (value, mv));
            }
        }
    }

    #[test]
    fn the_budget_stops_deepening_but_a_move_is_always_found() {
        let all = positions(12, 3);
        let (board, policies) = &all[2];
        let limits = Limits {
            max_depth: 64,
            budget: 1,
        };
        let d = Lookahead::new(0, policies, limits).decide(board);
        assert_eq!(d.depth, 1);
        assert!(board.check(d.mv).is_ok());
        assert_eq!(d.value, plain(board, policies, 1).0);
    }
}
