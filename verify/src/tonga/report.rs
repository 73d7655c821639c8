//! `verify tonga`: every built-in player against the server on the same games,
//! counted on the shared scoreboard, reported as the mean case score per N.

use crate::arena::GameRecord;
use crate::record::{At, GameLog};
use serde::Serialize;

use super::{agent, agent_rng, play_against_server, signed_sqrt};
use crate::report;
use crate::scoreboard::{Line, Scoreboard, SeatResult, Tally};
use crate::seat::{Limits, Local};
use crate::stats::Mean;
use crate::tournament::{self, Progress};

/// One player's results on one board size.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SizeResult {
    /// Board side.
    pub n: usize,
    /// Mean case score with its 95% interval.
    pub case_score: Mean,
    /// Sum of the signed square roots of the case scores.
    pub sqrt_score: f64,
    /// Games the player did not lose (case score ≥ 0).
    pub non_negative: usize,
}

/// One player's line of the report.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PlayerResult {
    /// Player name.
    pub player: String,
    /// Per board size.
    pub sizes: Vec<SizeResult>,
    /// Overall score: the sum of signed square roots over every game.
    pub overall: f64,
}

/// The verify report.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Seed of the run.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// Games per size and player.
    pub games: usize,
    /// Every player's results.
    pub players: Vec<PlayerResult>,
    /// The scoreboard's lines (entrant = player, case = `N=…`; score = points,
    /// margin = case score, case score = Σ signed √).
    pub lines: Vec<Line>,
}

/// The case name of board side `n` on the scoreboard.
pub fn case_name(n: usize) -> String {
    format!("N={n}")
}

/// A case's score: the sum of the signed square roots of its case scores.
pub fn sqrt_score(tally: &Tally) -> f64 {
    tally.margins.iter().map(|&m| signed_sqrt(m as i64)).sum()
}

/// Plays `games` seeded games per size for each named agent against the server.
///
/// Game `g` of size `n` has the same coin and server stream for every agent.
pub fn verify(
    agents: &[&str],
    sizes: &[usize],
    games: usize,
    seed: u64,
    progress: Progress<'_>,
    log: &GameLog,
) -> Report {
    let jobs: Vec<(usize, usize, usize)> = (0..agents.len())
        .flat_map(|a| {
            sizes
                .iter()
                .flat_map(move |&n| (0..games).map(move |g| (a, n, g)))
        })
        .collect();
    let play = |j: usize| {
        let (a, n, g) = jobs[j];
        let mut player = Local(agent(agents[a], agent_rng(seed, n, g)).expect("known agent"));
        play_against_server(n, g, seed, &mut player, Limits::default())
    };
    let each = |j: usize, (record, seat): (GameRecord<tabula_solver::tonga::Position>, usize)| {
        let (_, n, g) = jobs[j];
        let case = sizes.iter().position(|&s| s == n).expect("a listed size");
        log.record(&record, &n, &At::new(seed, case, case_name(n), g));
        SeatResult::of(&record, seat)
    };
    let results = tournament::run_in_order(jobs.len(), progress, play, &each);
    let mut board = Scoreboard::new();
    for (&(a, n, _), result) in jobs.iter().zip(results) {
        board.add(agents[a], &case_name(n), result);
    }
    Report::new(&board, agents, sizes, games, seed)
}

impl Report {
    /// The report of a scoreboard of games against the server.
    pub fn new(
        board: &Scoreboard,
        agents: &[&str],
        sizes: &[usize],
        games: usize,
        seed: u64,
    ) -> Report {
        let results = agents
            .iter()
            .map(|&name| {
                let sizes: Vec<SizeResult> = sizes
                    .iter()
                    .map(|&n| {
                        let empty = Tally::default();
                        let tally = board.tally(name, &case_name(n)).unwrap_or(&empty);
                        SizeResult {
                            n,
                            case_score: Mean::of(&tally.margins),
                            sqrt_score: sqrt_score(tally),
                            non_negative: tally.margins.iter().filter(|&&m| m >= 0.0).count(),
                        }
                    })
                    .collect();
                PlayerResult {
                    player: name.to_string(),
                    overall: sizes.iter().map(|s| s.sqrt_score).sum(),
                    sizes,
                }
            })
            .collect();
        Report {
            seed,
            games,
            players: results,
            lines: board.lines(&sqrt_score),
        }
    }

    /// Markdown: mean case score ± 95% interval per size, then the overall score.
    pub fn to_markdown(&self) -> String {
        let mut headers = vec!["player".to_string()];
        if let Some(first) = self.players.first() {
            headers.extend(first.sizes.iter().map(|s| format!("N={}", s.n)));
        }
        headers.push("overall Σ±√".into());
        let mut table = report::Table::new(&headers);
        for a in &self.players {
            let mut row = vec![a.player.clone()];
            row.extend(a.sizes.iter().map(|s| s.case_score.display(1)));
            row.push(format!("{:.1}", a.overall));
            table.row(&row);
        }
        format!(
            "{} seeded games per size (seed {}); cells are the mean case score \
             (player − server points) ± 95% CI.\n\n{}",
            self.games,
            self.seed,
            table.to_markdown()
        )
    }
}

impl Report {
    /// Each player's mean case score against the server per board side, as a plot.
    pub fn plot(&self) -> crate::plot::Plot {
        use crate::plot::{Plot, Point, Series};
        Plot {
            title: format!(
                "PseudoTonga: players against the server ({} games per side, seed {})",
                self.games, self.seed
            ),
            x_label: "board side N".into(),
            y_label: "case score: own points minus the server's (mean per game)".into(),
            series: self
                .players
                .iter()
                .map(|a| Series {
                    name: a.player.clone(),
                    points: a
                        .sizes
                        .iter()
                        .map(|s| Point::mean(case_name(s.n), &s.case_score))
                        .collect(),
                })
                .collect(),
            ceilings: Vec::new(),
            y_range: None,
        }
    }
}
