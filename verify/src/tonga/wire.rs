//! The init/move/end line protocol, both ends in one type.
//!
//! The referee writes `init N row col` (`-1 -1` when the player starts) and the
//! player answers `row col`; then `move row col` for each server stone, answered
//! `row col`. The server's stone that fills the board is not sent. The referee
//! writes `end` when the game is over (a served player answers `ok`, which the
//! referee does not read: each game is a fresh run of the player).

use tabula_solver::tonga::{Board, Cell, Colour, Position};
use tabula_solver::{Game, Seat, Turn};

use crate::protocol::Request;
use crate::wire::{Incoming, Wire, short};

/// The PseudoTonga wire; [`TongaWire::default`] for either end.
#[derive(Clone, Debug, Default)]
pub struct TongaWire {
    /// Referee side: whether this game's `init` has been sent.
    sent_init: bool,
    /// Referee side: the opponent's stone not yet told to the player.
    last: Option<Cell>,
    /// Player side: the game in progress, as the player sees it.
    game: Option<Position>,
}

/// Parses a player's answer `row col` into a square on `board` (occupied or not:
/// legality is the referee's check).
pub fn parse_answer(board: &Board, line: &str) -> Result<Cell, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [row, col] = words[..] else {
        return Err(format!(
            "invalid answer '{}': expected 'row col'",
            short(line)
        ));
    };
    let (Ok(row), Ok(col)) = (row.parse::<i64>(), col.parse::<i64>()) else {
        return Err(format!(
            "invalid answer '{}': expected two numbers",
            short(line)
        ));
    };
    let n = board.n() as i64;
    if !(0..n).contains(&row) || !(0..n).contains(&col) {
        // The board's own check words the error.
        let error = board.check_move(row, col).expect_err("off the board");
        return Err(format!("invalid move: {error}"));
    }
    Ok(board.cell(row as usize, col as usize))
}

/// A square as the wire writes it, `row col`.
pub fn square(board: &Board, cell: Cell) -> String {
    let (r, c) = board.row_col(cell);
    format!("{r} {c}")
}

impl TongaWire {
    fn init(&mut self, mut req: Request<'_>) -> Result<Incoming<Position>, String> {
        let n = req.int("N")?;
        let row = req.int("row")?;
        let col = req.int("col")?;
        req.finish()?;
        let side = usize::try_from(n).map_err(|_| format!("bad board size {n}"))?;
        let mut board = Board::new(side).map_err(|e| e.to_string())?;
        if (row, col) != (-1, -1) {
            let cell = board.check_move(row, col).map_err(|e| e.to_string())?;
            board.place(cell, Colour::Black);
        }
        // The server's opening stone is part of the view, not observed again.
        let pos = Position::from_board(board);
        self.game = Some(pos);
        Ok(Incoming::Move {
            start: Some(pos.to_move.seat()),
            observed: Vec::new(),
            view: pos,
        })
    }

    fn opponent_move(&mut self, mut req: Request<'_>) -> Result<Incoming<Position>, String> {
        let row = req.int("row")?;
        let col = req.int("col")?;
        req.finish()?;
        let game = self.game.as_mut().ok_or("move before init")?;
        let cell = game.board.check_move(row, col).map_err(|e| e.to_string())?;
        let mover = game.to_move.seat();
        Game::apply(game, cell);
        Ok(Incoming::Move {
            start: None,
            observed: vec![(Turn::Seat(mover), cell)],
            view: *game,
        })
    }
}

impl Wire<Position> for TongaWire {
    fn game_request(&mut self, _seat: Seat, _view: &Position) -> Option<String> {
        // No acknowledged request: the game starts with the first move request.
        self.sent_init = false;
        self.last = None;
        None
    }

    fn observe(&mut self, _mover: Turn, cell: &Cell) {
        self.last = Some(*cell);
    }

    fn move_request(&mut self, view: &Position) -> String {
        let last = self.last.take();
        if !self.sent_init {
            self.sent_init = true;
            let n = view.board.n();
            return match last {
                None => format!("init {n} -1 -1"),
                Some(cell) => format!("init {n} {}", square(&view.board, cell)),
            };
        }
        let cell = last.expect("the server moved since the last request");
        format!("move {}", square(&view.board, cell))
    }

    fn decode_answer(&mut self, view: &Position, line: &str) -> Result<Cell, String> {
        parse_answer(&view.board, line)
    }

    fn end_lines(&mut self, _view: &Position) -> Vec<String> {
        vec!["end".into()]
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Position>, String> {
        let req = Request::parse(line)?;
        match req.method {
            "init" => self.init(req),
            "move" => self.opponent_move(req),
            "end" => {
                req.finish()?;
                self.game = None;
                Ok(Incoming::End {
                    reply: Some("ok".into()),
                })
            }
            other => Err(format!("unknown method '{}'", short(other))),
        }
    }

    fn encode_answer(&mut self, view: &Position, cell: Cell) -> String {
        if let Some(game) = self.game.as_mut() {
            Game::apply(game, cell);
        }
        square(&view.board, cell)
    }
}
