//! The built-in PseudoTonga players: `random`, `greedy`, `server` and `best`.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::server::{self, Geometry};
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

fn pick(rng: &mut ChaCha8Rng, cells: &[Cell]) -> Cell {
    cells[rng.random_range(0..cells.len())]
}

/// One ply: a square that raises the mover's points the most; seeded ties.
pub struct GreedyAgent {
    rng: ChaCha8Rng,
    geo: GeoCache,
}

impl GreedyAgent {
    /// A greedy player breaking ties with `rng`.
    pub fn new(rng: ChaCha8Rng) -> GreedyAgent {
        GreedyAgent {
            rng,
            geo: GeoCache::default(),
        }
    }
}

impl Agent<Position> for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let choices = server::greedy_choices(self.geo.get(pos.board.n()), &pos.board, pos.to_move);
        pick(&mut self.rng, &choices)
    }
}

/// The server's own policy playing for the player: the baseline.
pub struct ServerAgent {
    rng: ChaCha8Rng,
    geo: GeoCache,
}

impl ServerAgent {
    /// The server's policy breaking ties with `rng`.
    pub fn new(rng: ChaCha8Rng) -> ServerAgent {
        ServerAgent {
            rng,
            geo: GeoCache::default(),
        }
    }
}

impl Agent<Position> for ServerAgent {
    fn name(&self) -> String {
        "server".into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let geo = self.geo.get(pos.board.n());
        let choices = server::choices(geo, &pos.board, pos.to_move).expect("board not full");
        pick(&mut self.rng, &choices.cells)
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
    /// Own candidate squares examined against the server's reply in the midgame.
    pub candidates: usize,
    /// Server tie-breaks averaged per candidate.
    pub ties: usize,
    /// Rounds (own move, server reply) looked ahead before the leaf evaluation.
    pub rounds: usize,
    /// Above this many empties only one round is searched (time at N=14, 16).
    pub deep_at: usize,
}

impl Default for BestSettings {
    fn default() -> BestSettings {
        BestSettings {
            expectimax_at: 12,
            expectimax_small_at: 15,
            exact_at: 16,
            candidates: 6,
            ties: 2,
            rounds: 2,
            deep_at: 160,
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
/// the player's own 3-ply value. Endgame: perfect play from 16 empties, and
/// the expectimax against the server's policy (uniform tie-breaks) from 12
/// (15 on boards up to 8×8). Deterministic: no clock is read.
pub struct BestAgent {
    settings: BestSettings,
    geo: GeoCache,
}

impl BestAgent {
    /// The strong player with the given settings.
    pub fn new(settings: BestSettings) -> BestAgent {
        BestAgent {
            settings,
            geo: GeoCache::default(),
        }
    }
}

/// Final-score difference for `me` on a full board.
fn points_difference(board: &Board, me: Colour) -> i64 {
    i64::from(board.points(me)) - i64::from(board.points(me.other()))
}

impl Agent<Position> for BestAgent {
    fn name(&self) -> String {
        "best".into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let board = pos.board;
        let me = pos.to_move;
        let empties = board.empties();
        let s = self.settings;
        if board.occupied().is_empty() {
            return server::middle_squares(&board)[0];
        }
        if empties <= s.exact_at {
            let mut game = Endgame::new(&board).expect("few empties");
            let limit = if board.cells() <= 64 {
                s.expectimax_small_at
            } else {
                s.expectimax_at
            };
            let best = if empties <= limit {
                game.against_server(me, me).1
            } else {
                game.solve_with_move(me).1
            };
            return best.expect("board not full");
        }
        let geo = self.geo.get(board.n());
        let mut ranked = server::all_values(geo, &board, me);
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut best: Option<(f64, Cell)> = None;
        for &(cell, _) in ranked.iter().take(s.candidates.max(1)) {
            let mut b1 = board;
            b1.place(cell, me);
            let rounds = if empties > s.deep_at { 1 } else { s.rounds };
            let value = lookahead(geo, &b1, me, rounds, s.ties);
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
    let Some(replies) = server::choices(geo, board, me.other()) else {
        return points_difference(board, me) as f64;
    };
    // Evenly spread tie-breaks, so the choice stays deterministic.
    let step = replies.cells.len().div_ceil(ties.max(1));
    let mut sum = 0.0;
    let mut count = 0;
    for &reply in replies.cells.iter().step_by(step) {
        let mut b2 = *board;
        b2.place(reply, me.other());
        sum += match server::choices(geo, &b2, me) {
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

/// The built-in player called `name`, drawing its random choices from `rng`.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Position>>> {
    Some(match name {
        "random" => Box::new(RandomAgent::new(rng)),
        "greedy" => Box::new(GreedyAgent::new(rng)),
        "server" => Box::new(ServerAgent::new(rng)),
        "best" => Box::new(BestAgent::new(BestSettings::default())),
        _ => return None,
    })
}
