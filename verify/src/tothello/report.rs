//! `verify tothello`: the built-in players' tournament on the shared core:
//! seeded openings, every pair on the same openings with colours swapped, one
//! scoreboard.

use serde::Serialize;
use tabula_solver::tothello::{Move, Position};

use super::players::{AgentKind, random_square};
use crate::agent::Agent;
use crate::record::GameLog;
use crate::report::Table;
use crate::round_robin::{Case, RoundRobin};
use crate::stats::{Mean, Wdl};
use crate::tournament::{Job, Progress, Purpose, numbered, stream};

/// A seeded random opening: `plies` random placements from the standard start,
/// drawn from the named stream (seed, setup, 0, `index`, 0).
pub fn opening(seed: u64, index: u64, plies: usize) -> Position {
    let mut rng = stream(seed, Purpose::Setup, 0, index, 0);
    let mut pos = Position::start();
    for _ in 0..plies {
        if pos.is_over() {
            break;
        }
        pos.apply(Move::Place(random_square(pos.board.empty(), &mut rng)));
    }
    pos
}

/// How a tournament is run.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TournamentConfig {
    /// The players; every pair meets.
    #[schemars(with = "Vec<String>")]
    pub players: Vec<AgentKind>,
    /// Openings per pair; each is played twice, colours swapped.
    pub openings: usize,
    /// Random placements in each opening.
    pub opening_plies: usize,
    /// Seed of the openings and of the players' random choices.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// Transposition table size of each solver, as a power of two.
    pub table_bits: u32,
}

/// One pair's results, from the first player's side.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PairResult {
    /// The first player.
    pub first: String,
    /// The second player.
    pub second: String,
    /// Wins, draws and losses of the first player.
    pub wdl: Wdl,
    /// Win rate of the first player.
    pub win_rate: f64,
    /// Draw rate.
    pub draw_rate: f64,
    /// Loss rate of the first player.
    pub loss_rate: f64,
    /// Wilson 95% interval of the first player's win rate.
    pub win_rate_ci95: (f64, f64),
    /// Final piece difference, first player minus second, with its 95% interval.
    pub difference: Mean,
}

/// A tournament's report.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TournamentReport {
    /// How it was run.
    pub config: TournamentConfig,
    /// Every pair, in the order (0,1), (0,2), ..., (1,2), ...
    pub pairs: Vec<PairResult>,
}

/// The scoreboard's case of every game (all openings count together).
const CASE: &str = "openings";

/// Plays every pair of players on the same seeded openings, both colours.
///
/// A [`RoundRobin`] of one case, `openings` games and rotated seats (colour
/// swaps); opening `g` is drawn from (seed, setup, 0, g, 0) for every pair,
/// and the agents draw from the core's agent streams, so the same
/// configuration gives the same report whatever the thread count.
pub fn run_tournament(
    config: &TournamentConfig,
    progress: Progress<'_>,
    log: &GameLog,
) -> TournamentReport {
    let names: Vec<String> = config.players.iter().map(AgentKind::name).collect();
    let table_bits = config.table_bits;
    let make = |name: &str, rng| -> Box<dyn Agent<Position>> {
        let player = AgentKind::parse(name).expect("a built-in player's name");
        Box::new(player.agent(rng, table_bits))
    };
    let board = RoundRobin {
        agents: &names,
        cases: vec![Case {
            key: numbered(1)[0],
            name: CASE.into(),
            params: (),
        }],
        start: &|job: &Job, _: &()| {
            let start = opening(config.seed, job.game as u64, config.opening_plies);
            (start, start)
        },
        make: &make,
        games: config.openings,
        seed: config.seed,
    }
    .play(progress, log);
    let mut pairs = Vec::new();
    for (i, first) in names.iter().enumerate() {
        for second in &names[i + 1..] {
            let tally = board
                .tally(&format!("{first} vs {second}"), CASE)
                .expect("every pair played");
            let wdl = tally.wdl;
            pairs.push(PairResult {
                first: first.clone(),
                second: second.clone(),
                wdl,
                win_rate: wdl.win_rate(),
                draw_rate: wdl.draw_rate(),
                loss_rate: wdl.loss_rate(),
                win_rate_ci95: wdl.win_rate_ci95(),
                difference: Mean::of(&tally.margins),
            });
        }
    }
    TournamentReport {
        config: config.clone(),
        pairs,
    }
}

impl TournamentReport {
    /// The report as a Markdown table, one row per pair.
    pub fn to_markdown(&self) -> String {
        let mut table = Table::new(&[
            "first",
            "second",
            "games",
            "W/D/L",
            "win",
            "draw",
            "loss",
            "win 95% CI",
            "pieces (first - second)",
        ]);
        for pair in &self.pairs {
            let w = &pair.wdl;
            table.row(&[
                pair.first.clone(),
                pair.second.clone(),
                w.games().to_string(),
                format!("{}/{}/{}", w.wins, w.draws, w.losses),
                format!("{:.3}", pair.win_rate),
                format!("{:.3}", pair.draw_rate),
                format!("{:.3}", pair.loss_rate),
                format!("[{:.3}, {:.3}]", pair.win_rate_ci95.0, pair.win_rate_ci95.1),
                pair.difference.display(1),
            ]);
        }
        table.to_markdown()
    }
}

impl TournamentReport {
    /// The first player's win rate in each pair, as a plot.
    pub fn plot(&self) -> crate::plot::Plot {
        use crate::plot::{Plot, Point, Series};
        Plot {
            title: format!(
                "Tothello: {} openings of {} random placements, both colours, seed {}",
                self.config.openings, self.config.opening_plies, self.config.seed
            ),
            x_label: "pair (first vs second)".into(),
            y_label: "win rate of the first player (fraction of games)".into(),
            series: vec![Series {
                name: "first player's win rate".into(),
                points: self
                    .pairs
                    .iter()
                    .map(|p| Point::win_rate(format!("{} vs {}", p.first, p.second), &p.wdl))
                    .collect(),
            }],
            ceilings: Vec::new(),
            y_range: Some((0.0, 1.0)),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::play_game;
    use crate::seat::{Clock, Local, Player as Seat};
    use tabula_solver::Game;
    use tabula_solver::tothello::Color;

    fn small_config(players: Vec<AgentKind>, seed: u64) -> TournamentConfig {
        TournamentConfig {
            players,
            openings: 3,
            opening_plies: 4,
            seed,
            table_bits: 14,
        }
    }

    #[test]
    fn same_seed_same_report() {
        let players = vec![AgentKind::Random, AgentKind::Greedy];
        let a = run_tournament(&small_config(players.clone(), 5), &|_| {}, &GameLog::off());
        let b = run_tournament(&small_config(players.clone(), 5), &|_| {}, &GameLog::off());
        assert_eq!(a, b);
        let c = run_tournament(&small_config(players, 6), &|_| {}, &GameLog::off());
        assert_ne!(a, c);
        assert_eq!(a.pairs.len(), 1);
        assert_eq!(a.pairs[0].wdl.games(), 6);
        let w = &a.pairs[0].wdl;
        let cell = format!("| {}/{}/{} ", w.wins, w.draws, w.losses);
        assert!(a.to_markdown().contains(&cell), "{}", a.to_markdown());
    }

    #[test]
    fn stronger_players_beat_random_play() {
        let players = vec![
            AgentKind::Random,
            AgentKind::Greedy,
            AgentKind::Solver { depth: 2, exact: 8 },
        ];
        let report = run_tournament(&small_config(players, 9), &|_| {}, &GameLog::off());
        let table = report.to_markdown();
        let [random_greedy, random_solver, greedy_solver] = &report.pairs[..] else {
            panic!("three pairs expected: {table}");
        };
        assert!(random_greedy.difference.mean < 0.0, "{table}");
        // The solver wins every game against both.
        assert_eq!(random_solver.wdl.losses, 6, "{table}");
        assert_eq!(greedy_solver.wdl.losses, 6, "{table}");
    }

    fn agents(seed: u64, game: u64) -> [super::super::players::TothelloAgent; 2] {
        let rng = |seat| stream(seed, Purpose::Agent, 0, game, seat);
        let black = if game.is_multiple_of(2) {
            AgentKind::Random
        } else {
            AgentKind::Greedy
        };
        // A solver now and then, which may pass.
        let red = if game.is_multiple_of(5) {
            AgentKind::Solver { depth: 1, exact: 6 }
        } else {
            AgentKind::Random
        };
        [black.agent(rng(0), 12), red.agent(rng(1), 12)]
    }

    /// Plays through the core's match loop, seat 0 (Black) first.
    fn arena_game(start: Position, seed: u64, game: u64) -> crate::arena::GameRecord<Position> {
        let [black, red] = agents(seed, game);
        let (mut black, mut red) = (Local(black), Local(red));
        let mut players: Vec<&mut dyn Seat<Position>> = vec![&mut black, &mut red];
        let mut clocks = vec![Clock::default(); 2];
        let mut chance = stream(seed, Purpose::Chance, 0, game, 0);
        play_game(start, &mut players, &[0, 1], &mut clocks, &mut chance)
    }

    #[test]
    fn games_end_full_or_after_two_passes_and_moves_replay() {
        let black =
            AgentKind::Solver { depth: 1, exact: 6 }.agent(stream(1, Purpose::Agent, 0, 0, 0), 12);
        let red = AgentKind::Greedy.agent(stream(1, Purpose::Agent, 0, 0, 1), 12);
        let start = opening(1, 0, 6);
        let (mut b, mut r) = (Local(black), Local(red));
        let mut players: Vec<&mut dyn Seat<Position>> = vec![&mut b, &mut r];
        let mut clocks = vec![Clock::default(); 2];
        let mut chance = stream(1, Purpose::Chance, 0, 0, 0);
        let record = play_game(start, &mut players, &[0, 1], &mut clocks, &mut chance);
        assert!(record.end.is_over());
        assert!(record.fault.is_none());
        let mut pos = start;
        for ply in &record.plies {
            pos.try_apply(ply.mv).unwrap();
        }
        assert_eq!(pos, record.end);
    }

    /// The general game's view of whole games (agents through the core's match
    /// loop) ends on the same boards as the plain loop on `Position` alone.
    #[test]
    fn the_match_loop_plays_the_same_games_as_the_direct_loop() {
        for game in 0..50u64 {
            let start = opening(7, game, (game % 7) as usize);
            // The old direct loop: ask the agent of the colour to move, apply.
            let [mut black, mut red] = agents(7, game);
            let mut pos = start;
            let mut moves = Vec::new();
            while !pos.is_finished() {
                let agent = match pos.to_move {
                    Color::Black => &mut black,
                    Color::Red => &mut red,
                };
                let mv = agent.choose(&pos);
                pos.try_apply(mv).unwrap();
                moves.push(mv);
            }
            let record = arena_game(start, 7, game);
            assert!(record.fault.is_none(), "game {game}");
            assert_eq!(record.end, pos, "game {game}");
            let arena_moves: Vec<Move> = record.plies.iter().map(|p| p.mv).collect();
            assert_eq!(arena_moves, moves, "game {game}");
            let (black_pieces, red_pieces) = (
                pos.board.black.count_ones() as f64,
                pos.board.red.count_ones() as f64,
            );
            assert_eq!(record.scores.as_slice(), &[black_pieces, red_pieces]);
            assert_eq!(record.end.turn(), tabula_solver::Turn::Over);
        }
    }
}
