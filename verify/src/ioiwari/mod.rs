//! Ioiwari agents, the IOI dialogue as a wire, the referee's result line and
//! the official results table, all on the shared core, for the IOI game and
//! for any variant's ring alike ([`IoiBoard`]).

pub mod draw;
pub mod notation;
pub mod sweep;

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::ioiwari::{
    BankMatch, Board, Match, PITS, Params, Pit, Ring, RingMatch, Sowable,
};
use tabula_solver::{Game, Seat, Turn};
use tabula_tables::ioiwari::{Ioiwari, Variant};
use tabula_tables::{Tabulated, TypedTable};

use crate::agent::{Agent, RandomAgent, looked_up};
use crate::arena::{GameRecord, Outcome};
use crate::record::{At, GameLog, Notation};
use crate::report::{RefereeReport, RefereedCase};
use crate::seat::FaultKind;
use crate::stats::{Mean, Wdl};
use crate::tournament::{
    Job, Lifetime, Lineup, Played, Progress, Schedule, Seatings, numbered, play_schedule,
};
use crate::wire::{Incoming, Wire, short};

/// The built-in players.
pub const AGENTS: [&str; 4] = ["optimal", "greedy1", "greedy2", "random"];

/// A board of an Ioiwari game as the agents, the referee and the results
/// table hold it: the IOI game's [`Board`] or a variant's [`Ring`].
pub trait IoiBoard: Sowable + std::fmt::Display + 'static {
    /// The tabulated game whose table holds these boards.
    type Table: Tabulated<Position = Self, Move = Pit, Space: Send + Sync> + Clone + Send + 'static;

    /// The pit counts, pit 1 first.
    fn counts(&self) -> Vec<u8>;
}

impl IoiBoard for Board {
    type Table = Ioiwari;

    fn counts(&self) -> Vec<u8> {
        self.pits().to_vec()
    }
}

impl IoiBoard for Ring {
    type Table = Variant;

    fn counts(&self) -> Vec<u8> {
        self.pits().to_vec()
    }
}

/// The built-in agent `name`, if there is one; `rng` is its random stream.
pub fn agent<B: IoiBoard>(
    name: &str,
    table: &Arc<TypedTable<B::Table>>,
    rng: ChaCha8Rng,
) -> Option<Box<dyn Agent<BankMatch<B>>>> {
    match name {
        "optimal" => Some(Box::new(OptimalAgent::new(table.clone()))),
        "greedy1" => Some(Box::new(Greedy1)),
        "greedy2" => Some(Box::new(Greedy2)),
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}

/// Plays the table's optimal move, the lowest optimal pit on ties.
///
/// The table must have passed [`tabula_tables::TypedTable::check_moves`] (or
/// have been built in memory): its moves are then known to be legal.
#[derive(Clone)]
pub struct OptimalAgent<G: Tabulated = Ioiwari> {
    table: Arc<TypedTable<G>>,
}

impl<G: Tabulated> OptimalAgent<G> {
    /// An optimal agent reading `table`.
    pub fn new(table: Arc<TypedTable<G>>) -> OptimalAgent<G> {
        OptimalAgent { table }
    }
}

// Over the table's game rather than the board, so that the table alone says
// which game the agent plays.
impl<G> Agent<BankMatch<G::Position>> for OptimalAgent<G>
where
    G: Tabulated<Move = Pit> + Send,
    G::Position: Sowable,
    G::Space: Send + Sync,
{
    fn name(&self) -> String {
        "optimal".into()
    }

    fn choose(&mut self, view: &BankMatch<G::Position>) -> Pit {
        // A variant's records are checked as they are read.
        looked_up(self.table.best_move(&view.board)).expect("a move on a board with beads")
    }
}

/// One-step greedy: the largest immediate bank difference, lowest pit on ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy1;

/// Two-step greedy: own immediate difference minus the opponent's best immediate reply.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy2;

/// The legal pit with the highest score, the lowest pit on ties.
fn argmax_lowest<B: Sowable>(board: &B, score: impl Fn(Pit) -> i32) -> Pit {
    let mut best: Option<(Pit, i32)> = None;
    for &pit in board.legal_moves().iter() {
        let s = score(pit);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((pit, s));
        }
    }
    best.expect("the game is not over").0
}

/// The best immediate difference the player to move can make (0 on an empty board).
fn best_immediate<B: Sowable>(board: &B) -> i32 {
    board
        .legal_moves()
        .iter()
        .map(|&pit| board.after(pit).1)
        .max()
        .unwrap_or(0)
}

impl<B: Sowable> Agent<BankMatch<B>> for Greedy1 {
    fn name(&self) -> String {
        "greedy1".into()
    }

    fn choose(&mut self, view: &BankMatch<B>) -> Pit {
        let board = &view.board;
        argmax_lowest(board, |pit| board.after(pit).1)
    }
}

impl<B: Sowable> Agent<BankMatch<B>> for Greedy2 {
    fn name(&self) -> String {
        "greedy2".into()
    }

    fn choose(&mut self, view: &BankMatch<B>) -> Pit {
        let board = &view.board;
        argmax_lowest(board, |pit| {
            let (child, gain) = board.after(pit);
            gain - best_immediate(&child)
        })
    }
}

/// A game the IOI dialogue carries: a board line starts it, pit labels move.
pub trait Banked: Game<Move = Pit, Observation = Pit, View = Self> + Copy {
    /// What reading a board line needs: nothing for the IOI game, the
    /// variant's parameters for a ring.
    type Setup: Copy + std::fmt::Debug + Default + Send + Sync;

    /// The game, player 1 to move, on the board of `line`.
    fn from_board_line(setup: &Self::Setup, line: &str) -> Result<Self, String>;

    /// The board as the dialogue writes it: bead counts, pit 1 first.
    fn board_line(&self) -> String;

    /// Pits on the board (7 in the IOI game).
    fn pits(&self) -> usize;

    /// A pit label `1`..=[`Banked::pits`] of the dialogue, as a pit.
    fn parse_pit(&self, line: &str) -> Result<Pit, String> {
        let pits = self.pits();
        match line.trim().parse::<usize>() {
            Ok(n) if (1..=pits).contains(&n) => Ok((n - 1) as Pit),
            _ => Err(format!("'{}' is not a pit label 1..{pits}", short(line))),
        }
    }
}

impl Banked for Match {
    type Setup = ();

    fn from_board_line(_setup: &(), line: &str) -> Result<Match, String> {
        let board: Board = line
            .parse()
            .map_err(|e| format!("bad board '{}': {e}", line.trim()))?;
        Ok(Match::new(board))
    }

    fn board_line(&self) -> String {
        self.board.to_string()
    }

    fn pits(&self) -> usize {
        PITS
    }
}

impl Banked for RingMatch {
    type Setup = Params;

    fn from_board_line(params: &Params, line: &str) -> Result<RingMatch, String> {
        let ring =
            Ring::parse(params, line).map_err(|e| format!("bad board '{}': {e}", line.trim()))?;
        Ok(RingMatch::new(ring))
    }

    fn board_line(&self) -> String {
        self.board.to_string()
    }

    fn pits(&self) -> usize {
        self.board.pits().len()
    }
}

/// The IOI dialogue, for player 1 only: the board line, then player 1's pit
/// labels, each answered by player 2's label; no acknowledgements. It carries
/// the IOI game ([`Match`]) and any variant's ring ([`RingMatch`]).
///
/// The referee side sends the board as the first request and player 2's last
/// move as each later one; the reply to player 1's last move is still sent
/// when it ends the game ([`Wire::end_lines`]). The player side starts its game
/// on the board line and ends it, silently, once the pits are empty.
#[derive(Clone, Debug)]
pub struct IoiWire<M: Banked = Match> {
    /// How board lines are read.
    setup: M::Setup,
    /// Referee side: the board line still to send.
    board: Option<String>,
    /// Referee side: player 2's move not yet sent.
    pending: Option<Pit>,
    /// Player side: the game as it stands.
    game: Option<M>,
}

impl<M: Banked> Default for IoiWire<M> {
    fn default() -> IoiWire<M> {
        IoiWire::new(M::Setup::default())
    }
}

impl<M: Banked> IoiWire<M> {
    /// The dialogue with board lines read with `setup`.
    pub fn new(setup: M::Setup) -> IoiWire<M> {
        IoiWire {
            setup,
            board: None,
            pending: None,
            game: None,
        }
    }
}

impl<M: Banked> Wire<M> for IoiWire<M> {
    fn game_request(&mut self, _seat: Seat, view: &M) -> Option<String> {
        self.board = Some(view.board_line());
        self.pending = None;
        None
    }

    fn observe(&mut self, _mover: Turn, pit: &Pit) {
        self.pending = Some(*pit);
    }

    fn move_request(&mut self, view: &M) -> String {
        if let Some(board) = self.board.take() {
            return board;
        }
        match self.pending.take() {
            Some(pit) => (pit + 1).to_string(),
            // Not reached with strict alternation; repeating the board is the least harm.
            None => view.board_line(),
        }
    }

    fn decode_answer(&mut self, view: &M, line: &str) -> Result<Pit, String> {
        view.parse_pit(line)
            .map_err(|e| format!("malformed move: {e}"))
    }

    fn skips_blank_lines(&self) -> bool {
        true
    }

    fn end_lines(&mut self, _view: &M) -> Vec<String> {
        self.pending
            .take()
            .map(|pit| (pit + 1).to_string())
            .into_iter()
            .collect()
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<M>, String> {
        let Some(mut game) = self.game else {
            let game = M::from_board_line(&self.setup, line)?;
            self.game = Some(game);
            if game.is_over() {
                return Ok(Incoming::End { reply: None });
            }
            return Ok(Incoming::Move {
                start: Some(0),
                observed: Vec::new(),
                view: game,
            });
        };
        let pit = game
            .parse_pit(line)
            .map_err(|e| format!("player 2's move: {e}"))?;
        if game.check_move(pit).is_err() {
            return Err(format!(
                "player 2 played pit {}, which is empty on {}",
                pit + 1,
                game.board_line()
            ));
        }
        game.apply(pit);
        self.game = Some(game);
        let observed = vec![(Turn::Seat(1), pit)];
        Ok(if game.is_over() {
            Incoming::Note { observed }
        } else {
            Incoming::Move {
                start: None,
                observed,
                view: game,
            }
        })
    }

    fn encode_answer(&mut self, view: &M, pit: Pit) -> String {
        let mut game = *view;
        game.apply(pit);
        self.game = Some(game);
        (pit + 1).to_string()
    }

    fn errors_are_fatal(&self) -> bool {
        true
    }

    fn finished(&self) -> bool {
        self.game.is_some_and(|g| g.is_over())
    }

    fn unfinished(&self) -> Option<String> {
        match &self.game {
            None => Some("no board line".into()),
            Some(g) if !g.is_over() => Some(format!(
                "input ended while waiting for player 2's move on {}",
                g.board_line()
            )),
            Some(_) => None,
        }
    }
}

/// Player 1's game against the referee's optimal player 2: a case of the referee's run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
        RefereedGame {
            board: record.start.board.counts(),
            banks: record.end.banks,
            outcome,
            points,
            fault: record.fault.as_ref().map(|f| f.reason.clone()),
            fault_kind: record.fault.as_ref().map(|f| f.kind),
        }
    }

    /// `result <bank1> <bank2> <win|draw|loss> [reason]`.
    pub fn line(&self) -> String {
        let [first, second] = self.banks;
        let mut line = format!("result {first} {second} {}", self.outcome);
        if let Some(reason) = &self.fault {
            line.push(' ');
            line.push_str(reason);
        }
        line
    }
}

impl RefereedCase for RefereedGame {
    fn score(&self) -> f64 {
        f64::from(self.points)
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }
}

impl RefereeReport<RefereedGame> {
    /// `tally: W win, D draw, L loss, P IOI points of M`.
    pub fn tally_line(&self) -> String {
        let count = |outcome| self.cases.iter().filter(|c| c.outcome == outcome).count();
        format!(
            "tally: {} win, {} draw, {} loss, {} IOI points of {}",
            count("win"),
            count("draw"),
            count("loss"),
            self.total,
            4 * self.cases.len()
        )
    }
}

/// One row of the results table.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Totals {
    /// Instances in the table.
    pub instances: usize,
    /// Random games per instance.
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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

/// The results table of a set of starting boards.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The variant played, when it is not the IOI game (whose report, kept
    /// as it always was, names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<VariantParams>,
    /// The seed of the random games.
    pub seed: u64,
    /// One row per starting board, in the order given.
    pub instances: Vec<InstanceRow>,
    /// Win/draw/loss counts per column.
    pub totals: Totals,
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::play_case;
    use crate::protocol::Reply;
    use crate::seat::{Clock, Local, Player};
    use crate::tournament::{Purpose, stream};
    use tabula_solver::ZeroSum;
    use tabula_solver::ioiwari::instances;
    use tabula_tables::ioiwari::IoiwariTable;

    fn built() -> Arc<IoiwariTable> {
        Arc::new(IoiwariTable::in_memory())
    }

    /// One game of `first` as player 1 against the optimal player 2, on the
    /// IOI board or a variant's ring.
    fn play<B: IoiBoard>(
        board: B,
        table: &Arc<TypedTable<B::Table>>,
        first: &mut dyn Player<BankMatch<B>>,
    ) -> GameRecord<BankMatch<B>> {
        let mut second = Local(OptimalAgent::new(table.clone()));
        let mut players: Vec<&mut dyn Player<BankMatch<B>>> = vec![first, &mut second];
        let mut clocks = vec![Clock::default(), Clock::default()];
        let chance = stream(0, Purpose::Chance, 0, 0, 0);
        play_case(&board, 1, &mut players, &mut clocks, |_| {
            (BankMatch::new(board), chance.clone(), vec![0, 1])
        })
        .pop()
        .expect("one game")
    }

    /// The lowest legal pit whose `score` is highest, by a plain scan.
    fn plain_argmax(board: &Board, score: impl Fn(Pit) -> i32) -> Option<(Pit, bool)> {
        let scores: Vec<(Pit, i32)> = (0..PITS as Pit)
            .filter(|&pit| board.pits()[usize::from(pit)] > 0)
            .map(|pit| (pit, score(pit)))
            .collect();
        let top = scores.iter().map(|&(_, s)| s).max()?;
        let tied = scores.iter().filter(|&&(_, s)| s == top).count() > 1;
        scores
            .iter()
            .find(|&&(_, s)| s == top)
            .map(|&(p, _)| (p, tied))
    }

    #[test]
    fn greedy_players_take_the_lowest_best_pit_on_every_board() {
        let (mut ties1, mut ties2, mut differ) = (0, 0, 0);
        for index in 0..6usize.pow(PITS as u32) {
            let board = Board::from_index(index);
            let gain = |b: &Board, pit: Pit| b.after(pit).1;
            let Some((g1, tied1)) = plain_argmax(&board, |pit| gain(&board, pit)) else {
                continue;
            };
            let (g2, tied2) = plain_argmax(&board, |pit| {
                let child = board.after(pit).0;
                let reply =
                    plain_argmax(&child, |q| gain(&child, q)).map_or(0, |(q, _)| gain(&child, q));
                gain(&board, pit) - reply
            })
            .expect("a legal move");
            let view = Match::new(board);
            assert_eq!(Greedy1.choose(&view), g1, "greedy1 on {board}");
            assert_eq!(Greedy2.choose(&view), g2, "greedy2 on {board}");
            ties1 += usize::from(tied1);
            ties2 += usize::from(tied2);
            differ += usize::from(g1 != g2);
        }
        // The tie rule and the second step are both exercised, many times.
        assert!(
            ties1 > 1000 && ties2 > 1000 && differ > 1000,
            "{ties1} {ties2} {differ}"
        );
    }

    #[test]
    fn optimal_player_1_attains_the_optimal_value_on_every_instance() {
        let table = built();
        for board in instances() {
            let record = play(board, &table, &mut Local(OptimalAgent::new(table.clone())));
            assert_eq!(
                record.end.difference(),
                table.value(&board).unwrap(),
                "{board}"
            );
        }
    }

    #[test]
    fn official_totals_greedy1_wins_22_and_draws_7() {
        let table = built();
        let report = results_table(&instances(), &table, 20, 1, &|_| {}, &GameLog::off());
        assert_eq!(report.totals.instances, 51);
        assert_eq!(report.totals.optimal.wins, 51);
        assert_eq!(
            (report.totals.greedy1.wins, report.totals.greedy1.draws),
            (22, 7)
        );
        // Nobody beats the optimal value against the optimal player 2.
        for row in &report.instances {
            assert!(row.greedy1 <= row.optimal && row.greedy2 <= row.optimal);
            let rates = row.random_win + row.random_draw + row.random_loss;
            assert!((rates - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn same_seed_same_report() {
        let table = built();
        let boards = &instances()[..5];
        let a = results_table(boards, &table, 50, 7, &|_| {}, &GameLog::off());
        let b = results_table(boards, &table, 50, 7, &|_| {}, &GameLog::off());
        assert_eq!(a, b);
        let c = results_table(boards, &table, 50, 8, &|_| {}, &GameLog::off());
        assert_ne!(a, c);
    }

    /// A peer that hands each request line straight to a player-side session.
    struct SessionPeer {
        session: crate::wire::Session<Match, IoiWire, OptimalAgent>,
        answers: std::collections::VecDeque<String>,
        over: bool,
        sent: Vec<String>,
    }

    impl crate::process::Peer for SessionPeer {
        fn send_line(&mut self, line: &str) -> Result<(), crate::process::PlayerError> {
            self.sent.push(line.to_string());
            if self.over {
                return Err(crate::process::PlayerError::ClosedInput);
            }
            match self.session.handle(line) {
                Ok(Reply::Line(answer)) => self.answers.push_back(answer),
                Ok(Reply::Silent) => {}
                Ok(Reply::Last(answer)) => {
                    self.answers.extend(answer);
                    self.over = true;
                }
                Err(e) => panic!("the session refused '{line}': {e}"),
            }
            Ok(())
        }

        fn recv_line(
            &mut self,
            _deadline: Option<std::time::Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            self.answers
                .pop_front()
                .ok_or(crate::process::PlayerError::ClosedOutput)
        }
    }

    #[test]
    fn the_wire_round_trips_through_both_ends_on_every_instance() {
        use crate::seat::Remote;
        let table = built();
        for board in instances() {
            let peer = SessionPeer {
                session: crate::wire::Session::new(
                    IoiWire::default(),
                    OptimalAgent::new(table.clone()),
                ),
                answers: Default::default(),
                over: false,
                sent: Vec::new(),
            };
            let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let log = sent.clone();
            let mut remote = Remote::new("session", Box::new(peer), IoiWire::default())
                .with_transcript(Box::new(move |l| log.lock().unwrap().push(l.to_string())));
            let over_wire = play(board, &table, &mut remote);
            let local = play(board, &table, &mut Local(OptimalAgent::new(table.clone())));
            assert!(over_wire.fault.is_none(), "{board}: {:?}", over_wire.fault);
            let moves = |r: &GameRecord<Match>| r.plies.iter().map(|p| p.mv).collect::<Vec<_>>();
            assert_eq!(moves(&over_wire), moves(&local), "{board}");
            assert_eq!(over_wire.end, local.end, "{board}");
            assert_eq!(RefereedGame::new(&over_wire), RefereedGame::new(&local));
            // The dialogue: the board, then each of player 2's moves, the last one included.
            let lines = sent.lock().unwrap().clone();
            let to_player: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("> ")).collect();
            assert_eq!(to_player[0], board.to_string());
            let replies: Vec<String> = local
                .plies
                .iter()
                .filter(|p| p.turn == Turn::Seat(1))
                .map(|p| (p.mv + 1).to_string())
                .collect();
            assert_eq!(to_player[1..], replies[..], "{board}");
        }
    }

    /// A player that answers each request with `answer`, and has `waiting`
    /// lines already sent: from the start, or with its first answer.
    struct Scripted {
        answer: &'static str,
        waiting: std::collections::VecDeque<String>,
        from_the_start: bool,
        answered: bool,
    }

    impl crate::process::Peer for Scripted {
        fn send_line(&mut self, _line: &str) -> Result<(), crate::process::PlayerError> {
            Ok(())
        }

        fn recv_line(
            &mut self,
            _deadline: Option<std::time::Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            self.answered = true;
            Ok(self.answer.to_string())
        }

        fn waiting_line(&mut self) -> Option<String> {
            (self.from_the_start || self.answered)
                .then(|| self.waiting.pop_front())
                .flatten()
        }
    }

    #[test]
    fn endless_blank_lines_and_lines_sent_with_an_answer_lose_the_game() {
        let table = built();
        let board: Board = "4 3 2 4 2 3 2".parse().unwrap();
        let fault_when = |answer, waiting: &[&str], from_the_start| {
            let peer = Scripted {
                answer,
                waiting: waiting.iter().map(|l| l.to_string()).collect(),
                from_the_start,
                answered: false,
            };
            let mut remote = crate::seat::Remote::new("p", Box::new(peer), IoiWire::default());
            let record = play(board, &table, &mut remote);
            record.fault.map(|f| f.reason).unwrap_or_default()
        };
        let fault = |answer, waiting: &[&str]| fault_when(answer, waiting, false);
        // Blank lines as fast as they are read: never a time-out, so a limit.
        assert_eq!(fault("", &[]), "wrote more than 64 blank lines");
        // Blank lines beside an answer are passed over (the answer is played,
        // and `2` again later is illegal); another line is not.
        assert_eq!(
            fault("2", &["", ""]),
            "illegal move: pit 2 is empty (answer '2' to '3')"
        );
        assert_eq!(
            fault("2", &["", "7"]),
            "wrote '7' with its answer '2' to '4 3 2 4 2 3 2': one line answers a request"
        );
        assert_eq!(fault("2", &[""; 70]), "wrote more than 64 blank lines");
        // A person may press Enter as often as they like.
        let typed = format!("{}2\n", "\n".repeat(70));
        let person = crate::process::StreamPeer::for_person(
            std::io::Cursor::new(typed.into_bytes()),
            std::io::sink(),
        );
        let mut remote = crate::seat::Remote::new("person", Box::new(person), IoiWire::default());
        let record = play(board, &table, &mut remote);
        assert_eq!(record.plies[0].mv, 1, "{:?}", record.fault);
        // A line already there before a request answers nothing either.
        assert_eq!(
            fault_when("2", &["", "hello"], true),
            "wrote 'hello' before it was asked '4 3 2 4 2 3 2': one line answers a request"
        );
    }

    #[test]
    fn the_player_side_refuses_bad_lines_and_ends_with_the_game() {
        let table = built();
        let session = |lines: &[&str]| {
            let mut s =
                crate::wire::Session::new(IoiWire::default(), OptimalAgent::new(table.clone()));
            let mut out = Vec::new();
            let input = lines.join("\n");
            let result = s.serve(input.as_bytes(), &mut out);
            (
                result.map_err(|e| e.to_string()),
                String::from_utf8(out).unwrap(),
            )
        };
        let (r, out) = session(&["4 3 2 4 2 3"]);
        assert!(r.unwrap_err().contains("7 pits, found 6"));
        assert_eq!(out, "");
        let (r, _) = session(&[]);
        assert_eq!(r.unwrap_err(), "no board line");
        let (r, out) = session(&["4 3 2 4 2 3 2", "2"]);
        assert_eq!(out, "2\n");
        assert!(r.unwrap_err().contains("pit 2, which is empty"));
        let (r, _) = session(&["4 3 2 4 2 3 2", "3"]);
        assert!(r.unwrap_err().contains("input ended"));
        // The seed's game: the session stops once player 2 empties the pits.
        let (r, out) = session(&["4 3 2 4 2 3 2", "3", "4", "7", "junk after the end"]);
        r.unwrap();
        assert_eq!(out, "2\n5\n5\n");
        // Blank lines are passed over, as the original's scanf("%d") does.
        let (r, out) = session(&["", "4 3 2 4 2 3 2", "", " ", "3", "\r", "4", "7"]);
        r.unwrap();
        assert_eq!(out, "2\n5\n5\n");
        let (r, out) = session(&["0 0 0 0 0 0 0"]);
        r.unwrap();
        assert_eq!(out, "");
    }

    /// A small variant and its table, solved in memory.
    fn small() -> (Params, Arc<tabula_tables::ioiwari::VariantTable>) {
        let params = Params::new(5, 4, 10, 1, 3).unwrap();
        let table = tabula_tables::ioiwari::variant_in_memory(&params, &|_| {});
        (params, Arc::new(table))
    }

    #[test]
    fn a_variants_results_table_has_the_exact_values_and_greedy_stays_below() {
        let (params, table) = small();
        let rings = params.instances();
        let report =
            results_table(&rings, &table, 20, 1, &|_| {}, &GameLog::off()).of_variant(&params);
        assert_eq!(report.instances.len(), rings.len());
        let mut memo = std::collections::HashMap::new();
        let (mut below1, mut below2) = (0, 0);
        for (ring, row) in rings.iter().zip(&report.instances) {
            assert_eq!(row.board, ring.pits(), "{ring}");
            // The solver's plain memoized negamax, not the retrograde table.
            let exact = tabula_solver::search::memo_negamax(ring, &mut memo);
            assert_eq!(row.optimal, exact, "{ring}");
            assert!(
                row.greedy1 <= row.optimal && row.greedy2 <= row.optimal,
                "{ring}"
            );
            below1 += usize::from(row.greedy1 < row.optimal);
            below2 += usize::from(row.greedy2 < row.optimal);
        }
        // The variant's greedy players are not optimal players in disguise.
        assert!(below1 > 0 && below2 > 0, "{below1} {below2}");
        assert!(
            report
                .header()
                .starts_with("Ioiwari (pits 5 cap 4 beads 10 start 1..3) results table, seed 1,")
        );
        assert_eq!(
            report.plot().x_label,
            "starting board (beads in pits 1 to 5)"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["variant"]["pits"], 5);
        assert_eq!(json["instances"][0]["board"].as_array().unwrap().len(), 5);
        // The IOI game's report names no variant, as before variants existed.
        let ioi = results_table(&instances()[..2], &built(), 2, 1, &|_| {}, &GameLog::off())
            .of_variant(&Params::default());
        assert!(ioi.variant.is_none());
        assert!(serde_json::to_value(&ioi).unwrap().get("variant").is_none());
    }

    #[test]
    fn the_ioi_parameters_give_the_ioi_boards_and_greedy_plays_alike_on_rings() {
        use tabula_solver::ioiwari::starting_boards;
        let params = Params::default();
        let board = |r: &Ring| r.to_board().unwrap();
        let rings = params.instances();
        assert_eq!(rings.iter().map(board).collect::<Vec<_>>(), instances());
        let all = params.starting_rings();
        assert_eq!(all.iter().map(board).collect::<Vec<_>>(), starting_boards());
        // Whole games of each greedy player against itself, on both boards.
        for ring in all {
            let mut ioi = Match::new(board(&ring));
            let mut ours = RingMatch::new(ring);
            while !ioi.is_over() {
                let mv = if ioi.mover == 0 {
                    Agent::<Match>::choose(&mut Greedy2, &ioi)
                } else {
                    Agent::<Match>::choose(&mut Greedy1, &ioi)
                };
                let theirs = if ours.mover == 0 {
                    Agent::<RingMatch>::choose(&mut Greedy2, &ours)
                } else {
                    Agent::<RingMatch>::choose(&mut Greedy1, &ours)
                };
                assert_eq!(theirs, mv, "{ring}");
                ioi.apply(mv);
                ours.apply(mv);
            }
            assert!(ours.is_over());
            assert_eq!(ours.banks, ioi.banks, "{ring}");
        }
    }

    #[test]
    fn a_variants_game_is_logged_with_its_capacity_and_replays() {
        use crate::record::{GameLine, replay};
        let (params, table) = small();
        for ring in params.instances() {
            let record = play(ring, &table, &mut Local(Greedy2));
            let at = At::new(1, 0, ring.to_string(), 0);
            let text = serde_json::to_string(&GameLine::new(&record, &ring, &at)).unwrap();
            let line: GameLine = serde_json::from_str(&text).unwrap();
            assert_eq!(line.start["cap"], 4, "{text}");
            let states = replay::<RingMatch>(&line).unwrap();
            assert_eq!(states.last(), Some(&record.end), "{text}");
            // The page of `tabula replay` tells a variant's game by its capacity.
            let shown = crate::ioiwari::draw::show(&line).unwrap();
            let notes = serde_json::to_string(&shown).unwrap();
            assert!(
                notes.contains("pits 1 to 5 (at most 4 beads each)"),
                "{notes}"
            );
        }
        // An IOI game's log still names no capacity and replays as the IOI game.
        let table = built();
        let board = instances()[0];
        let record = play(board, &table, &mut Local(Greedy1));
        let line = GameLine::new(&record, &board, &At::new(1, 0, board.to_string(), 0));
        assert!(line.start.get("cap").is_none());
        replay::<Match>(&line).unwrap();
    }

    #[test]
    fn the_optimal_player_1_attains_the_value_on_every_variant_instance() {
        let (params, table) = small();
        for ring in params.instances() {
            let record = play(ring, &table, &mut Local(OptimalAgent::new(table.clone())));
            assert_eq!(
                record.end.difference(),
                table.value(&ring).unwrap(),
                "{ring}"
            );
            let game = RefereedGame::new(&record);
            assert_eq!(game.board, ring.pits());
        }
    }
}
