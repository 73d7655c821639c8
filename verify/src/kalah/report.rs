//! The referee's result lines, the verify run of every pair of players and its plot.

use std::sync::Arc;

use serde::Serialize;
use tabula_solver::Seat;
use tabula_solver::kalah::{Match, Rules};
use tabula_tables::kalah::KalahTable;

use crate::arena::{GameRecord, Outcome};
use crate::record::GameLog;
use crate::report::{RefereeReport, RefereedCase, fault_fields};
use crate::round_robin::{Case, RoundRobin};
use crate::scoreboard::{Column, Scoreboard, ScoreboardJson, wins_and_half_draws};
use crate::seat::FaultKind;
use crate::tournament::{Job, Progress};

use super::*;

/// One game of `tabula referee kalah`, from the tested player's side.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RefereedGame {
    /// The tested player's number: 1 moves first, 2 second.
    pub player: u8,
    /// The tested player's store, then the opponent's, when the game stopped.
    pub stores: [u32; 2],
    /// `win`, `draw` or `loss`, for the tested player.
    pub outcome: Outcome,
    /// Why the tested player lost the game early, if it did.
    pub fault: Option<String>,
    /// That fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub fault_kind: Option<FaultKind>,
}

impl RefereedGame {
    /// The result of `record` for the player in `seat`.
    pub fn new(record: &GameRecord<Match>, seat: Seat) -> RefereedGame {
        let (fault, fault_kind) = fault_fields(record.fault.as_ref());
        RefereedGame {
            player: seat as u8 + 1,
            stores: [record.end.stores[seat], record.end.stores[1 - seat]],
            outcome: record.outcome(seat),
            fault,
            fault_kind,
        }
    }
}

impl RefereedCase for RefereedGame {
    fn score(&self) -> f64 {
        self.outcome.points()
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }

    /// `player K: result MINE THEIRS win|draw|loss [reason]`.
    fn line(&self) -> String {
        let [mine, theirs] = self.stores;
        let line = format!(
            "player {}: result {mine} {theirs} {}",
            self.player, self.outcome
        );
        crate::report::with_fault(line, self.fault.as_deref())
    }

    /// `total T of G games (W win, D draw, L loss), stores S to O`.
    fn total_line(report: &RefereeReport<Self>) -> String {
        let count = |outcome| report.cases.iter().filter(|c| c.outcome == outcome).count();
        let stores = |k: usize| report.cases.iter().map(|c| c.stores[k]).sum::<u32>();
        format!(
            "total {} of {} games ({} win, {} draw, {} loss), stores {} to {}",
            report.total,
            report.cases.len(),
            count(Outcome::Win),
            count(Outcome::Draw),
            count(Outcome::Loss),
            stores(0),
            stores(1)
        )
    }
}

/// The name of a case of `rules` in reports and logs: `Kalah(3, 4)`.
pub fn case_name(rules: &Rules) -> String {
    format!("Kalah({}, {})", rules.pits, rules.seeds)
}

/// A variant of a `verify kalah` run: its rules and its table, solved
/// before any game: the optimal player reads it, and the report's exact value
/// comes from it.
pub struct Variant {
    /// The rules.
    pub rules: Rules,
    /// Every board's value and optimal pits.
    pub table: Arc<KalahTable>,
}

/// One variant as the report's JSON gives it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct VariantLine {
    /// The variant's name in the scoreboard's lines (`Kalah(3, 4)`).
    pub case: String,
    /// Pits a side (m).
    pub pits: u8,
    /// Seeds a pit at the start (n).
    pub seeds: u8,
    /// Boards in the variant's table.
    pub boards: u64,
    /// The first player's final margin under optimal play from the start.
    pub value: i32,
}

impl Variant {
    /// The variant of `rules`, its table solved in memory; `progress` counts boards.
    pub fn solved(rules: Rules, progress: tabula_solver::retrograde::Progress<'_>) -> Variant {
        Variant {
            rules,
            table: Arc::new(tabula_tables::kalah::in_memory(&rules, progress)),
        }
    }

    /// The variant's name in the report: `Kalah(3, 4)`.
    pub fn name(&self) -> String {
        case_name(&self.rules)
    }

    /// The key of the variant's random streams: its own m and n, so that a
    /// variant plays the same games alone as beside others (the variants of a
    /// run share their capture and end rules).
    pub fn key(&self) -> u64 {
        100 * u64::from(self.rules.pits) + u64::from(self.rules.seeds)
    }

    /// The first player's final margin under optimal play from the start.
    pub fn value(&self) -> i32 {
        self.table
            .value(&self.rules.start())
            .unwrap_or_else(|e| panic!("the table is the variant's own: {e}"))
    }

    /// The variant as the report's JSON gives it.
    pub fn line(&self) -> VariantLine {
        VariantLine {
            case: self.name(),
            pits: self.rules.pits,
            seeds: self.rules.seeds,
            boards: self.table.table().header().entries,
            value: self.value(),
        }
    }
}

/// Every pair of `agents` (both seatings) on every variant, `games` times per
/// seating; `progress` counts the games of the whole run.
pub fn verify(
    agents: &[String],
    variants: &[Variant],
    games: usize,
    seed: u64,
    progress: Progress<'_>,
    log: &GameLog,
) -> Scoreboard {
    let tables: Vec<Arc<KalahTable>> = variants.iter().map(|v| v.table.clone()).collect();
    let make = |name: &str, rng| agent(name, &tables, rng, None, None, None).expect("known agent");
    RoundRobin {
        agents,
        cases: variants
            .iter()
            .map(|v| Case {
                key: v.key(),
                name: v.name(),
                params: v.rules,
            })
            .collect(),
        start: &|_: &Job, &rules: &Rules| (rules, Match::new(rules)),
        make: &make,
        games,
        seed,
    }
    .play(progress, log)
}

/// The win rate of each pairing's first-named player per variant, as a plot.
pub fn plot(board: &Scoreboard, games: usize, seed: u64) -> crate::plot::Plot {
    crate::round_robin::win_rate_plot(
        board,
        "Kalah",
        "variant",
        "variant Kalah(m, n): m pits a side, n seeds a pit",
        games,
        seed,
    )
}

/// What `verify kalah --json` writes besides the scoreboard's lines.
#[derive(Serialize, schemars::JsonSchema)]
pub struct VerifySettings {
    /// Games per variant, pair and seating.
    pub games: usize,
    /// The capture rule, as `--no-empty-capture` sets it (`always`, `non-empty`).
    pub capture: &'static str,
    /// The end rule, as `--ending` spells it.
    pub ending: String,
    /// The players, in the order their pairs are played.
    pub players: Vec<String>,
    /// Each variant with its exact value from the start.
    pub variants: Vec<VariantLine>,
}

/// A Kalah `verify` run's report: its Markdown and its JSON.
pub struct VerifyReport {
    /// The variants' optimal margins, then the scoreboard, as Markdown.
    pub markdown: String,
    /// The same as JSON (before the run's stamp).
    pub json: ScoreboardJson<VerifySettings>,
}

/// The report of [`verify`]'s `board` on `variants` (all of one capture
/// and end rule), `games` per variant, pair and seating.
pub fn verify_report(
    board: &Scoreboard,
    variants: &[Variant],
    players: &[String],
    games: usize,
    seed: u64,
) -> VerifyReport {
    let rules = variants[0].rules;
    let (capture, ending) = (rules.capture.name(), rules.ending.name().to_string());
    let mut values =
        crate::report::Table::new(&["variant", "boards", "first player's optimal margin"]);
    for v in variants {
        let line = v.line();
        // The sweep's W/D/L beside the margin: who wins under optimal play.
        let sign = if line.value > 0 { "+" } else { "" };
        let margin = format!(
            "{sign}{} ({})",
            line.value,
            super::sweep::outcome_letter(line.value)
        );
        values.row(&[line.case, line.boards.to_string(), margin]);
    }
    let columns = [
        Column::Games,
        Column::Wdl,
        Column::WinRate,
        Column::Margin,
        Column::CaseScore,
    ];
    let markdown = format!(
        "Kalah(m, n), capture {capture}, ending {ending}: every pair of players, {games} games \
         per variant and seating, seed {seed}.\n\n{}\n{}",
        values.to_markdown(),
        board.to_markdown(&columns, &wins_and_half_draws)
    );
    let json = ScoreboardJson {
        seed,
        extra: VerifySettings {
            games,
            capture,
            ending,
            players: players.to_vec(),
            variants: variants.iter().map(Variant::line).collect(),
        },
        lines: board.lines(&wins_and_half_draws),
    };
    VerifyReport { markdown, json }
}
