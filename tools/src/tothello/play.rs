//! `tabula play tothello`: a person against the solver in the terminal.

use std::io;

use anyhow::Context;
use clap::Args;
use tabula_verify::tothello::play_terminal;

use crate::common::finish_play;
use crate::registry::Outcome;

use super::{DEPTH, EXACT, PositionArgs, parse_color, parse_position};

/// Arguments of `tabula play tothello`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// The colour you play, Red or Black in any case (Black moves first from the standard start).
    #[arg(long, visible_alias = "colour", default_value = "Black")]
    color: String,
    /// Plies the computer searches before the endgame.
    #[arg(long, default_value_t = DEPTH, value_parser = clap::value_parser!(u8).range(1..=64))]
    depth: u8,
    /// Empty squares from which the computer plays perfectly.
    #[arg(long, default_value_t = EXACT, value_parser = clap::value_parser!(u32).range(0..=64))]
    exact: u32,
}

/// Lets a person play against the solver in the terminal, through the core's
/// person seat (see `tabula_verify::terminal`).
pub fn play(args: PlayArgs) -> Outcome {
    let start = parse_position(&args.position)?;
    let human = parse_color(&args.color).context("bad --color")?;
    finish_play(play_terminal(
        io::stdin().lock(),
        crate::out::data_stdout(),
        start,
        human,
        args.depth,
        args.exact,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::person_end;
    use tabula_solver::tothello::{Board, Color, Position};

    /// A game against the solver (2 plies, exact from 10 empties) with the
    /// person as Black typing `input`: the final position (`None` after
    /// `quit`) and what the person was shown.
    fn session(start: Position, input: &str) -> (anyhow::Result<Option<Position>>, String) {
        let mut output = Vec::new();
        let end = play_terminal(input.as_bytes(), &mut output, start, Color::Black, 2, 10);
        let result = person_end(end);
        (result, String::from_utf8(output).unwrap())
    }

    #[test]
    fn person_plays_to_the_end_with_clear_messages_for_bad_moves() {
        // Two empty squares, A1 and B1; Black to move.
        let board = Board {
            red: 0x5555_5555_5555_5500,
            black: 0xAAAA_AAAA_AAAA_AA00 | 0xFC,
        };
        let start = Position::new(board, Color::Black);
        let (result, text) = session(start, "Z9\nC1\nA1\nB1\n");
        let end = result.unwrap().expect("played to the end");
        assert!(end.is_finished());
        for shown in [
            "illegal move: 'Z9' is not a move",
            "illegal move: square C1 is not empty",
            "  A B C D E F G H",
            "Game over: Red ",
            // Two empties: the computer plays perfectly and says so.
            "(perfect play ends ",
        ] {
            assert!(text.contains(shown), "{text}");
        }
    }

    #[test]
    fn quit_and_end_of_input() {
        let (result, _) = session(Position::start(), "quit\n");
        assert!(result.unwrap().is_none());
        let (result, _) = session(Position::start(), "");
        assert!(
            result
                .unwrap_err()
                .to_string()
                .contains("stdin: the input ended before the game did")
        );
    }
}
