//! The players that infer the other hand: `best`, `pimc` and `ismcts`.
//!
//! All three keep a [`Knowledge`] built only from the views they are shown
//! (`start_game` for the opening tile, `choose` for everything else), so
//! they play the same in-process and over the protocol, and sample the other
//! hand from its exact [`Sampler`] (deals weighted by the opponent model).
//!
//! - `ismcts`: single-observer information-set MCTS, the plain baseline: a
//!   deal sampled per iteration (in proportion to its weight), UCT over the
//!   root player's information sets (draws are chance inside an iteration),
//!   uniformly random playouts, [`ITERATIONS`] per decision.
//! - `best`: the same tree search with [`BEST_ITERATIONS`], a model of the
//!   other seat ([`LadderModel`]: the server's evaluation, heaviest-first,
//!   doubles-first, the blocker, random play or a soft heaviest-first
//!   catch-all, mixed over the game) weighing the
//!   deals by how likely its observed placements are, and deciding its moves
//!   in the tree and the playouts by the component the iteration's deal
//!   drew (10% random); its own playout moves by [`policy_move`] (go out,
//!   block the other hand, keep a fitting tile, doubles, heavy tiles) with
//!   30% random moves; the exact [`Endgame`] solve as the playout's value
//!   once the stock is empty and at most 10 tiles are in hands, and with
//!   the stock empty at the root (the other hand is then known) the exact
//!   solver's move (the N=5 table when installed). The soft catch-all's
//!   moves are drawn from its own weights. Kept for a case, each game starts
//!   from the posterior over the components that the last one ended with.
//! - `pimc`: per sampled deal the chance search of [`evaluate_moves`] (the
//!   real objective, draws as chance, exact once the stock is empty); each
//!   deal votes for its best move (weighted by the deal's probability), as
//!   public dominoes programs do; every consistent deal when they are few.
//!
//! [`Sampler`]: tabula_solver::dominoes::inference::Sampler

use rand::{Rng, RngExt};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::sync::Arc;

use tabula_solver::dominoes::inference::{Knowledge, MAX_MODELS, OpponentModel, Sample, Sampler};
use tabula_solver::dominoes::search::Endgame;
use tabula_solver::dominoes::search::{
    Budget, Evaluation, MoveValues, Table, evaluate_moves, final_score, horizon_value,
};
use tabula_solver::dominoes::{Match, Move, Position, Rules, Tile, View};
use tabula_solver::{Game, Seat};

use tabula_tables::dominoes::DominoesTable;

use super::clairvoyant::position_of;
use super::ladder::{Numbers, number_bit};
use super::model::{COMPONENTS, Component, LadderModel, policy_move, soft_weight};
use crate::agent::Agent;

/// The model's preference for heavy tiles: `exp(beta * pips)` (see the inference module).
pub const BETA: f64 = 0.2;
/// Deals searched per decision by `pimc`.
pub const DEALS: usize = 16;
/// Positions searched per decision by `pimc`, over all deals.
pub const NODES: u64 = 60_000;
/// Iterations per decision of `ismcts`.
pub const ITERATIONS: u32 = 1_500;
/// Iterations per decision of `best`.
pub const BEST_ITERATIONS: u32 = 3_000;
/// `best`'s playouts: the policy with 30% random moves, exact from 10 tiles in hands with the stock empty.
pub const BEST_ROLLOUTS: Rollouts = Rollouts {
    random: 0.3,
    endgame_tiles: 10,
    opponent_random: Some(0.1),
};
/// Table slots (`2^bits`) kept across decisions.
const TABLE_BITS: u32 = 16;

/// The other hand as far as the views show it: the game's knowledge.
#[derive(Debug, Default)]
struct Tracker {
    know: Option<Knowledge>,
    /// The model weighing the opponent's placements (else the `BETA` model).
    model: Option<Arc<LadderModel>>,
    /// The components' posterior at the last sampled decision of the game.
    posterior: [f64; MAX_MODELS],
}

impl Tracker {
    fn start(&mut self, view: &View) {
        let opening = view.line.first().map(|&(a, b)| Tile::new(a, b));
        let mut know = Knowledge::new(view.rules);
        know.start(view.rules, opening);
        self.know = Some(know);
        self.posterior = [0.0; MAX_MODELS];
        if let Some(m) = &self.model {
            self.posterior[..m.priors().len()].copy_from_slice(m.priors());
        }
    }

    /// Reads the view; up to `limit` deals (every consistent one when that
    /// many cover them all) with their probabilities.
    fn deals(&mut self, view: &View, limit: usize, rng: &mut ChaCha8Rng) -> Vec<Sample> {
        let know = self.know.get_or_insert_with(|| Knowledge::new(view.rules));
        // A view that cannot be explained leaves the knowledge confused: still play.
        let _ = know.update(view);
        if view.stock == 0 {
            // The other hand is every unseen tile; the components as last seen.
            let mut deal = Sample::new(view.unseen(), 1.0);
            if let Some(m) = &self.model {
                for (i, p) in m.priors().iter().enumerate() {
                    deal.parts[i] = self.posterior[i] / p;
                }
            }
            return vec![deal];
        }
        let sampler = match &self.model {
            Some(m) => know.sampler_with(view, m.clone()),
            None => know.sampler(view, BETA),
        };
        let deals = self.sample(&sampler, limit, rng);
        if let Some(m) = &self.model {
            let mut post = [0.0; MAX_MODELS];
            for d in &deals {
                for (i, p) in m.priors().iter().enumerate() {
                    post[i] += p * d.parts[i];
                }
            }
            let sum: f64 = post.iter().sum();
            if sum > 0.0 {
                self.posterior = post.map(|x| x / sum);
            }
        }
        deals
    }

    /// The numbers the other seat has read us to lack (0 before a view).
    fn read(&self) -> Numbers {
        self.know.as_ref().map_or(0, |k| k.read_of_us())
    }

    fn sample(&self, sampler: &Sampler, limit: usize, rng: &mut ChaCha8Rng) -> Vec<Sample> {
        if let Some(all) = sampler.enumerate(limit, 8, rng)
            && !all.is_empty()
        {
            return all;
        }
        let mut deals: Vec<Sample> = (0..limit).map(|_| sampler.sample(rng)).collect();
        let total: f64 = deals.iter().map(|d| d.weight).sum();
        if total > 0.0 {
            for d in &mut deals {
                d.weight /= total;
                d.parts.iter_mut().for_each(|p| *p /= total);
            }
        } else {
            deals
                .iter_mut()
                .for_each(|d| *d = Sample::new(d.hand, 1.0 / limit as f64));
        }
        // The same hand sampled twice is searched once.
        deals.sort_by_key(|d| d.hand.0);
        let mut merged: Vec<Sample> = Vec::with_capacity(deals.len());
        for d in deals {
            match merged.last_mut() {
                Some(m) if m.hand == d.hand => {
                    m.weight += d.weight;
                    m.parts.iter_mut().zip(d.parts).for_each(|(a, b)| *a += b);
                }
                _ => merged.push(d),
            }
        }
        merged
    }
}

/// Above this many tiles in both hands, searches stay clear of exact endgames.
pub const ENDGAME_TILES: u32 = 20;

/// Each move with the horizon estimate one ply ahead (a draw averaged over the stock).
fn one_ply(pos: &Position) -> Evaluation {
    let mut moves = MoveValues::new();
    // The mover's expected score in `p` (the same mover as `pos` when `same`).
    let value = |p: &Position, same: bool| {
        let v = if p.is_over() {
            final_score(p)
        } else {
            horizon_value(p)
        };
        if same { v } else { 1.0 - v }
    };
    for &mv in pos.moves().iter() {
        let v = match mv {
            Move::Draw => {
                let n = f64::from(pos.stock.len());
                pos.stock
                    .iter()
                    .map(|t| value(&pos.after(Move::Drawn(t)), true))
                    .sum::<f64>()
                    / n
            }
            _ => value(&pos.after(mv), false),
        };
        moves.push((mv, v));
    }
    Evaluation {
        moves,
        exact: false,
        depth: 1,
        nodes: 0,
    }
}

/// Heavier tiles first among moves of equal value (fewer pips kept if blocked).
fn heft(mv: Move) -> i32 {
    match mv {
        Move::Place(t, _) => t.pips() as i32,
        _ => -1,
    }
}

/// How a searching player combines the deals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combine {
    /// The best weighted mean value.
    Mean,
    /// The most weighted votes of per-deal best moves.
    Vote,
}

/// `best` (mean over deals) or `pimc` (vote over deals).
pub struct DealSearcher {
    combine: Combine,
    deals: usize,
    nodes: u64,
    rng: ChaCha8Rng,
    tracker: Tracker,
    table: Option<Table>,
}

impl DealSearcher {
    /// The move with the best mean over up to `deals` deals, `nodes`
    /// positions per decision (`best` before it became an ISMCTS; measured
    /// below `ismcts`, kept for comparison, not registered).
    pub fn mean(rng: ChaCha8Rng, deals: usize, nodes: u64) -> DealSearcher {
        DealSearcher::new(Combine::Mean, rng, deals, nodes)
    }

    /// `pimc`: the move most deals vote for.
    pub fn pimc(rng: ChaCha8Rng, deals: usize, nodes: u64) -> DealSearcher {
        DealSearcher::new(Combine::Vote, rng, deals, nodes)
    }

    fn new(combine: Combine, rng: ChaCha8Rng, deals: usize, nodes: u64) -> DealSearcher {
        DealSearcher {
            combine,
            deals: deals.max(1),
            nodes,
            rng,
            tracker: Tracker::default(),
            table: None,
        }
    }
}

impl Agent<Match> for DealSearcher {
    fn name(&self) -> String {
        match self.combine {
            Combine::Mean => "mean".into(),
            Combine::Vote => "pimc".into(),
        }
    }

    fn start_game(&mut self, _seat: Seat, view: &View) {
        self.tracker.start(view);
    }

    fn reseed(&mut self, rng: ChaCha8Rng) {
        self.rng = rng;
        self.table = None;
    }

    fn choose(&mut self, view: &View) -> Move {
        let deals = self.tracker.deals(view, self.deals, &mut self.rng);
        self.choose_over(view, deals)
    }
}

impl DealSearcher {
    fn choose_over(&mut self, view: &View, deals: Vec<Sample>) -> Move {
        let moves = Match::view_moves(view);
        if moves.len() == 1 {
            return moves[0];
        }
        if let Some(mv) = super::endgame_table().and_then(|t| table_move(t, view, &deals)) {
            return mv;
        }
        let table = self.table.get_or_insert_with(|| Table::new(TABLE_BITS));
        let per_deal = Budget::nodes((self.nodes / deals.len() as u64).max(1));
        // Position moves name the left end when both ends are equal.
        let root = position_of(view, deals[0].hand);
        let candidates = root.moves();
        let mut score = vec![0.0; candidates.len()];
        // An exact endgame solve is never cut short: with many tiles in hand
        // keep the search's horizon before the stock runs out, or (with one
        // tile or none left) look one ply ahead.
        let tiles = view.hand.len() as u32 + view.opponent_count();
        let big = tiles > ENDGAME_TILES;
        let per_deal = if big && view.stock >= 2 {
            Budget {
                depth: (view.stock - 1).min(u32::from(u8::MAX - 1)) as u8,
                ..per_deal
            }
        } else {
            per_deal
        };
        for deal in &deals {
            let pos = position_of(view, deal.hand);
            let eval = if big && view.stock < 2 {
                one_ply(&pos)
            } else {
                evaluate_moves(&pos, &per_deal, table)
            };
            match self.combine {
                Combine::Mean => {
                    for &(mv, v) in eval.moves.iter() {
                        if let Some(i) = candidates.iter().position(|&c| c == mv) {
                            score[i] += deal.weight * v;
                        }
                    }
                }
                Combine::Vote => {
                    let (_, value) = eval.best();
                    // Every move within rounding of the best shares the vote.
                    let tied: Vec<Move> = eval
                        .moves
                        .iter()
                        .filter(|&&(_, v)| v >= value - 1e-9)
                        .map(|&(m, _)| m)
                        .collect();
                    for mv in &tied {
                        if let Some(i) = candidates.iter().position(|c| c == mv) {
                            score[i] += deal.weight / tied.len() as f64;
                        }
                    }
                }
            }
        }
        let mut choice = 0;
        for i in 1..candidates.len() {
            let better = score[i] > score[choice] + 1e-9
                || (score[i] > score[choice] - 1e-9
                    && heft(candidates[i]) > heft(candidates[choice]));
            if better {
                choice = i;
            }
        }
        candidates[choice]
    }
}

/// An optimal move from the installed N=5 table, when the stock is empty (the
/// other hand is then known exactly) and the position is in it.
fn table_move(table: &DominoesTable, view: &View, deals: &[Sample]) -> Option<Move> {
    if view.stock != 0 || deals.len() != 1 {
        return None;
    }
    let pos = position_of(view, deals[0].hand);
    let best = table.best_moves(&pos).ok()?;
    // The heaviest of the optimal moves, as the search breaks its ties.
    best.into_iter().max_by_key(|&mv| heft(mv))
}

/// How an ISMCTS player ends an iteration below its tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rollouts {
    /// The chance of a uniformly random move at each step of a playout
    /// (1: random playouts); otherwise [`policy_move`]'s move.
    pub random: f64,
    /// Solve exactly (with the endgame table) once the stock is empty and at
    /// most this many tiles are in hands; 0: play out to the end.
    pub endgame_tiles: u32,
    /// With a model of the other seat ([`LadderModel`]): its random moves'
    /// rate, and otherwise the move of the model's component that the
    /// iteration's deal drew; without (`None`) it plays like the searcher.
    pub opponent_random: Option<f64>,
}

impl Rollouts {
    /// Uniformly random playouts to the end: `ismcts`, the plain baseline.
    pub const RANDOM: Rollouts = Rollouts {
        random: 1.0,
        endgame_tiles: 0,
        opponent_random: None,
    };
}

/// Single-observer information-set MCTS with a deal sampled per iteration.
pub struct Ismcts {
    name: &'static str,
    iterations: u32,
    rollouts: Rollouts,
    /// Whether a stock-empty root (the other hand then known) is solved exactly.
    root_exact: bool,
    /// UCT's exploration constant.
    explore: f64,
    rng: ChaCha8Rng,
    tracker: Tracker,
    endgame: Option<Endgame>,
    /// Deals sampled per decision (every consistent one when at most that many).
    samples: usize,
    /// Whether the other seat's moves in the tree are its model's (else UCT's).
    tree_model: bool,
    /// Whether each game's prior over the model's components is the last
    /// game's posterior (the same opponent plays a whole case).
    learns_case: bool,
    /// Whether a game of this case has been played.
    played: bool,
}

/// The least prior a component keeps from game to game of a case, so that a
/// run of misleading games cannot rule it out.
pub const CASE_PRIOR_FLOOR: f64 = 0.01;

/// A node of the tree: one per sequence of placements and passes from the root.
#[derive(Clone, Debug)]
struct Node {
    /// The moves tried from here.
    edges: Vec<Edge>,
}

impl Node {
    /// Adds an unvisited edge for each move in `legal` that has none yet.
    fn add_edges(&mut self, legal: &[Move]) {
        for &mv in legal {
            if !self.edges.iter().any(|e| e.mv == mv) {
                self.edges.push(Edge {
                    mv,
                    child: usize::MAX,
                    visits: 0,
                    reward: 0.0,
                    available: 0,
                });
            }
        }
    }

    /// The index of the edge to follow: the `forced` move when a model
    /// plays this seat, otherwise the legal edge with the highest UCB value
    /// (an unvisited one first); counts each legal edge as available.
    fn select(&mut self, legal: &[Move], forced: Option<Move>, explore: f64) -> usize {
        let mut pick: Option<usize> = None;
        let mut best = f64::NEG_INFINITY;
        for (i, e) in self.edges.iter_mut().enumerate() {
            if !legal.contains(&e.mv) {
                continue;
            }
            e.available += 1;
            if let Some(mv) = forced {
                if e.mv == mv {
                    pick = Some(i);
                }
                continue;
            }
            let value = if e.visits == 0 {
                f64::INFINITY
            } else {
                e.reward / f64::from(e.visits)
                    + explore * (f64::from(e.available).ln() / f64::from(e.visits)).sqrt()
            };
            if value > best {
                best = value;
                pick = Some(i);
            }
        }
        pick.expect("a legal move")
    }
}

/// The running sums of the deals' weights, and their total, for sampling a
/// deal in proportion to its weight.
fn cumulative_weights(deals: &[Sample]) -> (Vec<f64>, f64) {
    let mut cumulative = Vec::with_capacity(deals.len());
    let mut acc = 0.0;
    for d in deals {
        acc += d.weight;
        cumulative.push(acc);
    }
    (cumulative, acc)
}

/// A move from a node: its child, visits, the mover's total reward, and
/// how often it was legal when its node was visited (availability).
#[derive(Clone, Copy, Debug)]
struct Edge {
    mv: Move,
    child: usize,
    visits: u32,
    reward: f64,
    available: u32,
}

/// UCT's exploration constant.
const EXPLORE: f64 = 0.7;

impl Ismcts {
    /// `ismcts`: `iterations` per decision, random playouts.
    pub fn new(rng: ChaCha8Rng, iterations: u32) -> Ismcts {
        Ismcts::with(rng, "ismcts", iterations, Rollouts::RANDOM, false)
    }

    /// `best`: [`BEST_ITERATIONS`] per decision, deals weighed by the
    /// [`LadderModel`] of the other seat, whose moves in the tree and the
    /// playouts are its model's ([`BEST_ROLLOUTS`]), a stock-empty root
    /// solved exactly.
    pub fn best(rng: ChaCha8Rng) -> Ismcts {
        let mut best = Ismcts::with(rng, "best", BEST_ITERATIONS, BEST_ROLLOUTS, true);
        best.tracker.model = Some(Arc::new(LadderModel::default()));
        best.tree_model = true;
        best.learns_case = true;
        best
    }

    /// An ISMCTS player named `name` with the given playouts, solving a
    /// stock-empty root exactly when `root_exact`.
    pub fn with(
        rng: ChaCha8Rng,
        name: &'static str,
        iterations: u32,
        rollouts: Rollouts,
        root_exact: bool,
    ) -> Ismcts {
        Ismcts {
            name,
            iterations: iterations.max(1),
            rollouts,
            root_exact,
            explore: EXPLORE,
            rng,
            tracker: Tracker::default(),
            endgame: None,
            samples: 256,
            tree_model: false,
            learns_case: false,
            played: false,
        }
    }
}

/// Hands the mover tiles from the stock until one fits (or the stock is empty).
fn draw_until_fit(pos: &mut Position, rng: &mut impl Rng) {
    while pos.fitting().is_empty() && !pos.stock.is_empty() {
        let n = pos.stock.len();
        let k = rng.random_range(0..n);
        let t = pos.stock.iter().nth(k as usize).expect("k < n");
        pos.play(Move::Drawn(t));
    }
}

/// [`draw_until_fit`] as the other seat reads it: when `me` drew, `missing`
/// (what it has read of `me`'s hand) becomes the two ends `me` could not match.
fn draw_read(pos: &mut Position, me: u8, missing: &mut Numbers, rng: &mut impl Rng) {
    let stock = pos.stock.len();
    draw_until_fit(pos, rng);
    if pos.mover == me && pos.stock.len() < stock {
        *missing = number_bit(pos.left) | number_bit(pos.right);
    }
}

/// A random playout; seat 0's score.
fn playout(mut pos: Position, rng: &mut impl Rng) -> f64 {
    loop {
        draw_until_fit(&mut pos, rng);
        if pos.is_over() {
            return pos.score();
        }
        let moves = pos.moves();
        let mv = moves[rng.random_range(0..moves.len())];
        pos.play(mv);
    }
}

impl Ismcts {
    /// A playout from `pos` under the player's [`Rollouts`], `me` the
    /// searching seat; seat 0's score.
    /// `them` the other seat's component and `missing` what it has read of
    /// `me`'s hand (the server's reading).
    fn rollout(&mut self, mut pos: Position, me: u8, them: Component, mut missing: Numbers) -> f64 {
        let r = self.rollouts;
        if r.random >= 1.0 && r.endgame_tiles == 0 {
            return playout(pos, &mut self.rng);
        }
        loop {
            draw_read(&mut pos, me, &mut missing, &mut self.rng);
            if pos.is_over() {
                return pos.score();
            }
            if pos.stock.is_empty() && pos.hands[0].len() + pos.hands[1].len() <= r.endgame_tiles {
                let endgame = self.endgame.get_or_insert_with(|| Endgame::new(TABLE_BITS));
                let s = endgame.solve(&pos).score();
                return if pos.mover == 0 { s } else { 1.0 - s };
            }
            let mv = if r.opponent_random.is_some() && pos.mover != me {
                self.opponent_move(&pos, them, missing)
            } else if r.random > 0.0 && self.rng.random::<f64>() < r.random {
                let moves = pos.moves();
                moves[self.rng.random_range(0..moves.len())]
            } else {
                policy_move(&pos)
            };
            if mv == Move::Pass && pos.mover == me {
                missing |= number_bit(pos.left) | number_bit(pos.right);
            }
            pos.play(mv);
        }
    }

    /// The modelled other seat's move: random at the rate of
    /// [`Rollouts::opponent_random`], else its component's.
    fn opponent_move(&mut self, pos: &Position, them: Component, missing: Numbers) -> Move {
        let random = self
            .rollouts
            .opponent_random
            .unwrap_or(self.rollouts.random);
        let noise = random > 0.0 && self.rng.random::<f64>() < random;
        let modelled = if noise {
            None
        } else if them == Component::Soft && self.tree_model {
            Some(self.soft_move(pos))
        } else {
            them.position_move(pos, missing)
        };
        modelled.unwrap_or_else(|| {
            let moves = pos.moves();
            moves[self.rng.random_range(0..moves.len())]
        })
    }

    /// A move drawn as the model's soft component draws them: a placement
    /// with weight `exp(SOFT_BETA * pips)`, as its likelihood says.
    fn soft_move(&mut self, pos: &Position) -> Move {
        let moves = pos.moves();
        let weight = |i: usize| match moves[i] {
            Move::Place(t, _) => soft_weight(t),
            _ => 1.0,
        };
        moves[pick_weighted(&mut self.rng, moves.len(), weight)]
    }

    /// The model's component the other seat follows in an iteration on
    /// `deal`: drawn by the deal's posterior (the catch-all without a model).
    fn component(&mut self, deal: &Sample) -> Component {
        let Some(m) = &self.tracker.model else {
            return Component::Soft;
        };
        let w: Vec<f64> = m
            .priors()
            .iter()
            .zip(deal.parts)
            .map(|(p, l)| p * l)
            .collect();
        if w.iter().sum::<f64>() <= 0.0 {
            return Component::Soft;
        }
        COMPONENTS[pick_weighted(&mut self.rng, w.len(), |i| w[i])]
    }

    /// With the stock empty the other hand is every unseen tile: a move
    /// optimal by the exact solver (the N=5 table when installed), the
    /// heaviest of them.
    fn exact_root(&mut self, view: &View) -> Option<Move> {
        if !self.root_exact || view.stock != 0 {
            return None;
        }
        let pos = position_of(view, view.unseen());
        let optimal: Vec<Move> = match super::endgame_table().map(|t| t.best_moves(&pos)) {
            Some(Ok(moves)) => moves.into_iter().collect(),
            _ => {
                if pos.hands[0].len() + pos.hands[1].len() > ROOT_TILES {
                    return None;
                }
                let endgame = self.endgame.get_or_insert_with(|| Endgame::new(TABLE_BITS));
                endgame.best_moves(&pos).into_iter().collect()
            }
        };
        let heaviest = optimal.iter().copied().max_by_key(|&mv| heft(mv));
        if !self.tree_model || optimal.len() < 2 {
            return heaviest;
        }
        // Among the optimal moves, the one the modelled other seat answers
        // worst (against random play: the best on average).
        let post = self.tracker.posterior;
        let top = (0..COMPONENTS.len()).max_by(|&a, &b| post[a].total_cmp(&post[b]));
        let them = COMPONENTS[top.unwrap_or(Component::Soft as usize)];
        if them == Component::Soft {
            return heaviest;
        }
        let me = view.seat as u8;
        let mut nodes = RESPONSE_NODES;
        let mut memo = ResponseMemo::new();
        let mut best: Option<(f64, i32, Move)> = None;
        for &mv in &optimal {
            let mut missing = self.tracker.read();
            if mv == Move::Pass {
                missing |= number_bit(pos.left) | number_bit(pos.right);
            }
            let v = response_value(pos.after(mv), me, them, missing, &mut nodes, &mut memo)?;
            if best.is_none_or(|(bv, bh, _)| (v, heft(mv)) > (bv, bh)) {
                best = Some((v, heft(mv), mv));
            }
        }
        best.map(|(_, _, mv)| mv).or(heaviest)
    }
}

/// An index of `0..len` drawn in proportion to `weight` (one uniform draw;
/// the last index if rounding leaves the draw past the end).
fn pick_weighted(rng: &mut impl Rng, len: usize, weight: impl Fn(usize) -> f64) -> usize {
    let total: f64 = (0..len).map(&weight).sum();
    let mut x = rng.random::<f64>() * total;
    for i in 0..len {
        x -= weight(i);
        if x < 0.0 {
            return i;
        }
    }
    len - 1
}

/// The most positions [`response_value`] may visit per decision.
const RESPONSE_NODES: u32 = 20_000;

/// Values already found by [`response_value`], by position and reading.
type ResponseMemo = HashMap<(Position, Numbers), f64>;

/// `me`'s score in a stock-empty `pos` when it plays its best and the other
/// seat plays `them`'s moves (`missing`: what it has read of `me`'s hand),
/// or for [`Component::Random`] each of its moves with equal chance (the
/// mean); `None` once `nodes` run out.
fn response_value(
    pos: Position,
    me: u8,
    them: Component,
    missing: Numbers,
    nodes: &mut u32,
    memo: &mut ResponseMemo,
) -> Option<f64> {
    if let Some(&v) = memo.get(&(pos, missing)) {
        return Some(v);
    }
    *nodes = nodes.checked_sub(1)?;
    let value = if pos.is_over() {
        let s = pos.score();
        if me == 0 { s } else { 1.0 - s }
    } else if pos.mover != me {
        match them.position_move(&pos, missing) {
            Some(mv) => response_value(pos.after(mv), me, them, missing, nodes, memo)?,
            None => {
                let moves = pos.moves();
                let mut sum = 0.0;
                for &mv in moves.iter() {
                    sum += response_value(pos.after(mv), me, them, missing, nodes, memo)?;
                }
                sum / moves.len() as f64
            }
        }
    } else {
        let mut best: f64 = 0.0;
        for &mv in pos.moves().iter() {
            let mut read = missing;
            if mv == Move::Pass {
                read |= number_bit(pos.left) | number_bit(pos.right);
            }
            best = best.max(response_value(pos.after(mv), me, them, read, nodes, memo)?);
            if best >= 1.0 {
                break;
            }
        }
        best
    };
    memo.insert((pos, missing), value);
    Some(value)
}

/// The most tiles in hands for an exact solve at a stock-empty root.
pub const ROOT_TILES: u32 = 24;

impl Agent<Match> for Ismcts {
    fn name(&self) -> String {
        self.name.into()
    }

    fn start_case(&mut self, _rules: &Rules) {
        if self.learns_case {
            self.tracker.model = Some(Arc::new(LadderModel::default()));
        }
        self.played = false;
    }

    fn start_game(&mut self, _seat: Seat, view: &View) {
        if self.learns_case
            && self.played
            && let Some(model) = &self.tracker.model
        {
            let priors: Vec<f64> = self.tracker.posterior[..model.priors().len()]
                .iter()
                .map(|p| p.max(CASE_PRIOR_FLOOR))
                .collect();
            self.tracker.model = Some(Arc::new(model.with_priors(&priors)));
        }
        self.played = true;
        self.tracker.start(view);
    }

    fn reseed(&mut self, rng: ChaCha8Rng) {
        self.rng = rng;
        self.endgame = None;
    }

    fn choose(&mut self, view: &View) -> Move {
        // The deals' weights are used by sampling among them in proportion.
        let deals = self.tracker.deals(view, self.samples, &mut self.rng);
        let moves = Match::view_moves(view);
        if moves.len() == 1 {
            return moves[0];
        }
        if let Some(mv) = self.exact_root(view) {
            return mv;
        }
        let (cumulative, acc) = cumulative_weights(&deals);
        let mut tree = vec![Node { edges: Vec::new() }];
        for _ in 0..self.iterations {
            let x = self.rng.random::<f64>() * acc;
            let k = cumulative.partition_point(|&c| c <= x).min(deals.len() - 1);
            let mut pos = position_of(view, deals[k].hand);
            let mut path: Vec<(usize, usize, usize)> = Vec::new();
            let mut node = 0;
            // Selection and expansion.
            let me = view.seat as u8;
            let them = self.component(&deals[k]);
            let mut missing = self.tracker.read();
            loop {
                draw_read(&mut pos, me, &mut missing, &mut self.rng);
                if pos.is_over() {
                    break;
                }
                let legal = pos.moves();
                let mover = usize::from(pos.mover);
                // A modelled other seat is part of the chance: its model's move.
                let forced = (self.tree_model && pos.mover != me)
                    .then(|| self.opponent_move(&pos, them, missing));
                tree[node].add_edges(&legal);
                let i = tree[node].select(&legal, forced, self.explore);
                let edge = tree[node].edges[i];
                if edge.mv == Move::Pass && pos.mover == me {
                    missing |= number_bit(pos.left) | number_bit(pos.right);
                }
                pos.play(edge.mv);
                path.push((node, i, mover));
                if edge.child == usize::MAX {
                    tree.push(Node { edges: Vec::new() });
                    let child = tree.len() - 1;
                    tree[node].edges[i].child = child;
                    break;
                }
                node = edge.child;
            }
            let score0 = self.rollout(pos, me, them, missing);
            for &(n, i, mover) in &path {
                let r = if mover == 0 { score0 } else { 1.0 - score0 };
                let e = &mut tree[n].edges[i];
                e.visits += 1;
                e.reward += r;
            }
        }
        let root = &tree[0];
        let top = root
            .edges
            .iter()
            .max_by_key(|e| (e.visits, heft(e.mv)))
            .map(|e| e.mv);
        match top {
            Some(mv) if Match::view_moves(view).contains(&mv) => mv,
            _ => moves[0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use crate::arena::play_game;
    use crate::dominoes::clairvoyant::heaviest_move;
    use crate::dominoes::model::SOFT_BETA;
    use crate::seat::{Clock, Local, Player};
    use rand::SeedableRng;
    use tabula_solver::Turn;
    use tabula_solver::dominoes::Observation;
    use tabula_solver::dominoes::Side;
    use tabula_solver::dominoes::{Deal, Rules};

    /// At N=5 with the stock empty, the table's move is optimal by the exact endgame search.
    #[test]
    fn the_tables_moves_are_optimal() {
        use tabula_solver::dominoes::search::Endgame;
        let table = DominoesTable::in_memory();
        let mut endgame = Endgame::new(16);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut checked = 0;
        for game in 0..400 {
            let rules = Rules::new(5, 4 + game % 4).unwrap();
            let mut state = Match::new(&Deal::random(rules, &mut rng));
            while !state.is_over() {
                if let Turn::Seat(seat) = state.turn() {
                    let view = state.view(seat);
                    let other = state.hand_set(1 - seat);
                    let deals = [Sample::new(other, 1.0)];
                    if view.stock == 0 && Match::view_moves(&view).len() > 1 {
                        let mv = table_move(&table, &view, &deals).expect("in the table");
                        let pos = position_of(&view, other);
                        let best = endgame.solve(&pos);
                        let got = endgame.solve(&pos.after(mv)).flip();
                        assert_eq!(got, best, "{view:?} {mv:?}");
                        checked += 1;
                    } else {
                        assert_eq!(table_move(&table, &view, &deals).is_some(), view.stock == 0);
                    }
                }
                let moves = state.moves();
                state.apply(moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(checked > 300, "{checked} positions checked");
    }

    /// The heaviest fitting tile first (a stand-in for the ladder's `heaviest`).
    struct Heaviest;

    impl Agent<Match> for Heaviest {
        fn name(&self) -> String {
            "heaviest".into()
        }
        fn choose(&mut self, view: &View) -> Move {
            heaviest_move(view)
        }
    }

    /// An agent seen through the protocol (seat 0 in every view, an empty hand
    /// at the start, no observations) when `wire`; its moves are recorded.
    struct Watched<'a> {
        agent: &'a mut dyn Agent<Match>,
        wire: bool,
        moves: Vec<Move>,
    }

    impl Agent<Match> for Watched<'_> {
        fn name(&self) -> String {
            self.agent.name()
        }
        fn start_game(&mut self, seat: Seat, view: &View) {
            if self.wire {
                let mut view = View {
                    seat: 0,
                    ..view.clone()
                };
                view.hand.clear();
                self.agent.start_game(0, &view);
            } else {
                self.agent.start_game(seat, view);
            }
        }
        fn observe(&mut self, mover: Turn, observation: &Observation) {
            if !self.wire {
                self.agent.observe(mover, observation);
            }
        }
        fn choose(&mut self, view: &View) -> Move {
            let mv = if self.wire {
                self.agent.choose(&View {
                    seat: 0,
                    ..view.clone()
                })
            } else {
                self.agent.choose(view)
            };
            self.moves.push(mv);
            mv
        }
    }

    /// Plays `deal` on the shared match loop, `players[s]` in seat `s`: seat 0's score.
    fn play(deal: &Deal, players: [&mut dyn Agent<Match>; 2], chance: &mut ChaCha8Rng) -> f64 {
        let [a, b] = players;
        let (mut a, mut b) = (Local(a), Local(b));
        let mut seats: [&mut dyn Player<Match>; 2] = [&mut a, &mut b];
        let mut clocks = vec![Clock::default(); 2];
        let record = play_game(Match::new(deal), &mut seats, &[0, 1], &mut clocks, chance);
        assert!(record.fault.is_none(), "{:?}", record.fault);
        record.scores[0]
    }

    fn make(name: &str, seed: u64) -> Box<dyn Agent<Match>> {
        let rng = ChaCha8Rng::seed_from_u64(seed);
        match name {
            "heaviest" => Box::new(Heaviest),
            "random" => Box::new(RandomAgent::new(rng)),
            other => crate::dominoes::agent(other, rng).expect("a known agent"),
        }
    }

    /// Paired games (each deal with seats swapped): `a`'s mean score.
    fn duel(a: &str, b: &str, rules: Rules, deals: usize, seed: u64) -> f64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut score = 0.0;
        for g in 0..deals {
            let deal = Deal::random(rules, &mut rng);
            let chance_seed: u64 = rng.random();
            for swap in [false, true] {
                let (mut pa, mut pb) = (make(a, seed + g as u64), make(b, seed + 1000 + g as u64));
                let mut chance = ChaCha8Rng::seed_from_u64(chance_seed);
                score += if swap {
                    1.0 - play(&deal, [&mut *pb, &mut *pa], &mut chance)
                } else {
                    play(&deal, [&mut *pa, &mut *pb], &mut chance)
                };
            }
        }
        score / (2 * deals) as f64
    }

    #[test]
    fn players_are_legal_and_the_same_over_the_protocol() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        for name in ["best", "pimc", "ismcts"] {
            for rules in [
                Rules::new(5, 7).unwrap(),
                Rules::new(9, 7).unwrap(),
                Rules::new(7, 4).unwrap(),
            ] {
                let deal = Deal::random(rules, &mut rng);
                let chance: u64 = rng.random();
                // In seat 1 the protocol's views (seat 0, no hand at the start) differ most.
                for seat in [0, 1] {
                    let mut runs = Vec::new();
                    for wire in [false, true] {
                        let mut me = make(name, 5);
                        let mut me = Watched {
                            agent: &mut *me,
                            wire,
                            moves: Vec::new(),
                        };
                        let mut other = make("heaviest", 6);
                        let mut ch = ChaCha8Rng::seed_from_u64(chance);
                        let players: [&mut dyn Agent<Match>; 2] = if seat == 0 {
                            [&mut me, &mut *other]
                        } else {
                            [&mut *other, &mut me]
                        };
                        play(&deal, players, &mut ch);
                        runs.push(me.moves);
                    }
                    assert!(!runs[0].is_empty());
                    assert_eq!(runs[0], runs[1], "{name} {rules:?} seat {seat}");
                }
            }
        }
    }

    /// Positions of random games (N=5..9), both hands known.
    fn random_positions(count: usize, seed: u64) -> Vec<Position> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let rules = Rules::new(5 + rng.random_range(0..5), 4 + rng.random_range(0..4)).unwrap();
            let mut state = Match::new(&Deal::random(rules, &mut rng));
            while !state.is_over() {
                if matches!(state.turn(), Turn::Seat(_)) {
                    out.push(Position::of(&state));
                }
                let moves = state.moves();
                state.apply(moves[rng.random_range(0..moves.len())]);
            }
        }
        out
    }

    /// The playout policy picks one of the position's moves, places whenever
    /// a tile fits, and goes out with its last tile when it can.
    #[test]
    fn the_playout_policy_plays_legal_moves() {
        for pos in random_positions(3000, 17) {
            let mv = policy_move(&pos);
            let moves = pos.moves();
            assert!(moves.contains(&mv), "{mv:?} not in {moves:?}");
            assert_eq!(matches!(mv, Move::Place(..)), !pos.fitting().is_empty());
            if pos.hands[usize::from(pos.mover)].len() == 1 && !pos.fitting().is_empty() {
                assert!(pos.after(mv).is_over());
            }
        }
    }

    /// Playouts under every setting end in a score of the contest: 0, ½ or 1.
    #[test]
    fn rollouts_end_in_a_contest_score() {
        for (random, endgame_tiles) in [(1.0, 0), (0.0, 0), (0.3, 12), (1.0, 30)] {
            let rollouts = Rollouts {
                random,
                endgame_tiles,
                opponent_random: (random < 0.5).then_some(0.1),
            };
            let mut player = Ismcts::with(ChaCha8Rng::seed_from_u64(3), "x", 10, rollouts, true);
            for pos in random_positions(300, 19) {
                let s = player.rollout(pos, 0, COMPONENTS[endgame_tiles as usize % 3], 0);
                assert!([0.0, 0.5, 1.0].contains(&s), "{s}");
            }
        }
    }

    /// With the stock empty `best` answers by the exact solve: its move
    /// reaches the value of the plain expectimax (no table, no pruning).
    #[test]
    fn an_exact_root_agrees_with_the_plain_solver() {
        use tabula_solver::dominoes::search::reference_expectimax;
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let mut checked = 0;
        for game in 0..2000 {
            let rules = Rules::new(5 + game % 3, 4).unwrap();
            let mut state = Match::new(&Deal::random(rules, &mut rng));
            let mut best = make("best", game as u64);
            let mut started = false;
            while !state.is_over() {
                if let Turn::Seat(0) = state.turn() {
                    let view = state.view(0);
                    if !started {
                        best.start_game(0, &view);
                        started = true;
                    }
                    let pos = Position::of(&state);
                    let tiles = pos.hands[0].len() + pos.hands[1].len();
                    if view.stock == 0 && tiles <= 12 && pos.moves().len() > 1 {
                        let mv = best.choose(&view);
                        let value = |m: Move| 1.0 - reference_expectimax(&pos.after(m));
                        let top = pos.moves().iter().map(|&m| value(m)).fold(0.0, f64::max);
                        let twin = match mv {
                            Move::Place(t, Side::Right) if pos.left == pos.right => {
                                Move::Place(t, Side::Left)
                            }
                            other => other,
                        };
                        assert_eq!(value(twin), top, "{view:?} {mv:?}");
                        checked += 1;
                    }
                }
                let moves = state.moves();
                state.apply(moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(checked > 100, "{checked} positions checked");
    }

    /// By the end of a game `best`'s model gives the component the other
    /// seat follows (each ladder player but the soft catch-all) the most
    /// weight, far above its prior, on average over games.
    #[test]
    fn the_model_tells_which_player_it_faces() {
        let rules = Rules::new(7, 6).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        for (name, component) in [
            ("server", Component::Server),
            ("heaviest", Component::Heaviest),
            ("doubles", Component::Doubles),
            ("blocker", Component::Blocker),
            ("random", Component::Random),
        ] {
            let games = 16;
            let mut mean = [0.0; MAX_MODELS];
            for g in 0..games {
                let deal = Deal::random(rules, &mut rng);
                let mut chance = ChaCha8Rng::seed_from_u64(rng.random());
                let mut best = Ismcts::best(ChaCha8Rng::seed_from_u64(g));
                best.iterations = 200;
                let mut other = make(name, g);
                play(&deal, [&mut best, &mut *other], &mut chance);
                let post = best.tracker.posterior;
                mean.iter_mut()
                    .zip(post)
                    .for_each(|(m, p)| *m += p / games as f64);
            }
            let (c, prior) = (
                component as usize,
                LadderModel::default().priors()[component as usize],
            );
            assert!(mean[c] > 1.5 * prior, "{name}: mean posterior {mean:?}");
            assert!(
                mean.iter().all(|&m| m <= mean[c]),
                "{name}: mean posterior {mean:?}"
            );
        }
    }

    /// With the stock empty, the best answer to a fixed other seat is worth
    /// at least the game's exact value (it must meet every answer), and
    /// exactly it when that value is already a win.
    #[test]
    fn a_response_to_the_model_is_worth_the_exact_value_or_more() {
        let mut endgame = Endgame::new(16);
        let mut checked = 0;
        for pos in random_positions(12_000, 31) {
            let tiles = pos.hands[0].len() + pos.hands[1].len();
            if !pos.stock.is_empty() || tiles > 12 || pos.is_over() {
                continue;
            }
            let exact = endgame.solve(&pos).score();
            for them in COMPONENTS {
                let mut nodes = RESPONSE_NODES;
                let mut memo = ResponseMemo::new();
                let v =
                    response_value(pos, pos.mover, them, 0, &mut nodes, &mut memo).expect("small");
                assert!(v >= exact, "{pos:?} {them:?}: {v} < {exact}");
                if exact == 1.0 {
                    assert_eq!(v, 1.0);
                }
            }
            checked += 1;
        }
        assert!(checked > 200, "{checked} positions checked");
    }

    /// Against random play, the memoized response value is the plain
    /// expectimax: the mover's best, the other seat's moves averaged.
    #[test]
    fn the_response_to_random_play_is_the_plain_expectimax() {
        fn expectimax(pos: Position, me: u8) -> f64 {
            if pos.is_over() {
                let s = pos.score();
                return if me == 0 { s } else { 1.0 - s };
            }
            let moves = pos.moves();
            let values = moves.iter().map(|&mv| expectimax(pos.after(mv), me));
            if pos.mover == me {
                values.fold(0.0, f64::max)
            } else {
                values.sum::<f64>() / moves.len() as f64
            }
        }
        let mut checked = 0;
        for pos in random_positions(12_000, 37) {
            let tiles = pos.hands[0].len() + pos.hands[1].len();
            if !pos.stock.is_empty() || tiles > 9 || pos.is_over() {
                continue;
            }
            let mut nodes = u32::MAX;
            let mut memo = ResponseMemo::new();
            let v = response_value(pos, pos.mover, Component::Random, 0, &mut nodes, &mut memo)
                .expect("no budget");
            let plain = expectimax(pos, pos.mover);
            assert!((v - plain).abs() < 1e-9, "{pos:?}: {v} against {plain}");
            checked += 1;
        }
        assert!(checked > 200, "{checked} positions checked");
    }

    #[test]
    fn best_beats_random_play() {
        let score = duel("best", "random", Rules::new(6, 5).unwrap(), 8, 1);
        assert!(score > 0.6, "{score}");
    }

    #[test]
    fn best_carries_what_it_learnt_of_its_opponent_through_a_case() {
        let rules = Rules::new(7, 5).unwrap();
        let mut best = Ismcts::best(ChaCha8Rng::seed_from_u64(1));
        best.iterations = 100;
        let mut other = RandomAgent::new(ChaCha8Rng::seed_from_u64(2));
        let mut chance = ChaCha8Rng::seed_from_u64(3);
        let random_prior = |b: &Ismcts| {
            b.tracker.model.as_ref().expect("best has a model").priors()[Component::Random as usize]
        };
        Agent::<Match>::start_case(&mut best, &rules);
        let shipped = random_prior(&best);
        for _ in 0..20 {
            let deal = Deal::random(rules, &mut chance);
            play(&deal, [&mut best, &mut other], &mut chance);
        }
        // The priors change when the next game starts.
        let deal = Deal::random(rules, &mut chance);
        best.start_game(0, &Match::new(&deal).view(0));
        // Random play is the likeliest reading after 20 games of it.
        let priors = best.tracker.model.as_ref().unwrap().priors().to_vec();
        let top = (0..priors.len()).max_by(|&a, &b| priors[a].total_cmp(&priors[b]));
        assert_eq!(top, Some(Component::Random as usize), "{priors:?}");
        assert!(random_prior(&best) > 0.5, "{priors:?}");
        Agent::<Match>::start_case(&mut best, &rules);
        assert_eq!(random_prior(&best), shipped);
        // A fresh agent's first game keeps the shipped priors.
        let mut fresh = Ismcts::best(ChaCha8Rng::seed_from_u64(1));
        fresh.start_game(0, &Match::new(&deal).view(0));
        assert_eq!(random_prior(&fresh), shipped);
    }

    /// In the tree, the soft component draws placements in proportion to
    /// `exp(SOFT_BETA * pips)`, as its likelihood reads them.
    #[test]
    fn the_soft_component_draws_moves_as_its_likelihood_weighs_them() {
        let mut best = Ismcts::best(ChaCha8Rng::seed_from_u64(5));
        let pos = random_positions(400, 6)
            .into_iter()
            .find(|p| {
                let m = p.moves();
                m.len() >= 3 && m.iter().all(|mv| matches!(mv, Move::Place(..)))
            })
            .expect("a position with three placements");
        let moves = pos.moves();
        let weight = |mv: &Move| match mv {
            Move::Place(t, _) => (SOFT_BETA * f64::from(t.pips())).exp(),
            _ => unreachable!("placements only"),
        };
        let total: f64 = moves.iter().map(weight).sum();
        let draws = 20_000;
        let mut counts = vec![0usize; moves.len()];
        for _ in 0..draws {
            let mv = best.soft_move(&pos);
            let i = moves.iter().position(|m| *m == mv).expect("a legal move");
            counts[i] += 1;
        }
        for (i, mv) in moves.iter().enumerate() {
            let expected = weight(mv) / total;
            let seen = counts[i] as f64 / f64::from(draws);
            // Five standard errors.
            let tolerance = 5.0 * (expected * (1.0 - expected) / f64::from(draws)).sqrt();
            assert!(
                (seen - expected).abs() < tolerance,
                "{mv:?}: {seen} vs {expected}"
            );
        }
    }
}
