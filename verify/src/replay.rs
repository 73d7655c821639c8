//! Replays of logged games as one self-contained HTML page (`tabula replay`):
//! each game replayed through the rules, one frame per move.
//!
//! A game only says how one of its states looks ([`Draw`]); the page, its
//! script and its styles are the same for every game.

use serde::Serialize;

use crate::record::{GameLine, Notation, ReplayError, replay};

/// How a state of a game is drawn: a board of cells and lines of notes.
///
/// A cell is a disc when it is `@` and a colour key (`@B`, `@W`, `@R`, `@1`..`@4`),
/// optionally followed by `/` and the size of its isle (`@B/5`: the page
/// shades the cell by it), empty when `.`, and text otherwise (Ioiwari's bead counts).
pub trait Draw: Notation {
    /// The board, row by row.
    fn board(&self) -> Vec<Vec<String>>;
    /// What the board does not show (banks, the stock, the mover).
    fn notes(&self) -> Vec<String>;
    /// Each seat's hidden hand (Dominoes), which the page shows as the chosen viewer may see it; none by default.
    fn hands(&self) -> Vec<Vec<String>> {
        Vec::new()
    }
}

/// One state of a game on the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frame {
    /// The board after the move.
    pub board: Vec<Vec<String>>,
    /// Notes under the board.
    pub notes: Vec<String>,
    /// Scores so far.
    pub scores: Vec<f64>,
    /// Cells that changed with the move (the placed piece and the flips).
    pub changed: Vec<(usize, usize)>,
    /// Each seat's hand, when the game hides them (empty otherwise).
    pub hands: Vec<Vec<String>>,
}

/// One game on the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shown {
    /// `ioiwari, 4 3 2 4 2 3 2, game 0`.
    pub title: String,
    /// The players by seat.
    pub seats: Vec<String>,
    /// Final scores.
    pub scores: Vec<f64>,
    /// The fault, in words.
    pub fault: Option<String>,
    /// `seat: move` per move (`chance: drawn 2-5`); the last entry is the forfeit rule when a fault ended the game.
    pub moves: Vec<String>,
    /// The start, then one frame per entry of `moves`.
    pub frames: Vec<Frame>,
}

/// Replays a logged game of `G` into its frames.
pub fn shown<G: Draw>(line: &GameLine) -> Result<Shown, ReplayError> {
    let states = replay::<G>(line)?;
    let mut moves: Vec<String> = line
        .moves
        .iter()
        .map(|m| match m.seat {
            Some(s) => format!("{}: {}", seat_name(line, s), m.mv),
            None => format!("chance: {}", m.mv),
        })
        .collect();
    if let Some(fault) = &line.fault {
        moves.push(format!(
            "{} faulted: forfeit rule",
            seat_name(line, fault.seat)
        ));
    }
    let mut frames: Vec<Frame> = Vec::with_capacity(states.len());
    for state in &states {
        let board = state.board();
        let changed = match frames.last() {
            Some(before) => changes(&before.board, &board),
            None => Vec::new(),
        };
        frames.push(Frame {
            board,
            notes: state.notes(),
            scores: state.scores().to_vec(),
            changed,
            hands: state.hands(),
        });
    }
    Ok(Shown {
        title: format!(
            "{}, {}, game {}",
            line.game, line.case_label, line.game_index
        ),
        seats: line.seats.clone(),
        scores: line.scores.clone(),
        fault: line
            .fault
            .as_ref()
            .map(|f| format!("{} ({}): {}", seat_name(line, f.seat), f.kind, f.reason)),
        moves,
        frames,
    })
}

fn seat_name(line: &GameLine, seat: usize) -> String {
    format!(
        "seat {seat} ({})",
        line.seats.get(seat).map_or("?", String::as_str)
    )
}

fn changes(before: &[Vec<String>], after: &[Vec<String>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (r, (a, b)) in before.iter().zip(after).enumerate() {
        // A row that grew at one end (the Dominoes line): only the new cell changed.
        if b.len() == a.len() + 1 {
            if b[1..] == a[..] {
                out.push((r, 0));
                continue;
            }
            if b[..a.len()] == a[..] {
                out.push((r, a.len()));
                continue;
            }
        }
        for (c, (x, y)) in a.iter().zip(b).enumerate() {
            // An isle's size is no change of the cell itself.
            let piece = |t: &str| t.split('/').next().map(str::to_owned);
            if piece(x) != piece(y) {
                out.push((r, c));
            }
        }
    }
    out
}

/// A game's drawing of its logged games: its `draw::show`, which the binary's
/// registration of the game names, so that the page knows no game by name.
pub type ShowGame = fn(&GameLine) -> Result<Shown, ReplayError>;

/// The refusal of a logged game that no registered game draws.
pub fn unknown_game(game: &str) -> ReplayError {
    ReplayError::OtherGame {
        expected: "a game of tabula".into(),
        found: crate::wire::short(game),
    }
}

/// Writes the page of `games`, one self-contained HTML document (no network),
/// a game at a time as the iterator yields them, so that neither the games nor
/// the page are ever whole in memory; returns the number of games. The first
/// error of `games` or of `out` stops it.
pub fn write_page<E: From<std::io::Error>>(
    out: &mut dyn std::io::Write,
    games: impl IntoIterator<Item = Result<Shown, E>>,
) -> Result<usize, E> {
    let (head, tail) = PAGE
        .split_once(DATA_SLOT)
        .expect("the page has a data slot");
    out.write_all(head.as_bytes())?;
    out.write_all(b"[")?;
    let mut count = 0;
    for game in games {
        // No `<` in the data, written as the JSON escape instead: a logged
        // `</script>` would end the page's script, and `<!--<script>` (a
        // player's command or answer is logged) would keep its end from ending it.
        let json = serde_json::to_string(&game?)
            .expect("frames serialize")
            .replace('<', "\\u003c");
        if count > 0 {
            out.write_all(b",")?;
        }
        out.write_all(json.as_bytes())?;
        count += 1;
    }
    out.write_all(b"]")?;
    out.write_all(tail.as_bytes())?;
    Ok(count)
}

/// Where the page's script takes its games.
const DATA_SLOT: &str = "/*DATA*/null";

const PAGE: &str = include_str!("replay.html");

pub(crate) fn disc(text: &str) -> String {
    format!("@{text}")
}

/// The last note of a two-seat game's frame: who moves, or that it is over.
pub(crate) fn seat_to_move(over: bool, mover: tabula_solver::Seat) -> String {
    if over {
        "game over".into()
    } else {
        format!("seat {mover} to move")
    }
}

/// An Ioiwari ring's one row: the pits, then the two banks in brackets.
pub(crate) fn pits_then_banks(pits: &[u8], banks: &[u32; 2]) -> Vec<Vec<String>> {
    let mut row: Vec<String> = pits.iter().map(u8::to_string).collect();
    row.extend(banks.iter().map(|b| format!("[{b}]")));
    vec![row]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{At, GameLine};
    use crate::seat::{Clock, Local, Player};
    use crate::tournament::{Purpose, stream};
    use tabula_solver::nim::Nim;
    use tabula_solver::reversi::Board as ReversiBoard;
    use tabula_solver::{dominoes, ioiwari, kalah, tonga, tothello};

    /// Each game's drawing, as the binary's registration names them.
    fn show(line: &GameLine) -> Result<Shown, ReplayError> {
        let draw: ShowGame = match line.game.as_str() {
            "nim" => crate::nim::draw::show,
            "ioiwari" => crate::ioiwari::draw::show,
            "kalah" => crate::kalah::draw::show,
            "tonga" => crate::tonga::draw::show,
            "tothello" => crate::tothello::draw::show,
            "dominoes" => crate::dominoes::draw::show,
            "reversi" => crate::reversi::draw::show,
            other => return Err(unknown_game(other)),
        };
        draw(line)
    }

    fn random_game<G: Draw>(start: G, params: &G::Params, seats: usize) -> GameLine {
        let mut agents: Vec<Local<crate::agent::RandomAgent>> = (0..seats)
            .map(|s| {
                Local(crate::agent::RandomAgent::new(stream(
                    4,
                    Purpose::Agent,
                    0,
                    0,
                    s as u64,
                )))
            })
            .collect();
        let mut players: Vec<&mut dyn Player<G>> =
            agents.iter_mut().map(|a| a as &mut dyn Player<G>).collect();
        let mut clocks = vec![Clock::default(); seats];
        let seating: Vec<usize> = (0..seats).collect();
        let mut chance = stream(4, Purpose::Chance, 0, 0, 0);
        let record =
            crate::arena::play_game(start, &mut players, &seating, &mut clocks, &mut chance);
        GameLine::new(&record, params, &At::new(4, 0, "test", 0))
    }

    #[test]
    fn every_game_shows_one_frame_per_move_and_marks_the_flips() {
        let board: ioiwari::Board = "4 3 2 4 2 3 2".parse().unwrap();
        let lines = vec![
            random_game(ioiwari::Match::new(board), &board, 2),
            random_game(tothello::Position::start(), &tothello::Position::start(), 2),
            random_game(ReversiBoard::start(8).unwrap(), &8, 4),
            random_game(tonga::Position::start(6).unwrap(), &6, 2),
            random_game(Nim::new(7), &7, 2),
            {
                let rules = kalah::Rules::new(3, 3).unwrap();
                random_game(kalah::Match::new(rules), &rules, 2)
            },
            {
                let rules = dominoes::Rules::new(5, 4).unwrap();
                let deal = dominoes::Deal::random(rules, &mut stream(4, Purpose::Setup, 0, 0, 0));
                random_game(dominoes::Match::new(&deal), &rules, 2)
            },
        ];
        let games: Vec<Shown> = lines.iter().map(|l| show(l).unwrap()).collect();
        for (game, line) in games.iter().zip(&lines) {
            assert_eq!(game.frames.len(), line.moves.len() + 1, "{}", game.title);
            assert_eq!(game.moves.len(), line.moves.len());
            assert_eq!(game.frames.last().unwrap().scores, line.scores);
        }
        // Every Reversi move changes its square and at least one flipped piece.
        let reversi = &games[2];
        assert!(reversi.frames[1..].iter().all(|f| f.changed.len() >= 2));
        let mut html = Vec::new();
        let written =
            write_page::<std::io::Error>(&mut html, games.iter().cloned().map(Ok)).unwrap();
        assert_eq!(written, games.len());
        let html = String::from_utf8(html).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("/*DATA*/"));
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "no network"
        );
        assert!(html.contains("\"title\":\"reversi, test, game 0\""));
    }

    #[test]
    fn logged_text_cannot_end_or_hide_the_pages_script() {
        // A player's command and answers reach the log, and so the page.
        let mut game = show(&random_game(Nim::new(7), &7, 2)).unwrap();
        game.seats[0] = "echo '<!--<script>'".into();
        game.fault = Some("answered '</script><b>'".into());
        let mut html = Vec::new();
        write_page::<std::io::Error>(&mut html, [Ok(game)]).unwrap();
        let html = String::from_utf8(html).unwrap();
        let (before, after) = PAGE.split_once(DATA_SLOT).unwrap();
        let data = &html[before.len()..html.len() - after.len()];
        assert!(!data.contains('<'), "{data}");
        assert!(data.contains("echo '\\u003c!--\\u003cscript>'"), "{data}");
        // Read back as JSON, the text is the player's own.
        let value: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(value[0]["seats"][0], "echo '<!--<script>'");
    }
}
