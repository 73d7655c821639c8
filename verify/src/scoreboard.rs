//! The one scoreboard: per-entrant, per-case results of any game, as Markdown
//! and JSON from one writer.

use std::collections::BTreeMap;

use serde::Serialize;
use tabula_solver::{Game, Seat};

use crate::arena::{GameRecord, Outcome};
use crate::report::Table;
use crate::stats::{Mean, Wdl};

/// A game's own score of a test case from one entrant's games in it.
pub type CaseScore<'a> = &'a dyn Fn(&Tally) -> f64;

/// Everything counted of one entrant in one case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Wins, draws and losses.
    pub wdl: Wdl,
    /// The entrant's score in each game.
    pub scores: Vec<f64>,
    /// Its score minus the best other seat's, in each game.
    pub margins: Vec<f64>,
    /// Its rank in each game (1 is best).
    pub ranks: Vec<usize>,
    /// Games lost by a fault.
    pub faults: usize,
}

/// What a tally counts of one seat's game: all a report keeps of the game's
/// record, so that a long run does not hold every game's moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatResult {
    /// The seat's outcome.
    pub outcome: Outcome,
    /// The seat's score.
    pub score: f64,
    /// Its score minus the best other seat's.
    pub margin: f64,
    /// Its rank (1 is best).
    pub rank: usize,
    /// Whether its fault ended the game.
    pub faulted: bool,
}

impl SeatResult {
    /// The result of `seat` in the game of `record`.
    pub fn of<G: Game>(record: &GameRecord<G>, seat: Seat) -> SeatResult {
        SeatResult {
            outcome: record.outcome(seat),
            score: record.scores[seat],
            margin: record.margin(seat),
            rank: record.rank(seat),
            faulted: record.fault.as_ref().is_some_and(|f| f.seat == seat),
        }
    }
}

impl Tally {
    /// Counts one game.
    pub fn add(&mut self, result: SeatResult) {
        self.wdl.add(match result.outcome {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        });
        self.scores.push(result.score);
        self.margins.push(result.margin);
        self.ranks.push(result.rank);
        if result.faulted {
            self.faults += 1;
        }
    }
}

/// Wins plus half the draws: the TopCoder score of a case of games.
pub fn wins_and_half_draws(tally: &Tally) -> f64 {
    tally.wdl.wins as f64 + tally.wdl.draws as f64 / 2.0
}

/// One line of the scoreboard: an entrant in a case.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Line {
    /// The entrant (a player's name, or a pairing like `a vs b`).
    pub entrant: String,
    /// The case (a board size, `(N,H)`, a starting board...).
    pub case: String,
    /// Games counted.
    pub games: u64,
    /// Wins, draws and losses.
    pub wdl: Wdl,
    /// Wilson 95% interval of the win rate.
    pub win_rate_ci95: (f64, f64),
    /// Mean score with its 95% interval.
    pub score: Mean,
    /// Mean margin over the best other seat with its 95% interval.
    pub margin: Mean,
    /// Mean rank (1 is best).
    pub mean_rank: f64,
    /// Games lost by a fault.
    pub faults: usize,
    /// The game's own score of the case.
    pub case_score: f64,
}

/// Results of many games by entrant and case.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    tallies: BTreeMap<(usize, usize), Tally>,
    entrants: Vec<String>,
    cases: Vec<String>,
}

/// A column of the Markdown table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Games counted.
    Games,
    /// `W/D/L`.
    Wdl,
    /// Win rate with its Wilson interval.
    WinRate,
    /// Mean score ± 95%.
    Score,
    /// Mean margin ± 95%.
    Margin,
    /// Mean rank.
    Rank,
    /// Faults.
    Faults,
    /// The game's case score.
    CaseScore,
}

impl Scoreboard {
    /// An empty scoreboard.
    pub fn new() -> Scoreboard {
        Scoreboard::default()
    }

    fn position(list: &mut Vec<String>, name: &str) -> usize {
        match list.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                list.push(name.to_string());
                list.len() - 1
            }
        }
    }

    /// Counts one game of `entrant` in `case`.
    pub fn add(&mut self, entrant: &str, case: &str, result: SeatResult) {
        let e = Scoreboard::position(&mut self.entrants, entrant);
        let c = Scoreboard::position(&mut self.cases, case);
        self.tallies.entry((e, c)).or_default().add(result);
    }

    /// The tally of an entrant in a case, if it played there.
    pub fn tally(&self, entrant: &str, case: &str) -> Option<&Tally> {
        let e = self.entrants.iter().position(|n| n == entrant)?;
        let c = self.cases.iter().position(|n| n == case)?;
        self.tallies.get(&(e, c))
    }

    /// Entrants in the order first seen.
    pub fn entrants(&self) -> &[String] {
        &self.entrants
    }

    /// Cases in the order first seen.
    pub fn cases(&self) -> &[String] {
        &self.cases
    }

    /// Every line, entrant by entrant, cases in order, scored by `case_score`.
    pub fn lines(&self, case_score: CaseScore<'_>) -> Vec<Line> {
        self.tallies
            .iter()
            .map(|(&(e, c), t)| Line {
                entrant: self.entrants[e].clone(),
                case: self.cases[c].clone(),
                games: t.wdl.games(),
                wdl: t.wdl,
                win_rate_ci95: t.wdl.win_rate_ci95(),
                score: Mean::of(&t.scores),
                margin: Mean::of(&t.margins),
                mean_rank: t.ranks.iter().sum::<usize>() as f64 / t.ranks.len().max(1) as f64,
                faults: t.faults,
                case_score: case_score(t),
            })
            .collect()
    }

    /// A Markdown table, one row per entrant and case, with these columns.
    pub fn to_markdown(&self, columns: &[Column], case_score: CaseScore<'_>) -> String {
        let mut headers = vec!["entrant".to_string(), "case".to_string()];
        headers.extend(columns.iter().map(|c| {
            match c {
                Column::Games => "games",
                Column::Wdl => "W/D/L",
                Column::WinRate => "win rate [95% CI]",
                Column::Score => "score ± 95%",
                Column::Margin => "margin ± 95%",
                Column::Rank => "mean rank",
                Column::Faults => "faults",
                Column::CaseScore => "case score",
            }
            .to_string()
        }));
        let mut table = Table::new(&headers);
        for line in self.lines(case_score) {
            let mut row = vec![line.entrant.clone(), line.case.clone()];
            row.extend(columns.iter().map(|c| match c {
                Column::Games => line.games.to_string(),
                Column::Wdl => format!("{}/{}/{}", line.wdl.wins, line.wdl.draws, line.wdl.losses),
                Column::WinRate => format!(
                    "{:.3} [{:.3}, {:.3}]",
                    line.wdl.win_rate(),
                    line.win_rate_ci95.0,
                    line.win_rate_ci95.1
                ),
                Column::Score => line.score.display(2),
                Column::Margin => line.margin.display(2),
                Column::Rank => format!("{:.2}", line.mean_rank),
                Column::Faults => line.faults.to_string(),
                Column::CaseScore => format!("{:.2}", line.case_score),
            }));
            table.row(&row);
        }
        table.to_markdown()
    }
}

/// A report as programs read it: what was run and every line (the game is
/// the stamp's, beside the run).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ScoreboardJson<E: Serialize> {
    /// The seed of the run.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// The game's own settings and totals, written beside `lines` (the
    /// games per case as `games`, as in every verify report).
    #[serde(flatten)]
    pub extra: E,
    /// Every line.
    pub lines: Vec<Line>,
}
