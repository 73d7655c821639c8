//! The referee's results of a Nim game and the verify run and its plot.

use tabula_solver::Seat;
use tabula_solver::nim::Nim;

use serde::Serialize;

use crate::arena::{GameRecord, Outcome};
use crate::record::GameLog;
use crate::report::{RefereeReport, RefereedCase, fault_fields};
use crate::round_robin::{Case, RoundRobin};
use crate::scoreboard::Scoreboard;
use crate::seat::FaultKind;
use crate::tournament::{Job, Progress, numbered};

use super::*;

/// One game of `tabula referee nim`, from the tested player's side.
/// What `verify nim --json` writes besides the scoreboard's lines.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct VerifySettings {
    /// Games per heap, pair and seating.
    pub games: usize,
    /// The heap sizes, one case each.
    pub heaps: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RefereedGame {
    /// The heap at the start.
    pub heap: u32,
    /// The tested player's seat: 0 moves first, 1 second.
    pub seat: Seat,
    /// `win` or `loss`, for the tested player.
    pub outcome: Outcome,
    /// Why the tested player lost the game early, if it did.
    pub fault: Option<String>,
    /// That fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub fault_kind: Option<FaultKind>,
}

impl RefereedGame {
    /// The result of `record` on `heap` for the player in `seat`.
    pub fn new(heap: u32, record: &GameRecord<Nim>, seat: Seat) -> RefereedGame {
        let (fault, fault_kind) = fault_fields(record.fault.as_ref());
        RefereedGame {
            heap,
            seat,
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

    /// `heap H seat S win|loss [(reason)]`.
    fn line(&self) -> String {
        let mut line = format!("heap {} seat {} {}", self.heap, self.seat, self.outcome);
        if let Some(reason) = &self.fault {
            line.push_str(&format!(" ({reason})"));
        }
        line
    }

    /// `total T of G`.
    fn total_line(report: &RefereeReport<Self>) -> String {
        format!("total {} of {}", report.total, report.cases.len())
    }
}

/// The name of the case of `heap` in reports and logs: `heap 5`.
pub fn case_name(heap: u32) -> String {
    format!("heap {heap}")
}

/// Every pair of agents (both seatings) on every heap size, `games` times.
pub fn verify(
    agents: &[String],
    heaps: &[u32],
    games: usize,
    seed: u64,
    progress: Progress<'_>,
    log: &GameLog,
) -> Scoreboard {
    let make = |name: &str, rng| agent(name, rng).expect("known agent");
    RoundRobin {
        agents,
        // Keyed by place in the run, as before the round robin was shared:
        // the same seed gives the same games as it always did.
        cases: heaps
            .iter()
            .zip(numbered(heaps.len()))
            .map(|(&heap, key)| Case {
                key,
                name: case_name(heap),
                params: heap,
            })
            .collect(),
        start: &|_: &Job, &heap: &u32| (heap, Nim::new(heap)),
        make: &make,
        games,
        seed,
    }
    .play(progress, log)
}

/// The win rate of each pairing's first player per heap, as a plot.
pub fn plot(board: &Scoreboard, games: usize, seed: u64) -> crate::plot::Plot {
    crate::round_robin::win_rate_plot(
        board,
        "Nim",
        "heap",
        "heap (stones at the start)",
        games,
        seed,
    )
}
