//! `verify reversi`: every player on the same cases, scored as the tester
//! scores them.
//!
//! A case is the tester's case (see [`super::referee`]): one game, the tested
//! player in seat 0 against opponents drawn from a population evolved afresh.
//! Each case's population is evolved once and its opponents are shared by
//! every player, and each player is built as `tabula referee reversi --agent
//! NAME` builds it (the agent stream of the seed), so a player's case scores
//! here are its referee run's case scores. That is why it plays each case
//! with the referee's own `referee_case` through [`tournament::run`] rather
//! than a `Schedule` of rotated seats: the seats are fixed (the player in 0,
//! the case's computers after it) and the computers are not named agents.
//!
//! Per side the report gives each player's mean case score with a 95%
//! Student-t interval (a handful of cases), the sum over the cases, and the
//! share of the oracle's margin over greedy, `(score − greedy)/(oracle −
//! greedy)`, when both were run and the oracle is above greedy. The oracle
//! knows the opponents' weights: a reference ceiling, not a contestant.

use std::sync::Arc;

use serde::Serialize;
use tabula_solver::reversi::board::MAX_CELLS;
use tabula_solver::reversi::{Board, Rule, Weights};

use super::evolve::Settings as GaSettings;
use super::referee::{CaseResult, opponents, referee_case};
use super::{AGENTS, Opponent, Predictions, REFERENCE_AGENTS, case_agent};
use crate::arena::GameRecord;
use crate::record::{At, GameLog};
use crate::report::Table;
use crate::seat::{Limits, Local};
use crate::stats::{Mean, paired_differences};
use crate::tournament::{self, Progress, Purpose, served_rng, stream};

/// The cases of a run, as the referee's options give them: the sides, the
/// cases per side and how each case's opponents are evolved.
#[derive(Clone, Debug)]
pub struct Suite {
    /// Board sides.
    pub sizes: Vec<usize>,
    /// Cases per side.
    pub cases: usize,
    /// The seed of the cases (as the referee's `--seed`).
    pub seed: u64,
    /// Generations of each case's genetic algorithm (`None`: drawn from 50..=100).
    pub generations: Option<usize>,
    /// Games per generation.
    pub ga_games: usize,
    /// The opponents' corner cases.
    pub rule: Rule,
}

impl Suite {
    /// The genetic algorithm's settings for the cases of side `n`.
    pub fn ga_settings(&self, n: usize) -> GaSettings {
        GaSettings {
            generations: self.generations,
            games: self.ga_games,
            rule: self.rule,
            ..GaSettings::new(n)
        }
    }

    /// The (side, case index) pairs, side by side.
    pub fn case_list(&self) -> Vec<(usize, usize)> {
        self.sizes
            .iter()
            .flat_map(|&n| (0..self.cases).map(move |k| (n, k)))
            .collect()
    }
}

/// What a verify run plays.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The players under test.
    pub players: Vec<String>,
    /// The cases they all play.
    pub suite: Suite,
}

/// Whether `name` is a player `case_agent` can build: asked of `case_agent`
/// itself, with stand-in opponents, so that no second list of names can drift.
pub fn known(name: &str) -> bool {
    let opponents = [Opponent {
        weights: Weights([0.0; MAX_CELLS]),
        rule: Rule::default(),
    }; 3];
    case_agent(
        name,
        stream(0, Purpose::Agent, 0, 0, 0),
        &opponents,
        &Arc::default(),
    )
    .is_some()
}

/// Every built-in player, then the reference players that exist.
pub fn default_players() -> Vec<String> {
    let mut names: Vec<String> = AGENTS.iter().map(|s| s.to_string()).collect();
    names.extend(REFERENCE_AGENTS.iter().map(|s| s.to_string()));
    names
}

/// One case's opponents: their weights (seats 1..) and their indices in the population.
pub type CaseOpponents = (Vec<Weights>, Vec<usize>);

/// Evolves every case's population once and draws its opponents, in
/// parallel; `progress` counts cases.
pub fn evolve_cases(suite: &Suite, progress: Progress<'_>) -> Vec<CaseOpponents> {
    let cases = suite.case_list();
    tournament::run(cases.len(), progress, |i| {
        let (n, k) = cases[i];
        opponents(suite.seed, &suite.ga_settings(n), k, &|_, _| {})
    })
}

/// A player's results on one side.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SizeResult {
    /// The side.
    pub n: usize,
    /// Players on it.
    pub players: usize,
    /// Case scores in case order.
    pub scores: Vec<f64>,
    /// Mean case score with its 95% Student-t interval.
    pub mean: Mean,
    /// Sum of the case scores.
    pub total: f64,
    /// (mean − greedy's) / (oracle's − greedy's), when both ran and the oracle is above greedy.
    pub oracle_share: Option<f64>,
    /// Cases lost by a fault.
    pub faults: usize,
    /// Its model's right predictions of the opponents' moves and predictions made on this side.
    pub predictions: (u64, u64),
}

/// One player's report.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlayerResult {
    /// The player.
    pub player: String,
    /// Whether it reads the opponents' weights (a reference ceiling).
    pub reference: bool,
    /// Sum of every case score (the contest's total).
    pub total: f64,
    /// The share of the oracle's margin over greedy on the totals.
    pub oracle_share: Option<f64>,
    /// Its model's right predictions of the opponents' moves and predictions made.
    pub predictions: (u64, u64),
    /// right / made, when it predicted anything.
    pub prediction_rate: Option<f64>,
    /// Per side, in the order of the settings.
    pub sizes: Vec<SizeResult>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// The seed.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// Cases per side (JSON: `cases_per_size`; `cases` is a list in every report).
    #[serde(rename = "cases_per_size")]
    pub cases: usize,
    /// GA generations (`null`: drawn from 50..=100 per case).
    pub generations: Option<usize>,
    /// GA games per generation.
    pub ga_games: usize,
    /// The opponents' rule.
    pub rule: String,
    /// Every player.
    pub players: Vec<PlayerResult>,
    /// Per side, the leader against every other contestant, case by case.
    pub comparisons: Vec<Comparison>,
    /// Per side, the goals for `best`, when it ran beside a model-free player.
    pub goals: Vec<Goal>,
}

/// The goals for `best` on one side, checked on this run's intervals.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Goal {
    /// The board's side.
    pub n: usize,
    /// The model-free contestant whose interval reaches highest.
    pub rival: String,
    /// `best`'s lower end minus the rival's upper end: above 0, the intervals
    /// are apart (`null` without intervals, below two cases).
    pub gap: f64,
    /// Whether `best`'s interval lies above every model-free contestant's.
    pub apart: bool,
    /// `best`'s share of the oracle's margin over greedy, when both ran.
    pub share: Option<f64>,
}

/// The player the goals are about.
const LEARNER: &str = "best";

/// Two players compared case by case on one board side.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Comparison {
    /// The board's side.
    pub n: usize,
    /// The contestant with the best mean case score on this side.
    pub leader: String,
    /// The player compared with the leader.
    pub other: String,
    /// The leader's case score minus the other's on the same cases, ± 95% (Student t).
    pub difference: Mean,
}

/// Plays every player on every case of `opponents` (from [`evolve_cases`]),
/// in parallel; `progress` counts games. Each game goes to `log`, player by
/// player and case by case, as the referee's `--log` writes it.
pub fn run(
    settings: &Settings,
    opponents: &[CaseOpponents],
    progress: Progress<'_>,
    log: &GameLog,
) -> Report {
    let cases = settings.suite.case_list();
    assert_eq!(cases.len(), opponents.len(), "one draw per case");
    let jobs = settings.players.len() * cases.len();
    // One count per game, summed per side and per player afterwards.
    let predictions: Vec<Arc<Predictions>> = (0..jobs).map(|_| Arc::default()).collect();
    let each = |job: usize, (result, record): (CaseResult, GameRecord<Board>)| {
        let c = job % cases.len();
        let (n, k) = cases[c];
        log.record(
            &record,
            &n,
            &At::new(settings.suite.seed, c, case_label(n, k), 0),
        );
        result
    };
    let results = tournament::run_in_order(
        jobs,
        progress,
        |job| {
            let (p, c) = (job / cases.len(), job % cases.len());
            let (n, _) = cases[c];
            let computers: Vec<Opponent> = opponents[c]
                .0
                .iter()
                .map(|&weights| Opponent {
                    weights,
                    rule: settings.suite.rule,
                })
                .collect();
            // The referee's stream for `--agent`: the same player in every case.
            let rng = served_rng(settings.suite.seed);
            let agent = case_agent(&settings.players[p], rng, &computers, &predictions[job])
                .expect("names were checked");
            let mut tested = Local(agent);
            referee_case(
                n,
                &opponents[c].0,
                settings.suite.rule,
                &mut tested,
                Limits::default(),
            )
        },
        &each,
    );
    let players = settings
        .players
        .iter()
        .enumerate()
        .map(|(p, name)| {
            let jobs = p * cases.len()..(p + 1) * cases.len();
            player_result(
                settings,
                &cases,
                name,
                &results[jobs.clone()],
                &predictions[jobs],
            )
        })
        .collect();
    let mut report = Report {
        seed: settings.suite.seed,
        cases: settings.suite.cases,
        generations: settings.suite.generations,
        ga_games: settings.suite.ga_games,
        rule: settings.suite.rule.to_string(),
        players,
        comparisons: Vec::new(),
        goals: Vec::new(),
    };
    report.fill_shares();
    report.fill_comparisons();
    report.fill_goals();
    report
}

/// One player's results over its cases (`mine`, in the order of `cases`)
/// and the predictions its model counted in each.
fn player_result(
    settings: &Settings,
    cases: &[(usize, usize)],
    name: &str,
    mine: &[CaseResult],
    counted: &[Arc<Predictions>],
) -> PlayerResult {
    let counts_where = |keep: &dyn Fn(usize) -> bool| {
        counted
            .iter()
            .enumerate()
            .filter(|&(c, _)| keep(cases[c].0))
            .fold((0, 0), |(r, a), (_, x)| {
                let (right, asked) = x.counts();
                (r + right, a + asked)
            })
    };
    let sizes = settings
        .suite
        .sizes
        .iter()
        .map(|&n| {
            let here: Vec<_> = mine.iter().filter(|r| r.n == n).collect();
            let scores: Vec<f64> = here.iter().map(|r| r.score).collect();
            SizeResult {
                n,
                players: Board::players_for(n),
                mean: Mean::of(&scores),
                total: scores.iter().sum(),
                scores,
                oracle_share: None,
                faults: here.iter().filter(|r| r.fault.is_some()).count(),
                predictions: counts_where(&|side| side == n),
            }
        })
        .collect();
    let counts = counts_where(&|_| true);
    PlayerResult {
        player: name.to_string(),
        reference: REFERENCE_AGENTS.contains(&name),
        total: mine.iter().map(|r| r.score).sum(),
        oracle_share: None,
        predictions: counts,
        prediction_rate: rate(counts),
        sizes,
    }
}

/// A player's name in the tables, a reference ceiling marked as one.
fn display_name(p: &PlayerResult) -> String {
    if p.reference {
        format!("{} (reference ceiling)", p.player)
    } else {
        p.player.clone()
    }
}

/// A table of one figure per player, `all` over every side, then `side`
/// side by side (the sides of `first`, every player's).
fn per_side_table<'a>(
    first: &PlayerResult,
    players: impl IntoIterator<Item = &'a PlayerResult>,
    all: impl Fn(&PlayerResult) -> String,
    side: impl Fn(&SizeResult) -> String,
) -> String {
    let mut headers = vec!["player".to_string(), "all".to_string()];
    headers.extend(first.sizes.iter().map(|s| format!("{0}×{0}", s.n)));
    let mut table = Table::new(&headers);
    for p in players {
        let mut row = vec![display_name(p), all(p)];
        row.extend(p.sizes.iter().map(&side));
        table.row(&row);
    }
    table.to_markdown()
}

/// A case's name in logs, as the referee names it (`N=7 case 0`).
pub fn case_label(n: usize, k: usize) -> String {
    format!("N={n} case {k}")
}

/// right / asked, when any prediction was made.
pub fn rate((right, asked): (u64, u64)) -> Option<f64> {
    (asked > 0).then(|| right as f64 / asked as f64)
}

/// (score − floor) / (ceiling − floor), when the ceiling is above the floor.
pub fn share(score: f64, floor: f64, ceiling: f64) -> Option<f64> {
    (ceiling > floor).then(|| (score - floor) / (ceiling - floor))
}

impl Report {
    /// Fills the shares of the oracle's margin over greedy, when both ran.
    pub fn fill_shares(&mut self) {
        let find = |name: &str| self.players.iter().position(|p| p.player == name);
        let (Some(o), Some(g)) = (find("oracle"), find("greedy")) else {
            return;
        };
        let (oracle, greedy) = (self.players[o].clone(), self.players[g].clone());
        for p in &mut self.players {
            p.oracle_share = share(p.total, greedy.total, oracle.total);
            for (i, s) in p.sizes.iter_mut().enumerate() {
                s.oracle_share = share(
                    s.mean.mean,
                    greedy.sizes[i].mean.mean,
                    oracle.sizes[i].mean.mean,
                );
            }
        }
    }

    /// Per side, the leading contestant against each other one, case by case
    /// (the oracle, a ceiling, is left out).
    pub fn fill_comparisons(&mut self) {
        self.comparisons.clear();
        let rivals: Vec<&PlayerResult> = self.players.iter().filter(|p| !p.reference).collect();
        let Some(first) = rivals.first() else {
            return;
        };
        for i in 0..first.sizes.len() {
            let leader = rivals
                .iter()
                .max_by(|a, b| a.sizes[i].mean.mean.total_cmp(&b.sizes[i].mean.mean))
                .expect("one contestant at least");
            for other in rivals.iter().filter(|p| p.player != leader.player) {
                let (a, b) = (&leader.sizes[i].scores, &other.sizes[i].scores);
                self.comparisons.push(Comparison {
                    n: leader.sizes[i].n,
                    leader: leader.player.clone(),
                    other: other.player.clone(),
                    difference: Mean::of(&paired_differences(a, b)),
                });
            }
        }
    }

    /// Per side, whether `best`'s interval clears every model-free contestant's
    /// (every other player that is not a reference) and its share of the
    /// oracle's margin; call after [`Report::fill_shares`].
    pub fn fill_goals(&mut self) {
        self.goals.clear();
        let Some(learner) = self.players.iter().find(|p| p.player == LEARNER) else {
            return;
        };
        let rivals: Vec<&PlayerResult> = self
            .players
            .iter()
            .filter(|p| !p.reference && p.player != LEARNER)
            .collect();
        if rivals.is_empty() {
            return;
        }
        for (i, mine) in learner.sizes.iter().enumerate() {
            let top = |p: &PlayerResult| p.sizes[i].mean.mean + p.sizes[i].mean.ci95;
            let rival = rivals
                .iter()
                .max_by(|a, b| top(a).total_cmp(&top(b)))
                .expect("one rival at least");
            let gap = mine.mean.mean - mine.mean.ci95 - top(rival);
            self.goals.push(Goal {
                n: mine.n,
                rival: rival.player.clone(),
                gap,
                // NaN (no interval) is not apart.
                apart: gap > 0.0,
                share: mine.oracle_share,
            });
        }
    }

    /// Each player's mean case score ± 95% per board side, as a plot; the
    /// reference players (the oracle) are the dashed ceiling.
    pub fn plot(&self) -> crate::plot::Plot {
        use crate::plot::{Plot, Point, Series};
        let series = |p: &PlayerResult| Series {
            name: p.player.clone(),
            points: p
                .sizes
                .iter()
                .map(|s| {
                    let case = format!("{0}×{0} (P={1})", s.n, s.players);
                    if p.reference {
                        Point::exact(case, s.mean.mean)
                    } else {
                        Point::mean(case, &s.mean)
                    }
                })
                .collect(),
        };
        Plot {
            title: format!(
                "MultiplayerReversi: players against evolved opponents ({} cases per side, seed {})",
                self.cases, self.seed
            ),
            x_label: "board side N (P players)".into(),
            y_label: "case score: owned × P / N² (mean per case; 1 = an equal share)".into(),
            series: self
                .players
                .iter()
                .filter(|p| !p.reference)
                .map(series)
                .collect(),
            ceilings: self
                .players
                .iter()
                .filter(|p| p.reference)
                .map(series)
                .collect(),
            y_range: None,
        }
    }

    /// The report in Markdown: mean case score ± 95% per side and the total,
    /// then the shares of the oracle's margin over greedy when both ran.
    pub fn to_markdown(&self) -> String {
        let Some(first) = self.players.first() else {
            return "no players\n".into();
        };
        let generations = self
            .generations
            .map_or("50 to 100 (drawn per case)".to_string(), |g| g.to_string());
        let mut out = format!(
            "MultiplayerReversi verify: seed {}, {} cases per side, every player on the same cases \
             (opponents evolved once per case: {generations} generations of {} games, rule {}). \
             Mean case score (owned × P / N², an equal share is 1) ± 95% (Student t); \
             total = sum over the {} cases. `oracle` knows the opponents' weights: \
             the reference ceiling, not a contestant.\n\n",
            self.seed,
            self.cases,
            self.ga_games,
            self.rule,
            first.sizes.len() * self.cases,
        );
        out += &self.scores_markdown(first);
        out += &self.shares_markdown(first);
        out += &self.comparisons_markdown();
        if !self.goals.is_empty() {
            out += &self.goals_markdown();
        }
        out += &self.predictions_markdown(first);
        out
    }

    /// The players' scores per side, the first table of [`Report::to_markdown`].
    fn scores_markdown(&self, first: &PlayerResult) -> String {
        let mut out = String::new();
        let mut headers = vec!["player".to_string(), "total".to_string()];
        headers.extend(
            first
                .sizes
                .iter()
                .map(|s| format!("{0}×{0} (P={1})", s.n, s.players)),
        );
        headers.push("faults".into());
        headers.push("prediction rate".into());
        let mut table = Table::new(&headers);
        for p in &self.players {
            let mut row = vec![display_name(p), format!("{:.3}", p.total)];
            row.extend(p.sizes.iter().map(|s| s.mean.display(3)));
            row.push(p.sizes.iter().map(|s| s.faults).sum::<usize>().to_string());
            row.push(p.prediction_rate.map_or("-".into(), |r| {
                format!("{:.1}% of {}", 100.0 * r, p.predictions.1)
            }));
            table.row(&row);
        }
        out += &table.to_markdown();
        out
    }

    /// The shares of the oracle's margin over greedy, if any player has one.
    fn shares_markdown(&self, first: &PlayerResult) -> String {
        let mut out = String::new();
        if self.players.iter().any(|p| p.oracle_share.is_some()) {
            out += "\nShare of the oracle's margin over greedy, (score − greedy) / (oracle − greedy):\n\n";
            let pct = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.0}%", 100.0 * x));
            let all = |p: &PlayerResult| pct(p.oracle_share);
            let side = |s: &SizeResult| pct(s.oracle_share);
            out += &per_side_table(first, &self.players, all, side);
        }
        out
    }

    /// The paired differences per side, if there are any.
    fn comparisons_markdown(&self) -> String {
        let mut out = String::new();
        if !self.comparisons.is_empty() {
            out += "\nPaired differences per side: the leading player's case score minus each \
                    other player's on the same cases (± 95%, Student t). An interval clear of 0 \
                    separates two players even where their intervals above overlap.\n\n";
            let mut table =
                Table::new(&["side", "leader − other", "difference ± 95%", "clear of 0"]);
            for c in &self.comparisons {
                let d = c.difference;
                table.row(&[
                    format!("{0}×{0}", c.n),
                    format!("{} − {}", c.leader, c.other),
                    d.display_signed(3),
                    d.clear_of_zero().into(),
                ]);
            }
            out += &table.to_markdown();
        }
        out
    }

    /// How often the players' models predicted the opponents, if any did.
    fn predictions_markdown(&self, first: &PlayerResult) -> String {
        let mut out = String::new();
        let predicting: Vec<&PlayerResult> = self
            .players
            .iter()
            .filter(|p| p.predictions.1 > 0)
            .collect();
        if !predicting.is_empty() {
            out += "\nHow often a player's model named the opponents' next move, per side (right / predicted):\n\n";
            let pct = |c: (u64, u64)| {
                rate(c).map_or("-".into(), |r| format!("{:.1}% of {}", 100.0 * r, c.1))
            };
            let all = |p: &PlayerResult| pct(p.predictions);
            let side = |s: &SizeResult| pct(s.predictions);
            out += &per_side_table(first, predicting, all, side);
        }
        out
    }

    /// The goals' section of [`Report::to_markdown`].
    fn goals_markdown(&self) -> String {
        let mut out = format!(
            "\nThe issue's goals for `{LEARNER}`, per side: its 95% interval above every \
             model-free player's (the one reaching highest is named; the gap is `{LEARNER}`'s \
             lower end minus its upper end), and at least half of the oracle's margin over \
             greedy, aiming for three quarters.\n\n"
        );
        let mut table = Table::new(&[
            "side",
            "closest model-free player",
            "gap",
            "intervals apart",
            "share of the margin",
            "half",
            "three quarters",
        ]);
        let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
        let at_least = |share: Option<f64>, goal: f64| share.map_or("-".into(), |s| yes(s >= goal));
        for g in &self.goals {
            table.row(&[
                format!("{0}×{0}", g.n),
                g.rival.clone(),
                if g.gap.is_nan() {
                    "n/a".into()
                } else {
                    format!("{:+.3}", g.gap)
                },
                yes(g.apart),
                g.share.map_or("-".into(), |s| format!("{:.0}%", 100.0 * s)),
                at_least(g.share, 0.5),
                at_least(g.share, 0.75),
            ]);
        }
        out += &table.to_markdown();
        let apart = self.goals.iter().all(|g| g.apart);
        let half = self.goals.iter().all(|g| g.share.is_some_and(|s| s >= 0.5));
        out += &format!(
            "\nOn every side: intervals apart {}, half of the margin {}.\n",
            yes(apart),
            if self.goals.iter().any(|g| g.share.is_none()) {
                "- (needs greedy and oracle)".to_string()
            } else {
                yes(half)
            }
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(n: usize, scores: &[f64]) -> SizeResult {
        SizeResult {
            n,
            players: Board::players_for(n),
            scores: scores.to_vec(),
            mean: Mean::of(scores),
            total: scores.iter().sum(),
            oracle_share: None,
            faults: 0,
            predictions: (0, 0),
        }
    }

    fn player(name: &str, a: &[f64], b: &[f64]) -> PlayerResult {
        PlayerResult {
            player: name.into(),
            reference: REFERENCE_AGENTS.contains(&name),
            total: a.iter().chain(b).sum(),
            oracle_share: None,
            predictions: (0, 0),
            prediction_rate: None,
            sizes: vec![size(7, a), size(8, b)],
        }
    }

    fn report(players: Vec<PlayerResult>) -> Report {
        Report {
            seed: 1,
            cases: 2,
            generations: Some(1),
            ga_games: 4,
            rule: "Rule".into(),
            players,
            comparisons: Vec::new(),
            goals: Vec::new(),
        }
    }

    #[test]
    fn shares_of_the_oracles_margin_are_taken_per_side_and_on_the_totals() {
        let mut r = report(vec![
            player("greedy", &[1.0, 1.0], &[0.5, 0.5]),
            player("paranoid", &[1.5, 1.5], &[0.5, 0.5]),
            player("oracle", &[2.0, 2.0], &[0.5, 0.5]),
        ]);
        r.fill_shares();
        let p = &r.players[1];
        assert_eq!(p.sizes[0].oracle_share, Some(0.5));
        // On 8×8 the oracle is not above greedy: no share.
        assert_eq!(p.sizes[1].oracle_share, None);
        // Totals: greedy 3, paranoid 4, oracle 5.
        assert_eq!(p.oracle_share, Some(0.5));
        assert_eq!(r.players[0].oracle_share, Some(0.0));
        assert_eq!(r.players[2].oracle_share, Some(1.0));
        let text = r.to_markdown();
        assert!(text.contains("oracle (reference ceiling)"));
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("| paranoid | 50% | 50% | - |"), "{text}");
        assert_eq!(share(1.0, 2.0, 2.0), None);
        assert_eq!(share(3.0, 2.0, 4.0), Some(0.5));
    }

    #[test]
    fn each_sides_leader_is_compared_case_by_case_with_every_contestant() {
        let mut r = report(vec![
            player("greedy", &[1.0, 1.2, 0.8], &[0.5, 0.9, 0.7]),
            player("paranoid", &[1.5, 1.8, 1.2], &[0.4, 0.8, 0.7]),
            player("oracle", &[2.0, 2.0, 2.0], &[3.0, 3.0, 3.0]),
        ]);
        r.fill_comparisons();
        // The oracle is a ceiling: one pair per side.
        let pairs: Vec<(usize, &str, &str)> = r
            .comparisons
            .iter()
            .map(|c| (c.n, c.leader.as_str(), c.other.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [(7, "paranoid", "greedy"), (8, "greedy", "paranoid")]
        );
        // 7×7: differences 0.5, 0.6, 0.4.
        let d = r.comparisons[0].difference;
        assert!((d.mean - 0.5).abs() < 1e-12, "{d:?}");
        assert!((d.ci95 - 4.303 * 0.1 / 3f64.sqrt()).abs() < 1e-9, "{d:?}");
        let words = r
            .to_markdown()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            words.contains("| 7×7 | paranoid − greedy | +0.500 ± 0.248 | yes |"),
            "{words}"
        );
        assert!(
            words.contains("| 8×8 | greedy − paranoid | +0.067 ± 0.143 | no |"),
            "{words}"
        );
    }

    #[test]
    fn the_plot_has_a_point_per_player_and_side_and_the_oracle_as_ceiling() {
        let r = report(vec![
            player("greedy", &[1.0, 1.2], &[0.5, 0.7]),
            player("oracle", &[2.0, 2.0], &[0.9, 1.1]),
        ]);
        let plot = r.plot();
        assert_eq!(plot.series.len(), 1);
        assert_eq!(plot.ceilings.len(), 1);
        assert_eq!(plot.ceilings[0].name, "oracle");
        let greedy = &plot.series[0].points;
        assert_eq!(greedy.len(), 2);
        assert!((greedy[0].mean - 1.1).abs() < 1e-12);
        assert!(greedy[0].low < 1.1 && greedy[0].high > 1.1);
        let svg = plot.to_svg().unwrap();
        let text = crate::plot::svg_text(&svg).unwrap();
        for label in [
            "MultiplayerReversi",
            "board side N (P players)",
            "case score",
            "greedy",
            "oracle (ceiling)",
            "7×7 (P=3)",
            "8×8 (P=4)",
        ] {
            assert!(text.contains(label), "{label} missing from {text}");
        }
    }

    #[test]
    fn the_goals_name_the_closest_model_free_interval_and_the_share() {
        let mut r = report(vec![
            player("greedy", &[1.0; 3], &[0.5; 3]),
            player("paranoid", &[1.0; 3], &[0.5; 3]),
            player("brs", &[0.0; 3], &[1.5; 3]),
            player("best", &[2.0; 3], &[1.0, 3.0, 2.0]),
            player("oracle", &[3.0; 3], &[3.5; 3]),
        ]);
        r.fill_shares();
        r.fill_goals();
        assert_eq!(r.goals.len(), 2);
        // 7×7: every interval is a point; best's 2 is clear of paranoid's 1.
        let g = &r.goals[0];
        assert_eq!((g.n, g.rival.as_str(), g.apart), (7, "paranoid", true));
        assert!((g.gap - 1.0).abs() < 1e-12);
        assert_eq!(g.share, Some(0.5));
        // 8×8: best's wide interval reaches below brs's 1.5.
        let g = &r.goals[1];
        let mine = Mean::of(&[1.0, 3.0, 2.0]);
        assert_eq!((g.n, g.rival.as_str(), g.apart), (8, "brs", false));
        assert!((g.gap - (mine.mean - mine.ci95 - 1.5)).abs() < 1e-12);
        assert_eq!(g.share, Some(0.5));
        let md = r.to_markdown();
        assert!(md.contains("| 7×7  | paranoid"), "{md}");
        assert!(
            md.contains("On every side: intervals apart no, half of the margin yes."),
            "{md}"
        );
        // Without best, or with no model-free player beside it, there are no goals.
        r.players
            .retain(|p| p.player == "best" || p.player == "oracle");
        r.fill_goals();
        assert!(r.goals.is_empty());
        assert!(!r.to_markdown().contains("goals"));
    }

    #[test]
    fn without_the_oracle_or_greedy_there_are_no_shares() {
        let mut r = report(vec![
            player("greedy", &[1.0, 1.0], &[0.5, 0.5]),
            player("brs", &[1.5, 1.5], &[0.5, 0.5]),
        ]);
        r.fill_shares();
        assert!(r.players.iter().all(|p| p.oracle_share.is_none()));
        assert!(!r.to_markdown().contains("Share of the oracle"));
    }

    fn small(players: &[&str], seed: u64) -> Settings {
        Settings {
            players: players.iter().map(|s| s.to_string()).collect(),
            suite: Suite {
                sizes: vec![7, 8],
                cases: 2,
                seed,
                generations: Some(1),
                ga_games: 4,
                rule: Rule::default(),
            },
        }
    }

    #[test]
    fn every_player_meets_the_same_cases_and_scores_as_the_referee_does() {
        let settings = small(&["random", "greedy", "weights"], 3);
        let drawn = evolve_cases(&settings.suite, &|_| {});
        let r = run(&settings, &drawn, &|_| {}, &GameLog::off());
        assert_eq!(r.players.len(), 3);
        for (p, name) in r.players.iter().zip(&settings.players) {
            for (s, &n) in p.sizes.iter().zip(&settings.suite.sizes) {
                assert_eq!(s.scores.len(), 2);
                for (k, &score) in s.scores.iter().enumerate() {
                    // The referee's own case with the referee's agent stream.
                    let c = settings.suite.sizes.iter().position(|&m| m == n).unwrap() * 2 + k;
                    let agent = super::super::agent(name, stream(3, Purpose::Agent, 0, 0, 0));
                    let mut tested = Local(agent.unwrap());
                    let (result, _) = referee_case(
                        n,
                        &drawn[c].0,
                        Rule::default(),
                        &mut tested,
                        Limits::default(),
                    );
                    assert_eq!(result.score, score, "{name} n {n} case {k}");
                }
                assert!((s.total - s.scores.iter().sum::<f64>()).abs() < 1e-12);
            }
            let sum: f64 = p.sizes.iter().map(|s| s.total).sum();
            assert!((p.total - sum).abs() < 1e-12);
            assert_eq!(p.prediction_rate, None);
        }
        let again = run(
            &settings,
            &evolve_cases(&settings.suite, &|_| {}),
            &|_| {},
            &GameLog::off(),
        );
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&again).unwrap()
        );
    }

    #[test]
    fn predictions_are_counted_per_side_and_add_up_to_the_players_total() {
        let settings = small(&["greedy", "best"], 4);
        let r = run(
            &settings,
            &evolve_cases(&settings.suite, &|_| {}),
            &|_| {},
            &GameLog::off(),
        );
        let best = &r.players[1];
        // best predicts every opponent move after the first ones, on every side.
        for s in &best.sizes {
            assert!(
                s.predictions.1 > 0 && s.predictions.0 <= s.predictions.1,
                "{s:?}"
            );
        }
        let sum = best.sizes.iter().fold((0, 0), |a, s| {
            (a.0 + s.predictions.0, a.1 + s.predictions.1)
        });
        assert_eq!(sum, best.predictions);
        assert_eq!(best.prediction_rate, rate(sum));
        assert!(r.players[0].sizes.iter().all(|s| s.predictions == (0, 0)));
        let text = r.to_markdown();
        assert!(text.contains("per side (right / predicted)"), "{text}");
    }

    #[test]
    fn the_defaults_are_the_built_in_players_and_every_reference_that_exists() {
        let names = default_players();
        for a in AGENTS {
            assert!(names.iter().any(|n| n == a));
        }
        assert!(names.iter().all(|n| known(n)));
        assert!(!known("nobody"));
    }
}
