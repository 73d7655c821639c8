//! `clairvoyant`: a reference ceiling that sees the other hand (never the
//! stock's order) and searches: exactly once the stock is empty, by
//! expectimax over draws under a node budget while it is not.
//!
//! Without an open hand in its view (a referee that did not open the other
//! hand to its seat) it still plays legally: the heaviest fitting tile
//! (the first in hand order on ties), else a draw or a pass.

use rand_chacha::ChaCha8Rng;
use tabula_solver::Game;
use tabula_solver::dominoes::search::{Budget, Table, evaluate_moves};
use tabula_solver::dominoes::{Match, Move, Position, Tiles, View};

use crate::agent::Agent;

/// Positions a decision may visit by default (chance search and endgame solves together).
pub const DEFAULT_NODES: u64 = 20_000;
/// The default table size: `2^16` slots each for the chance search and the endgame.
pub const DEFAULT_TABLE_BITS: u32 = 16;

/// The open-hand searcher.
pub struct Clairvoyant {
    budget: Budget,
    table_bits: u32,
    /// Allocated at the first decision; kept across decisions and games
    /// (stored values hold for any position of any deal) until a reseed drops it.
    table: Option<Table>,
}

impl Clairvoyant {
    /// A clairvoyant with the default budget and table.
    pub fn new() -> Clairvoyant {
        Clairvoyant::with_budget(Budget::nodes(DEFAULT_NODES), DEFAULT_TABLE_BITS)
    }

    /// A clairvoyant with this per-decision `budget` and `2^table_bits` table slots.
    pub fn with_budget(budget: Budget, table_bits: u32) -> Clairvoyant {
        Clairvoyant {
            budget,
            table_bits,
            table: None,
        }
    }
}

impl Default for Clairvoyant {
    fn default() -> Clairvoyant {
        Clairvoyant::new()
    }
}

/// The perfect-information position of `view` given the other hand `open`.
pub fn position_of(view: &View, open: Tiles) -> Position {
    let (left, right) = view.ends();
    let mine: Tiles = view.hand.iter().copied().collect();
    let mut hands = [Tiles::EMPTY; 2];
    hands[view.seat] = mine;
    hands[1 - view.seat] = open;
    Position {
        hands,
        stock: view.unseen().minus(open),
        left,
        right,
        mover: view.seat as u8,
    }
}

/// The heaviest fitting tile of the view's hand (first in hand order on
/// ties), else the draw or pass the rules leave.
pub fn heaviest_move(view: &View) -> Move {
    let moves = Match::view_moves(view);
    let mut best = moves[0];
    for &mv in moves.iter() {
        if let (Move::Place(t, _), Move::Place(b, _)) = (mv, best)
            && t.pips() > b.pips()
        {
            best = mv;
        }
    }
    best
}

impl Agent<Match> for Clairvoyant {
    fn name(&self) -> String {
        "clairvoyant".into()
    }

    fn reseed(&mut self, _rng: ChaCha8Rng) {
        // A table kept from earlier games would deepen its budgeted search.
        self.table = None;
    }

    fn choose(&mut self, view: &View) -> Move {
        let Some(open) = view.open_hand else {
            return heaviest_move(view);
        };
        let pos = position_of(view, open);
        let bits = self.table_bits;
        let table = self.table.get_or_insert_with(|| Table::new(bits));
        let eval = evaluate_moves(&pos, &self.budget, table);
        let (_, top) = eval.best();
        // Among the best (to rounding), the heaviest tile: fewer pips left if blocked later.
        let weight = |mv: Move| match mv {
            Move::Place(t, _) => t.pips() as i32,
            _ => -1,
        };
        let mut choice = eval.best().0;
        for &(mv, v) in eval.moves.iter() {
            if v >= top - 1e-9 && weight(mv) > weight(choice) {
                choice = mv;
            }
        }
        // The position names the left end when both ends are equal: legal as is.
        choice
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use tabula_solver::Turn;
    use tabula_solver::dominoes::search::reference_expectimax;
    use tabula_solver::dominoes::{Deal, Rules};

    /// Plays one game; the clairvoyant sits in `seat` with the other hand
    /// open to it when `open`. Returns its score; every move is checked legal.
    fn game(deal: &Deal, seat: usize, open: bool, rng: &mut ChaCha8Rng) -> f64 {
        let mut state = Match::new(deal);
        if open {
            state = state.with_open_hand(seat);
        }
        let mut me = Clairvoyant::new();
        let mut other = RandomAgent::new(ChaCha8Rng::seed_from_u64(rng.random()));
        loop {
            let mv = match state.turn() {
                Turn::Over => return state.scores()[seat],
                Turn::Chance => state.sample_chance(rng),
                Turn::Seat(s) if s == seat => me.choose(&state.view(s)),
                Turn::Seat(s) => Agent::<Match>::choose(&mut other, &state.view(s)),
            };
            state.check_move(mv).expect("a legal move");
            state.apply(mv);
        }
    }

    use rand::RngExt;

    #[test]
    fn it_plays_legally_and_crushes_random_play() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut open_score, mut blind_score, mut games) = (0.0, 0.0, 0);
        for rules in Rules::all() {
            for g in 0..6 {
                let deal = Deal::random(rules, &mut rng);
                open_score += game(&deal, g % 2, true, &mut rng);
                blind_score += game(&deal, g % 2, false, &mut rng);
                games += 1;
            }
        }
        let (open, blind) = (open_score / games as f64, blind_score / games as f64);
        // Dominoes has much luck: seeing the hand and searching is worth a lot, not everything.
        assert!(open > 0.7, "open {open} blind {blind}");
        assert!(open > blind + 0.15, "open {open} blind {blind}");
    }

    /// On small positions its move is one of the best by plain expectimax on the true state.
    #[test]
    fn its_choice_is_optimal_on_small_stocks() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut checked = 0;
        for _ in 0..400 {
            let rules = Rules::new(5, rng.random_range(5..=7)).unwrap();
            let mut state = Match::new(&Deal::random(rules, &mut rng));
            while !state.is_over() && (state.turn() == Turn::Chance || state.stock().len() > 3) {
                let mv = if state.turn() == Turn::Chance {
                    state.sample_chance(&mut rng)
                } else {
                    heaviest_move(&state.view(state.mover()))
                };
                state.apply(mv);
            }
            if state.is_over() {
                continue;
            }
            let seat = state.mover();
            let view = state.clone().with_open_hand(seat).view(seat);
            let mv = Clairvoyant::with_budget(Budget::UNLIMITED, 10).choose(&view);
            let pos = Position::of(&state);
            let value = |m: Move| {
                if m == Move::Draw {
                    reference_expectimax(&pos)
                } else {
                    1.0 - reference_expectimax(&pos.after(m))
                }
            };
            let best = state.moves().iter().map(|&m| value(m)).fold(0.0, f64::max);
            assert!((value(mv) - best).abs() < 1e-9, "{state:?} {mv:?}");
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
    }
}
