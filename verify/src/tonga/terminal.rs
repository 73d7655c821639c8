//! PseudoTonga at the terminal (`tabula play tonga`): squares typed `row col`
//! from 0, as on the wire.

use std::io::{self, BufRead, Write};

use tabula_solver::tonga::{Cell, Colour, Position};
use tabula_solver::{Seat, Turn};

use super::wire::{parse_answer, square};
use super::{ServerAgent, chance_rng, player_starts, server_rng};
use crate::agent::Agent;
use crate::terminal::{PersonEnd, Terminal, numbered_grid, play_against};

/// Plays the referee's game `game` of side `n` for `seed` with a person in
/// the tested player's seat (who starts is the referee's draw): against the
/// server with that game's tie-breaks, or against `opponent` when given.
pub fn play_referee_game(
    input: impl BufRead,
    output: impl Write,
    n: usize,
    game: usize,
    seed: u64,
    opponent: Option<Box<dyn Agent<Position>>>,
) -> io::Result<PersonEnd<Position>> {
    let start = Position::start(n).expect("a valid board side");
    let opponent =
        opponent.unwrap_or_else(|| Box::new(ServerAgent::new(server_rng(seed, n, game))));
    let person = if player_starts(seed, n, game) { 0 } else { 1 };
    let chance = chance_rng(seed, n, game);
    play_against(input, output, start, person, opponent, chance)
}

fn colour_name(colour: Colour) -> &'static str {
    match colour {
        Colour::Black => "Black",
        Colour::White => "White",
    }
}

impl Terminal for Position {
    fn move_hint(view: &Position) -> String {
        let last = view.board.n() - 1;
        format!("a square as 'row col', each 0 to {last}")
    }

    fn seat_name(seat: Seat) -> String {
        colour_name(Colour::of_seat(seat)).into()
    }

    fn draw(view: &Position) -> String {
        let board = &view.board;
        let grid = numbered_grid(board.n(), |row, col| {
            board.at(board.cell(row, col)).map_or('.', Colour::letter)
        });
        format!(
            "{grid}points: Black {}, White {}\n",
            board.points(Colour::Black),
            board.points(Colour::White)
        )
    }

    fn parse_move(view: &Position, text: &str) -> Result<Cell, String> {
        parse_answer(&view.board, text)
    }

    fn move_text(view: &Position, cell: Cell) -> String {
        square(&view.board, cell)
    }

    fn told(seen: &Position, mover: Turn, cell: &Cell) -> Option<String> {
        let Turn::Seat(seat) = mover else {
            return None;
        };
        let name = colour_name(Colour::of_seat(seat));
        Some(format!("{name} plays {}", square(&seen.board, *cell)))
    }

    fn result(end: &Position) -> String {
        let black = end.board.points(Colour::Black);
        let white = end.board.points(Colour::White);
        let verdict = match black.cmp(&white) {
            std::cmp::Ordering::Greater => "Black wins",
            std::cmp::Ordering::Less => "White wins",
            std::cmp::Ordering::Equal => "draw",
        };
        format!("Black {black}, White {white}: {verdict}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::{assert_finished, every_square};

    /// The person plays the first empty square every time; the server answers.
    #[test]
    fn a_person_plays_a_whole_game_against_the_server() {
        let mut typed = String::from("4 0\nzz\n?\n");
        // More first-empty answers than the game needs: wrong ones are refused.
        typed += &every_square(4, |row, col| format!("{row} {col}"));
        let mut output = Vec::new();
        // Seed 2's game 0 of side 4 has the person start, as Black.
        assert!(player_starts(2, 4, 0));
        let end = play_referee_game(typed.as_bytes(), &mut output, 4, 0, 2, None);
        let shown = [
            "   0 1 2 3\n0  . . . .\n",
            "illegal move: invalid move: ",
            "illegal move: invalid answer 'zz'",
            "legal moves: 0 0, 0 1, 0 2, 0 3, 1 0,",
            "White plays ",
            "is not legal here",
        ];
        let opening = "You play Black. Type a square as 'row col', each 0 to 3";
        let (end, text) = assert_finished(end, output, opening, &shown);
        assert!(end.board.is_full(), "{text}");
        let (b, w) = (
            end.board.points(Colour::Black),
            end.board.points(Colour::White),
        );
        assert!(Position::result(&end).starts_with(&format!("Black {b}, White {w}: ")));
    }
}
