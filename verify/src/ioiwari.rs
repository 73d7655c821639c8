//! Ioiwari agents, the referee of the IOI dialogue, and the official results table.

use std::time::Instant;

use serde::Serialize;
use tabula_solver::ZeroSum;
use tabula_solver::ioiwari::{Board, PITS, Pit, parse_label};
use tabula_tables::ioiwari::IoiwariTable;

use crate::old_agent::{Agent, RandomAgent};
use crate::process::Peer;
use crate::stats::Wdl;
use crate::tournament::{self, Progress};

/// Plays the table's optimal move, the lowest optimal pit on ties.
pub struct OptimalAgent<'a> {
    table: &'a IoiwariTable,
}

impl<'a> OptimalAgent<'a> {
    /// An optimal agent reading `table`.
    pub fn new(table: &'a IoiwariTable) -> OptimalAgent<'a> {
        OptimalAgent { table }
    }
}

impl Agent<Board> for OptimalAgent<'_> {
    fn name(&self) -> String {
        "optimal".into()
    }

    fn choose(&mut self, board: &Board) -> Pit {
        self.table.best_move(board).expect("the game is not over")
    }
}

/// One-step greedy: the largest immediate bank difference, lowest pit on ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy1;

/// Two-step greedy: own immediate difference minus the opponent's best immediate reply.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy2;

/// The legal pit with the highest score, the lowest pit on ties.
fn argmax_lowest(board: &Board, score: impl Fn(Pit) -> i32) -> Pit {
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
fn best_immediate(board: &Board) -> i32 {
    board
        .legal_moves()
        .iter()
        .map(|&pit| board.after(pit).1)
        .max()
        .unwrap_or(0)
}

impl Agent<Board> for Greedy1 {
    fn name(&self) -> String {
        "greedy1".into()
    }

    fn choose(&mut self, board: &Board) -> Pit {
        argmax_lowest(board, |pit| board.after(pit).1)
    }
}

impl Agent<Board> for Greedy2 {
    fn name(&self) -> String {
        "greedy2".into()
    }

    fn choose(&mut self, board: &Board) -> Pit {
        argmax_lowest(board, |pit| {
            let (child, gain) = board.after(pit);
            gain - best_immediate(&child)
        })
    }
}

/// A finished game: the moves played and both banks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Pits played, alternately by player 1 and player 2.
    pub moves: Vec<Pit>,
    /// Bank of player 1 and of player 2.
    pub banks: [u32; 2],
}

impl GameRecord {
    /// Player 1's bank minus player 2's.
    pub fn difference(&self) -> i32 {
        self.banks[0] as i32 - self.banks[1] as i32
    }
}

/// Plays a whole game in process, player 1 first.
pub fn play_game(
    start: Board,
    first: &mut dyn Agent<Board>,
    second: &mut dyn Agent<Board>,
) -> GameRecord {
    let mut board = start;
    let mut record = GameRecord {
        moves: Vec::new(),
        banks: [0, 0],
    };
    let mut mover = 0;
    while !board.is_over() {
        let agent: &mut dyn Agent<Board> = if mover == 0 { first } else { second };
        let pit = agent.choose(&board);
        assert!(board.is_legal(pit), "{} chose an illegal pit", agent.name());
        let sowing = board.sow(pit);
        record.banks[mover] += u32::from(sowing.mover);
        record.banks[1 - mover] += u32::from(sowing.opponent);
        record.moves.push(pit);
        mover = 1 - mover;
    }
    record
}

/// How a refereed game ended, from player 1's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Bank of player 1 and of player 2 when the game stopped.
    pub banks: [u32; 2],
    /// Why player 1 lost early, if it did.
    pub fault: Option<String>,
}

impl Verdict {
    /// `win`, `draw` or `loss` for player 1; a fault is a loss.
    pub fn outcome(&self) -> &'static str {
        if self.fault.is_some() {
            return "loss";
        }
        match self.banks[0].cmp(&self.banks[1]) {
            std::cmp::Ordering::Greater => "win",
            std::cmp::Ordering::Equal => "draw",
            std::cmp::Ordering::Less => "loss",
        }
    }

    /// The summary line: `result <bank1> <bank2> <win|draw|loss> [reason]`.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "result {} {} {}",
            self.banks[0],
            self.banks[1],
            self.outcome()
        );
        if let Some(reason) = &self.fault {
            line.push(' ');
            line.push_str(reason);
        }
        line
    }
}

/// Referees one game: the optimal player 2 against player 1 at the other end of `peer`.
///
/// Writes the board line, then reads player 1's pit labels and answers each with
/// player 2's optimal move (lowest pit on ties). Every line sent or received is
/// passed to `log` (`>` for lines to player 1, `<` for lines from it). A malformed
/// or illegal move, an exit, a closed pipe or a missed `deadline` (for reading
/// its moves and for writing to it) ends the game as a loss for player 1 with
/// the reason.
pub fn referee_game(
    start: Board,
    table: &IoiwariTable,
    peer: &mut dyn Peer,
    deadline: Option<Instant>,
    log: &mut dyn FnMut(&str),
) -> Verdict {
    let mut board = start;
    let mut banks = [0u32; 2];
    let fault = |banks: [u32; 2], reason: String| Verdict {
        banks,
        fault: Some(reason),
    };
    log(&format!("> {board}"));
    if let Err(e) = peer.send_line_by(&board.to_string(), deadline) {
        return fault(banks, format!("could not send the board: {e}"));
    }
    while !board.is_over() {
        let line = match peer.recv_line(deadline) {
            Ok(line) => line,
            Err(e) => return fault(banks, e.to_string()),
        };
        log(&format!("< {line}"));
        let pit = match parse_label(&line) {
            Ok(pit) if board.is_legal(pit) => pit,
            Ok(pit) => return fault(banks, format!("illegal move: pit {} is empty", pit + 1)),
            Err(_) => return fault(banks, format!("malformed move '{}'", line.trim())),
        };
        let sowing = board.sow(pit);
        banks[0] += u32::from(sowing.mover);
        banks[1] += u32::from(sowing.opponent);
        if board.is_over() {
            break;
        }
        let reply = table.best_move(&board).expect("the game is not over");
        let sowing = board.sow(reply);
        banks[1] += u32::from(sowing.mover);
        banks[0] += u32::from(sowing.opponent);
        log(&format!("> {}", reply + 1));
        // A player that stops listening after the game's last move has not lost.
        if let Err(e) = peer.send_line_by(&(reply + 1).to_string(), deadline)
            && !board.is_over()
        {
            return fault(banks, format!("could not send a move: {e}"));
        }
    }
    Verdict { banks, fault: None }
}

/// One row of the results table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstanceRow {
    /// The starting board, pit 1 first.
    pub board: [u8; PITS],
    /// Optimal score difference for player 1.
    pub optimal: i32,
    /// Final difference when player 1 plays greedy1 against the optimal player 2.
    pub greedy1: i32,
    /// Final difference when player 1 plays greedy2 against the optimal player 2.
    pub greedy2: i32,
    /// Mean final difference of the random games.
    pub random_mean: f64,
    /// Fraction of random games won.
    pub random_win: f64,
    /// Fraction of random games drawn.
    pub random_draw: f64,
    /// Fraction of random games lost.
    pub random_loss: f64,
}

/// Win, draw and loss counts of one column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Instances won.
    pub wins: u64,
    /// Instances drawn.
    pub draws: u64,
    /// Instances lost.
    pub losses: u64,
}

impl From<Wdl> for Counts {
    fn from(w: Wdl) -> Counts {
        Counts {
            wins: w.wins,
            draws: w.draws,
            losses: w.losses,
        }
    }
}

/// The totals line of the results table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Totals {
    /// Instances in the table.
    pub instances: usize,
    /// Random games per instance.
    pub random_games: usize,
    /// Outcomes of optimal play by instance.
    pub optimal: Counts,
    /// Outcomes of greedy1 by instance.
    pub greedy1: Counts,
    /// Outcomes of greedy2 by instance.
    pub greedy2: Counts,
    /// Outcomes of all random games together.
    pub random: Counts,
    /// Mean difference over all random games.
    pub random_mean: f64,
}

/// The results table of a set of starting boards.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// One row per starting board, in the order given.
    pub instances: Vec<InstanceRow>,
    /// Win/draw/loss counts per column.
    pub totals: Totals,
}

/// Plays every column of the results table for each board, in parallel.
///
/// Random game `g` of instance `i` draws from stream `i * games + g` of `seed`,
/// so the same seed gives the same report whatever the thread count.
pub fn results_table(
    boards: &[Board],
    table: &IoiwariTable,
    games: usize,
    seed: u64,
    progress: Progress<'_>,
) -> Report {
    let rows = tournament::run(boards.len(), progress, |i| {
        let board = boards[i];
        let versus_optimal = |agent: &mut dyn Agent<Board>| {
            play_game(board, agent, &mut OptimalAgent::new(table)).difference()
        };
        let mut random = Wdl::default();
        let mut sum = 0i64;
        for g in 0..games {
            let stream = (i * games + g) as u64;
            let mut agent = RandomAgent::new(tournament::rng(seed, stream));
            let d = versus_optimal(&mut agent);
            random.add(d.into());
            sum += i64::from(d);
        }
        InstanceRow {
            board: board.pits(),
            optimal: table.value(&board),
            greedy1: versus_optimal(&mut Greedy1),
            greedy2: versus_optimal(&mut Greedy2),
            random_mean: if games == 0 {
                0.0
            } else {
                sum as f64 / games as f64
            },
            random_win: random.win_rate(),
            random_draw: random.draw_rate(),
            random_loss: random.loss_rate(),
        }
    });
    let mut optimal = Wdl::default();
    let mut greedy1 = Wdl::default();
    let mut greedy2 = Wdl::default();
    let mut random = Counts::default();
    let mut random_sum = 0.0;
    for row in &rows {
        optimal.add(row.optimal.into());
        greedy1.add(row.greedy1.into());
        greedy2.add(row.greedy2.into());
        // Rates times games are whole numbers of games.
        random.wins += (row.random_win * games as f64).round() as u64;
        random.draws += (row.random_draw * games as f64).round() as u64;
        random.losses += (row.random_loss * games as f64).round() as u64;
        random_sum += row.random_mean * games as f64;
    }
    let total_games = (rows.len() * games).max(1) as f64;
    let totals = Totals {
        instances: rows.len(),
        random_games: games,
        optimal: optimal.into(),
        greedy1: greedy1.into(),
        greedy2: greedy2.into(),
        random,
        random_mean: random_sum / total_games,
    };
    Report {
        instances: rows,
        totals,
    }
}

impl Report {
    /// The table as Markdown, with a totals line.
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
        let wdl = |c: &Counts| format!("{}/{}/{}", c.wins, c.draws, c.losses);
        let games = (t.instances * t.random_games).max(1) as f64;
        table.row(&[
            format!("total W/D/L ({} instances)", t.instances),
            wdl(&t.optimal),
            wdl(&t.greedy1),
            wdl(&t.greedy2),
            format!("{:.2}", t.random_mean),
            format!("{:.3}", t.random.wins as f64 / games),
            format!("{:.3}", t.random.draws as f64 / games),
            format!("{:.3}", t.random.losses as f64 / games),
        ]);
        table.to_markdown()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::ioiwari::instances;

    #[test]
    fn greedy_picks_lowest_pit_on_ties() {
        // Pits 1 and 2 both bank nothing immediately... pit 1 sows onto empty pit 2.
        let board = Board::new([1, 1, 0, 0, 0, 0, 0]).unwrap();
        // Pit 1: last bead lands on pit 2 (1 bead) -> +2. Pit 2: lands on empty pit 3 -> -1.
        assert_eq!(Greedy1.choose(&board), 0);
        let board = Board::new([0, 0, 0, 0, 0, 1, 1]).unwrap();
        assert_eq!(Greedy1.choose(&board), 5);
    }

    #[test]
    fn optimal_player_1_attains_the_optimal_value_on_every_instance() {
        let table = IoiwariTable::in_memory();
        for board in instances() {
            let record = play_game(
                board,
                &mut OptimalAgent::new(&table),
                &mut OptimalAgent::new(&table),
            );
            assert_eq!(record.difference(), table.value(&board), "{board}");
        }
    }

    #[test]
    fn official_totals_greedy1_wins_22_and_draws_7() {
        let table = IoiwariTable::in_memory();
        let report = results_table(&instances(), &table, 20, 1, &|_| {});
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
        let table = IoiwariTable::in_memory();
        let boards = &instances()[..5];
        let a = results_table(boards, &table, 50, 7, &|_| {});
        let b = results_table(boards, &table, 50, 7, &|_| {});
        assert_eq!(a, b);
        let c = results_table(boards, &table, 50, 8, &|_| {});
        assert_ne!(a, c);
    }
}
