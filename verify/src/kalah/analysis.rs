//! Kalah's exact values ([`Valuer`]): the stores' difference plus the board's
//! value from a table file of the game's rules, else from an alpha-beta
//! search that gives up at the deadline (and then says nothing).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use tabula_solver::alphabeta::{AlwaysReplace, EXACT, Searcher};
use tabula_solver::kalah::{self, Kalah, Pit, Rules};
use tabula_tables::kalah::{KalahGame, KalahTable, rules_of};

use crate::agent::Agent;
use crate::analysis::{
    AgentFn, AnalysisError, Analyst, DefaultStart, Exact, Valuer, VariantField, for_seat,
    table_params,
};
use serde_json::Value;

/// Slots of the search's transposition table (16 bytes each), shared by every search.
const SEARCH_BITS: u32 = 20;

/// Kalah's values: tables by rules, and one search for the rest.
pub struct KalahValues {
    tables: Vec<(Rules, KalahTable)>,
    /// The search's table and the rules its entries are of: a key is a
    /// board's index under its own rules, so one table serves one variant.
    search: Mutex<(Option<Rules>, AlwaysReplace<Pit>)>,
}

impl KalahValues {
    /// The tables of `paths`, each checked to be a Kalah table.
    pub fn open(paths: &[PathBuf]) -> Result<KalahValues, AnalysisError> {
        let mut tables = Vec::new();
        for path in paths {
            let rules = table_params(path, "kalah", rules_of)?;
            let table = KalahTable::open_for(KalahGame { rules }, path)
                .map_err(|e| AnalysisError::TableRead(e.to_string()))?;
            tables.push((rules, table));
        }
        Ok(KalahValues {
            tables,
            search: Mutex::new((None, AlwaysReplace::new(SEARCH_BITS))),
        })
    }

    /// The exact value of `position` for its mover, if found by `deadline`.
    fn board_value(&self, position: &Kalah, deadline: Instant) -> Option<i32> {
        if let Some((_, table)) = self.tables.iter().find(|(r, _)| *r == position.rules()) {
            return table.value(position).ok();
        }
        let mut search = self.search.lock().unwrap_or_else(|e| e.into_inner());
        let (of, slots) = &mut *search;
        if *of != Some(position.rules()) {
            slots.clear();
            *of = Some(position.rules());
        }
        let mut searcher = Searcher::new(slots).until(deadline);
        let total = position.seeds() as i32;
        let value = searcher.search(position, -total - 1, total + 1, EXACT);
        (!searcher.aborted()).then_some(value)
    }
}

impl Valuer for KalahValues {
    type Game = kalah::Match;
    const AGENTS: Option<AgentFn<kalah::Match>> = Some(kalah_agent);
    fn value(&self, state: &kalah::Match, deadline: Instant) -> Option<i32> {
        let m = state.mover;
        let ahead = state.stores[m] as i32 - state.stores[1 - m] as i32
            + self.board_value(&state.position, deadline)?;
        Some(for_seat(ahead, m))
    }
}

/// Kalah's greedy and random players, without tables (`optimal` plays by the values).
fn kalah_agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<kalah::Match>>> {
    (name != "optimal")
        .then(|| crate::kalah::players::agent(name, &[], rng, None, None, None))
        .flatten()
}

impl DefaultStart for kalah::Match {
    fn default_start() -> Option<Self> {
        Some(kalah::Match::new(Rules::new(4, 3).expect("Kalah(4, 3)")))
    }

    /// Kalah(m, n) and its rules.
    fn variant_fields() -> Vec<VariantField> {
        let field = |name, about, default: Value, choices| VariantField {
            name,
            about,
            default,
            choices,
        };
        vec![
            field("pits", "m, the pits on each side", 4.into(), Vec::new()),
            field("seeds", "n, the seeds in each pit", 3.into(), Vec::new()),
            field(
                "capture",
                "when a last seed in an own empty pit captures",
                "always".into(),
                vec!["always", "non-empty"],
            ),
            field(
                "ending",
                "when the game ends",
                "after-any-move".into(),
                vec!["after-any-move", "mover-stuck"],
            ),
        ]
    }

    fn variant_start(params: &Value) -> Result<kalah::Match, String> {
        Ok(kalah::Match::new(crate::kalah::notation::kalah_rules(
            params,
        )?))
    }

    fn board_syntax() -> Option<&'static str> {
        Some("3 3 3 3 / 3 3 3 3 (the mover's pits, then the opponent's, each in sowing order)")
    }

    /// Seat 0 to move on the board `tabula query kalah` reads; the seeds
    /// not on it are in the stores, split evenly (the odd one in seat 0's).
    fn from_board(text: &str, params: Option<&Value>) -> Result<kalah::Match, String> {
        let rules = match params {
            Some(params) => crate::kalah::notation::kalah_rules(params)?,
            None => Rules::new(4, 3).expect("Kalah(4, 3)"),
        };
        let position = parse_board(&rules, text)?;
        let rest = rules.total_seeds() - position.seeds();
        Ok(kalah::Match {
            position,
            mover: 0,
            stores: [rest - rest / 2, rest / 2],
        })
    }

    /// A pit of the mover's row: seat 0's below, left to right; seat 1's above, right to left.
    fn move_cell(&self, pit: kalah::Pit) -> Option<[usize; 2]> {
        let (m, pit) = (usize::from(self.position.rules().pits), usize::from(pit));
        Some(match self.mover {
            0 => [1, 1 + pit],
            _ => [0, m - pit],
        })
    }
}

/// The board `text` from the mover's side (her pits then the opponent's, each
/// in sowing order, the sides split by `/`), as `tabula query kalah` reads it.
pub fn parse_board(rules: &Rules, text: &str) -> Result<Kalah, String> {
    let [mover, opponent] =
        kalah::parse_sides(text, rules).map_err(|e| format!("bad board '{text}': {e}"))?;
    let position = Kalah::from_pits(*rules, &mover, &opponent);
    if position.seeds() > rules.total_seeds() {
        return Err(format!(
            "bad board '{text}': {} seeds, the game has {}",
            position.seeds(),
            rules.total_seeds()
        ));
    }
    Ok(position)
}

/// Kalah's analyst with the table files `tables` (searched otherwise).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    Ok(Box::new(Exact(KalahValues::open(tables)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::reference::plain_minimax;
    use std::collections::HashMap;
    use std::time::Duration;
    use tabula_solver::Game;

    /// Seat 0's final margin by the plain reference minimax, stores and all.
    fn plain(state: &kalah::Match, memo: &mut HashMap<kalah::Match, i32>) -> i32 {
        plain_minimax(state, kalah::Match::difference, memo)
    }

    #[test]
    fn search_values_match_plain_minimax_on_small_variants() {
        let far = Instant::now() + Duration::from_secs(60);
        // One search for every variant, in turn: as a server asked of several.
        let values = KalahValues::open(&[]).unwrap();
        for rules in [
            Rules::new(2, 2).unwrap(),
            Rules::new(3, 2)
                .unwrap()
                .with_capture(kalah::Capture::NonEmpty),
            Rules::new(3, 2)
                .unwrap()
                .with_ending(kalah::Ending::MoverStuck),
            Rules::new(2, 2).unwrap(),
        ] {
            let mut memo = HashMap::new();
            let mut state = kalah::Match::new(rules);
            let mut plies = 0;
            while !state.is_over() {
                assert_eq!(
                    values.value(&state, far),
                    Some(plain(&state, &mut memo)),
                    "{state:?}"
                );
                // Along a game of the highest pits, with extra turns and captures.
                let moves = state.moves();
                state.apply(moves[moves.len() - 1]);
                plies += 1;
            }
            assert!(plies > 2);
            assert_eq!(values.value(&state, far), Some(state.difference()));
        }
    }

    #[test]
    fn a_search_past_its_deadline_says_nothing() {
        let values = KalahValues::open(&[]).unwrap();
        let state = kalah::Match::new(Rules::new(6, 6).unwrap());
        assert_eq!(values.value(&state, Instant::now()), None);
    }
}
