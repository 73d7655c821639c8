//! The toy game's contest pieces: its wire, agents, the referee's results, and its verify run and report.

pub mod draw;
pub mod notation;

use rand_chacha::ChaCha8Rng;
use tabula_solver::Seat;
use tabula_solver::nim::{Nim, winning_take};

use crate::agent::{Agent, RandomAgent};
use serde::Serialize;

use crate::arena::{GameRecord, Outcome};
use crate::protocol::Request;
use crate::record::GameLog;
use crate::report::{RefereeReport, RefereedCase};
use crate::round_robin::{Case, RoundRobin};
use crate::scoreboard::Scoreboard;
use crate::seat::FaultKind;
use crate::tournament::{Job, Progress, numbered};
use crate::wire::{Incoming, Wire};

/// The built-in players.
pub const AGENTS: [&str; 2] = ["optimal", "random"];

/// Leaves a multiple of four when it can, else takes one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Optimal;

impl Agent<Nim> for Optimal {
    fn name(&self) -> String {
        "optimal".into()
    }

    fn choose(&mut self, view: &Nim) -> u8 {
        winning_take(view.heap).unwrap_or(1)
    }
}

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Nim>>> {
    match name {
        "optimal" => Some(Box::new(Optimal)),
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}

/// The line protocol: `take <heap>` asks for a move, answered by the count taken.
#[derive(Clone, Copy, Debug, Default)]
pub struct NimWire;

impl Wire<Nim> for NimWire {
    fn move_request(&mut self, view: &Nim) -> String {
        format!("take {}", view.heap)
    }

    fn decode_answer(&mut self, _view: &Nim, line: &str) -> Result<u8, String> {
        line.trim().parse().map_err(|_| {
            format!(
                "expected a count of stones, got '{}'",
                crate::wire::short(line)
            )
        })
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Nim>, String> {
        let mut req = Request::parse(line)?;
        match req.method {
            "take" => {
                let heap = req.int("heap")?;
                req.finish()?;
                let heap = u32::try_from(heap)
                    .ok()
                    .filter(|&h| h > 0)
                    .ok_or_else(|| format!("bad heap {heap}"))?;
                Ok(Incoming::Move {
                    start: None,
                    observed: Vec::new(),
                    view: Nim::new(heap),
                })
            }
            other => Err(format!("unknown method '{}'", crate::wire::short(other))),
        }
    }

    fn encode_answer(&mut self, _view: &Nim, mv: u8) -> String {
        mv.to_string()
    }
}

/// One game of `tabula referee nim`, from the tested player's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
        RefereedGame {
            heap,
            seat,
            outcome: record.outcome(seat),
            fault: record.fault.as_ref().map(|f| f.reason.clone()),
            fault_kind: record.fault.as_ref().map(|f| f.kind),
        }
    }

    /// `heap H seat S win|loss [(reason)]`.
    pub fn line(&self) -> String {
        let mut line = format!("heap {} seat {} {}", self.heap, self.seat, self.outcome);
        if let Some(reason) = &self.fault {
            line.push_str(&format!(" ({reason})"));
        }
        line
    }
}

impl RefereedCase for RefereedGame {
    fn score(&self) -> f64 {
        self.outcome.points()
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }
}

impl RefereeReport<RefereedGame> {
    /// `total T of G`.
    pub fn total_line(&self) -> String {
        format!("total {} of {}", self.total, self.cases.len())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoreboard::wins_and_half_draws;
    use crate::tournament::{Purpose, stream};
    use crate::wire::Session;
    use tabula_solver::Game;

    #[test]
    fn the_wire_round_trips_through_both_ends() {
        let mut referee = NimWire;
        let mut player = Session::new(NimWire, Optimal);
        let view = Nim::new(7);
        let request = referee.move_request(&view);
        let crate::protocol::Reply::Line(answer) = player.handle(&request).unwrap() else {
            panic!("a move is answered");
        };
        assert_eq!(referee.decode_answer(&view, &answer), Ok(3));
        assert!(player.handle("take 0").is_err());
        assert!(player.handle("give 3").is_err());
        assert!(referee.decode_answer(&view, "three").is_err());
    }

    #[test]
    fn optimal_wins_every_winnable_heap_against_random() {
        // Winnable: heap 5 moving first, heap 8 (a multiple of four) moving second.
        let mut won = 0;
        for (heap, optimal_seat) in [(5, 0), (8, 1), (9, 0), (12, 1)] {
            for g in 0..20 {
                let mut random = RandomAgent::new(stream(g, Purpose::Agent, 0, 0, 0));
                let mut game = Nim::new(heap);
                while !game.is_over() {
                    let tabula_solver::Turn::Seat(seat) = game.turn() else {
                        panic!("Nim has no chance moves");
                    };
                    let mv = if seat == optimal_seat {
                        Optimal.choose(&game)
                    } else {
                        Agent::<Nim>::choose(&mut random, &game)
                    };
                    game.apply(mv);
                }
                assert_eq!(game.scores()[optimal_seat], 1.0, "heap {heap}, game {g}");
                won += 1;
            }
        }
        assert_eq!(won, 80);
    }

    #[test]
    fn the_report_is_reproducible() {
        let agents = vec!["optimal".to_string(), "random".to_string()];
        let board = verify(&agents, &[5, 8], 20, 3, &|_| {}, &GameLog::off());
        let winnable = board.tally("optimal vs random", "heap 5").unwrap();
        assert_eq!(winnable.wdl.games(), 40);
        // At least the 20 games where it moves first.
        assert!(winnable.wdl.wins >= 20, "{:?}", winnable.wdl);
        let again = verify(&agents, &[5, 8], 20, 3, &|_| {}, &GameLog::off());
        assert_eq!(
            board.lines(&wins_and_half_draws),
            again.lines(&wins_and_half_draws)
        );
    }
}
