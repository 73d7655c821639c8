//! Ioiwari's exact values ([`Valuer`]): the bank difference plus the
//! table's value of the board, for the IOI game and any variant's ring, from
//! a table file given or a table solved in memory once per ring.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tabula_solver::ioiwari::{self, Board, Params, Ring, RingMatch};
use tabula_tables::ioiwari::{VariantTable, variant_in_memory, variant_of};

use crate::agent::{Agent, RandomAgent};
use crate::analysis::{
    AgentFn, AnalysisError, Analyst, DefaultStart, Exact, GameAnalysis, PositionAnalysis, Valuer,
    VariantField, for_seat, table_params,
};
use crate::record::GameLine;
use crate::record::Notation;

use super::players;
use rand_chacha::ChaCha8Rng;

/// The most boards of a ring solved in memory when no table file holds it.
const MAX_IN_MEMORY: u64 = 20_000_000;

/// A ring's table by its (pits, cap); `None` when it is too large to solve in memory.
type ByRing = HashMap<(u8, u8), Option<Arc<VariantTable>>>;

/// Ring tables by (pits, cap): the files given, and those solved on first use.
#[derive(Default)]
pub struct RingTables {
    tables: Mutex<ByRing>,
}

impl RingTables {
    /// The tables of `paths`, each checked to be an Ioiwari table.
    pub fn open(paths: &[PathBuf]) -> Result<RingTables, AnalysisError> {
        let mut tables = HashMap::new();
        for path in paths {
            let variant = table_params(path, "ioiwari", |params| {
                variant_of(params)
                    .ok_or_else(|| format!("no Ioiwari ring has parameters {params:?}"))
            })?;
            let table = VariantTable::open_for(variant, path)
                .map_err(|e| AnalysisError::TableRead(e.to_string()))?;
            let key = (variant.params.pits, variant.params.cap);
            tables.insert(key, Some(Arc::new(table)));
        }
        Ok(RingTables {
            tables: Mutex::new(tables),
        })
    }

    /// The table of `ring`'s variant: given, or solved now when small enough.
    fn of(&self, ring: &Ring) -> Option<Arc<VariantTable>> {
        let key = (ring.pits().len() as u8, ring.cap());
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables
            .entry(key)
            .or_insert_with(|| {
                let params = Params::new(key.0, key.1, 0, 0, key.1).ok()?;
                (params.boards() <= MAX_IN_MEMORY)
                    .then(|| Arc::new(variant_in_memory(&params, &|_| {})))
            })
            .clone()
    }

    /// Seat 0's exact final margin from `ring` with `mover` to move and `banks` banked.
    fn margin(&self, ring: &Ring, mover: usize, banks: [u32; 2]) -> Option<i32> {
        let table = self.of(ring)?;
        let ahead = banks[mover] as i32 - banks[1 - mover] as i32 + table.value(ring).ok()?;
        Some(for_seat(ahead, mover))
    }
}

/// The IOI game's values, through its ring.
pub struct IoiValues(pub Arc<RingTables>);

impl Valuer for IoiValues {
    type Game = ioiwari::Match;
    const AGENTS: Option<AgentFn<ioiwari::Match>> = Some(ioi_agent);
    fn value(&self, state: &ioiwari::Match, _deadline: Instant) -> Option<i32> {
        let ring = Ring::new(&Params::default(), &state.board.pits()).ok()?;
        self.0.margin(&ring, state.mover, state.banks)
    }
}

/// The IOI game's greedy and random players (`optimal` plays by the values).
fn ioi_agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<ioiwari::Match>>> {
    match name {
        "greedy1" => Some(Box::new(players::Greedy1)),
        "greedy2" => Some(Box::new(players::Greedy2)),
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}

/// A variant's values.
pub struct RingValues(pub Arc<RingTables>);

impl Valuer for RingValues {
    type Game = RingMatch;
    fn value(&self, state: &RingMatch, _deadline: Instant) -> Option<i32> {
        self.0.margin(&state.board, state.mover, state.banks)
    }

    /// The ring's players; `optimal` reads its table when it has one.
    fn agent(
        &self,
        name: &str,
        state: &RingMatch,
        rng: ChaCha8Rng,
    ) -> Option<Box<dyn Agent<RingMatch>>> {
        let table = self.0.of(&state.board)?;
        players::agent::<Ring>(name, &table, rng)
    }
}

impl DefaultStart for ioiwari::Match {
    fn default_start() -> Option<Self> {
        Some(ioiwari::Match::new(
            "4 3 2 4 2 3 2"
                .parse::<Board>()
                .expect("the IOI sample board"),
        ))
    }

    fn board_syntax() -> Option<&'static str> {
        Some(BOARD_SYNTAX)
    }

    /// Player 1 to move on the IOI game's board, banks empty.
    fn from_board(text: &str, _params: Option<&serde_json::Value>) -> Result<Self, String> {
        let board = text.parse::<Board>().map_err(|e| bad_board(text, e))?;
        Ok(ioiwari::Match::new(board))
    }

    /// Pit k is the row's k-th cell.
    fn move_cell(&self, pit: u8) -> Option<[usize; 2]> {
        Some([0, usize::from(pit)])
    }
}

/// How an Ioiwari board is typed, as `tabula query ioiwari` reads it.
const BOARD_SYNTAX: &str = "4 3 2 4 2 3 2 (the beads in each pit, pit 1 first)";

/// `query ioiwari`'s words for a board it cannot read.
fn bad_board(text: &str, e: impl std::fmt::Display) -> String {
    format!("bad board '{}': {e}", text.trim())
}

impl DefaultStart for RingMatch {
    fn default_start() -> Option<Self> {
        let params = Params::default();
        Some(RingMatch::new(
            Ring::parse(&params, "4 3 2 4 2 3 2").expect("the IOI sample board"),
        ))
    }

    /// A ring: its starting pits and the most beads a pit holds.
    fn variant_fields() -> Vec<VariantField> {
        vec![
            VariantField {
                name: "board",
                about: "the beads in each pit of the ring, pit 1 first",
                default: "4 3 2 4 2 3 2".into(),
                choices: Vec::new(),
            },
            VariantField {
                name: "cap",
                about: "the most beads a pit holds",
                default: 5.into(),
                choices: Vec::new(),
            },
        ]
    }

    fn variant_start(params: &serde_json::Value) -> Result<RingMatch, String> {
        let board = crate::notation::text(params, "board")?;
        let cap = crate::notation::uint(params, "cap")?;
        let start = serde_json::json!({ "board": board, "cap": cap, "mover": 0, "banks": [0, 0] });
        RingMatch::from_start_json(&start)
    }

    fn board_syntax() -> Option<&'static str> {
        Some(BOARD_SYNTAX)
    }

    /// Player 1 to move on a ring of the variant's capacity, banks empty.
    fn from_board(text: &str, params: Option<&serde_json::Value>) -> Result<Self, String> {
        let cap = match params {
            Some(params) => u8::try_from(crate::notation::uint(params, "cap")?)
                .map_err(|e| format!("cap: {e}"))?,
            None => Params::default().cap,
        };
        let pits = u8::try_from(text.split_whitespace().count()).unwrap_or(u8::MAX);
        let params = Params::new(pits, cap, 0, 0, cap).map_err(|e| bad_board(text, e))?;
        let ring = Ring::parse(&params, text).map_err(|e| bad_board(text, e))?;
        Ok(RingMatch::new(ring))
    }

    fn move_cell(&self, pit: u8) -> Option<[usize; 2]> {
        Some([0, usize::from(pit)])
    }
}

/// Ioiwari's analyst: a log or start that names a capacity is a variant's.
pub struct IoiAnalyst {
    ioi: Exact<IoiValues>,
    ring: Exact<RingValues>,
}

/// Ioiwari's analyst with the table files `tables` (each ring's solved in memory otherwise).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    let tables = Arc::new(RingTables::open(tables)?);
    Ok(Box::new(IoiAnalyst {
        ioi: Exact(IoiValues(tables.clone())),
        ring: Exact(RingValues(tables)),
    }))
}

impl Analyst for IoiAnalyst {
    fn game(&self, line: &GameLine, deadline: Instant) -> Result<GameAnalysis, AnalysisError> {
        match line.start.get("cap") {
            Some(_) => self.ring.game(line, deadline),
            None => self.ioi.game(line, deadline),
        }
    }

    fn position(
        &self,
        start: Option<&serde_json::Value>,
        moves: &[String],
        line: bool,
        deadline: Instant,
    ) -> Result<PositionAnalysis, AnalysisError> {
        match start.and_then(|s| s.get("cap")) {
            Some(_) => self.ring.position(start, moves, line, deadline),
            None => self.ioi.position(start, moves, line, deadline),
        }
    }

    fn reply(
        &self,
        start: Option<&serde_json::Value>,
        moves: &[String],
        player: (&str, u64),
        deadline: Instant,
    ) -> Result<String, AnalysisError> {
        match start.and_then(|s| s.get("cap")) {
            Some(_) => self.ring.reply(start, moves, player, deadline),
            None => self.ioi.reply(start, moves, player, deadline),
        }
    }

    /// A variant is a ring.
    fn variant_fields(&self) -> Vec<VariantField> {
        self.ring.variant_fields()
    }

    fn variant(&self, params: &serde_json::Value) -> Result<serde_json::Value, AnalysisError> {
        self.ring.variant(params)
    }

    /// The IOI game's board unless the variant's ring is another (as `query ioiwari` chooses).
    fn setup(
        &self,
        text: &str,
        params: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, AnalysisError> {
        let ring = RingMatch::from_board(text, params).map_err(AnalysisError::Position)?;
        let ioi =
            ring.board.pits().len() == ioiwari::PITS && ring.board.cap() == ioiwari::MAX_BEADS;
        match ioi {
            true => self.ioi.setup(text, None),
            false => self.ring.setup(text, params),
        }
    }

    fn board_syntax(&self) -> Option<&'static str> {
        Some(BOARD_SYNTAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::reference::plain_minimax;
    use std::collections::HashMap;
    use tabula_solver::Game;
    use tabula_solver::ioiwari::BankMatch;

    /// Seat 0's final margin by the plain reference minimax, banks and all.
    fn plain<B: ioiwari::Sowable + Copy + Eq + std::hash::Hash>(
        state: &BankMatch<B>,
        memo: &mut HashMap<BankMatch<B>, i32>,
    ) -> i32 {
        plain_minimax(state, BankMatch::difference, memo)
    }

    fn far() -> Instant {
        Instant::now() + std::time::Duration::from_secs(60)
    }

    #[test]
    fn values_match_plain_minimax_along_played_games() {
        let tables = Arc::new(RingTables::default());
        let values = IoiValues(tables.clone());
        let mut memo = HashMap::new();
        for board in ioiwari::instances().into_iter().take(3) {
            let mut state = ioiwari::Match::new(board);
            // Along a game of the lowest pits, with banks filling up.
            while !state.is_over() {
                assert_eq!(
                    values.value(&state, far()),
                    Some(plain(&state, &mut memo)),
                    "{state:?}"
                );
                let mv = state.moves()[0];
                state.apply(mv);
            }
            assert_eq!(values.value(&state, far()), Some(state.difference()));
        }
        // A small variant's ring, with player 2 to move and banks.
        let params = Params::new(5, 3, 0, 0, 3).unwrap();
        let ring = Ring::parse(&params, "3 0 2 1 3").unwrap();
        let state = RingMatch {
            board: ring,
            mover: 1,
            banks: [2, 3],
        };
        let mut memo = HashMap::new();
        assert_eq!(
            RingValues(tables).value(&state, far()),
            Some(plain(&state, &mut memo))
        );
    }

    #[test]
    fn a_position_lists_every_move_with_its_plain_value() {
        let analyst = analyst(&[]).unwrap();
        let moves = vec!["3".to_string(), "4".to_string()];
        let found = analyst.position(None, &moves, true, far()).unwrap();
        let mut state = ioiwari::Match::default_start().unwrap();
        state.apply(2);
        state.apply(3);
        let mut memo = HashMap::new();
        assert_eq!(found.mover, Some(0));
        assert_eq!(found.value, Some(plain(&state, &mut memo)));
        for m in &found.legal {
            let mut child = state;
            child.apply(m.mv.parse::<u8>().unwrap() - 1);
            assert_eq!(m.value, Some(plain(&child, &mut memo)), "{}", m.mv);
        }
        assert_eq!(found.history.len(), 3);
        assert!(found.complete && found.line.is_some());
        // A bad move is named.
        let bad = analyst
            .position(None, &["9".into()], false, far())
            .unwrap_err();
        assert!(bad.to_string().starts_with("move 1 '9'"), "{bad}");
    }
}
