//! `tabula play tothello`: a person against the solver in the terminal.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use tabula_solver::tothello::{Color, Position};
use tabula_verify::tothello::play_terminal;

use crate::common::person_end;
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

/// Plays a game between a person (reading `input`) and the solver, through
/// the core's person seat (see `tabula_verify::terminal`).
///
/// Returns the final position, or `None` when the person typed `quit`.
pub fn play_session(
    input: impl BufRead,
    output: impl Write,
    start: Position,
    human: Color,
    depth: u8,
    exact: u32,
) -> anyhow::Result<Option<Position>> {
    person_end(play_terminal(input, output, start, human, depth, exact))
}

/// Lets a person play against the solver in the terminal.
pub fn play(args: PlayArgs) -> Outcome {
    let start = parse_position(&args.position)?;
    let human = parse_color(&args.color).context("bad --color")?;
    play_session(
        io::stdin().lock(),
        crate::out::data_stdout(),
        start,
        human,
        args.depth,
        args.exact,
    )?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::tothello::Board;

    fn session(start: Position, input: &str) -> (anyhow::Result<Option<Position>>, String) {
        let mut output = Vec::new();
        let result = play_session(input.as_bytes(), &mut output, start, Color::Black, 2, 10);
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
        assert!(text.contains("illegal move: 'Z9' is not a move"), "{text}");
        assert!(
            text.contains("illegal move: square C1 is not empty"),
            "{text}"
        );
        assert!(text.contains("  A B C D E F G H"), "{text}");
        assert!(text.contains("Game over: Red "), "{text}");
        // Two empties: the computer plays perfectly and says so.
        assert!(text.contains("(perfect play ends "), "{text}");
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
