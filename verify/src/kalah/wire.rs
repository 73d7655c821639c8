//! The line protocol of `play kalah` as a wire, both ends.

use tabula_solver::kalah::{Kalah, Match, Pit, Rules, parse_label};
use tabula_solver::{Game, IllegalMove, Seat, Turn};

use crate::wire::{Incoming, Wire, short};

/// The check of a patient seat: the rules' reason when a pit cannot be played.
pub fn check(view: &Match, pit: Pit) -> Result<(), IllegalMove> {
    view.check_move(pit)
}

/// The seat's side of the board: `<its pits> / <the other's> stores <its> <other's>`.
fn board_line(view: &Match, seat: Seat) -> String {
    // The position is seen from the mover; turn it to the seat's side.
    let position = if view.mover == seat {
        view.position
    } else {
        view.position.flipped()
    };
    format!(
        "{position} stores {} {}",
        view.stores[seat],
        view.stores[1 - seat]
    )
}

/// The dialogue of `tabula play kalah` (see the module's documentation).
///
/// The referee side collects the lines about the other seat's moves and sends
/// them before the next question or the result; the player side reads them as
/// notes and answers only the questions.
#[derive(Clone, Debug)]
pub struct KalahWire {
    rules: Rules,
    /// The seat spoken to (both sides).
    seat: Seat,
    /// Referee side: lines still to send before the next question or the end.
    pending: Vec<String>,
    /// Referee side: the seat answered last and nobody moved since (so it moves again).
    answered: bool,
    /// Referee side: tabula moved last (a next move of tabula means it moved again).
    tabula_moved: bool,
    /// Player side: whether the game has started (first question), and is over.
    started: bool,
    over: bool,
    /// Player side: the greeting's pits and seeds replace the rules' (the
    /// capture and end rules, which it does not name, are kept).
    open_size: bool,
}

impl KalahWire {
    /// The dialogue of a game of `rules`.
    pub fn new(rules: Rules) -> KalahWire {
        KalahWire {
            rules,
            seat: 0,
            pending: Vec::new(),
            answered: false,
            tabula_moved: false,
            started: false,
            over: false,
            open_size: false,
        }
    }

    /// The player side of a dialogue that plays whatever pits and seeds its
    /// greeting names, under `rules`' capture and end rules.
    pub fn sized_by_greeting(rules: Rules) -> KalahWire {
        KalahWire {
            open_size: true,
            ..KalahWire::new(rules)
        }
    }

    /// Takes the greeting's `pits` and `seeds` (the words after `kalah`):
    /// they must be the rules', unless the size is open.
    fn greeted(&mut self, pits: Option<&str>, seeds: Option<&str>) -> Result<(), String> {
        let (Some(Ok(m)), Some(Ok(n))) = (pits.map(str::parse), seeds.map(str::parse)) else {
            return Err("no pits and seeds after 'kalah'".into());
        };
        let (have_m, have_n) = (self.rules.pits, self.rules.seeds);
        if (m, n) == (have_m, have_n) {
            return Ok(());
        }
        if !self.open_size {
            return Err(format!(
                "the greeting is of Kalah({m}, {n}), this player plays Kalah({have_m}, {have_n})"
            ));
        }
        let sized = Rules::new(m, n).map_err(|e| format!("greeting: {e}"))?;
        self.rules = sized
            .with_capture(self.rules.capture)
            .with_ending(self.rules.ending);
        Ok(())
    }

    /// The opening line for the seat `seat`.
    pub fn greeting(&self, seat: Seat) -> String {
        let m = self.rules.pits;
        format!(
            "kalah {m} {} you are player {}: answer a pit 1..{m} of your side ({m} is next to \
             your store); boards read your pits / tabula's pits, each in sowing order, then the \
             stores, yours first",
            self.rules.seeds,
            seat + 1
        )
    }

    /// The pit of a label `1..m`; the error quotes the label shortened and
    /// escaped, since it comes from the other side.
    fn label(&self, text: &str) -> Result<Pit, String> {
        parse_label(text, &self.rules).map_err(|_| {
            format!(
                "'{}' is not a pit label 1..{}",
                short(text),
                self.rules.pits
            )
        })
    }

    /// The board of a question: `<pits> / <pits> stores a b`, as the seat sees it.
    fn parse_board(&self, text: &str) -> Result<Match, String> {
        let m = usize::from(self.rules.pits);
        let words: Vec<&str> = text.split_whitespace().collect();
        // No count is above the game's seeds, so the sum below cannot wrap
        // and every pit fits its byte.
        let most = self.rules.total_seeds();
        let numbers = |ws: &[&str]| -> Result<Vec<u32>, String> {
            ws.iter()
                .map(|w| match w.parse::<u32>() {
                    Ok(n) if n <= most => Ok(n),
                    _ => Err(format!(
                        "'{}' is not a seed count of a game of {most} seeds",
                        short(w)
                    )),
                })
                .collect()
        };
        if words.len() != 2 * m + 4 || words[m] != "/" || words[2 * m + 1] != "stores" {
            return Err(format!(
                "expected '<{m} pits> / <{m} pits> stores <a> <b>', got '{}'",
                short(text)
            ));
        }
        let mine = numbers(&words[..m])?;
        let theirs = numbers(&words[m + 1..2 * m + 1])?;
        let stores = numbers(&words[2 * m + 2..])?;
        let total: u32 = mine.iter().chain(&theirs).chain(&stores).sum();
        if total != self.rules.total_seeds() {
            return Err(format!(
                "{total} seeds on '{}', the game has {}",
                short(text),
                self.rules.total_seeds()
            ));
        }
        let small = |v: &[u32]| v.iter().map(|&s| s as u8).collect::<Vec<u8>>();
        let mut view = Match::new(self.rules);
        view.position = Kalah::from_pits(self.rules, &small(&mine), &small(&theirs));
        view.mover = self.seat;
        view.stores[self.seat] = stores[0];
        view.stores[1 - self.seat] = stores[1];
        Ok(view)
    }
}

impl Wire<Match> for KalahWire {
    fn game_request(&mut self, seat: Seat, _view: &Match) -> Option<String> {
        self.seat = seat;
        self.pending = Vec::new();
        self.answered = false;
        self.tabula_moved = false;
        None
    }

    fn game_notice(&mut self, seat: Seat, _view: &Match) -> Option<String> {
        Some(self.greeting(seat))
    }

    fn observe(&mut self, _mover: Turn, pit: &Pit) {
        // Two moves of tabula in a row: the first kept the turn.
        if self.tabula_moved
            && let Some(last) = self.pending.last_mut()
        {
            last.push_str(" and moves again");
        }
        self.tabula_moved = true;
        self.answered = false;
        self.pending.push(format!("tabula plays {}", pit + 1));
    }

    fn move_request(&mut self, view: &Match) -> String {
        let again = if self.answered { " again" } else { "" };
        self.answered = true;
        self.tabula_moved = false;
        let mut lines = std::mem::take(&mut self.pending);
        lines.push(format!("your move{again}: {}", board_line(view, self.seat)));
        lines.join("\n")
    }

    fn decode_answer(&mut self, _view: &Match, line: &str) -> Result<Pit, String> {
        self.label(line)
    }

    fn end_lines(&mut self, view: &Match) -> Vec<String> {
        let mut lines = std::mem::take(&mut self.pending);
        if !view.is_over() {
            // Stopped by a fault (the seat's input closed): no result to tell.
            return lines;
        }
        let (mine, theirs) = (view.stores[self.seat], view.stores[1 - self.seat]);
        let outcome = match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => "win",
            std::cmp::Ordering::Equal => "draw",
            std::cmp::Ordering::Less => "loss",
        };
        lines.push(format!("result {mine} {theirs} {outcome}"));
        lines
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Match>, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("kalah") => {
                let seat = words
                    .get(6)
                    .and_then(|w| w.trim_end_matches(':').parse().ok());
                match seat {
                    Some(k @ 1..=2) if words.get(3..6) == Some(&["you", "are", "player"]) => {
                        self.greeted(words.get(1).copied(), words.get(2).copied())
                            .map_err(|e| format!("{e}, in '{}'", short(line)))?;
                        self.seat = k - 1;
                        Ok(Incoming::Note {
                            observed: Vec::new(),
                        })
                    }
                    _ => {
                        let size = if self.open_size {
                            "<m> <n>".to_string()
                        } else {
                            format!("{} {}", self.rules.pits, self.rules.seeds)
                        };
                        Err(format!(
                            "expected 'kalah {size} you are player <1|2>: ...', got '{}'",
                            short(line)
                        ))
                    }
                }
            }
            Some("tabula") if words.get(1) == Some(&"plays") => {
                let pit = self.label(words.get(2).unwrap_or(&""))?;
                Ok(Incoming::Note {
                    observed: vec![(Turn::Seat(1 - self.seat), pit)],
                })
            }
            Some("your") if words.get(1).is_some_and(|w| w.starts_with("move")) => {
                let (_, board) = line
                    .split_once(':')
                    .ok_or_else(|| format!("no board in '{}'", short(line)))?;
                let view = self.parse_board(board)?;
                if view.is_over() {
                    return Err(format!("no move to make on '{}'", short(board)));
                }
                // Under the default end rule the game ends as a side empties.
                if !view.position.arises() {
                    return Err(format!(
                        "no move to make on '{}': a side is empty, so the game is over",
                        short(board)
                    ));
                }
                let start = (!self.started).then_some(self.seat);
                self.started = true;
                Ok(Incoming::Move {
                    start,
                    observed: Vec::new(),
                    view,
                })
            }
            Some("result") => {
                self.over = true;
                Ok(Incoming::End { reply: None })
            }
            _ => Err(format!("unknown line '{}'", short(line))),
        }
    }

    fn encode_answer(&mut self, _view: &Match, pit: Pit) -> String {
        (pit + 1).to_string()
    }

    fn finished(&self) -> bool {
        self.over
    }
}
