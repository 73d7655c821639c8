//! Dominoes' contest pieces: the wire, the opponent ladder, the players and
//! the referee's cases.

pub mod report;

use rand_chacha::ChaCha8Rng;
use tabula_solver::dominoes::{Deal, Match, Rules};

use crate::agent::{Agent, RandomAgent};
use crate::tournament::{Purpose, stream};

/// The built-in players and opponents, weakest first.
pub const AGENTS: &[&str] = &["random"];

/// Players that see the other hand (never the stock's order): the referee
/// opens the other hand to their seat with `Match::with_open_hand`, and every
/// report marks them as a reference ceiling.
pub const OPEN_HAND_AGENTS: &[&str] = &["clairvoyant"];

/// Whether the agent named `name` plays with the other hand open to it.
pub fn sees_open_hand(name: &str) -> bool {
    OPEN_HAND_AGENTS.contains(&name)
}

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Match>>> {
    match name {
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}

/// The key of a case in the random streams: `10 N + H`, so a case meets the
/// same deals whichever other cases a run includes.
pub fn case_key(rules: Rules) -> u64 {
    10 * u64::from(rules.numbers) + u64::from(rules.hand)
}

/// Deal number `index` of case `rules` for `seed`: every player and both
/// seatings of a pair meet it.
pub fn deal(seed: u64, rules: Rules, index: u64) -> Deal {
    Deal::random(
        rules,
        &mut stream(seed, Purpose::Setup, case_key(rules), index, 0),
    )
}

/// Why a `--cases` list was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CasesError {
    /// An item is not `N:H`.
    #[error("'{0}' is not N:H (e.g. 5:4,9:7) or all")]
    Syntax(String),
    /// N or H is out of range.
    #[error(transparent)]
    Range(#[from] tabula_solver::dominoes::rules::RulesError),
    /// A case is listed twice.
    #[error("case {0}:{1} is listed twice")]
    Repeated(u8, u8),
}

/// Reads `all` (the 20 cases) or a list like `5:4,9:7`.
pub fn parse_cases(text: &str) -> Result<Vec<Rules>, CasesError> {
    if text.trim() == "all" {
        return Ok(Rules::all().collect());
    }
    let mut cases: Vec<Rules> = Vec::new();
    for item in text.split(',') {
        let syntax = || CasesError::Syntax(item.chars().take(20).collect());
        let (n, h) = item.trim().split_once(':').ok_or_else(syntax)?;
        let n: u32 = n.parse().map_err(|_| syntax())?;
        let h: u32 = h.parse().map_err(|_| syntax())?;
        let rules = Rules::new(n, h)?;
        if cases.contains(&rules) {
            return Err(CasesError::Repeated(rules.numbers, rules.hand));
        }
        cases.push(rules);
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_parse_strictly() {
        assert_eq!(parse_cases("all").unwrap().len(), 20);
        let two = parse_cases("5:4,9:7").unwrap();
        assert_eq!(
            two,
            vec![Rules::new(5, 4).unwrap(), Rules::new(9, 7).unwrap()]
        );
        for bad in ["", "5", "5:", "5:4,", "x:4", "4:4", "5:8", "5:4,5:4", "5-4"] {
            assert!(parse_cases(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn deals_depend_on_the_case_not_on_the_run() {
        let r = Rules::new(7, 5).unwrap();
        assert_eq!(deal(1, r, 3), deal(1, r, 3));
        assert_ne!(deal(1, r, 3), deal(1, r, 4));
        assert_ne!(deal(1, r, 3), deal(2, r, 3));
    }
}
