//! `verify dominoes`: every built-in player against every opponent of the
//! ladder on the same paired deals, reported as the contest scores them.
//!
//! Each deal of a case is played twice, seats swapped, so both players of a
//! pairing hold both hands of every deal, and every pairing meets the same
//! deals and the same draws (the deal and the chance stream depend only on the
//! seed, the case and the deal's number, so a case plays the same games
//! whichever cases run beside it).

use serde::Serialize;
use tabula_solver::dominoes::{Match, Rules};

use super::{agent, deal, sees_open_hand};
use crate::arena::GameRecord;
use crate::record::{At, GameLog};
use crate::report::Table;
use crate::scoreboard::{Scoreboard, SeatResult, Tally, wins_and_half_draws};
use crate::stats::{Mean, paired_differences};
use crate::tournament::{
    Job, Lifetime, Lineup, Played, Progress, Schedule, Seatings, play_schedule,
};

/// A case's key in the schedule's streams: its place among the contest's
/// cases (`Rules::all`), which a run of every case has always used.
fn stream_key(rules: Rules) -> u64 {
    Rules::all()
        .position(|r| r == rules)
        .expect("a case of the contest") as u64
}

/// What a verify run plays.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The players under test.
    pub players: Vec<String>,
    /// The opponents they each meet.
    pub opponents: Vec<String>,
    /// The (N, H) cases.
    pub cases: Vec<Rules>,
    /// Games per case and pairing; even, since every deal is played twice.
    pub games: usize,
    /// The seed of every deal, draw and agent stream.
    pub seed: u64,
}

/// A player's results in one case against one opponent.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PairingCase {
    /// N.
    pub n: u8,
    /// H.
    pub h: u8,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Ties, written `draws` as in every report.
    #[serde(rename = "draws")]
    pub ties: u64,
    /// Losses.
    pub losses: u64,
    /// Mean points per game (win 1, tie ½) with its 95% interval.
    pub points: Mean,
    /// Points per game when the player's hand opened (its tile was placed first).
    pub opener: Mean,
    /// Points per game when the other hand opened and the player moved first.
    pub replier: Mean,
    /// Games lost by a fault.
    pub faults: usize,
}

/// A player against one opponent over every case.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Pairing {
    /// The player.
    pub player: String,
    /// The opponent.
    pub opponent: String,
    /// Whether the player sees the other hand (a reference ceiling, not a contestant).
    pub reference: bool,
    /// The contest's total: points per 100 games summed over the cases (out of 100 per case).
    pub total: f64,
    /// Mean points per game over every case, with its 95% interval.
    pub points: Mean,
    /// Mean points per game as opener and as replier, over every case.
    pub opener: Mean,
    /// As replier.
    pub replier: Mean,
    /// (points − ½) / (clairvoyant's points − ½) against the same opponent, when
    /// the clairvoyant was run and beat ½.
    pub clairvoyant_share: Option<f64>,
    /// Per case.
    pub cases: Vec<PairingCase>,
    /// Points per game in schedule order: the same deal, seat and draws at the
    /// same index in every pairing of the run.
    #[serde(skip)]
    pub scores: Vec<f64>,
}

/// Two players against one opponent, compared game by game.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Comparison {
    /// The opponent both met.
    pub opponent: String,
    /// The player with the most points against it (reference ceilings aside).
    pub leader: String,
    /// The player compared with the leader.
    pub other: String,
    /// The leader's points minus the other's, game by game on the same deals,
    /// seats and draws, with its 95% interval.
    pub difference: Mean,
}

/// The whole report.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// The seed.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// Games per case and pairing.
    pub games: usize,
    /// Every pairing, player by player, opponents in order.
    pub pairings: Vec<Pairing>,
    /// Per opponent, the leader against every other player (contestants only).
    pub comparisons: Vec<Comparison>,
}

/// The name of a case on the scoreboard.
pub fn case_name(rules: Rules) -> String {
    format!("N={} H={}", rules.numbers, rules.hand)
}

/// Plays every pairing of `settings` and tallies it; `progress` counts games.
/// A player meets an opponent for a whole case at a time, as over the
/// protocol: its agent lives for the case and may learn from game to game.
pub fn run(settings: &Settings, progress: Progress<'_>, log: &GameLog) -> Report {
    run_with(settings, Lifetime::Case, progress, log)
}

fn run_with(
    settings: &Settings,
    lifetime: Lifetime,
    progress: Progress<'_>,
    log: &GameLog,
) -> Report {
    assert!(
        settings.games >= 2 && settings.games.is_multiple_of(2),
        "paired deals need an even number of games"
    );
    let deals = settings.games / 2;
    let schedule = Schedule {
        case_keys: settings
            .cases
            .iter()
            .map(|&rules| stream_key(rules))
            .collect(),
        games: deals,
        seats: 2,
        seatings: Seatings::Rotated,
        lifetime,
    };
    let per_pairing = schedule.jobs().len();
    let mut pairings = Vec::new();
    let mut done_before = 0;
    for player in &settings.players {
        for opponent in &settings.opponents {
            let lineup = [player.clone(), opponent.clone()];
            let setup = |job: &Job| {
                let rules = settings.cases[job.case];
                let mut start = Match::new(&deal(settings.seed, rules, job.game));
                for (p, name) in lineup.iter().enumerate() {
                    if sees_open_hand(name) {
                        start = start.with_open_hand(job.seat_of(p, 2));
                    }
                }
                (rules, start)
            };
            let make = |name: &str, rng| agent(name, rng).expect("names were checked");
            let offset = done_before;
            // The tested player's result, and whether it opened the game.
            let each = |job: &Job, record: GameRecord<Match>| {
                let rules = settings.cases[job.case];
                let at = At::of_job(settings.seed, &schedule, job, case_name(rules));
                let seat = job.seat_of(0, 2);
                Played {
                    line: log.line(&record, &rules, &at),
                    kept: (SeatResult::of(&record, seat), record.end.opener() == seat),
                }
            };
            let results = play_schedule(
                &schedule,
                &Lineup::new(&lineup, &make),
                &setup,
                settings.seed,
                &|done| progress(offset + done),
                &|line: &str| log.write_text(line),
                &each,
            );
            done_before += per_pairing;
            let mut all = Scoreboard::new();
            let mut roles = Scoreboard::new();
            let mut scores = Vec::with_capacity(results.len());
            for (job, (result, opened)) in results {
                scores.push(result.score);
                let case = case_name(settings.cases[job.case]);
                all.add(player, &case, result);
                let role = if opened { "opener" } else { "replier" };
                roles.add(role, &case, result);
                roles.add(role, "all", result);
                all.add(player, "all", result);
            }
            let mut result = pairing(player, opponent, settings, &all, &roles);
            result.scores = scores;
            pairings.push(result);
        }
    }
    fill_clairvoyant_shares(&mut pairings);
    let comparisons = compare_with_leaders(&pairings);
    Report {
        seed: settings.seed,
        games: settings.games,
        pairings,
        comparisons,
    }
}

/// The opponents in the order the pairings meet them.
fn opponents(pairings: &[Pairing]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for p in pairings {
        if !out.contains(&p.opponent.as_str()) {
            out.push(&p.opponent);
        }
    }
    out
}

/// Per opponent, its leading contestant against each other contestant.
fn compare_with_leaders(pairings: &[Pairing]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for opponent in opponents(pairings) {
        let rivals: Vec<&Pairing> = pairings
            .iter()
            .filter(|p| p.opponent == opponent && !p.reference)
            .collect();
        let Some(leader) = rivals
            .iter()
            .max_by(|a, b| a.points.mean.total_cmp(&b.points.mean))
        else {
            continue;
        };
        for other in rivals.iter().filter(|p| p.player != leader.player) {
            out.push(Comparison {
                opponent: opponent.to_string(),
                leader: leader.player.clone(),
                other: other.player.clone(),
                difference: Mean::of(&paired_differences(&leader.scores, &other.scores)),
            });
        }
    }
    out
}

fn points(tally: Option<&Tally>) -> Mean {
    Mean::of(tally.map_or(&[][..], |t| &t.scores))
}

fn pairing(
    player: &str,
    opponent: &str,
    settings: &Settings,
    all: &Scoreboard,
    roles: &Scoreboard,
) -> Pairing {
    let cases: Vec<PairingCase> = settings
        .cases
        .iter()
        .map(|&rules| {
            let name = case_name(rules);
            let tally = all.tally(player, &name).expect("every case was played");
            PairingCase {
                n: rules.numbers,
                h: rules.hand,
                games: tally.wdl.games(),
                wins: tally.wdl.wins,
                ties: tally.wdl.draws,
                losses: tally.wdl.losses,
                points: Mean::of(&tally.scores),
                opener: points(roles.tally("opener", &name)),
                replier: points(roles.tally("replier", &name)),
                faults: tally.faults,
            }
        })
        .collect();
    let total = settings
        .cases
        .iter()
        .map(|&r| {
            let tally = all.tally(player, &case_name(r)).expect("played");
            100.0 * wins_and_half_draws(tally) / tally.wdl.games() as f64
        })
        .sum();
    Pairing {
        player: player.to_string(),
        opponent: opponent.to_string(),
        reference: sees_open_hand(player),
        total,
        points: points(all.tally(player, "all")),
        opener: points(roles.tally("opener", "all")),
        replier: points(roles.tally("replier", "all")),
        clairvoyant_share: None,
        cases,
        scores: Vec::new(),
    }
}

fn fill_clairvoyant_shares(pairings: &mut [Pairing]) {
    let ceilings: Vec<(String, f64)> = pairings
        .iter()
        .filter(|p| p.reference)
        .map(|p| (p.opponent.clone(), p.points.mean))
        .collect();
    for p in pairings.iter_mut() {
        let ceiling = ceilings.iter().find(|(o, _)| *o == p.opponent);
        p.clairvoyant_share = ceiling
            .filter(|(_, c)| *c > 0.5)
            .map(|(_, c)| (p.points.mean - 0.5) / (c - 0.5));
    }
}

impl Report {
    /// The report in Markdown: the totals, the opener/replier split and the
    /// clairvoyant's share per pairing, then per-case points per opponent.
    pub fn to_markdown(&self, cases: &[Rules]) -> String {
        let mut out = format!(
            "Dominoes verify: seed {}, {} games per case and pairing (paired deals); \
             points per game ± 95%; total = points per 100 games summed over {} cases \
             (out of {}). `clairvoyant` sees the other hand: a reference ceiling, not a contestant.\n\n",
            self.seed,
            self.games,
            cases.len(),
            100 * cases.len()
        );
        let mut table = Table::new(&[
            "player",
            "opponent",
            "total",
            "points ± 95%",
            "as opener",
            "as replier",
            "share of clairvoyant's margin",
        ]);
        for p in &self.pairings {
            let name = if p.reference {
                format!("{} (reference)", p.player)
            } else {
                p.player.clone()
            };
            table.row(&[
                name,
                p.opponent.clone(),
                format!("{:.1}", p.total),
                p.points.display(3),
                p.opener.display(3),
                p.replier.display(3),
                p.clairvoyant_share
                    .map_or("-".into(), |s| format!("{:.0}%", 100.0 * s)),
            ]);
        }
        out += &table.to_markdown();
        if !self.comparisons.is_empty() {
            out += "\nPaired differences: against each opponent, the leading player's points \
                    per game minus each other player's, game by game on the same deals, seats \
                    and draws (± 95%). An interval clear of 0 separates two players even where \
                    their intervals above overlap.\n\n";
            let mut table = Table::new(&[
                "opponent",
                "leader − other",
                "difference ± 95%",
                "clear of 0",
            ]);
            for c in &self.comparisons {
                let d = c.difference;
                table.row(&[
                    c.opponent.clone(),
                    format!("{} − {}", c.leader, c.other),
                    d.display_signed(3),
                    d.clear_of_zero().into(),
                ]);
            }
            out += &table.to_markdown();
        }
        for opponent in opponents(&self.pairings) {
            let rows: Vec<&Pairing> = self
                .pairings
                .iter()
                .filter(|p| p.opponent == opponent)
                .collect();
            let mut headers = vec!["case".to_string()];
            headers.extend(rows.iter().map(|p| p.player.clone()));
            let mut table = Table::new(&headers);
            for (i, &rules) in cases.iter().enumerate() {
                let mut row = vec![case_name(rules)];
                row.extend(rows.iter().map(|p| p.cases[i].points.display(3)));
                table.row(&row);
            }
            out += &format!("\nPoints per game against `{opponent}`, by case:\n\n");
            out += &table.to_markdown();
        }
        out
    }
}

impl Report {
    /// Each player's points per game per case, averaged over its opponents
    /// (± 95%); the clairvoyant, which sees the other hand, as the ceiling.
    pub fn plot(&self, cases: &[Rules]) -> crate::plot::Plot {
        use crate::plot::{Plot, Point, Series};
        let mut players: Vec<&str> = Vec::new();
        for p in &self.pairings {
            if !players.contains(&p.player.as_str()) {
                players.push(&p.player);
            }
        }
        let mut series = Vec::new();
        let mut ceilings = Vec::new();
        for player in players {
            let pairings: Vec<&Pairing> = self
                .pairings
                .iter()
                .filter(|p| p.player == player)
                .collect();
            let name = match pairings.as_slice() {
                [one] => format!("{player} vs {}", one.opponent),
                many => format!("{player} (mean of {} opponents)", many.len()),
            };
            let points = cases
                .iter()
                .map(|&rules| {
                    // Independent samples of equal weight: the intervals add in quadrature.
                    let means: Vec<Mean> = pairings
                        .iter()
                        .filter_map(|p| {
                            p.cases
                                .iter()
                                .find(|c| (c.n, c.h) == (rules.numbers, rules.hand))
                                .map(|c| c.points)
                        })
                        .collect();
                    let k = means.len().max(1) as f64;
                    let mean = Mean {
                        n: means.iter().map(|m| m.n).sum(),
                        mean: means.iter().map(|m| m.mean).sum::<f64>() / k,
                        ci95: means.iter().map(|m| m.ci95 * m.ci95).sum::<f64>().sqrt() / k,
                    };
                    Point::mean(case_name(rules), &mean)
                })
                .collect();
            let line = Series { name, points };
            if pairings.iter().any(|p| p.reference) {
                ceilings.push(line);
            } else {
                series.push(line);
            }
        }
        Plot {
            title: format!(
                "Dominoes: points per game per case ({} games per case and pairing, seed {})",
                self.games, self.seed
            ),
            x_label: "case (N numbers, H tiles per hand)".into(),
            y_label: "points per game (win 1, tie 1/2)".into(),
            series,
            ceilings,
            y_range: Some((0.0, 1.0)),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn settings(seed: u64) -> Settings {
        Settings {
            players: vec!["random".into()],
            opponents: vec!["random".into()],
            cases: vec![Rules::new(5, 4).unwrap(), Rules::new(9, 7).unwrap()],
            games: 40,
            seed,
        }
    }

    #[test]
    fn a_run_is_reproducible_and_counts_every_game_once() {
        let a = run(&settings(3), &|_| {}, &GameLog::off());
        let b = run(&settings(3), &|_| {}, &GameLog::off());
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        let p = &a.pairings[0];
        assert_eq!(p.cases.iter().map(|c| c.games).sum::<u64>(), 80);
        assert_eq!(p.opener.n + p.replier.n, 80);
        for c in &p.cases {
            assert_eq!(c.wins + c.ties + c.losses, 40);
        }
        let c = run(&settings(4), &|_| {}, &GameLog::off());
        assert_ne!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&c).unwrap()
        );
    }

    #[test]
    fn the_leader_is_compared_game_by_game_with_every_other_contestant() {
        let settings = Settings {
            players: vec!["random".into(), "heaviest".into(), "clairvoyant".into()],
            ..settings(5)
        };
        let report = run(&settings, &|_| {}, &GameLog::off());
        let by_name = |name: &str| {
            report
                .pairings
                .iter()
                .find(|p| p.player == name)
                .expect("played")
        };
        // The clairvoyant is a ceiling, never compared; one pair remains.
        assert_eq!(report.comparisons.len(), 1);
        let c = &report.comparisons[0];
        let (leader, other) = (by_name(&c.leader), by_name(&c.other));
        assert!(leader.points.mean >= other.points.mean);
        assert_ne!(c.leader, c.other);
        assert!(!leader.reference && !other.reference);
        // Equal game counts: the mean difference is the difference of means.
        let expected = leader.points.mean - other.points.mean;
        assert!((c.difference.mean - expected).abs() < 1e-9);
        assert_eq!(c.difference.n, 80);
        assert!(
            report
                .to_markdown(&settings.cases)
                .contains(&format!("| random   | {} − {}", c.leader, c.other))
        );
    }

    #[test]
    fn agents_kept_for_a_case_play_as_fresh_ones_unless_they_learn() {
        let settings = Settings {
            players: vec![
                "random".into(),
                "ismcts".into(),
                "pimc".into(),
                "clairvoyant".into(),
            ],
            opponents: vec!["random".into(), "blocker".into(), "server".into()],
            games: 8,
            ..settings(6)
        };
        let kept = run_with(&settings, Lifetime::Case, &|_| {}, &GameLog::off());
        let fresh = run_with(&settings, Lifetime::Game, &|_| {}, &GameLog::off());
        for (k, f) in kept.pairings.iter().zip(&fresh.pairings) {
            assert_eq!(k.scores, f.scores, "{} against {}", k.player, k.opponent);
        }
    }
}
