//! `query --line`: the optimal line of play from a position to the end, for
//! the games whose queries know every position's exact value (Ioiwari,
//! Kalah, PseudoTonga, and Tothello where it solves exactly).

use serde::Serialize;
use tabula_solver::zero_sum::{Line, ZeroSum, principal_line};

/// One move of the optimal line, as `--batch` writes it.
#[derive(Serialize)]
pub struct LineMoveAnswer<M: Serialize> {
    /// Whether the queried position's mover plays it (else the other player).
    pub by_mover: bool,
    /// The move, in the game's own fields.
    #[serde(flatten)]
    pub mv: M,
    /// Its mover's gain less the opponent's (0 in games scored at the end).
    pub gains: i32,
}

/// A query's optimal line, with `--line`: its moves in the JSON (flattened
/// into the answer) and its text for the terminal.
#[derive(Serialize)]
pub struct LineAnswer<F: Serialize> {
    /// The optimal line to the end, with `--line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineMoveAnswer<F>>>,
    /// The optimal line as the text output shows it, with `--line`.
    #[serde(skip)]
    shown: Option<[String; 2]>,
}

impl<F: Serialize> LineAnswer<F> {
    /// The line's moves and text (`None`: no line asked for).
    pub fn of(line: Option<(Vec<LineMoveAnswer<F>>, [String; 2])>) -> Self {
        let (line, shown) = line.unzip();
        LineAnswer { line, shown }
    }

    /// Prints the line's text, if any, after the rest of the answer.
    pub fn print(&self) -> std::io::Result<()> {
        for text in self.shown.iter().flatten() {
            crate::out::outln!("{text}")?;
        }
        Ok(())
    }
}

/// The optimal line from `start` (the first optimal move in the game's order
/// at each turn), its values from `value_of`: [`principal_line`] with
/// anyhow's error, so that callers' closures can use `?` on any error.
pub fn optimal_line<G: ZeroSum>(
    start: &G,
    value_of: impl FnMut(&G) -> anyhow::Result<i32>,
) -> anyhow::Result<Line<G::Move>> {
    principal_line(start, value_of)
}

/// `line`'s moves for JSON, each move's fields from `fields`.
pub fn line_json<M: Copy, F: Serialize>(
    line: &Line<M>,
    fields: impl Fn(M) -> F,
) -> Vec<LineMoveAnswer<F>> {
    line.moves
        .iter()
        .map(|m| LineMoveAnswer {
            by_mover: m.by_first,
            mv: fields(m.mv),
            gains: m.reward,
        })
        .collect()
}

/// The pit fields of Ioiwari's and Kalah's line moves.
#[derive(Serialize)]
pub struct PitField {
    /// The pit, from 1.
    pub pit: u8,
}

/// The pit fields of `pit` (from 0).
pub fn pit_field(pit: u8) -> PitField {
    PitField { pit: pit + 1 }
}

/// How to read a pit game's text line.
pub const PIT_LEGEND: &str =
    "A the mover, B the other: the first optimal pit each turn and its gains";

/// The players of a pit game's text line, A for the mover and B for the other.
pub fn pit_players(by_mover: bool) -> &'static str {
    if by_mover { "A" } else { "B" }
}

/// A pit game's optimal line (Ioiwari's, Kalah's) as the JSON and the text
/// query give it: pits from 1, each with its gains.
pub fn pit_line(line: &Line<u8>) -> (Vec<LineMoveAnswer<PitField>>, [String; 2]) {
    let text = line_text(line, PIT_LEGEND, true, pit_players, |pit| {
        (pit + 1).to_string()
    });
    (line_json(line, pit_field), text)
}

/// The two lines the text query prints: the moves (each as `player` and
/// `label` give it, with its gains in a game that scores moves, `scored`;
/// `legend` says how to read them), then what the line is worth to the mover.
pub fn line_text<M: Copy>(
    line: &Line<M>,
    legend: &str,
    scored: bool,
    player: impl Fn(bool) -> &'static str,
    label: impl Fn(M) -> String,
) -> [String; 2] {
    let moves: Vec<String> = line
        .moves
        .iter()
        .map(|m| {
            let gains = if scored {
                format!(" {:+}", m.reward)
            } else {
                String::new()
            };
            format!("{}{}{gains}", player(m.by_first), label(m.mv))
        })
        .collect();
    let shown = if moves.is_empty() {
        "none (the game is over)".to_string()
    } else {
        moves.join(", ")
    };
    [
        format!("optimal line ({legend}): {shown}"),
        format!("the line's difference for the mover: {}", line.difference()),
    ]
}
