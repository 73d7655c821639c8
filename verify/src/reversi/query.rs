//! `query reversi`: what every legal move of a board does, what each built-in
//! player would play there, and, given a case's computer opponents, what the
//! one to move rates each move and plays.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::grid::Square;
use tabula_solver::reversi::{Board, Rule, Weights};

use super::{AGENTS, Opponent, agent, oracle};
use crate::agent::Agent;
use crate::protocol::excerpt;

/// A board as a request gives it: its rows, split by spaces or `/`, after an
/// optional count of rows (the protocol's `7 ....... .......`), itself after
/// an optional `getNextMove` (a line of the referee's transcript).
pub fn parse_board(text: &str, mover: usize) -> Result<Board, String> {
    let mut words: Vec<&str> = text
        .split(|c: char| c == '/' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    if words.first() == Some(&"getNextMove") {
        words.remove(0);
    }
    // A count has at most two digits; a row of digits (a full row) has seven or more.
    if let Some(first) = words.first()
        && first.len() <= 2
        && first.bytes().all(|b| b.is_ascii_digit())
    {
        let rows = words.len() - 1;
        if first.parse::<usize>().ok() != Some(rows) {
            return Err(format!(
                "it counts {} rows but gives {rows}",
                excerpt(first)
            ));
        }
        words.remove(0);
    }
    Board::from_rows(&words, mover).map_err(|e| e.to_string())
}

/// One legal move of the mover and what it does.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MoveFacts {
    /// The move as the protocol answers it: column, then row.
    pub col: usize,
    /// Its row.
    pub row: usize,
    /// Pieces it flips.
    pub flips: u32,
    /// The cells it flips, `[col, row]` each, row-major.
    pub flipped: Vec<[usize; 2]>,
    /// The mover's pieces after it.
    pub pieces_after: u32,
}

/// A computer opponent's view of its move: each move's ratio and its choice.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OpponentFacts {
    /// The opponent's player number (2..).
    pub player: usize,
    /// Each legal move's ratio (own weight over the others'), in the order of
    /// `moves`; in JSON a number, or `"inf"`, `"-inf"` or `"nan"`, which decide
    /// the move as much as numbers do.
    #[serde(serialize_with = "ratios_in_json")]
    #[schemars(with = "Vec<RatioJson>")]
    pub ratios: Vec<f64>,
    /// The move it plays, `[col, row]`.
    pub plays: [usize; 2],
}

/// A ratio as [`ratios_in_json`] writes it, for the schema.
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
enum RatioJson {
    /// A finite ratio.
    Finite(f64),
    /// `inf`, `-inf` or `nan`.
    Text(String),
}

/// Finite ratios as numbers, the others as text (JSON has no infinity).
fn ratios_in_json<S: serde::Serializer>(ratios: &[f64], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = serializer.serialize_seq(Some(ratios.len()))?;
    for &r in ratios {
        match r {
            r if r.is_finite() => seq.serialize_element(&r)?,
            r if r.is_nan() => seq.serialize_element("nan")?,
            r => seq.serialize_element(&r.to_string())?,
        }
    }
    seq.end()
}

/// What `query reversi` answers for a board.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Analysis {
    /// The board side.
    pub n: usize,
    /// The players.
    pub players: usize,
    /// The board's rows.
    pub rows: Vec<String>,
    /// Each player's pieces, player 1 first.
    pub pieces: Vec<u32>,
    /// The player to move (1..), or `None` once nobody can.
    pub mover: Option<usize>,
    /// The players (1..) asked for before the mover who cannot move, in turn order.
    pub skipped: Vec<usize>,
    /// The mover's legal moves in row-major order.
    pub moves: Vec<MoveFacts>,
    /// When player 1 moves, each built-in player's move but `random`'s,
    /// `(name, [col, row])`, and the `oracle`'s when the case's opponents are known.
    pub choices: Vec<(String, [usize; 2])>,
    /// The mover's own view, when it is one of the case's computer opponents.
    pub opponent: Option<OpponentFacts>,
}

/// Analyses `board`, whose mover was asked as seat `asked` (the next seat
/// that can move, if that one cannot); `opponents` are the case's computer
/// players 2.. with their rule, when known. `best` draws from a fixed
/// stream, so the same board gives the same answer.
pub fn analyse(board: &Board, asked: usize, opponents: Option<(&[Weights], Rule)>) -> Analysis {
    let g = board.geometry();
    let col_row = |square: Square| {
        let (row, col) = g.row_col(square);
        [col, row]
    };
    let mover = board.mover();
    let moves = match mover {
        Some(seat) => board
            .moves_with_flips(seat)
            .map(|(square, flips)| {
                let [col, row] = col_row(square);
                MoveFacts {
                    col,
                    row,
                    flips: flips.count(),
                    flipped: flips.iter().map(|c| col_row(c as Square)).collect(),
                    pieces_after: board.pieces(seat).count() + flips.count() + 1,
                }
            })
            .collect(),
        None => Vec::new(),
    };
    let mut choices = Vec::new();
    let mut opponent = None;
    if let Some(seat) = mover {
        // The built-in players are player 1's, as the protocol asks only it.
        if seat == 0 {
            for &name in AGENTS.iter().filter(|&&name| name != "random") {
                let rng = ChaCha8Rng::seed_from_u64(0);
                let mut player = agent(name, rng).expect("a built-in player");
                player.start_game(seat, board);
                choices.push((name.to_string(), col_row(player.choose(board))));
            }
        }
        if let Some((weights, rule)) = opponents {
            let cases: Vec<Opponent> = weights
                .iter()
                .map(|&weights| Opponent { weights, rule })
                .collect();
            if seat == 0 {
                let mut oracle = oracle::Oracle::new(&cases);
                oracle.start_game(0, board);
                choices.push(("oracle".into(), col_row(oracle.choose(board))));
            } else if let Some(them) = cases.get(seat - 1) {
                let ratios = them.weights.ratings(board, rule).map(|(_, r)| r).collect();
                let plays = them
                    .weights
                    .choose(board, rule)
                    .expect("the mover has a move");
                opponent = Some(OpponentFacts {
                    player: seat + 1,
                    ratios,
                    plays: col_row(plays),
                });
            }
        }
    }
    Analysis {
        n: board.n(),
        players: board.players(),
        rows: board.rows(),
        pieces: (0..board.players())
            .map(|s| board.pieces(s).count())
            .collect(),
        mover: mover.map(|s| s + 1),
        skipped: match mover {
            Some(seat) => (0..board.players())
                .map(|k| (asked + k) % board.players())
                .take_while(|&s| s != seat)
                .map(|s| s + 1)
                .collect(),
            None => Vec::new(),
        },
        moves,
        choices,
        opponent,
    }
}

impl Analysis {
    /// The answer as lines of text.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "board {n}x{n}, {p} players; pieces {}",
            self.pieces
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("/"),
            n = self.n,
            p = self.players
        );
        for s in &self.skipped {
            out.push_str(&format!("; player {s} cannot move"));
        }
        match self.mover {
            None => out.push_str("; the game is over\n"),
            Some(m) => out.push_str(&format!("; player {m} to move\n")),
        }
        for (k, m) in self.moves.iter().enumerate() {
            out.push_str(&format!(
                "move {} {}: flips {}, then {} pieces",
                m.col, m.row, m.flips, m.pieces_after
            ));
            if let Some(o) = &self.opponent {
                out.push_str(&format!(", ratio {:.4}", o.ratios[k]));
            }
            out.push('\n');
        }
        for (name, [col, row]) in &self.choices {
            // `best` learns from a game's boards; here it has seen none.
            let note = if name == "best" {
                " (as at a game's first request)"
            } else {
                ""
            };
            out.push_str(&format!("{name} plays {col} {row}{note}\n"));
        }
        if let Some(o) = &self.opponent {
            let [col, row] = o.plays;
            out.push_str(&format!(
                "player {} (the case's opponent) plays {col} {row}\n",
                o.player
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use tabula_solver::reversi::plain::Plain;

    #[test]
    fn the_protocol_s_board_and_rows_split_by_slashes_read_alike() {
        let a = parse_board(
            "7 ....... ....... ..123.. ..231.. ..312.. ....... .......",
            0,
        )
        .unwrap();
        let b = parse_board("......./......./..123../..231../..312../......./.......", 0).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, Board::start(7).unwrap());
        // A count must be the rows'.
        let error = parse_board("7 ....... ....... ..123.. ..231.. ..312.. .......", 0);
        assert_eq!(error.unwrap_err(), "it counts 7 rows but gives 6");
        assert!(parse_board("", 0).is_err());
        assert!(parse_board("6 ....... ....... ..123.. ..231.. ..312.. .......", 0).is_err());
        // A transcript's request line, and a full first row, which is no count.
        let request = "getNextMove 7 ....... ....... ..123.. ..231.. ..312.. ....... .......";
        assert_eq!(parse_board(request, 0).unwrap(), a);
        let full = "3333333/2222213/1222113/1121113/2122113/2221313/3221111";
        let over = parse_board(full, 0).unwrap();
        assert_eq!(over.mover(), None);
        assert_eq!(parse_board(&format!("7 {full}"), 0).unwrap(), over);
    }

    #[test]
    fn every_move_s_facts_agree_with_the_plain_grid_along_random_games() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for n in [7, 8, 12] {
            let mut board = Board::start(n).unwrap();
            while let Some(seat) = board.mover() {
                let analysis = analyse(&board, seat, None);
                assert_eq!(analysis.mover, Some(seat + 1));
                let plain = Plain::of(&board);
                let mut expected = Vec::new();
                for row in 0..n {
                    for col in 0..n {
                        let flips = plain.flips(seat, row, col);
                        if !flips.is_empty() {
                            expected.push((col, row, flips.len() as u32));
                        }
                    }
                }
                let got: Vec<_> = analysis
                    .moves
                    .iter()
                    .map(|m| (m.col, m.row, m.flips))
                    .collect();
                assert_eq!(got, expected);
                // The flipped cells themselves, as the plain grid finds them.
                for m in &analysis.moves {
                    let mut cells: Vec<[usize; 2]> = plain
                        .flips(seat, m.row, m.col)
                        .into_iter()
                        .map(|(r, c)| [c, r])
                        .collect();
                    cells.sort_by_key(|&[c, r]| (r, c));
                    assert_eq!(m.flipped, cells);
                }
                assert!(analysis.skipped.is_empty());
                let own = board.pieces(seat).count();
                assert!(
                    analysis
                        .moves
                        .iter()
                        .all(|m| m.pieces_after == own + m.flips + 1)
                );
                // Player 1's built-in players choose legal moves.
                let expect_choices = if seat == 0 { AGENTS.len() - 1 } else { 0 };
                assert_eq!(analysis.choices.len(), expect_choices);
                for (_, [col, row]) in &analysis.choices {
                    assert!(expected.iter().any(|&(c, r, _)| (c, r) == (*col, *row)));
                }
                let moves: Vec<_> = board.moves_of(seat).iter().collect();
                board.play(moves[rng.random_range(0..moves.len())] as Square);
            }
            let over = analyse(&board, 0, None);
            assert!(over.mover.is_none() && over.moves.is_empty() && over.choices.is_empty());
            assert!(over.to_text().contains("the game is over"));
        }
    }

    #[test]
    fn an_opponent_plays_its_best_ratio_and_the_oracle_answers_for_player_1() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let weights: Vec<Weights> = (0..2)
            .map(|_| {
                let mut w = Weights([0.0; tabula_solver::reversi::board::MAX_CELLS]);
                for cell in w.0.iter_mut() {
                    *cell = rng.random_range(-50.0..50.0);
                }
                w
            })
            .collect();
        let rule = Rule::default();
        let start = Board::start(7).unwrap();
        let first = analyse(&start, 0, Some((&weights, rule)));
        assert!(first.opponent.is_none());
        assert_eq!(first.choices.last().unwrap().0, "oracle");
        // Player 2 to move: its choice is a move of the highest ratio, the first
        // of them in row-major order under the default rule.
        let mut board = start;
        board.play(board.moves_of(0).iter().next().unwrap() as Square);
        assert_eq!(board.mover(), Some(1));
        let second = analyse(&board, 1, Some((&weights, rule)));
        let facts = second
            .opponent
            .clone()
            .expect("player 2 is the case's opponent");
        assert_eq!(facts.player, 2);
        let best = facts
            .ratios
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max);
        let k = facts.ratios.iter().position(|&r| r == best).unwrap();
        assert_eq!(facts.plays, [second.moves[k].col, second.moves[k].row]);
        assert!(second.to_text().contains("(the case's opponent) plays"));
    }

    #[test]
    fn a_player_who_cannot_move_is_named_and_ratios_past_numbers_stay_in_json() {
        // Player 3's one piece can close nothing (player 1's is on the edge),
        // so player 3 is skipped; player 1 closes player 3's piece and moves.
        let board = parse_board(
            "7 ......./13...../......./......./......./......./.......",
            2,
        );
        let board = board.unwrap();
        let analysis = analyse(&board, 2, None);
        assert_eq!(analysis.mover, Some(1));
        assert_eq!(analysis.skipped, vec![3]);
        assert!(
            analysis
                .to_text()
                .contains("; player 3 cannot move; player 1 to move"),
            "{}",
            analysis.to_text()
        );
        let facts = OpponentFacts {
            player: 2,
            ratios: vec![1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN],
            plays: [0, 0],
        };
        let json = serde_json::to_value(&facts).unwrap();
        assert_eq!(
            json["ratios"],
            serde_json::json!([1.5, "inf", "-inf", "nan"])
        );
    }
}
