//! The built-in PseudoTonga players: `random`, `greedy`, `server` and `best`.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::opponents::{self, Geometry};
use tabula_solver::tonga::{Board, Cell, Colour, Position};

use crate::agent::{Agent, RandomAgent};

/// Geometry of the last board side seen, rebuilt when the side changes.
#[derive(Default)]
struct GeoCache(Option<Geometry>);

impl GeoCache {
    fn get(&mut self, n: usize) -> &Geometry {
        if self.0.as_ref().is_none_or(|g| g.n() != n) {
            self.0 = Some(Geometry::new(n));
        }
        self.0.as_ref().expect("just set")
    }
}

/// How a one-ply player finds the squares it may play, all equally good to it.
pub trait OnePly {
    /// The player's name.
    const NAME: &'static str;

    /// The squares the mover of `pos` may play (`geo` is `pos`'s geometry).
    fn choices(geo: &Geometry, pos: &Position) -> Vec<Cell>;
}

/// One ply: the squares that raise the mover's points the most.
pub struct GreedyPolicy;

impl OnePly for GreedyPolicy {
    const NAME: &'static str = "greedy";

    fn choices(geo: &Geometry, pos: &Position) -> Vec<Cell> {
        opponents::greedy_choices(geo, &pos.board, pos.to_move)
    }
}

/// The server's own policy: its best squares by its 3-ply search.
pub struct ServerPolicy;

impl OnePly for ServerPolicy {
    const NAME: &'static str = "server";

    fn choices(geo: &Geometry, pos: &Position) -> Vec<Cell> {
        let choices = opponents::choices(geo, &pos.board, pos.to_move);
        choices.expect("board not full").cells
    }
}

/// A one-ply player playing for the mover: one of its policy's squares, ties
/// broken at random.
pub struct OnePlyAgent<P> {
    rng: ChaCha8Rng,
    geo: GeoCache,
    /// Only the policy's functions: the player holds no `P`.
    policy: PhantomData<fn() -> P>,
}

/// One ply: a square that raises the mover's points the most; seeded ties.
pub type GreedyAgent = OnePlyAgent<GreedyPolicy>;

/// The server's own policy playing for the player: the baseline.
pub type ServerAgent = OnePlyAgent<ServerPolicy>;

impl<P: OnePly> OnePlyAgent<P> {
    /// The player breaking ties with `rng`.
    pub fn new(rng: ChaCha8Rng) -> OnePlyAgent<P> {
        OnePlyAgent {
            rng,
            geo: GeoCache::default(),
            policy: PhantomData,
        }
    }
}

impl<P: OnePly> Agent<Position> for OnePlyAgent<P> {
    fn name(&self) -> String {
        P::NAME.into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let cells = P::choices(self.geo.get(pos.board.n()), pos);
        cells[self.rng.random_range(0..cells.len())]
    }
}

/// Settings of the strong player.
#[derive(Clone, Copy, Debug)]
pub struct BestSettings {
    /// Expectimax against the server's policy at or below this many empties.
    pub expectimax_at: usize,
    /// The same on boards of at most 64 squares, where the server's search is cheaper.
    pub expectimax_small_at: usize,
    /// Exact perfect-play solve at or below this many empties.
    pub exact_at: usize,
    /// The same under a budget: the solve's time has a heavy tail (one
    /// 16-empties position of a 14×14 game took 50 s, 66 ms is typical).
    pub exact_budget_at: usize,
    /// Own candidate squares examined against the server's reply in the midgame.
    pub candidates: usize,
    /// Server tie-breaks averaged per candidate.
    pub ties: usize,
    /// Rounds (own move, server reply) looked ahead before the leaf evaluation.
    pub rounds: usize,
    /// Above this many empties only one round is searched (time at N=14, 16).
    pub deep_at: usize,
    /// The player's time for the whole game; `None`: no time management.
    pub budget: Option<Duration>,
    /// Whether the real time spent may also cut the work (the safety net; off
    /// where no clock binds, as in `verify`, so that reports are reproducible).
    pub safety_net: bool,
}

impl Default for BestSettings {
    fn default() -> BestSettings {
        BestSettings {
            expectimax_at: 12,
            expectimax_small_at: 15,
            exact_at: 16,
            exact_budget_at: 14,
            candidates: 6,
            ties: 2,
            rounds: 2,
            deep_at: 160,
            budget: Some(super::GAME_TIME),
            safety_net: false,
        }
    }
}

/// The strong player: searches against the known server policy in the
/// midgame, then plays the endgame exactly.
///
/// Midgame: the best few squares by the server's own 3-ply evaluation (seen
/// from the player's side) are each answered by the server's exact policy,
/// averaging over some of its tied squares, then by the player's own 3-ply
/// choice and the server's answer again; the positions reached are scored by
/// the player's own 3-ply value. Endgame: perfect play from 16 empties (14
/// under a time budget, which every `best` the tools build has), and
/// the expectimax against the server's policy (uniform tie-breaks) from 12
/// (15 on boards up to 8×8).
///
/// With a budget, a `TimeManager` may step a move down to cheaper work; its
/// choice depends on a deterministic work estimate only, except (with
/// `safety_net`) when the real time spent passes [`SAFETY_AT`] of the budget.
pub struct BestAgent {
    settings: BestSettings,
    geo: GeoCache,
    clock: TimeManager,
}

impl BestAgent {
    /// The strong player with the given settings.
    pub fn new(settings: BestSettings) -> BestAgent {
        BestAgent {
            settings,
            geo: GeoCache::default(),
            clock: TimeManager::default(),
        }
    }

    /// The work levels chosen so far in this game, one per move (0 = full settings).
    pub fn levels(&self) -> &[usize] {
        &self.clock.levels
    }
}

/// Final-score difference for `me` on a full board.
fn points_difference(board: &Board, me: Colour) -> i64 {
    i64::from(board.points(me)) - i64::from(board.points(me.other()))
}

/// The share of the budget the plan spends; the rest absorbs a loaded machine.
pub const PLAN_SHARE: f64 = 0.4;
/// Real time spent (share of the budget) from which the wall clock also limits the work.
pub const SAFETY_AT: f64 = 0.6;
/// Estimated nanoseconds per work unit: fitted to `best`'s move times at
/// N = 8 … 16 on a loaded 2-core machine (tools/scripts/tonga_move_times.py -v).
const NS_PER_UNIT: f64 = 150.0;

/// How a move is searched, from the most to the least work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Work {
    /// Expectimax against the server's policy.
    Expectimax,
    /// Exact perfect-play solve.
    Exact,
    /// Lookahead over `candidates` own squares, `ties` server tie-breaks, `rounds` rounds
    /// (0 rounds: the top square of the 3-ply ranking).
    Lookahead {
        candidates: usize,
        ties: usize,
        rounds: usize,
    },
}

/// Cheaper midgame settings tried in turn when the full ones exceed a move's share.
const STEPS: [(usize, usize, usize); 8] = [
    (5, 2, 2),
    (4, 2, 2),
    (3, 2, 2),
    (6, 2, 1),
    (4, 2, 1),
    (3, 1, 1),
    (2, 1, 1),
    (1, 1, 0),
];

/// Server searches made by `lookahead` with `rounds` and `ties` (an upper bound).
fn lookahead_calls(rounds: usize, ties: usize) -> f64 {
    let t = ties.max(1) as f64;
    match rounds {
        0 => 0.0,
        1 => 1.0 + t,
        r => 1.0 + t * (1.0 + lookahead_calls(r - 1, ties)),
    }
}

/// Deterministic work estimate (units of [`NS_PER_UNIT`]) of `work` at `empties` on `cells` squares.
fn work_units(work: Work, empties: usize, cells: usize) -> f64 {
    let e = empties as f64;
    match work {
        // 26 ns × 2.5^e × cells: 0.40 s at 12 empties of N=16, 1.1–1.5 s at 15 of N=8.
        Work::Expectimax => 26.0 * 2.5f64.powf(e) * cells as f64 / NS_PER_UNIT,
        // 70 ms at 16 empties, ×3.5 per empty.
        Work::Exact => 70e6 * 3.5f64.powf(e - 16.0) / NS_PER_UNIT,
        // One server search ≈ e² + 2500 units; the full ranking ≈ 3 searches.
        Work::Lookahead {
            candidates,
            ties,
            rounds,
        } => (e * e + 2500.0) * (3.0 + candidates.max(1) as f64 * lookahead_calls(rounds, ties)),
    }
}

impl BestSettings {
    /// Where the exact endgame starts.
    fn exact_from(&self) -> usize {
        match self.budget {
            Some(_) => self.exact_at.min(self.exact_budget_at),
            None => self.exact_at,
        }
    }

    /// The works this player may do at `empties` on `cells` squares, full settings first.
    fn works(&self, empties: usize, cells: usize) -> Vec<Work> {
        let mut works = Vec::new();
        if empties <= self.exact_from() {
            let limit = if cells <= 64 {
                self.expectimax_small_at
            } else {
                self.expectimax_at
            };
            if empties <= limit {
                works.push(Work::Expectimax);
            }
            works.push(Work::Exact);
        }
        let rounds = |r: usize| if empties > self.deep_at { r.min(1) } else { r };
        let full = (self.candidates, self.ties, self.rounds);
        for (candidates, ties, r) in std::iter::once(full).chain(STEPS) {
            let work = Work::Lookahead {
                candidates,
                ties,
                rounds: rounds(r),
            };
            let cost = work_units(work, empties, cells);
            // Only steps that do less than what comes before them.
            if works
                .last()
                .is_none_or(|&w| cost < work_units(w, empties, cells))
            {
                works.push(work);
            }
        }
        works
    }
}

/// Spreads a game's budget over the player's moves.
///
/// The plan spends [`PLAN_SHARE`] of the budget, counted in estimated work
/// units, not in seconds. The full-settings work of the player's remaining
/// endgame moves (every second empties count from where the exact solve starts down) is set
/// aside; a midgame move gets the share of the rest that its full-settings
/// work is of that of all remaining midgame moves; an endgame move gets what
/// the plan has left minus the later endgame moves' full work. A move takes
/// the first work, from full to cheapest, whose estimate fits its share. So when the budget is not
/// binding the moves are those of the full settings, and when it is they still
/// depend only on the budget and the game. Safety net (if set): once the real time
/// spent in `choose` passes [`SAFETY_AT`] of the budget, what the plan has left
/// is also capped at half the real time left.
#[derive(Default)]
struct TimeManager {
    /// Estimated units spent this game.
    planned: f64,
    /// Real time spent in `choose` this game.
    real: Duration,
    /// Empties at the last move, to notice a new game.
    last_empties: usize,
    /// The work level of each move this game.
    levels: Vec<usize>,
}

impl TimeManager {
    fn reset(&mut self) {
        *self = TimeManager::default();
    }

    /// The work for this move: its index in `works` (full settings first).
    fn plan(&mut self, s: &BestSettings, empties: usize, cells: usize) -> usize {
        let Some(budget) = s.budget else {
            return 0;
        };
        let units = |secs: f64| secs * 1e9 / NS_PER_UNIT;
        let mut left = units(budget.as_secs_f64() * PLAN_SHARE) - self.planned;
        let real = self.real.as_secs_f64();
        if s.safety_net && real > budget.as_secs_f64() * SAFETY_AT {
            left = left.min(units((budget.as_secs_f64() - real) * 0.5));
        }
        let full = |e: usize| work_units(s.works(e, cells)[0], e, cells);
        // The endgame's full work is reserved first: it is a small part of a
        // game and the most valuable per second.
        let (mut mid, mut end) = (0.0, 0.0);
        for e in (1..=empties).rev().step_by(2) {
            if e > s.exact_from() {
                mid += full(e);
            } else {
                end += full(e);
            }
        }
        let share = if empties > s.exact_from() {
            (left - end).max(0.0) * full(empties) / mid
        } else {
            (left - (end - full(empties))).max(0.0)
        };
        let works = s.works(empties, cells);
        let level = works
            .iter()
            .position(|&w| work_units(w, empties, cells) <= share)
            .unwrap_or(works.len() - 1);
        self.planned += work_units(works[level], empties, cells);
        level
    }
}

impl Agent<Position> for BestAgent {
    fn name(&self) -> String {
        "best".into()
    }

    fn start_game(&mut self, _seat: tabula_solver::Seat, _view: &Position) {
        self.clock.reset();
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let started = Instant::now();
        let empties = pos.board.empties();
        if empties > self.clock.last_empties {
            // A new game without start_game (the agent reused).
            self.clock.reset();
        }
        self.clock.last_empties = empties;
        let cell = self.search(pos);
        self.clock.real += started.elapsed();
        cell
    }
}

impl BestAgent {
    fn search(&mut self, pos: &Position) -> Cell {
        let board = pos.board;
        let me = pos.to_move;
        let empties = board.empties();
        let s = self.settings;
        if board.occupied().is_empty() {
            self.clock.levels.push(0);
            return opponents::middle_squares(&board)[0];
        }
        let level = self.clock.plan(&s, empties, board.cells());
        self.clock.levels.push(level);
        let (candidates, ties, rounds) = match s.works(empties, board.cells())[level] {
            Work::Expectimax => {
                let game = Endgame::new(&board).expect("few empties");
                return game.against_server(me, me).1.expect("board not full");
            }
            Work::Exact => {
                let mut game = Endgame::new(&board).expect("few empties");
                return game.solve_with_move(me).1.expect("board not full");
            }
            Work::Lookahead {
                candidates,
                ties,
                rounds,
            } => (candidates, ties, rounds),
        };
        let geo = self.geo.get(board.n());
        let mut ranked = opponents::all_values(geo, &board, me);
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        if rounds == 0 {
            return ranked[0].0;
        }
        let mut best: Option<(f64, Cell)> = None;
        for &(cell, _) in ranked.iter().take(candidates.max(1)) {
            let mut b1 = board;
            b1.place(cell, me);
            let value = lookahead(geo, &b1, me, rounds, ties);
            if best.is_none_or(|(v, _)| value > v) {
                best = Some((value, cell));
            }
        }
        best.expect("a candidate").1
    }
}

/// Expected leaf value for `me` after its move led to `board`: the server
/// answers by its exact policy (averaged over up to `ties` of its tied squares),
/// then `me` plays its own 3-ply best square, for `rounds` rounds; the leaf is
/// `me`'s 3-ply value (the final points difference on a full board).
fn lookahead(geo: &Geometry, board: &Board, me: Colour, rounds: usize, ties: usize) -> f64 {
    let Some(replies) = opponents::choices(geo, board, me.other()) else {
        return points_difference(board, me) as f64;
    };
    // Evenly spread tie-breaks, so the choice stays deterministic.
    let step = replies.cells.len().div_ceil(ties.max(1));
    let mut sum = 0.0;
    let mut count = 0;
    for &reply in replies.cells.iter().step_by(step) {
        let mut b2 = *board;
        b2.place(reply, me.other());
        sum += match opponents::choices(geo, &b2, me) {
            None => points_difference(&b2, me) as f64,
            Some(mine) if rounds <= 1 => mine.value as f64,
            Some(mine) => {
                let mut b3 = b2;
                b3.place(mine.cells[0], me);
                lookahead(geo, &b3, me, rounds - 1, ties)
            }
        };
        count += 1;
    }
    sum / f64::from(count)
}

/// The built-in player called `name`, drawing its random choices from `rng`;
/// `best` plans for the statement's 20 s and reads no clock (reproducible).
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Position>>> {
    Some(match name {
        "best" => Box::new(BestAgent::new(BestSettings::default())),
        _ => return timed_agent(name, rng, Some(super::GAME_TIME)),
    })
}

/// The built-in player called `name`; `best` is given `budget` for its whole
/// game, which a real clock enforces (its safety net is on).
pub fn timed_agent(
    name: &str,
    rng: ChaCha8Rng,
    budget: Option<Duration>,
) -> Option<Box<dyn Agent<Position>>> {
    Some(match name {
        "random" => Box::new(RandomAgent::new(rng)),
        "greedy" => Box::new(GreedyAgent::new(rng)),
        "server" => Box::new(ServerAgent::new(rng)),
        "best" => Box::new(BestAgent::new(BestSettings {
            budget,
            safety_net: true,
            ..BestSettings::default()
        })),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The levels a manager with `budget` plans for one side's moves at side `n`
    /// (real time spent: `real` before every move), as (empties, level).
    fn plan_game(n: usize, budget: Option<Duration>, real: Duration) -> Vec<(usize, usize)> {
        plan_game_net(n, budget, real, true)
    }

    /// [`plan_game`] with the safety net on or off.
    fn plan_game_net(
        n: usize,
        budget: Option<Duration>,
        real: Duration,
        safety_net: bool,
    ) -> Vec<(usize, usize)> {
        let s = BestSettings {
            budget,
            safety_net,
            ..BestSettings::default()
        };
        let mut clock = TimeManager::default();
        let cells = n * n;
        (1..cells)
            .rev()
            .step_by(2)
            .map(|e| {
                clock.real = real;
                (e, clock.plan(&s, e, cells))
            })
            .collect()
    }

    #[test]
    fn every_step_down_is_cheaper_and_the_full_settings_come_first() {
        for n in [4, 8, 16] {
            let cells = n * n;
            for e in 1..cells {
                let s = BestSettings::default();
                let works = s.works(e, cells);
                let costs: Vec<f64> = works.iter().map(|&w| work_units(w, e, cells)).collect();
                assert!(costs.windows(2).all(|c| c[1] < c[0]), "{n} {e}");
                let first = if e <= s.exact_from() {
                    let limit = if cells <= 64 { 15 } else { 12 };
                    if e <= limit {
                        Work::Expectimax
                    } else {
                        Work::Exact
                    }
                } else {
                    let rounds = if e > s.deep_at { 1 } else { s.rounds };
                    Work::Lookahead {
                        candidates: s.candidates,
                        ties: s.ties,
                        rounds,
                    }
                };
                assert_eq!(works[0], first);
                // Few empties: the exact solve may be the cheapest work.
                if e > s.exact_from() {
                    assert_eq!(
                        *works.last().unwrap(),
                        Work::Lookahead {
                            candidates: 1,
                            ties: 1,
                            rounds: 0
                        }
                    );
                }
            }
        }
    }

    #[test]
    fn lookahead_calls_count_the_server_searches() {
        // Written out by hand from `lookahead`.
        assert_eq!(lookahead_calls(0, 2), 0.0);
        assert_eq!(lookahead_calls(1, 2), 3.0);
        assert_eq!(lookahead_calls(2, 2), 9.0);
        assert_eq!(lookahead_calls(2, 1), 4.0);
        assert_eq!(lookahead_calls(3, 2), 1.0 + 2.0 * 10.0);
    }

    #[test]
    fn a_budget_that_does_not_bind_keeps_the_full_settings() {
        for n in [6, 8, 12, 16] {
            let none = plan_game(n, None, Duration::ZERO);
            assert!(none.iter().all(|&(_, l)| l == 0));
            let wide = plan_game(n, Some(Duration::from_secs(600)), Duration::ZERO);
            assert_eq!(wide, none, "{n}");
        }
        // The statement's 20 s bind only on the big boards.
        for n in [6, 8, 10, 12] {
            let plan = plan_game(n, Some(super::super::GAME_TIME), Duration::ZERO);
            assert!(plan.iter().all(|&(_, l)| l == 0), "{n}");
        }
    }

    #[test]
    fn a_binding_budget_steps_down_in_the_midgame_and_keeps_the_endgame() {
        let budget = super::super::GAME_TIME;
        let plan = plan_game(16, Some(budget), Duration::ZERO);
        assert!(plan.iter().any(|&(_, l)| l > 0));
        // The endgame's full work was set aside.
        assert!(plan.iter().filter(|&&(e, _)| e <= 14).all(|&(_, l)| l == 0));
        // The plan's estimate stays within its share of the budget.
        let s = BestSettings::default();
        let total: f64 = plan
            .iter()
            .map(|&(e, l)| work_units(s.works(e, 256)[l], e, 256))
            .sum();
        assert!(total * NS_PER_UNIT * 1e-9 <= budget.as_secs_f64() * PLAN_SHARE);
        // Deterministic: the same plan again, and the real time below the net does not matter.
        assert_eq!(plan_game(16, Some(budget), Duration::from_secs(11)), plan);
    }

    #[test]
    fn the_safety_net_takes_the_cheapest_work_when_real_time_runs_out() {
        let budget = Duration::from_secs(20);
        let plan = plan_game(12, Some(budget), Duration::from_secs(20));
        for (e, l) in plan {
            let works = BestSettings::default().works(e, 144);
            assert_eq!(l, works.len() - 1, "{e}");
        }
        // Without the net the real time is not read.
        let off = plan_game_net(12, Some(budget), Duration::from_secs(20), false);
        assert!(off.iter().all(|&(_, l)| l == 0));
    }
}
