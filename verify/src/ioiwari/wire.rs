//! The IOI dialogue as a wire, both ends.

use tabula_solver::ioiwari::{Board, Match, PITS, Params, Pit, Ring, RingMatch};
use tabula_solver::{Game, Seat, Turn};

use crate::wire::{Incoming, Wire, short};

/// A game the IOI dialogue carries: a board line starts it, pit labels move.
pub trait Banked: Game<Move = Pit, Observation = Pit, View = Self> + Copy {
    /// What reading a board line needs: nothing for the IOI game, the
    /// variant's parameters for a ring.
    type Setup: Copy + std::fmt::Debug + Default + Send + Sync;

    /// The game, player 1 to move, on the board of `line`.
    fn from_board_line(setup: &Self::Setup, line: &str) -> Result<Self, String>;

    /// The board as the dialogue writes it: bead counts, pit 1 first.
    fn board_line(&self) -> String;

    /// Pits on the board (7 in the IOI game).
    fn pits(&self) -> usize;

    /// A pit label `1`..=[`Banked::pits`] of the dialogue, as a pit.
    fn parse_pit(&self, line: &str) -> Result<Pit, String> {
        let pits = self.pits();
        match line.trim().parse::<usize>() {
            Ok(n) if (1..=pits).contains(&n) => Ok((n - 1) as Pit),
            _ => Err(format!("'{}' is not a pit label 1..{pits}", short(line))),
        }
    }
}

/// The IOI dialogue, for player 1 only: the board line, then player 1's pit
/// labels, each answered by player 2's label; no acknowledgements. It carries
/// the IOI game ([`Match`]) and any variant's ring ([`RingMatch`]).
///
/// The referee side sends the board as the first request and player 2's last
/// move as each later one; the reply to player 1's last move is still sent
/// when it ends the game ([`Wire::end_lines`]). The player side starts its game
/// on the board line and ends it, silently, once the pits are empty.
#[derive(Clone, Debug)]
pub struct IoiWire<M: Banked = Match> {
    /// How board lines are read.
    setup: M::Setup,
    /// Referee side: the board line still to send.
    board: Option<String>,
    /// Referee side: player 2's move not yet sent.
    pending: Option<Pit>,
    /// Player side: the game as it stands.
    game: Option<M>,
}

impl<M: Banked> Default for IoiWire<M> {
    fn default() -> IoiWire<M> {
        IoiWire::new(M::Setup::default())
    }
}

impl<M: Banked> IoiWire<M> {
    /// The dialogue with board lines read with `setup`.
    pub fn new(setup: M::Setup) -> IoiWire<M> {
        IoiWire {
            setup,
            board: None,
            pending: None,
            game: None,
        }
    }
}

impl<M: Banked> Wire<M> for IoiWire<M> {
    fn game_request(&mut self, _seat: Seat, view: &M) -> Option<String> {
        self.board = Some(view.board_line());
        self.pending = None;
        None
    }

    fn observe(&mut self, _mover: Turn, pit: &Pit) {
        self.pending = Some(*pit);
    }

    fn move_request(&mut self, view: &M) -> String {
        if let Some(board) = self.board.take() {
            return board;
        }
        match self.pending.take() {
            Some(pit) => (pit + 1).to_string(),
            // Not reached with strict alternation; repeating the board is the least harm.
            None => view.board_line(),
        }
    }

    fn decode_answer(&mut self, view: &M, line: &str) -> Result<Pit, String> {
        view.parse_pit(line)
            .map_err(|e| format!("malformed move: {e}"))
    }

    fn skips_blank_lines(&self) -> bool {
        true
    }

    fn end_lines(&mut self, _view: &M) -> Vec<String> {
        self.pending
            .take()
            .map(|pit| (pit + 1).to_string())
            .into_iter()
            .collect()
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<M>, String> {
        let Some(mut game) = self.game else {
            let game = M::from_board_line(&self.setup, line)?;
            self.game = Some(game);
            if game.is_over() {
                return Ok(Incoming::End { reply: None });
            }
            return Ok(Incoming::Move {
                start: Some(0),
                observed: Vec::new(),
                view: game,
            });
        };
        let pit = game
            .parse_pit(line)
            .map_err(|e| format!("player 2's move: {e}"))?;
        if game.check_move(pit).is_err() {
            return Err(format!(
                "player 2 played pit {}, which is empty on {}",
                pit + 1,
                game.board_line()
            ));
        }
        game.apply(pit);
        self.game = Some(game);
        let observed = vec![(Turn::Seat(1), pit)];
        Ok(if game.is_over() {
            Incoming::Note { observed }
        } else {
            Incoming::Move {
                start: None,
                observed,
                view: game,
            }
        })
    }

    fn encode_answer(&mut self, view: &M, pit: Pit) -> String {
        let mut game = *view;
        game.apply(pit);
        self.game = Some(game);
        (pit + 1).to_string()
    }

    fn errors_are_fatal(&self) -> bool {
        true
    }

    fn finished(&self) -> bool {
        self.game.is_some_and(|g| g.is_over())
    }

    fn unfinished(&self) -> Option<String> {
        match &self.game {
            None => Some("no board line".into()),
            Some(g) if !g.is_over() => Some(format!(
                "input ended while waiting for player 2's move on {}",
                g.board_line()
            )),
            Some(_) => None,
        }
    }
}

impl Banked for Match {
    type Setup = ();

    fn from_board_line(_setup: &(), line: &str) -> Result<Match, String> {
        let board: Board = line
            .parse()
            .map_err(|e| format!("bad board '{}': {e}", line.trim()))?;
        Ok(Match::new(board))
    }

    fn board_line(&self) -> String {
        self.board.to_string()
    }

    fn pits(&self) -> usize {
        PITS
    }
}

impl Banked for RingMatch {
    type Setup = Params;

    fn from_board_line(params: &Params, line: &str) -> Result<RingMatch, String> {
        let ring =
            Ring::parse(params, line).map_err(|e| format!("bad board '{}': {e}", line.trim()))?;
        Ok(RingMatch::new(ring))
    }

    fn board_line(&self) -> String {
        self.board.to_string()
    }

    fn pits(&self) -> usize {
        self.board.pits().len()
    }
}
