//! The referee's result lines and the official results table.

use std::sync::Arc;

use serde::Serialize;
use tabula_solver::ioiwari::{BankMatch, PITS, Params};
use tabula_tables::TypedTable;

use crate::agent::looked_up;
use crate::arena::{GameRecord, Outcome};
use crate::record::{At, GameLog, Notation};
use crate::report::{RefereeReport, RefereedCase, fault_fields};
use crate::seat::FaultKind;
use crate::stats::{Mean, Wdl};
use crate::tournament::{
    Job, Lifetime, Lineup, Played, Progress, Schedule, Seatings, numbered, play_schedule,
};

use super::*;

/// Player 1's game against the referee's optimal player 2: a case of the referee's run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RefereedGame {
    /// The starting board, pit 1 first.
    pub board: Vec<u8>,
    /// Player 1's bank, then player 2's, when the game stopped.
    pub banks: [u32; 2],
    /// `win`, `draw` or `loss`, for player 1.
    pub outcome: &'static str,
    /// The task's points: 4 for a win, 2 for a draw, 0 for a loss.
    pub points: u32,
    /// Why player 1 lost the game early, if it did.
    pub fault: Option<String>,
    /// That fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub fault_kind: Option<FaultKind>,
}

impl RefereedGame {
    /// Player 1's result in `record`.
    pub fn new<B: IoiBoard>(record: &GameRecord<BankMatch<B>>) -> RefereedGame {
        let (outcome, points) = match record.outcome(0) {
            Outcome::Win => ("win", 4),
            Outcome::Draw => ("draw", 2),
            Outcome::Loss => ("loss", 0),
        };
        let (fault, fault_kind) = fault_fields(record.fault.as_ref());
        RefereedGame {
            board: record.start.board.counts(),
            banks: record.end.banks,
            outcome,
            points,
            fault,
            fault_kind,
        }
    }
}

impl RefereedCase for RefereedGame {
    fn score(&self) -> f64 {
        f64::from(self.points)
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }

    /// `result <bank1> <bank2> <win|draw|loss> [reason]`.
    fn line(&self) -> String {
        let [first, second] = self.banks;
        let line = format!("result {first} {second} {}", self.outcome);
        crate::report::with_fault(line, self.fault.as_deref())
    }

    /// `tally: W win, D draw, L loss, P IOI points of M`.
    fn total_line(report: &RefereeReport<Self>) -> String {
        let count = |outcome| report.cases.iter().filter(|c| c.outcome == outcome).count();
        format!(
            "tally: {} win, {} draw, {} loss, {} IOI points of {}",
            count("win"),
            count("draw"),
            count("loss"),
            report.total,
            4 * report.cases.len()
        )
    }
}

/// One row of the results table.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct InstanceRow {
    /// The starting board, pit 1 first.
    pub board: Vec<u8>,
    /// Optimal score difference for player 1.
    pub optimal: i32,
    /// Final difference when player 1 plays greedy1 against the optimal player 2.
    pub greedy1: i32,
    /// Final difference when player 1 plays greedy2 against the optimal player 2.
    pub greedy2: i32,
    /// Mean final difference of the random games.
    pub random_mean: f64,
    /// Half-width of the 95% interval of `random_mean`.
    pub random_mean_ci95: f64,
    /// Fraction of random games won.
    pub random_win: f64,
    /// Fraction of random games drawn.
    pub random_draw: f64,
    /// Fraction of random games lost.
    pub random_loss: f64,
}

/// The totals line of the results table.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Totals {
    /// Instances in the table.
    pub instances: usize,
    /// Random games per instance, written `games` as every report's games per case.
    #[serde(rename = "games")]
    pub random_games: usize,
    /// Outcomes of optimal play by instance.
    pub optimal: Wdl,
    /// Outcomes of greedy1 by instance.
    pub greedy1: Wdl,
    /// Outcomes of greedy2 by instance.
    pub greedy2: Wdl,
    /// Outcomes of all random games together.
    pub random: Wdl,
    /// Mean difference over all random games.
    pub random_mean: f64,
    /// Half-width of the 95% interval of `random_mean`.
    pub random_mean_ci95: f64,
}

/// A variant's parameters as the results table names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VariantParams {
    /// Pits around the ring.
    pub pits: u8,
    /// Most beads a pit holds during play.
    pub cap: u8,
    /// Beads on a starting board.
    pub beads: u32,
    /// Fewest beads in a starting pit.
    pub low: u8,
    /// Most beads in a starting pit.
    pub high: u8,
}

/// The results table of a set of starting boards.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// The variant played, when it is not the IOI game (whose report, kept
    /// as it always was, names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<VariantParams>,
    /// The seed of the random games.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// One row per starting board, in the order given.
    pub instances: Vec<InstanceRow>,
    /// Win/draw/loss counts per column.
    pub totals: Totals,
}

/// Plays every column of the results table for each board, in parallel.
///
/// The random player 1 of game `g` on board `i` draws from the named stream
/// (seed, agent, i, g, 0), so the same seed gives the same report whatever
/// the thread count. `progress` counts games, `boards.len() * (games + 2)` in all.
pub fn results_table<B: IoiBoard>(
    boards: &[B],
    table: &Arc<TypedTable<B::Table>>,
    games: usize,
    seed: u64,
    progress: Progress<'_>,
    log: &GameLog,
) -> Report
where
    BankMatch<B>: Notation<Params = B>,
{
    let n = boards.len();
    let greedy1 = against_optimal(boards, table, "greedy1", 1, seed, progress, log);
    let greedy2 = against_optimal(boards, table, "greedy2", 1, seed, &|d| progress(n + d), log);
    let random = against_optimal(
        boards,
        table,
        "random",
        games,
        seed,
        &|d| progress(2 * n + d),
        log,
    );
    let mut totals = Totals {
        instances: boards.len(),
        random_games: games,
        optimal: Wdl::default(),
        greedy1: Wdl::default(),
        greedy2: Wdl::default(),
        random: Wdl::default(),
        random_mean: 0.0,
        random_mean_ci95: 0.0,
    };
    let mut rows = Vec::with_capacity(boards.len());
    for (i, board) in boards.iter().enumerate() {
        // A variant's records are checked as they are read.
        let optimal = looked_up(table.value(board));
        let mut wdl = Wdl::default();
        let differences = &random[i * games..(i + 1) * games];
        for &d in differences {
            wdl.add(d.into());
            totals.random.add(d.into());
        }
        let sample: Vec<f64> = differences.iter().map(|&d| f64::from(d)).collect();
        totals.optimal.add(optimal.into());
        totals.greedy1.add(greedy1[i].into());
        totals.greedy2.add(greedy2[i].into());
        rows.push(InstanceRow {
            board: board.counts(),
            optimal,
            greedy1: greedy1[i],
            greedy2: greedy2[i],
            random_mean: Mean::of(&sample).mean,
            random_mean_ci95: Mean::of(&sample).ci95,
            random_win: wdl.win_rate(),
            random_draw: wdl.draw_rate(),
            random_loss: wdl.loss_rate(),
        });
    }
    let all: Vec<f64> = random.iter().map(|&d| f64::from(d)).collect();
    let mean = Mean::of(&all);
    totals.random_mean = mean.mean;
    totals.random_mean_ci95 = mean.ci95;
    Report {
        variant: None,
        seed,
        instances: rows,
        totals,
    }
}

impl Report {
    /// The report as the table of `params`' variant, named unless it is the IOI game.
    pub fn of_variant(mut self, params: &Params) -> Report {
        self.variant = (*params != Params::default()).then(|| params.into());
        self
    }

    /// `Ioiwari`, followed by the variant's parameters for a variant.
    fn game_name(&self) -> String {
        match &self.variant {
            None => "Ioiwari".into(),
            Some(v) => format!(
                "Ioiwari (pits {} cap {} beads {} start {}..{})",
                v.pits, v.cap, v.beads, v.low, v.high
            ),
        }
    }

    /// The header line: what was played and what the columns mean.
    pub fn header(&self) -> String {
        format!(
            "{} results table, seed {}, {} random games per instance: \
             O = optimal value for player 1; G1, G2 = greedy1, greedy2 as player 1 \
             against the optimal player 2; R = random player 1 against it (mean \
             difference, win/draw/loss rates).",
            self.game_name(),
            self.seed,
            self.totals.random_games
        )
    }

    /// The header line, then the table as Markdown with a totals line.
    pub fn to_markdown(&self) -> String {
        let mut table = crate::report::Table::new(&[
            "board", "O", "G1", "G2", "R mean", "R win", "R draw", "R loss",
        ]);
        for row in &self.instances {
            let board: Vec<String> = row.board.iter().map(u8::to_string).collect();
            table.row(&[
                board.join(" "),
                row.optimal.to_string(),
                row.greedy1.to_string(),
                row.greedy2.to_string(),
                format!("{:.2}", row.random_mean),
                format!("{:.3}", row.random_win),
                format!("{:.3}", row.random_draw),
                format!("{:.3}", row.random_loss),
            ]);
        }
        let t = &self.totals;
        let wdl = |c: &Wdl| format!("{}/{}/{}", c.wins, c.draws, c.losses);
        table.row(&[
            format!("total W/D/L ({} instances)", t.instances),
            wdl(&t.optimal),
            wdl(&t.greedy1),
            wdl(&t.greedy2),
            format!("{:.2}", t.random_mean),
            format!("{:.3}", t.random.win_rate()),
            format!("{:.3}", t.random.draw_rate()),
            format!("{:.3}", t.random.loss_rate()),
        ]);
        format!("{}\n\n{}", self.header(), table.to_markdown())
    }
}

impl Report {
    /// Player 1's final difference per starting board against the optimal
    /// player 2: random (mean ± 95%), greedy1 and greedy2, and optimal play as
    /// the ceiling.
    pub fn plot(&self) -> crate::plot::Plot {
        use crate::plot::{Plot, Point, Series};
        let case = |row: &InstanceRow| row.board.iter().map(u8::to_string).collect::<String>();
        let series = |name: &str, point: &dyn Fn(&InstanceRow) -> Point| Series {
            name: name.into(),
            points: self.instances.iter().map(point).collect(),
        };
        // The IOI game's 7 when there is no row to count.
        let pits = self.instances.first().map_or(PITS, |r| r.board.len());
        Plot {
            title: format!(
                "{}: player 1 against the optimal player 2 ({} random games per board, seed {})",
                self.game_name(),
                self.totals.random_games,
                self.seed
            ),
            x_label: format!("starting board (beads in pits 1 to {pits})"),
            y_label: "player 1's bank minus player 2's (beads)".into(),
            series: vec![
                series("random", &|r| {
                    let mean = Mean {
                        n: self.totals.random_games,
                        mean: r.random_mean,
                        ci95: r.random_mean_ci95,
                    };
                    Point::mean(case(r), &mean)
                }),
                series("greedy1", &|r| Point::exact(case(r), f64::from(r.greedy1))),
                series("greedy2", &|r| Point::exact(case(r), f64::from(r.greedy2))),
            ],
            ceilings: vec![series("optimal", &|r| {
                Point::exact(case(r), f64::from(r.optimal))
            })],
            y_range: None,
        }
    }
}

impl From<&Params> for VariantParams {
    fn from(p: &Params) -> VariantParams {
        VariantParams {
            pits: p.pits,
            cap: p.cap,
            beads: p.beads,
            low: p.low,
            high: p.high,
        }
    }
}

/// Player 1's final differences when `name` plays player 1 against the optimal
/// player 2, `games` per board, in board-then-game order.
pub(crate) fn against_optimal<B: IoiBoard>(
    boards: &[B],
    table: &Arc<TypedTable<B::Table>>,
    name: &str,
    games: usize,
    seed: u64,
    progress: Progress<'_>,
    log: &GameLog,
) -> Vec<i32>
where
    BankMatch<B>: Notation<Params = B>,
{
    let schedule = Schedule {
        case_keys: numbered(boards.len()),
        games,
        seats: 2,
        seatings: Seatings::Fixed,
        lifetime: Lifetime::Game,
    };
    let lineup = vec![name.to_string(), "optimal".to_string()];
    let make = |n: &str, rng| agent(n, table, rng).expect("a built-in agent");
    let setup = |job: &Job| (boards[job.case], BankMatch::new(boards[job.case]));
    let each = |job: &Job, record: GameRecord<BankMatch<B>>| {
        let board = boards[job.case];
        let at = At::of_job(seed, &schedule, job, board.to_string());
        Played {
            line: log.line(&record, &board, &at),
            kept: record.end.difference(),
        }
    };
    play_schedule(
        &schedule,
        &Lineup::new(&lineup, &make),
        &setup,
        seed,
        progress,
        &|line: &str| log.write_text(line),
        &each,
    )
    .into_iter()
    .map(|(_, difference)| difference)
    .collect()
}
