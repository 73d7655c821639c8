//! MultiplayerReversi at the terminal (`tabula play reversi`): squares typed
//! `col row` from 0, column first, as on the wire.

use std::io::{self, BufRead, Write};

use tabula_solver::grid::Square;
use tabula_solver::reversi::{Board, Rule, Weights};
use tabula_solver::{Seat, Turn};

use super::Opponent;
use super::wire::{answer_text, parse_answer};
use crate::seat::{Local, Player};
use crate::terminal::{PersonEnd, Remark, Terminal, numbered_grid, play_person};
use crate::tournament::numbered_stream;

/// Plays a game on side `n` with a person as player 1 against the computer
/// opponents `weights` (players 2.., as the referee's [`super::referee::opponents`] draws them).
pub fn play_referee_case(
    input: impl BufRead,
    output: impl Write,
    n: usize,
    weights: &[Weights],
    rule: Rule,
) -> io::Result<PersonEnd<Board>> {
    let start = Board::start(n).expect("a valid board side");
    let mut computers: Vec<Local<Opponent>> = weights
        .iter()
        .map(|&weights| Local(Opponent { weights, rule }))
        .collect();
    let mut others: Vec<&mut dyn Player<Board>> = computers
        .iter_mut()
        .map(|c| c as &mut dyn Player<Board>)
        .collect();
    // No chance in Reversi: the stream is never drawn from.
    play_person(
        input,
        output,
        start,
        0,
        &mut others,
        Remark::default(),
        &mut numbered_stream(0, 0),
    )
}

impl Terminal for Board {
    fn move_hint(view: &Board) -> String {
        let last = view.n() - 1;
        format!("a square as 'col row', column first, each 0 to {last}")
    }

    fn seat_name(seat: Seat) -> String {
        format!("player {}", seat + 1)
    }

    fn draw(view: &Board) -> String {
        let g = view.geometry();
        let grid = numbered_grid(view.n(), |row, col| {
            view.owner(g.square(row, col))
                .map_or('.', |s| char::from(b'1' + s as u8))
        });
        let counts: Vec<String> = (0..view.players())
            .map(|s| format!("{}: {}", s + 1, view.pieces(s).count()))
            .collect();
        format!("{grid}pieces by player: {}\n", counts.join(", "))
    }

    fn parse_move(view: &Board, text: &str) -> Result<Square, String> {
        parse_answer(view, text)
    }

    fn move_text(view: &Board, square: Square) -> String {
        answer_text(view, square)
    }

    fn told(seen: &Board, mover: Turn, square: &Square) -> Option<String> {
        let Turn::Seat(seat) = mover else {
            return None;
        };
        Some(format!(
            "{} plays {}",
            Self::seat_name(seat),
            answer_text(seen, *square)
        ))
    }

    fn result(end: &Board) -> String {
        let counts: Vec<u32> = (0..end.players()).map(|s| end.pieces(s).count()).collect();
        let most = counts.iter().copied().max().unwrap_or(0);
        let leaders: Vec<String> = (0..end.players())
            .filter(|&s| counts[s] == most)
            .map(Self::seat_name)
            .collect();
        format!(
            "you (player 1) own {} cells, a case score of {:.4}; most pieces: {}",
            counts[0],
            end.case_score(0),
            leaders.join(" and ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::{assert_finished, every_square};

    /// A person who tries every square in turn plays a whole 7×7 game against
    /// two opponents with fixed weights.
    #[test]
    fn a_person_plays_a_whole_game_against_two_opponents() {
        let mut typed = String::from("9 9\n0 0\n?\n");
        typed += &every_square(7, |row, col| format!("{col} {row}")).repeat(49);
        let weights = |k: i32| -> Weights {
            let mut w = Weights([0.0; 144]);
            for (i, cell) in w.0.iter_mut().enumerate() {
                *cell = f64::from((i as i32 * k) % 17 - 8);
            }
            w
        };
        let mut output = Vec::new();
        let opponents = [weights(3), weights(5)];
        let end = play_referee_case(
            typed.as_bytes(),
            &mut output,
            7,
            &opponents,
            Rule::default(),
        );
        let shown = [
            "   0 1 2 3 4 5 6\n0  . . . . . . .\n",
            "pieces by player: 1: 3, 2: 3, 3: 3\n",
            "illegal move: ",
            "legal moves: ",
            "player 2 plays ",
            "player 3 plays ",
        ];
        let opening = "You play player 1. Type a square as 'col row'";
        assert_finished(end, output, opening, &shown);
    }
}
