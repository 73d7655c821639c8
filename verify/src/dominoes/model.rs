//! `best`'s model of the other seat, for the sampler's weights and the
//! playouts: a mix over a whole game of policies of the ladder's kind.
//!
//! - the server's one-move look-ahead ([`super::opponents`]), soft: a placement
//!   is chosen with probability ∝ `exp(value / SERVER_TEMPERATURE)`;
//! - heaviest-first ([`super::ladder::Heaviest`]);
//! - a soft heaviest-first player (`exp(0.2 · pips)`), the catch-all;
//! - doubles first ([`super::ladder::Doubles`]);
//! - the blocker ([`super::ladder::Blocker`]);
//! - uniformly random placements.
//!
//! Each mixes in [`NOISE`] of a uniformly random placement, so no observed
//! move rules a hand out. The sampler multiplies each policy's probabilities
//! over the game's placements and mixes the products by the priors, so a few
//! placements tell which policy the other seat follows.

use tabula_solver::dominoes::inference::{Decision, MAX_MODELS, OpponentModel};
use tabula_solver::dominoes::{Move, Position, Side, Tile, Tiles};

use super::ladder::{Numbers, best_by, blocker_key, doubles_key, heavy_key, numbers_of};
use super::opponents::{self, Outlook, SHIPPED, evaluate, features_at};

/// The server's softness: its values are divided by this before the softmax.
pub const SERVER_TEMPERATURE: f64 = 0.05;
/// The share of uniformly random placements in every policy.
pub const NOISE: f64 = 0.01;
/// The catch-all policy's preference for heavy tiles.
pub const SOFT_BETA: f64 = 0.2;

/// The soft catch-all's weight for placing `tile`: it places a tile with
/// probability in proportion to `exp(SOFT_BETA * pips)`.
pub fn soft_weight(tile: Tile) -> f64 {
    (SOFT_BETA * f64::from(tile.pips())).exp()
}

/// The playout policy's move (both hands known): the last tile first, then
/// a move that leaves the other hand nothing to place, then one that keeps
/// a tile of its own fitting, then doubles, then heavy tiles; the draw or
/// pass when nothing fits.
pub fn policy_move(pos: &Position) -> Move {
    let moves = pos.moves();
    let m = usize::from(pos.mover);
    let (mine, theirs) = (pos.hands[m], pos.hands[1 - m]);
    let mut best = moves[0];
    let mut best_key = i32::MIN;
    for &mv in moves.iter() {
        let Move::Place(t, side) = mv else {
            return mv;
        };
        let mut rest = mine;
        rest.remove(t);
        let (l, r) = match side {
            Side::Left => (t.other(pos.left), pos.right),
            Side::Right => (pos.left, t.other(pos.right)),
        };
        let ends = Tiles::matching(l, r);
        let key = 1000 * i32::from(rest.is_empty())
            + 100 * i32::from(theirs.and(ends).is_empty())
            + 30 * i32::from(!rest.and(ends).is_empty())
            + 10 * i32::from(t.is_double())
            + t.pips() as i32;
        if key > best_key {
            best_key = key;
            best = mv;
        }
    }
    best
}

/// Below any difference of the server's values: breaks their ties.
const TIE: f64 = 1e-7;

/// The components, in the order of [`OpponentModel::priors`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// The server's evaluation.
    Server = 0,
    /// Heaviest-first.
    Heaviest = 1,
    /// Soft heaviest-first, the catch-all.
    Soft = 2,
    /// Doubles first, then heaviest.
    Doubles = 3,
    /// Blocks ends the other hand lacks, keeps its own suits.
    Blocker = 4,
    /// Uniformly random placements.
    Random = 5,
}

/// The components by index.
pub const COMPONENTS: [Component; 6] = [
    Component::Server,
    Component::Heaviest,
    Component::Soft,
    Component::Doubles,
    Component::Blocker,
    Component::Random,
];

impl Component {
    /// The component's move in `pos` (the draw or pass when nothing fits),
    /// `missing` the numbers the mover has read the other seat to lack;
    /// `None` for [`Component::Random`], which has no single move.
    pub fn position_move(self, pos: &Position, missing: Numbers) -> Option<Move> {
        let m = usize::from(pos.mover);
        Some(match self {
            Component::Server => opponents::position_move(pos, &SHIPPED, missing),
            Component::Heaviest => heaviest_position_move(pos),
            Component::Soft => policy_move(pos),
            Component::Doubles => best_by(&pos.moves(), doubles_key),
            Component::Blocker => {
                let hand = pos.hands[m];
                let lacks = missing | !numbers_of(pos.hands[1 - m].or(pos.stock));
                let ends = (pos.left, pos.right);
                best_by(&pos.moves(), |t, s| blocker_key(ends, hand, lacks, t, s))
            }
            Component::Random => return None,
        })
    }
}

/// The ladder's model of the other seat (see the module).
#[derive(Clone, Debug)]
pub struct LadderModel {
    priors: Vec<f64>,
    /// The server's softness (see [`SERVER_TEMPERATURE`]).
    pub temperature: f64,
    /// The share of random placements (see [`NOISE`]).
    pub noise: f64,
}

impl Default for LadderModel {
    fn default() -> LadderModel {
        LadderModel {
            priors: vec![0.5, 0.1, 0.1, 0.1, 0.1, 0.1],
            temperature: SERVER_TEMPERATURE,
            noise: NOISE,
        }
    }
}

/// The placements open to `hand` at `ends` (one per tile when the ends are equal).
fn placements(hand: Tiles, ends: (u8, u8)) -> Vec<(Tile, Side)> {
    let mut out = Vec::new();
    for t in hand.and(Tiles::matching(ends.0, ends.1)).iter() {
        if t.has(ends.0) {
            out.push((t, Side::Left));
        }
        if t.has(ends.1) && ends.0 != ends.1 {
            out.push((t, Side::Right));
        }
    }
    out
}

/// 1 if the placement at `observed` has the greatest `key` of `moves`, else 0.
fn picks<K: Ord>(moves: &[(Tile, Side)], observed: usize, key: impl Fn(Tile, Side) -> K) -> f64 {
    let top = moves
        .iter()
        .enumerate()
        .max_by_key(|(_, (t, s))| key(*t, *s));
    f64::from(u8::from(top.map(|(i, _)| i) == Some(observed)))
}

/// The server's value of placing `tile` at `side` (wins and losses at once far apart).
fn server_value(
    ends: (u8, u8),
    late: bool,
    hand: Tiles,
    unseen: Tiles,
    lacks: u16,
    tile: Tile,
    side: Side,
) -> f64 {
    match features_at(ends, late, hand, unseen, lacks, tile, side) {
        Outlook::Win => 1e3,
        Outlook::Loss => -1e3,
        Outlook::Features(f) => evaluate(&SHIPPED, &f),
    }
}

impl LadderModel {
    /// The same model with other priors over its components (normalised).
    pub fn with_priors(&self, priors: &[f64]) -> LadderModel {
        assert_eq!(priors.len(), self.priors.len(), "one prior per component");
        let sum: f64 = priors.iter().sum();
        LadderModel {
            priors: priors.iter().map(|p| p / sum).collect(),
            ..self.clone()
        }
    }
}

impl OpponentModel for LadderModel {
    fn priors(&self) -> &[f64] {
        &self.priors
    }

    fn placement(&self, d: &Decision, held: Tiles, out: &mut [f64; MAX_MODELS]) {
        let moves = placements(held, d.ends);
        let k = moves.len().max(1) as f64;
        let same = |&(t, s): &(Tile, Side)| t == d.tile && (d.ends.0 == d.ends.1 || s == d.side);
        let Some(observed) = moves.iter().position(same) else {
            // The hand could not have made the move: no policy explains it.
            *out = [0.0; MAX_MODELS];
            return;
        };
        // Server: its view then (the unseen tiles and what it read of ours).
        let unseen = d.all.minus(d.line).minus(held);
        let lacks = d.read | (numbers_of(d.all) & !numbers_of(unseen));
        let late = d.stock == 0;
        // Equal values are broken as the server does, by `heavy_key`.
        let values: Vec<f64> = moves
            .iter()
            .map(|&(t, s)| {
                let below = moves
                    .iter()
                    .filter(|&&(u, v)| heavy_key(u, v) < heavy_key(t, s))
                    .count();
                server_value(d.ends, late, held, unseen, lacks, t, s) + TIE * below as f64
            })
            .collect();
        let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exp: Vec<f64> = values
            .iter()
            .map(|v| ((v - top) / self.temperature).exp())
            .collect();
        let server = exp[observed] / exp.iter().sum::<f64>();
        // The deterministic players: 1 for their move, else 0.
        let heavy = picks(&moves, observed, heavy_key);
        let doubles = picks(&moves, observed, doubles_key);
        let blocker = picks(&moves, observed, |t, s| {
            blocker_key(d.ends, held, lacks, t, s)
        });
        // Soft heaviest-first.
        let w: Vec<f64> = moves.iter().map(|&(t, _)| soft_weight(t)).collect();
        let soft = w[observed] / w.iter().sum::<f64>();
        let noisy = |p: f64| (1.0 - self.noise) * p + self.noise / k;
        *out = [
            noisy(server),
            noisy(heavy),
            noisy(soft),
            noisy(doubles),
            noisy(blocker),
            1.0 / k,
        ];
    }
}

/// The heaviest-first move in a position (the draw or pass when nothing fits).
pub fn heaviest_position_move(pos: &Position) -> Move {
    best_by(&pos.moves(), heavy_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Agent;
    use crate::dominoes::ladder::{Blocker, Doubles, Heaviest, Reading};
    use crate::dominoes::opponents::Server;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use tabula_solver::dominoes::inference::Knowledge;
    use tabula_solver::dominoes::{Deal, Match, Rules};
    use tabula_solver::{Game, Turn};

    /// Plays `opponent` (seat 1) against random moves (seat 0, which reads
    /// its views into a [`Knowledge`]); per decision read by seat 0, the
    /// opponent's true hand then.
    fn decisions(
        opponent: &mut dyn Agent<Match>,
        games: usize,
        seed: u64,
    ) -> Vec<(Decision, Tiles)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for g in 0..games {
            let rules = Rules::new(5 + (g % 5) as u32, 4 + (g % 4) as u32).unwrap();
            let mut state = Match::new(&Deal::random(rules, &mut rng));
            let first = state.view(0);
            let mut know = Knowledge::new(rules);
            know.start(rules, first.line.first().map(|&(a, b)| Tile::new(a, b)));
            opponent.start_game(1, &state.view(1));
            let mut hands = Vec::new();
            while !state.is_over() {
                let mv = match state.turn() {
                    Turn::Seat(0) => {
                        know.update(&state.view(0)).expect("consistent views");
                        let moves = state.moves();
                        moves[rng.random_range(0..moves.len())]
                    }
                    Turn::Seat(_) => {
                        let mv = opponent.choose(&state.view(1));
                        if matches!(mv, Move::Place(..)) {
                            hands.push(state.hand_set(1));
                        }
                        mv
                    }
                    _ => {
                        let moves = state.moves();
                        moves[rng.random_range(0..moves.len())]
                    }
                };
                state.apply(mv);
            }
            out.extend(know.decisions().into_iter().zip(hands));
        }
        out
    }

    /// With the true hands, the sharp model gives each deterministic ladder
    /// player's actual moves their component's top probability.
    #[test]
    fn the_components_explain_their_players() {
        let sharp = LadderModel {
            temperature: 1e-9,
            noise: 0.0,
            ..LadderModel::default()
        };
        let mut server = Server::default();
        let mut heaviest = Heaviest;
        let mut doubles = Doubles;
        let mut blocker = Blocker::new();
        for (player, component, seed) in [
            (&mut server as &mut dyn Agent<Match>, Component::Server, 1),
            (&mut heaviest, Component::Heaviest, 2),
            (&mut doubles, Component::Doubles, 3),
            (&mut blocker, Component::Blocker, 4),
        ] {
            let seen = decisions(player, 300, seed);
            assert!(seen.len() > 1000, "{} decisions", seen.len());
            let explained = seen
                .iter()
                .filter(|(d, hand)| {
                    let mut out = [0.0; MAX_MODELS];
                    sharp.placement(d, *hand, &mut out);
                    let ok = out[component as usize] > 0.5;
                    if !ok {
                        eprintln!("unexplained: {d:?} by {hand:?}: {out:?}");
                    }
                    ok
                })
                .count();
            assert_eq!(explained, seen.len(), "{component:?}");
        }
    }

    /// Each deterministic component's move in a position is the move its
    /// ladder player makes from the view of that position (`missing` read
    /// from the views as the player reads them).
    #[test]
    fn the_components_move_as_their_players() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut checked = 0;
        for (name, component) in [
            ("server", Component::Server),
            ("heaviest", Component::Heaviest),
            ("doubles", Component::Doubles),
            ("blocker", Component::Blocker),
        ] {
            for g in 0..60 {
                let rules = Rules::new(5 + (g % 5) as u32, 4 + (g % 4) as u32).unwrap();
                let mut state = Match::new(&Deal::random(rules, &mut rng));
                let mut player =
                    crate::dominoes::agent(name, ChaCha8Rng::seed_from_u64(g)).unwrap();
                let mut reading = Reading::new();
                player.start_game(1, &state.view(1));
                reading.start_game(&state.view(1));
                while !state.is_over() {
                    let mv = if state.turn() == Turn::Seat(1) {
                        let view = state.view(1);
                        reading.update(&view);
                        let modelled =
                            component.position_move(&Position::of(&state), reading.missing());
                        let mv = player.choose(&view);
                        reading.played(&view, mv);
                        assert_eq!(modelled, Some(mv), "{name} at {view:?}");
                        checked += 1;
                        mv
                    } else {
                        let moves = state.moves();
                        moves[rng.random_range(0..moves.len())]
                    };
                    state.apply(mv);
                }
            }
        }
        assert!(checked > 1000, "{checked} moves checked");
    }

    /// A hand that could not have made the move gets probability 0 from every component.
    #[test]
    fn an_impossible_move_has_no_probability() {
        let model = LadderModel::default();
        let rules = Rules::new(6, 5).unwrap();
        let d = Decision {
            tile: Tile::new(2, 3),
            side: Side::Left,
            ends: (2, 4),
            line: Tiles::EMPTY,
            stock: 5,
            read: 0,
            all: rules.tiles(),
        };
        let mut out = [1.0; MAX_MODELS];
        model.placement(
            &d,
            [Tile::new(4, 4), Tile::new(1, 2)].into_iter().collect(),
            &mut out,
        );
        assert_eq!(out, [0.0; MAX_MODELS]);
        model.placement(
            &d,
            [Tile::new(2, 3), Tile::new(1, 2)].into_iter().collect(),
            &mut out,
        );
        assert!(out.iter().all(|&p| p > 0.0 && p <= 1.0), "{out:?}");
    }
}
