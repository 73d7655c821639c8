//! Dominoes at the terminal (`tabula play dominoes`): moves typed as on the
//! wire (`L<i>`, `R<i>`, `DRAW`, `PASS`, in either case), `i` the tile's
//! place in the hand as shown.

use std::io::{self, BufRead, Write};

use tabula_solver::dominoes::{Match, Move, Observation, Rules, Side, Tiles, View};
use tabula_solver::{Game, Seat, Turn};

use super::referee::{deal, draws};
use super::wire::{answer_text, parse_answer};
use crate::agent::Agent;
use crate::terminal::{PersonEnd, Terminal, play_against};

/// Plays deal `index` of case `rules` for `seed` (the referee's deal and
/// stock order) with a person in `person`'s seat against `opponent`; an
/// opponent that sees the other hand (`clairvoyant`) is given it.
pub fn play_deal(
    input: impl BufRead,
    output: impl Write,
    rules: Rules,
    index: usize,
    seed: u64,
    person: Seat,
    opponent: Box<dyn Agent<Match>>,
) -> io::Result<PersonEnd<Match>> {
    let mut start = Match::new(&deal(seed, rules, index));
    if super::sees_open_hand(&opponent.name()) {
        start = start.with_open_hand(1 - person);
    }
    let chance = draws(seed, rules, index);
    play_against(input, output, start, person, opponent, chance)
}

/// `count` tiles, in words.
fn tiles(count: u32) -> String {
    match count {
        1 => "1 tile".into(),
        n => format!("{n} tiles"),
    }
}

/// `items` shown one after the other, a space apart.
fn spaced<T: std::fmt::Display>(items: impl Iterator<Item = T>) -> String {
    let shown: Vec<String> = items.map(|item| item.to_string()).collect();
    shown.join(" ")
}

/// Tiles in the other hand: every tile but the line, this hand and the stock.
fn other_hand_len(view: &View) -> u32 {
    view.rules.tiles().len() - view.line.len() as u32 - view.hand.len() as u32 - view.stock
}

impl Terminal for Match {
    fn move_hint(_view: &View) -> String {
        "L or R and a tile's place in your hand (L0 puts your first tile at the left end), DRAW or PASS".into()
    }

    fn seat_name(seat: Seat) -> String {
        format!("player {}", seat + 1)
    }

    fn draw(view: &View) -> String {
        let line = spaced(view.line.iter().map(|&(a, b)| format!("{a}-{b}")));
        let hand = spaced(
            view.hand
                .iter()
                .enumerate()
                .map(|(i, tile)| format!("{i}:{tile}")),
        );
        let (left, right) = view.ends();
        let mut text = format!(
            "line: {line} (ends {left} and {right})\nstock: {}; the other hand: {}\nyour hand: {hand}\n",
            tiles(view.stock),
            tiles(other_hand_len(view)),
        );
        if let Some(open) = view.open_hand {
            text += &format!("the other hand (open): {}\n", spaced(open.iter()));
        }
        text
    }

    fn parse_move(view: &View, text: &str) -> Result<Move, String> {
        // A person may type `l0` or `draw`; an error quotes what they typed.
        let upper = text.to_ascii_uppercase();
        let quoted = |t: &str| format!("'{}'", crate::wire::short(t));
        parse_answer(view, &upper).map_err(|e| e.replacen(&quoted(&upper), &quoted(text), 1))
    }

    fn move_text(view: &View, mv: Move) -> String {
        answer_text(view, mv)
    }

    fn told(_seen: &View, mover: Turn, observation: &Observation) -> Option<String> {
        let who = match mover {
            Turn::Seat(seat) => Self::seat_name(seat),
            _ => "chance".into(),
        };
        Some(match observation {
            Observation::Placed(tile, side) => {
                let end = match side {
                    Side::Left => "left",
                    Side::Right => "right",
                };
                format!("{who} plays {tile} at the {end} end")
            }
            Observation::Draw => format!("{who} draws from the stock"),
            Observation::Pass => format!("{who} passes"),
            Observation::Drawn(Some(tile)) => format!("you drew {tile}"),
            Observation::Drawn(None) => return None,
        })
    }

    fn result(end: &Match) -> String {
        let scores = end.scores();
        let hands: Vec<String> = (0..2)
            .map(|seat| {
                let tiles: Tiles = end.hand(seat).iter().copied().collect();
                let mut shown = spaced(end.hand(seat).iter());
                if shown.is_empty() {
                    shown = "nothing".into();
                }
                format!(
                    "{} holds {shown} ({} pips)",
                    Self::seat_name(seat),
                    tiles.pips()
                )
            })
            .collect();
        let verdict = if scores[0] > scores[1] {
            "player 1 wins"
        } else if scores[1] > scores[0] {
            "player 2 wins"
        } else {
            "a tie"
        };
        format!("{}; {verdict}", hands.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::assert_finished;
    use crate::tournament::{Purpose, stream};

    /// A person who answers every request with each of the answers below in
    /// turn plays a whole game: the wrong ones are refused, one right one is
    /// always among them.
    #[test]
    fn a_person_plays_a_whole_game_against_the_server() {
        let rules = Rules::new(5, 4).unwrap();
        let mut typed = String::from("x9\nr\n?\n");
        for _ in 0..40 {
            for answer in [
                "L0", "r0", "L1", "R1", "L2", "R2", "L3", "R3", "L4", "R4", "draw", "PASS",
            ] {
                typed += answer;
                typed.push('\n');
            }
        }
        let server = super::super::agent("server", stream(1, Purpose::Agent, 0, 0, 1)).unwrap();
        let mut output = Vec::new();
        let end = play_deal(typed.as_bytes(), &mut output, rules, 0, 3, 1, server);
        let shown = [
            // Read in any case, quoted as typed.
            "illegal move: invalid answer 'x9'",
            // Only the quoted answer: the message's own `R<i>` stays as it is.
            "invalid answer 'r': expected L<i>, R<i>, DRAW or PASS",
            "legal moves: ",
            "player 1 plays ",
            "\nline: ",
            "\nyour hand: 0:",
        ];
        let (end, _) = assert_finished(end, output, "You play player 2. Type L or R", &shown);
        let verdict = Match::result(&end);
        let scores = end.scores();
        assert_eq!(
            verdict.ends_with("player 2 wins"),
            scores[1] > scores[0],
            "{verdict}"
        );
        assert_eq!(
            verdict.ends_with("a tie"),
            scores[1] == scores[0],
            "{verdict}"
        );
    }
}
