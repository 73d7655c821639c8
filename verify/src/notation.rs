//! Each game's [`Notation`] for game logs: its moves as its wire writes them
//! where a move stands on its own, its start and parameters as small JSON.
//!
//! Kept in one file, apart from the games' modules, so that the log format of
//! every game reads in one place.

use serde_json::{Value, json};
use tabula_solver::dominoes::{self, Rules, Side, Tile};
use tabula_solver::ioiwari::{self, Board as IoiBoard, Params, Ring, parse_label};
use tabula_solver::kalah::{self, Capture, Ending, Kalah};
use tabula_solver::nim::Nim;
use tabula_solver::reversi::Board as ReversiBoard;
use tabula_solver::tonga::{self, Board as TongaBoard, Colour};
use tabula_solver::tothello;

use crate::record::Notation;

fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, String> {
    value.get(name).ok_or_else(|| format!("no field '{name}'"))
}

fn uint(value: &Value, name: &str) -> Result<u64, String> {
    field(value, name)?
        .as_u64()
        .ok_or_else(|| format!("'{name}' is not a count"))
}

fn text<'a>(value: &'a Value, name: &str) -> Result<&'a str, String> {
    field(value, name)?
        .as_str()
        .ok_or_else(|| format!("'{name}' is not a string"))
}

fn strings<'a>(value: &'a Value, name: &str) -> Result<Vec<&'a str>, String> {
    field(value, name)?
        .as_array()
        .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
        .ok_or_else(|| format!("'{name}' is not a list of strings"))
}

/// Nim: a move is the count taken, as on the wire.
impl Notation for Nim {
    const NAME: &'static str = "nim";

    fn params_json(heap: &u32) -> Value {
        json!({ "heap": heap })
    }

    fn start_json(&self) -> Value {
        json!({ "heap": self.heap, "mover": self.mover })
    }

    fn from_start_json(value: &Value) -> Result<Nim, String> {
        let heap = u32::try_from(uint(value, "heap")?).map_err(|e| e.to_string())?;
        let mover = uint(value, "mover")?;
        if mover > 1 {
            return Err(format!("no seat {mover}"));
        }
        Ok(Nim {
            heap,
            mover: mover as usize,
        })
    }

    fn move_text(&self, mv: u8) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        text.parse().map_err(|_| format!("'{text}' is not a count"))
    }
}

/// A Mancala ring's banks as a log's start reads them: at most the beads
/// the ring can hold (`most`) in all, counting those on the board, so that
/// no sum of them can overflow.
fn banks(value: &Value, on_board: u32, most: u32) -> Result<[u32; 2], String> {
    let banks: [u32; 2] = serde_json::from_value(field(value, "banks")?.clone())
        .map_err(|e| format!("banks: {e}"))?;
    let total = u64::from(banks[0]) + u64::from(banks[1]) + u64::from(on_board);
    if total > u64::from(most) {
        return Err(format!(
            "banks {} and {} and {on_board} beads on the board: more than the {most} beads the ring holds",
            banks[0], banks[1]
        ));
    }
    Ok(banks)
}

/// Ioiwari: a move is the pit's label 1..7, as in the IOI dialogue.
impl Notation for ioiwari::Match {
    const NAME: &'static str = "ioiwari";

    fn params_json(board: &IoiBoard) -> Value {
        json!({ "board": board.to_string() })
    }

    fn start_json(&self) -> Value {
        json!({ "board": self.board.to_string(), "mover": self.mover, "banks": self.banks })
    }

    fn from_start_json(value: &Value) -> Result<ioiwari::Match, String> {
        let board: IoiBoard = text(value, "board")?
            .parse()
            .map_err(|e: ioiwari::IoiwariError| e.to_string())?;
        let mover = uint(value, "mover")?;
        let most = ioiwari::PITS as u32 * u32::from(ioiwari::MAX_BEADS);
        let banks = banks(value, board.beads(), most)?;
        if mover > 1 {
            return Err(format!("no seat {mover}"));
        }
        Ok(ioiwari::Match {
            board,
            mover: mover as usize,
            banks,
        })
    }

    fn move_text(&self, pit: u8) -> String {
        (pit + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        parse_label(text).map_err(|e| e.to_string())
    }
}

/// Kalah's rules as JSON, spelt as on the command line (`--ending mover-stuck`).
fn kalah_rules_json(rules: &kalah::Rules) -> Value {
    json!({
        "pits": rules.pits,
        "seeds": rules.seeds,
        "capture": rules.capture.name(),
        "ending": rules.ending.name(),
    })
}

fn kalah_rules(value: &Value) -> Result<kalah::Rules, String> {
    let small = |name: &str| -> Result<u8, String> {
        u8::try_from(uint(value, name)?).map_err(|_| format!("'{name}' is out of range"))
    };
    let capture = text(value, "capture")?;
    let capture =
        Capture::from_name(capture).ok_or_else(|| format!("no capture rule '{capture}'"))?;
    let ending = text(value, "ending")?;
    let ending = Ending::from_name(ending).ok_or_else(|| format!("no end rule '{ending}'"))?;
    Ok(kalah::Rules::new(small("pits")?, small("seeds")?)
        .map_err(|e| e.to_string())?
        .with_capture(capture)
        .with_ending(ending))
}

/// Kalah: a move is the pit's label `1..m`, as in `tabula play kalah`'s
/// dialogue. The start gives the board by seat (seat 0's pits / seat 1's, each
/// in sowing order), not from the mover's side as the solver holds it, so that
/// a log reads the same whoever is to move.
impl Notation for kalah::Match {
    const NAME: &'static str = "kalah";

    fn params_json(rules: &kalah::Rules) -> Value {
        kalah_rules_json(rules)
    }

    fn start_json(&self) -> Value {
        let by_seat = match self.mover {
            0 => self.position,
            _ => self.position.flipped(),
        };
        json!({
            "rules": kalah_rules_json(&self.position.rules()),
            "board": by_seat.to_string(),
            "mover": self.mover,
            "stores": self.stores,
        })
    }

    fn from_start_json(value: &Value) -> Result<kalah::Match, String> {
        let rules = kalah_rules(field(value, "rules")?)?;
        let board = text(value, "board")?;
        let [seat0, seat1] =
            kalah::parse_sides(board, &rules).map_err(|e| format!("board '{board}': {e}"))?;
        let mover = uint(value, "mover")?;
        let stores: [u32; 2] = serde_json::from_value(field(value, "stores")?.clone())
            .map_err(|e| format!("stores: {e}"))?;
        let on_board: u64 = seat0.iter().chain(&seat1).map(|&s| u64::from(s)).sum();
        let seeds = on_board + u64::from(stores[0]) + u64::from(stores[1]);
        if seeds != u64::from(rules.total_seeds()) {
            return Err(format!(
                "{seeds} seeds, the game has {}",
                rules.total_seeds()
            ));
        }
        let position = match mover {
            0 => Kalah::from_pits(rules, &seat0, &seat1),
            1 => Kalah::from_pits(rules, &seat1, &seat0),
            _ => return Err(format!("no seat {mover}")),
        };
        if !position.arises() {
            return Err(format!(
                "'{board}' ended the game already (a side is empty)"
            ));
        }
        Ok(kalah::Match {
            position,
            mover: mover as usize,
            stores,
        })
    }

    fn move_text(&self, pit: kalah::Pit) -> String {
        (pit + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<kalah::Pit, String> {
        kalah::parse_label(text, &self.position.rules()).map_err(|e| e.to_string())
    }

    fn check_params(&self, params: &Value) -> Result<(), String> {
        let rules = kalah_rules(params)?;
        match rules == self.position.rules() {
            true => Ok(()),
            false => Err(format!(
                "the start's rules are not the case's {}",
                kalah_rules_json(&rules)
            )),
        }
    }
}

/// An Ioiwari variant: as the IOI game, with the capacity in the start (a
/// variant's pits are the board's words); the IOI game's logs have none.
impl Notation for ioiwari::RingMatch {
    const NAME: &'static str = "ioiwari";

    fn params_json(ring: &Ring) -> Value {
        json!({ "board": ring.to_string() })
    }

    fn start_json(&self) -> Value {
        json!({
            "board": self.board.to_string(),
            "cap": self.board.cap(),
            "mover": self.mover,
            "banks": self.banks,
        })
    }

    fn from_start_json(value: &Value) -> Result<ioiwari::RingMatch, String> {
        let board = text(value, "board")?;
        let cap = u8::try_from(uint(value, "cap")?).map_err(|e| format!("cap: {e}"))?;
        let pits = u8::try_from(board.split_whitespace().count()).unwrap_or(u8::MAX);
        // Any starting range will do: only the ring's pits and capacity matter here.
        let params = Params::new(pits, cap, 0, 0, cap).map_err(|e| e.to_string())?;
        let ring = Ring::parse(&params, board).map_err(|e| e.to_string())?;
        let mover = uint(value, "mover")?;
        let banks = banks(value, ring.beads(), u32::from(pits) * u32::from(cap))?;
        if mover > 1 {
            return Err(format!("no seat {mover}"));
        }
        Ok(ioiwari::RingMatch {
            board: ring,
            mover: mover as usize,
            banks,
        })
    }

    fn move_text(&self, pit: u8) -> String {
        (pit + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        crate::ioiwari::Banked::parse_pit(self, text)
    }
}

/// PseudoTonga: a move is `row col` from 0, as on the wire.
impl Notation for tonga::Position {
    const NAME: &'static str = "tonga";

    fn params_json(n: &usize) -> Value {
        json!({ "n": n })
    }

    fn start_json(&self) -> Value {
        let b = &self.board;
        let rows: Vec<String> = (0..b.n())
            .map(|r| {
                (0..b.n())
                    .map(|c| b.at(b.cell(r, c)).map_or('.', Colour::letter))
                    .collect()
            })
            .collect();
        json!({ "n": b.n(), "rows": rows, "to_move": self.to_move.letter().to_string() })
    }

    fn from_start_json(value: &Value) -> Result<tonga::Position, String> {
        let n = uint(value, "n")?;
        let rows = strings(value, "rows")?;
        let board =
            TongaBoard::parse(&format!("{n}\n{}", rows.join("\n"))).map_err(|e| e.to_string())?;
        let to_move = text(value, "to_move")?;
        let to_move = Colour::from_letter(to_move).ok_or_else(|| format!("no colour {to_move}"))?;
        // Black moves first and turns alternate: the counts say who moves.
        board.check_counts().map_err(|e| e.to_string())?;
        if to_move != board.to_move() {
            return Err(format!(
                "'to_move' is {}, but with these stone counts {} moves (Black moves first)",
                to_move.letter(),
                board.to_move().letter()
            ));
        }
        Ok(tonga::Position { board, to_move })
    }

    fn move_text(&self, cell: tonga::Cell) -> String {
        let (r, c) = self.board.row_col(cell);
        format!("{r} {c}")
    }

    fn parse_move(&self, text: &str) -> Result<tonga::Cell, String> {
        crate::tonga::wire::parse_answer(&self.board, text)
    }
}

/// Tothello: a move is a square like `C4` or `pass`.
impl Notation for tothello::Position {
    const NAME: &'static str = "tothello";

    fn params_json(opening: &tothello::Position) -> Value {
        json!({ "opening": crate::tothello::wire::request_line(&opening.board, opening.to_move) })
    }

    fn start_json(&self) -> Value {
        // The bestMove request's arguments: red pieces, black pieces, whose turn.
        json!({
            "position": crate::tothello::wire::request_line(&self.board, self.to_move),
            "passes": self.passes,
        })
    }

    fn from_start_json(value: &Value) -> Result<tothello::Position, String> {
        let (board, to_move) = crate::tothello::wire::decode_request(text(value, "position")?)
            .map_err(|e| e.to_string())?;
        let passes = uint(value, "passes")?;
        if passes > 2 {
            return Err(format!("{passes} passes"));
        }
        Ok(tothello::Position {
            board,
            to_move,
            passes: passes as u8,
        })
    }

    fn move_text(&self, mv: tothello::Move) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<tothello::Move, String> {
        text.parse()
            .map_err(|e: tothello::TothelloError| e.to_string())
    }
}

/// Dominoes: `L a-b` and `R a-b` place a tile at an end, `DRAW`, `PASS`, and
/// chance's `drawn a-b` hands the drawer a tile. The wire's `L<i>` indexes the
/// hand, which a log reader cannot see, so the tile is written instead.
impl Notation for dominoes::Match {
    const NAME: &'static str = "dominoes";
    const CHANCE: bool = true;

    fn params_json(rules: &Rules) -> Value {
        json!({ "n": rules.numbers, "h": rules.hand })
    }

    fn start_json(&self) -> Value {
        let hand = |seat| -> Vec<String> { self.hand(seat).iter().map(Tile::to_string).collect() };
        let line: Vec<String> = self
            .line()
            .iter()
            .map(|(l, r)| format!("{l}-{r}"))
            .collect();
        json!({
            "n": self.rules().numbers,
            "h": self.rules().hand,
            "hands": [hand(0), hand(1)],
            "line": line,
            "mover": self.mover(),
            "opener": self.opener(),
        })
    }

    fn from_start_json(value: &Value) -> Result<dominoes::Match, String> {
        let small = |name: &str| -> Result<u32, String> {
            u32::try_from(uint(value, name)?).map_err(|_| format!("'{name}' is out of range"))
        };
        let rules = Rules::new(small("n")?, small("h")?).map_err(|e| e.to_string())?;
        let hands = field(value, "hands")?
            .as_array()
            .filter(|h| h.len() == 2)
            .ok_or("'hands' is not two hands")?;
        let mut seen = dominoes::Tiles::EMPTY;
        let mut tiles = |text: &str| -> Result<Tile, String> {
            let (a, b) =
                dominoes::tiles::parse_oriented(text, rules.numbers).map_err(|e| e.to_string())?;
            let tile = Tile::new(a, b);
            if seen.contains(tile) {
                return Err(format!("tile {tile} is repeated"));
            }
            seen.insert(tile);
            Ok(tile)
        };
        let mut parsed: [Vec<Tile>; 2] = [Vec::new(), Vec::new()];
        for (seat, hand) in hands.iter().enumerate() {
            let hand = hand.as_array().ok_or("a hand is not a list")?;
            for t in hand {
                parsed[seat].push(tiles(t.as_str().ok_or("a tile is not a string")?)?);
            }
        }
        let mut line = Vec::new();
        for t in strings(value, "line")? {
            let placed =
                dominoes::tiles::parse_oriented(t, rules.numbers).map_err(|e| e.to_string())?;
            tiles(t)?;
            line.push(placed);
        }
        if line.is_empty() || !line.windows(2).all(|w| w[0].1 == w[1].0) {
            return Err("the line does not chain".into());
        }
        let seat = |name| -> Result<usize, String> {
            match uint(value, name)? {
                s @ 0..=1 => Ok(s as usize),
                s => Err(format!("no seat {s}")),
            }
        };
        let (mover, opener) = (seat("mover")?, seat("opener")?);
        check_deal(rules, &parsed, &line, mover, opener)?;
        Ok(dominoes::Match::from_parts(
            rules,
            [&parsed[0], &parsed[1]],
            &line,
            mover,
            opener,
        ))
    }

    fn check_params(&self, params: &Value) -> Result<(), String> {
        let rules = self.rules();
        if *params != Self::params_json(&rules) {
            return Err(format!(
                "a deal of N={} H={}, but the case's params are {}",
                rules.numbers,
                rules.hand,
                crate::wire::short(&params.to_string())
            ));
        }
        Ok(())
    }

    fn move_text(&self, mv: dominoes::Move) -> String {
        match mv {
            dominoes::Move::Place(tile, Side::Left) => format!("L {tile}"),
            dominoes::Move::Place(tile, Side::Right) => format!("R {tile}"),
            dominoes::Move::Draw => "DRAW".into(),
            dominoes::Move::Pass => "PASS".into(),
            dominoes::Move::Drawn(tile) => format!("drawn {tile}"),
        }
    }

    fn parse_move(&self, text: &str) -> Result<dominoes::Move, String> {
        let tile = |t: &str| -> Result<Tile, String> {
            let (a, b) = dominoes::tiles::parse_oriented(t, self.rules().numbers)
                .map_err(|e| e.to_string())?;
            Ok(Tile::new(a, b))
        };
        match text.split_once(' ') {
            None if text == "DRAW" => Ok(dominoes::Move::Draw),
            None if text == "PASS" => Ok(dominoes::Move::Pass),
            Some(("L", t)) => Ok(dominoes::Move::Place(tile(t)?, Side::Left)),
            Some(("R", t)) => Ok(dominoes::Move::Place(tile(t)?, Side::Right)),
            Some(("drawn", t)) => Ok(dominoes::Move::Drawn(tile(t)?)),
            _ => Err(format!(
                "'{text}': expected L a-b, R a-b, DRAW, PASS or drawn a-b"
            )),
        }
    }
}

/// Refuses a Dominoes start that no deal gives: after the automatic opening
/// the line is the opening tile alone (the highest of the deal), the opener
/// holds H−1 tiles and the other seat H, and the other seat moves.
fn check_deal(
    rules: Rules,
    hands: &[Vec<Tile>; 2],
    line: &[dominoes::rules::Placed],
    mover: usize,
    opener: usize,
) -> Result<(), String> {
    let &[(a, b)] = line else {
        return Err(format!(
            "the line holds {} tiles, but a game starts from the opening tile alone",
            line.len()
        ));
    };
    let h = usize::from(rules.hand);
    for (seat, hand) in hands.iter().enumerate() {
        let (who, dealt) = match seat == opener {
            true => (", the opener,", h - 1),
            false => ("", h),
        };
        if hand.len() != dealt {
            return Err(format!(
                "seat {seat}{who} holds {} tiles, but a deal at H={h} leaves it {dealt}",
                hand.len()
            ));
        }
    }
    if mover == opener {
        return Err(format!("seat {mover} opened, but it is also to move"));
    }
    let opening = Tile::new(a, b);
    let dealt: dominoes::Tiles = hands.iter().flatten().copied().chain([opening]).collect();
    match dominoes::rules::opening_tile(dealt) {
        Some(highest) if highest != opening => Err(format!(
            "the line opens with {opening}, but the deal's opening tile is {highest}"
        )),
        _ => Ok(()),
    }
}

/// MultiplayerReversi: a move is `col row` from 0, as on the wire.
impl Notation for ReversiBoard {
    const NAME: &'static str = "reversi";

    fn params_json(n: &usize) -> Value {
        json!({ "n": n })
    }

    fn start_json(&self) -> Value {
        json!({ "n": self.n(), "rows": self.rows(), "mover": self.mover() })
    }

    fn from_start_json(value: &Value) -> Result<ReversiBoard, String> {
        let rows = strings(value, "rows")?;
        if uint(value, "n")? as usize != rows.len() {
            return Err("'n' is not the number of rows".into());
        }
        // `null` once nobody can move (the game is over).
        let given = match field(value, "mover")? {
            Value::Null => None,
            m => Some(m.as_u64().ok_or("'mover' is not a seat")? as usize),
        };
        let players = ReversiBoard::players_for(rows.len());
        if let Some(seat) = given.filter(|&seat| seat >= players) {
            return Err(format!("no seat {seat} in a game of {players} players"));
        }
        let board =
            ReversiBoard::from_rows(&rows, given.unwrap_or(0)).map_err(|e| e.to_string())?;
        match (given, board.mover()) {
            (Some(seat), None) => Err(format!(
                "seat {seat} is to move, but nobody can move on this board ('mover' is null then)"
            )),
            (None, Some(seat)) => Err(format!("'mover' is null, but seat {seat} can move")),
            (Some(seat), Some(other)) if seat != other => Err(format!(
                "seat {seat} has no move on this board (seat {other} has)"
            )),
            _ => Ok(board),
        }
    }

    fn move_text(&self, square: tabula_solver::grid::Square) -> String {
        crate::reversi::wire::answer_text(self, square)
    }

    fn parse_move(&self, text: &str) -> Result<tabula_solver::grid::Square, String> {
        crate::reversi::wire::parse_answer(self, text)
    }
}
