//! The position as bitboards: one 256-bit set of squares per player.
//!
//! Players are numbered from 0 here (seat 0 is the statement's player `1`).
//! A move is legal when, in one of the eight directions, a run of one or
//! more pieces of other players (any mix of them) is closed by a piece of the
//! mover; every such run turns to the mover. A player with no legal move is
//! skipped, and the game ends when nobody can move.

use std::fmt;
use std::sync::OnceLock;

use crate::game::{Determinize, Game, IllegalMove, MoveList, Scores, Seat, Turn};
use crate::grid::{Direction, Geometry, Square, Squares};

/// The smallest board side.
pub const MIN_N: usize = 7;
/// The largest board side.
pub const MAX_N: usize = 12;
/// The most players (even boards).
pub const MAX_PLAYERS: usize = 4;
/// The most cells: 12×12.
pub const MAX_CELLS: usize = MAX_N * MAX_N;

/// The legal moves of a position: squares, at most one per empty cell.
pub type Moves = MoveList<Square, MAX_CELLS>;

/// The geometry of each allowed side, built once.
fn geometry(n: usize) -> &'static Geometry {
    static GEOMETRIES: OnceLock<Vec<Geometry>> = OnceLock::new();
    let all = GEOMETRIES.get_or_init(|| (MIN_N..=MAX_N).map(Geometry::new).collect());
    &all[n - MIN_N]
}

/// One ray from a square to the board's edge: the square-number step and
/// the number of squares on it.
type Ray = (i16, u8);

/// Per square of each allowed side, its eight rays, built once: flips walk
/// them without bounds checks or divisions.
fn rays(n: usize) -> &'static [[Ray; 8]] {
    static RAYS: OnceLock<Vec<Vec<[Ray; 8]>>> = OnceLock::new();
    let all = RAYS.get_or_init(|| {
        (MIN_N..=MAX_N)
            .map(|n| {
                let side = n as i32;
                (0..n * n)
                    .map(|square| {
                        let (row, col) = ((square / n) as i32, (square % n) as i32);
                        Direction::ALL.map(|dir| {
                            let (dr, dc) = dir.delta();
                            let mut len = 0;
                            let (mut r, mut c) = (row + dr, col + dc);
                            while (0..side).contains(&r) && (0..side).contains(&c) {
                                len += 1;
                                r += dr;
                                c += dc;
                            }
                            ((dr * side + dc) as i16, len)
                        })
                    })
                    .collect()
            })
            .collect()
    });
    &all[n - MIN_N]
}

/// The squares that turn to the owner of `own` when it plays at `square`,
/// `others` being every other player's pieces.
fn turned(rays: &[[Ray; 8]], own: Squares, others: Squares, square: Square) -> Squares {
    let mut flips = Squares::EMPTY;
    for &(step, len) in &rays[square as usize] {
        // A run needs one other piece and then one of ours.
        if len < 2 {
            continue;
        }
        let mut run = Squares::EMPTY;
        let mut at = square as isize;
        for _ in 0..len {
            at += step as isize;
            let s = at as usize;
            if others.has(s) {
                run.set(s);
            } else {
                if own.has(s) {
                    flips = flips.or(run);
                }
                break;
            }
        }
    }
    flips
}

/// A MultiplayerReversi position: whose pieces are where, and who moves.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    n: u8,
    players: u8,
    /// The next player to move who has a legal move; meaningless once over.
    mover: u8,
    over: bool,
    pieces: [Squares; MAX_PLAYERS],
}

/// Why a board could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The side is not 7..=12.
    #[error("board side {0} is not 7 to 12")]
    Side(usize),
    /// A row has the wrong length.
    #[error("row {row} has {len} cells, expected {n}")]
    RowLength {
        /// Row index.
        row: usize,
        /// Its length.
        len: usize,
        /// The side.
        n: usize,
    },
    /// A cell is not `.` or a player's digit.
    #[error("row {row} column {col}: '{cell}' is not '.' or a player 1 to {players}")]
    Cell {
        /// Row index.
        row: usize,
        /// Column index.
        col: usize,
        /// The character.
        cell: char,
        /// The players on this side.
        players: usize,
    },
}

impl Board {
    /// The players on a board of side `n`: 3 on odd sides, 4 on even ones.
    pub fn players_for(n: usize) -> usize {
        if n % 2 == 1 { 3 } else { 4 }
    }

    /// The starting position of side `n`: the P×P Latin square in the centre,
    /// cell (o+i, o+j) owned by player (i+j) mod P (o = (n−P)/2); player 0 moves.
    pub fn start(n: usize) -> Result<Board, BoardError> {
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(BoardError::Side(n));
        }
        let p = Board::players_for(n);
        let o = (n - p) / 2;
        let g = geometry(n);
        let mut pieces = [Squares::EMPTY; MAX_PLAYERS];
        for i in 0..p {
            for j in 0..p {
                pieces[(i + j) % p].set(g.square(o + i, o + j) as usize);
            }
        }
        Ok(Board::settle(n, p, pieces, 0))
    }

    /// A board from its rows (`.` empty, `1`..`P` players) with `mover` to move,
    /// or the next player after it who can; the side gives the players.
    pub fn from_rows<S: AsRef<str>>(rows: &[S], mover: Seat) -> Result<Board, BoardError> {
        let n = rows.len();
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(BoardError::Side(n));
        }
        let p = Board::players_for(n);
        let g = geometry(n);
        let mut pieces = [Squares::EMPTY; MAX_PLAYERS];
        for (row, text) in rows.iter().enumerate() {
            let text = text.as_ref();
            if text.chars().count() != n {
                return Err(BoardError::RowLength {
                    row,
                    len: text.chars().count(),
                    n,
                });
            }
            for (col, cell) in text.chars().enumerate() {
                match cell {
                    '.' => {}
                    '1'..='4' if (cell as usize - '0' as usize) <= p => {
                        pieces[cell as usize - '1' as usize].set(g.square(row, col) as usize);
                    }
                    _ => {
                        return Err(BoardError::Cell {
                            row,
                            col,
                            cell,
                            players: p,
                        });
                    }
                }
            }
        }
        Ok(Board::settle(n, p, pieces, mover % p))
    }

    /// The board with `first` to move if it can, else the next player who can.
    fn settle(n: usize, players: usize, pieces: [Squares; MAX_PLAYERS], first: usize) -> Board {
        let mut board = Board {
            n: n as u8,
            players: players as u8,
            mover: first as u8,
            over: false,
            pieces,
        };
        board.advance_from(first);
        board
    }

    /// Sets the mover to the first player from `first` on (cyclically) with a move.
    fn advance_from(&mut self, first: usize) {
        let p = self.players();
        for k in 0..p {
            let seat = (first + k) % p;
            if self.can_move(seat) {
                self.mover = seat as u8;
                self.over = false;
                return;
            }
        }
        self.over = true;
    }

    /// The board side.
    pub fn n(&self) -> usize {
        usize::from(self.n)
    }

    /// The number of players.
    pub fn players(&self) -> usize {
        usize::from(self.players)
    }

    /// The player to move (`None` once nobody can).
    pub fn mover(&self) -> Option<Seat> {
        (!self.over).then_some(usize::from(self.mover))
    }

    /// A player's pieces.
    pub fn pieces(&self, seat: Seat) -> Squares {
        self.pieces[seat]
    }

    /// Every occupied square.
    pub fn occupied(&self) -> Squares {
        self.pieces.iter().fold(Squares::EMPTY, |a, &b| a.or(b))
    }

    /// The owner of a square, if any.
    pub fn owner(&self, square: Square) -> Option<Seat> {
        (0..self.players()).find(|&s| self.pieces[s].has(square as usize))
    }

    /// The geometry of this board's side.
    pub fn geometry(&self) -> &'static Geometry {
        geometry(self.n())
    }

    /// Leaves of the game tree `depth` plies deep (skips are not plies): the
    /// perft count, pinned in the tests and checked against [`crate::reversi::plain`].
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let Some(seat) = self.mover() else {
            return 1;
        };
        self.moves_of(seat)
            .iter()
            .map(|square| {
                let mut next = *self;
                next.play(square as Square);
                next.perft(depth - 1)
            })
            .sum()
    }

    /// The squares where `seat` may play, whoever is to move.
    pub fn moves_of(&self, seat: Seat) -> Squares {
        let toward = self.moves_toward(seat);
        Direction::ALL
            .into_iter()
            .fold(Squares::EMPTY, |legal, dir| legal.or(toward(dir)))
    }

    /// Whether `seat` has a legal move: [`Board::moves_of`] stopping at the
    /// first direction that gives one (the turn passes at every ply).
    pub fn can_move(&self, seat: Seat) -> bool {
        let toward = self.moves_toward(seat);
        Direction::ALL
            .into_iter()
            .any(|dir| !toward(dir).is_empty())
    }

    /// The squares where `seat` may play by turning pieces in a direction, by
    /// direction: the position's sets taken once for all directions.
    fn moves_toward(&self, seat: Seat) -> impl Fn(Direction) -> Squares {
        let g = self.geometry();
        let own = self.pieces[seat];
        let occupied = self.occupied();
        let others = occupied.and_not(own);
        let empty = g.all().and_not(occupied);
        move |dir| {
            // Runs of others' pieces that start next to one of ours, grown one step at a time.
            let mut run = g.shift(own, dir).and(others);
            let mut grown = run;
            while !grown.is_empty() {
                grown = g.shift(grown, dir).and(others).and_not(run);
                run = run.or(grown);
            }
            g.shift(run, dir).and(empty)
        }
    }

    /// The squares that turn to `seat` when it plays at `square`.
    pub fn flips(&self, seat: Seat, square: Square) -> Squares {
        let own = self.pieces[seat];
        turned(rays(self.n()), own, self.occupied().and_not(own), square)
    }

    /// Each square where `seat` may play, in row-major order, with the
    /// squares it turns: [`Board::moves_of`] and [`Board::flips`] at once,
    /// the position's sets taken once for all the moves.
    pub fn moves_with_flips(&self, seat: Seat) -> impl Iterator<Item = (Square, Squares)> {
        let rays = rays(self.n());
        let own = self.pieces[seat];
        let others = self.occupied().and_not(own);
        self.moves_of(seat)
            .iter()
            .map(move |s| (s as Square, turned(rays, own, others, s as Square)))
    }

    /// Plays `square` for the mover, then passes the turn to the next player who can move.
    ///
    /// The move must be legal (see [`Board::check`]).
    pub fn play(&mut self, square: Square) {
        self.play_as(usize::from(self.mover), square);
    }

    /// Plays `square` for `seat` whoever is to move (searches that let any
    /// player reply, such as Best-Reply Search), then passes the turn to the
    /// next player after `seat` who can move.
    ///
    /// The square must be one of [`Board::moves_of`]`(seat)`.
    pub fn play_as(&mut self, seat: Seat, square: Square) {
        let flips = self.flips(seat, square);
        for (s, pieces) in self.pieces.iter_mut().enumerate() {
            if s == seat {
                *pieces = pieces.or(flips);
                pieces.set(square as usize);
            } else {
                *pieces = pieces.and_not(flips);
            }
        }
        self.advance_from((seat + 1) % self.players());
    }

    /// Whether the mover may play `square`, with the reason when not.
    pub fn check(&self, square: Square) -> Result<(), IllegalMove> {
        let Some(seat) = self.mover() else {
            return Err(IllegalMove("the game is over".into()));
        };
        let (row, col) = self.geometry().row_col(square);
        if usize::from(square) >= self.geometry().cells() {
            return Err(IllegalMove(format!("square {square} is off the board")));
        }
        // Column first, as the protocol's answers and its off-board reasons say it.
        if self.occupied().has(square as usize) {
            return Err(IllegalMove(format!("column {col} row {row} is taken")));
        }
        if self.flips(seat, square).is_empty() {
            return Err(IllegalMove(format!(
                "column {col} row {row} turns no piece"
            )));
        }
        Ok(())
    }

    /// The statement's case score of `seat`: owned × P / (N×N), so an equal share is 1.
    pub fn case_score(&self, seat: Seat) -> f64 {
        f64::from(self.pieces[seat].count()) * self.players() as f64 / (self.n() * self.n()) as f64
    }

    /// The rows as the protocol shows them.
    pub fn rows(&self) -> Vec<String> {
        let g = self.geometry();
        (0..self.n())
            .map(|r| {
                (0..self.n())
                    .map(|c| match self.owner(g.square(r, c)) {
                        Some(s) => char::from(b'1' + s as u8),
                        None => '.',
                    })
                    .collect()
            })
            .collect()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board {}x{}, mover {:?}", self.n, self.n, self.mover())?;
        for row in self.rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

impl Game for Board {
    type Move = Square;
    type Moves = Moves;
    type View = Board;
    type Observation = Square;
    type Params = usize;

    fn seats(&self) -> usize {
        self.players()
    }

    fn turn(&self) -> Turn {
        match self.mover() {
            Some(seat) => Turn::Seat(seat),
            None => Turn::Over,
        }
    }

    fn moves(&self) -> Moves {
        match self.mover() {
            Some(seat) => self.moves_of(seat).iter().map(|s| s as Square).collect(),
            None => Moves::new(),
        }
    }

    fn apply(&mut self, mv: Square) {
        self.play(mv);
    }

    fn scores(&self) -> Scores {
        (0..self.players()).map(|s| self.case_score(s)).collect()
    }

    fn view(&self, _seat: Seat) -> Board {
        *self
    }

    fn observe(&self, mv: Square, _seat: Seat) -> Square {
        mv
    }

    fn view_moves(view: &Board) -> Moves {
        view.moves()
    }

    fn check_move(&self, mv: Square) -> Result<(), IllegalMove> {
        self.check(mv)
    }
}

/// Perfect information: the view is the whole state.
impl Determinize for Board {
    fn sample(view: &Board, _seat: Seat, _rng: &mut impl rand::Rng) -> Board {
        *view
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::plain::Plain;

    fn perft(board: &Board, depth: u32) -> u64 {
        board.perft(depth)
    }

    /// The start boards of the statement's examples 0, 2, 4, 6, 8 and 10, as printed there.
    const STATEMENT_STARTS: [&[&str]; 6] = [
        &[
            ".......", ".......", "..123..", "..231..", "..312..", ".......", ".......",
        ],
        &[
            "........", "........", "..1234..", "..2341..", "..3412..", "..4123..", "........",
            "........",
        ],
        &[
            ".........",
            ".........",
            ".........",
            "...123...",
            "...231...",
            "...312...",
            ".........",
            ".........",
            ".........",
        ],
        &[
            "..........",
            "..........",
            "..........",
            "...1234...",
            "...2341...",
            "...3412...",
            "...4123...",
            "..........",
            "..........",
            "..........",
        ],
        &[
            "...........",
            "...........",
            "...........",
            "...........",
            "....123....",
            "....231....",
            "....312....",
            "...........",
            "...........",
            "...........",
            "...........",
        ],
        &[
            "............",
            "............",
            "............",
            "............",
            "....1234....",
            "....2341....",
            "....3412....",
            "....4123....",
            "............",
            "............",
            "............",
            "............",
        ],
    ];

    #[test]
    fn the_starting_positions_are_the_statements_latin_squares() {
        for (rows, n) in STATEMENT_STARTS.iter().zip(MIN_N..=MAX_N) {
            assert_eq!(rows.len(), n);
            assert_eq!(Board::start(n).unwrap().rows(), *rows, "n {n}");
        }
        for n in MIN_N..=MAX_N {
            let b = Board::start(n).unwrap();
            let p = Board::players_for(n);
            assert_eq!(b.players(), p);
            assert_eq!(b.occupied().count() as usize, p * p);
            assert_eq!(Board::from_rows(&b.rows(), 0).unwrap(), b);
            assert_eq!(b.mover(), Some(0));
        }
        assert_eq!(Board::start(6), Err(BoardError::Side(6)));
    }

    #[test]
    fn runs_mixing_two_other_players_flip_in_several_directions() {
        // Player 1 at row 3 col 0 .. and a run of 2 and 3 closed by 1 to the east;
        // the same square also closes a vertical run.
        let rows = [
            ".......", "...1...", "...3...", "...2123", ".......", ".......", ".......",
        ];
        let b = Board::from_rows(&rows, 0).unwrap();
        let g = b.geometry();
        let at = g.square(3, 3);
        assert!(b.check(at).is_err(), "taken");
        let rows = [
            ".......", "...1...", "...3...", "...2...", "..1.231", ".......", ".......",
        ];
        let mut b = Board::from_rows(&rows, 0).unwrap();
        let at = g.square(4, 3);
        let flips = b.flips(0, at);
        let expect: Squares =
            [(2, 3), (3, 3), (4, 4), (4, 5)]
                .iter()
                .fold(Squares::EMPTY, |mut s, &(r, c)| {
                    s.set(g.square(r, c) as usize);
                    s
                });
        assert_eq!(flips, expect);
        assert!(
            b.check(g.square(0, 0))
                .unwrap_err()
                .to_string()
                .contains("turns no piece")
        );
        b.play(at);
        assert_eq!(b.rows()[1..5], ["...1...", "...1...", "...1...", "..11111"]);
        assert_eq!(b.turn(), Turn::Over, "only player 1 is left");
        assert!(b.check(at).unwrap_err().to_string().contains("over"));
    }

    #[test]
    fn a_player_without_a_move_is_skipped_and_the_game_ends_when_nobody_can_move() {
        // Only players 1 and 2 on the board; 3 cannot move and is skipped.
        let rows = [
            "12.....", ".......", ".......", ".......", ".......", ".......", ".......",
        ];
        let mut b = Board::from_rows(&rows, 0).unwrap();
        assert_eq!(b.mover(), Some(0));
        b.play(2);
        assert_eq!(b.rows()[0], "111....");
        assert_eq!(b.mover(), None, "nobody can move: over");
        assert_eq!(b.turn(), Turn::Over);
        let s = b.scores();
        assert!((s[0] - 3.0 * 3.0 / 49.0).abs() < 1e-12 && s[1] == 0.0);
        let rows = [
            "12.....", "3......", ".......", ".......", ".......", ".......", ".......",
        ];
        let b = Board::from_rows(&rows, 1).unwrap();
        assert_eq!(
            b.mover(),
            Some(0),
            "players 2 and 3 cannot move: both are skipped"
        );
    }

    /// Move sequences from each start (sides 7..12) of 1..5 plies, as the plain
    /// grid above counts them; pinned as well, so a change to both shows.
    const START_PERFT: [[u64; 5]; 6] = [
        [11, 90, 614, 5058, 40380],
        [13, 136, 1418, 14046, 164794],
        [11, 90, 616, 5082, 40770],
        [13, 136, 1420, 14114, 166306],
        [11, 90, 616, 5082, 40770],
        [13, 136, 1420, 14114, 166306],
    ];

    #[test]
    fn perft_from_each_start_gives_the_pinned_counts() {
        for (n, expected) in (MIN_N..=MAX_N).zip(START_PERFT) {
            let b = Board::start(n).unwrap();
            let got: Vec<u64> = (1..=5).map(|depth| perft(&b, depth)).collect();
            assert_eq!(got, expected, "n {n}");
            // The plain grid counts them too.
            let plain = Plain::of(&b);
            let slow: Vec<u64> = (1..=5).map(|depth| plain.perft(depth)).collect();
            assert_eq!(slow, expected, "n {n}");
        }
    }

    #[test]
    fn bitboards_agree_with_a_plain_grid_on_every_size() {
        for n in MIN_N..=MAX_N {
            let b = Board::start(n).unwrap();
            let plain = Plain::of(&b);
            for depth in 0..=3 {
                assert_eq!(perft(&b, depth), plain.perft(depth), "n {n} depth {depth}");
            }
            // Along random games to the end (edges and corners included):
            // every seat's moves and flips are the plain grid's, and
            // can_move is moves_of's emptiness.
            let mut board = b;
            let mut k = 0;
            while board.mover().is_some() {
                let plain = Plain::of(&board);
                for seat in 0..board.players() {
                    let fast: Vec<(Square, Vec<Square>)> = board
                        .moves_with_flips(seat)
                        .map(|(s, f)| (s, f.iter().map(|c| c as Square).collect()))
                        .collect();
                    let slow: Vec<(Square, Vec<Square>)> = plain
                        .moves(seat)
                        .into_iter()
                        .map(|(r, c)| {
                            let mut f: Vec<Square> = plain
                                .flips(seat, r, c)
                                .into_iter()
                                .map(|(fr, fc)| (fr * n + fc) as Square)
                                .collect();
                            f.sort_unstable();
                            ((r * n + c) as Square, f)
                        })
                        .collect();
                    assert_eq!(fast, slow, "n {n} seat {seat}");
                    for &(s, ref f) in &fast {
                        let flips: Vec<Square> =
                            board.flips(seat, s).iter().map(|c| c as Square).collect();
                        assert_eq!(&flips, f);
                    }
                    assert_eq!(board.can_move(seat), !board.moves_of(seat).is_empty());
                }
                let moves = board.moves();
                k = (k * 7 + 3) % moves.len();
                board.play(moves[k]);
            }
        }
    }
}
