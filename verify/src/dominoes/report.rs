//! `verify dominoes`: every built-in player against every opponent of the
//! ladder on the same paired deals, reported as the contest scores them.
//!
//! Each deal of a case is played twice, seats swapped, so both players of a
//! pairing hold both hands of every deal, and every pairing meets the same
//! deals and the same draws (the deal and the chance stream depend only on the
//! seed, the case and the deal's number).

use serde::Serialize;
use tabula_solver::dominoes::{Match, Rules};

use super::{agent, deal, sees_open_hand};
use crate::record::{At, GameLog};
use crate::report::Table;
use crate::scoreboard::{Scoreboard, Tally, wins_and_half_draws};
use crate::stats::Mean;
use crate::tournament::{Job, Progress, Schedule, Seatings, play_schedule};

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
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    /// N.
    pub n: u8,
    /// H.
    pub h: u8,
    /// Games played.
    pub games: u64,
    /// Wins, ties and losses.
    pub wins: u64,
    /// Ties.
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
#[derive(Clone, Debug, Serialize)]
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
    pub cases: Vec<CaseResult>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The seed.
    pub seed: u64,
    /// Games per case and pairing.
    pub games: usize,
    /// Every pairing, player by player, opponents in order.
    pub pairings: Vec<Pairing>,
}

/// The name of a case on the scoreboard.
pub fn case_name(rules: Rules) -> String {
    format!("N={} H={}", rules.numbers, rules.hand)
}

/// Plays every pairing of `settings` and tallies it; `progress` counts games.
pub fn run(settings: &Settings, progress: Progress<'_>, log: &GameLog) -> Report {
    assert!(
        settings.games >= 2 && settings.games.is_multiple_of(2),
        "paired deals need an even number of games"
    );
    let deals = settings.games / 2;
    let schedule = Schedule {
        cases: settings.cases.len(),
        games: deals,
        seats: 2,
        seatings: Seatings::Rotated,
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
            let records =
                play_schedule(&schedule, &lineup, &make, &setup, settings.seed, &|done| {
                    progress(offset + done)
                });
            done_before += per_pairing;
            let mut all = Scoreboard::new();
            let mut roles = Scoreboard::new();
            for (job, record) in &records {
                let seat = job.seat_of(0, 2);
                let case = case_name(settings.cases[job.case]);
                let rules = settings.cases[job.case];
                log.record(
                    record,
                    &rules,
                    &At::of_job(settings.seed, &schedule, job, &case),
                );
                all.add(player, &case, seat, record);
                let role = if record.end.opener() == seat {
                    "opener"
                } else {
                    "replier"
                };
                roles.add(role, &case, seat, record);
                roles.add(role, "all", seat, record);
                all.add(player, "all", seat, record);
            }
            pairings.push(pairing(player, opponent, settings, &all, &roles));
        }
    }
    fill_clairvoyant_shares(&mut pairings);
    Report {
        seed: settings.seed,
        games: settings.games,
        pairings,
    }
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
    let cases: Vec<CaseResult> = settings
        .cases
        .iter()
        .map(|&rules| {
            let name = case_name(rules);
            let tally = all.tally(player, &name).expect("every case was played");
            CaseResult {
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
        let mut opponents: Vec<&str> = Vec::new();
        for p in &self.pairings {
            if !opponents.contains(&p.opponent.as_str()) {
                opponents.push(&p.opponent);
            }
        }
        for opponent in opponents {
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
}
