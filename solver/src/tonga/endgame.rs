//! Exact endgames: positions with at most 16 empty squares.
//!
//! The board is reduced to a small graph: the empty squares, and the isles that
//! touch them (their areas and colours are fixed). Two empty squares given the
//! same colour are joined when adjacent or when both touch an isle of that
//! colour, so a state is just two 16-bit masks (which empties are black, which
//! white) and a final score is a flood fill over at most 16 nodes. Isles that
//! touch no empty square score a constant.
//!
//! [`Endgame::solve`] is negamax with alpha-beta and a transposition table
//! (perfect play by both sides). Moves are ordered by the points either colour
//! would gain there; a move whose twin empty (same links, same isles) is free
//! and earlier is skipped, being worth the same; the last 2 empties are solved
//! by plain minimax without the table. [`Endgame::against_server`] is the expectimax
//! against the server's known policy: the player maximises, the server plays
//! each of its tied best squares with equal probability.

use std::collections::HashMap;
use std::time::Instant;

use super::opponents::{self, Geometry};
use super::{Board, Cell, Colour};
use crate::MoveList;
use crate::alphabeta::{AlwaysReplace, EXACT, Searchable, Searcher, TranspositionTable};

/// Most empty squares an endgame may have.
pub const MAX_EMPTIES: usize = 16;

/// Why an endgame could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EndgameError {
    /// Too many empty squares.
    #[error("{0} empty squares, the exact solver takes at most 16")]
    TooManyEmpties(usize),
}

#[inline]
fn index(colour: Colour) -> usize {
    match colour {
        Colour::Black => 0,
        Colour::White => 1,
    }
}

/// An endgame reduced to its empty squares and the isles touching them.
#[derive(Clone, Debug)]
pub struct Endgame {
    board: Board,
    cells: Vec<Cell>,
    graph: Graph,
    table: Option<AlwaysReplace<u8, u32>>,
    table_mover: Option<Colour>,
}

/// The fixed part of an endgame: how empties join, and the isles they touch.
#[derive(Clone, Debug)]
struct Graph {
    full: u16,
    /// Per colour: the empties joined to empty `i` when both have that colour.
    link: [[u16; MAX_EMPTIES]; 2],
    /// Per colour: the fixed isles of that colour touching empty `i`.
    fixed: [[u64; MAX_EMPTIES]; 2],
    fixed_area: Vec<u32>,
    /// Per colour: the sum of squares of the fixed isles that touch some empty.
    fixed_squares: [i64; 2],
    /// Per colour: the points of the isles that touch no empty square.
    constant: [i64; 2],
    /// The earlier empties that are twins of empty `i`: swapping the two
    /// changes no link and no isle, so playing either is worth the same.
    twins: [u16; MAX_EMPTIES],
}

impl Graph {
    /// Points of colour `c` (0 black, 1 white) once its empties are `mine`.
    #[inline]
    fn points(&self, c: usize, mine: u16) -> i64 {
        let mut total = self.constant[c] + self.fixed_squares[c];
        let mut rest = mine;
        while rest != 0 {
            let start = rest & rest.wrapping_neg();
            let mut comp = start;
            let mut frontier = start;
            let mut touched = 0u64;
            while frontier != 0 {
                let i = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                touched |= self.fixed[c][i];
                let grow = self.link[c][i] & mine & !comp;
                comp |= grow;
                frontier |= grow;
            }
            rest &= !comp;
            let mut area = i64::from(comp.count_ones());
            let mut t = touched;
            while t != 0 {
                let id = t.trailing_zeros() as usize;
                t &= t - 1;
                let a = i64::from(self.fixed_area[id]);
                area += a;
                // This fixed isle is now part of a bigger one.
                total -= a * a;
            }
            total += area * area;
        }
        total
    }

    /// Final difference for `mover` once the empties are split into `black` and `white`.
    #[inline]
    fn final_difference(&self, black: u16, white: u16, mover: Colour) -> i32 {
        let diff = self.points(0, black) - self.points(1, white);
        let diff = if mover == Colour::Black { diff } else { -diff };
        diff as i32
    }
}

/// A position of the endgame search: which empties each colour holds.
#[derive(Clone, Copy)]
struct Node<'a> {
    graph: &'a Graph,
    black: u16,
    white: u16,
    mover: Colour,
}

/// Positions with at most this many empties (below the root) are solved by
/// plain minimax, without the table (measured: 2 beats 3 and 4).
const SMALL: u32 = 2;

/// Positions with at most this many empties keep the mask order: ordering
/// costs more there than the cutoffs it brings.
const CHEAP_ORDER: u32 = 4;

impl Node<'_> {
    /// Exact value for the mover by plain minimax over every order of play.
    fn small_minimax(&self) -> i32 {
        let free = self.graph.full & !(self.black | self.white);
        if free == 0 {
            return self
                .graph
                .final_difference(self.black, self.white, self.mover);
        }
        let mut best = i32::MIN;
        let mut f = free;
        while f != 0 {
            let i = f.trailing_zeros() as u8;
            f &= f - 1;
            best = best.max(-self.play(&i).small_minimax());
        }
        best
    }
}

impl Searchable for Node<'_> {
    /// The index of the empty square played.
    type Move = u8;
    type Candidate = u8;
    type Candidates = MoveList<u8, MAX_EMPTIES>;
    /// Keys do not name the mover: a table serves one root mover only.
    type Key = u32;
    // Table bounds only cut off; they do not narrow the window.
    const NARROW: bool = false;
    // Null windows after the first move: slightly fewer nodes (measured).
    const PVS: bool = true;

    /// The end of the game, and also the last few empties of a non-root
    /// position: those are solved by plain minimax, cheaper than the table.
    #[inline]
    fn terminal(&self) -> Option<i32> {
        let taken = self.black | self.white;
        let free = self.graph.full & !taken;
        if free == 0 {
            return Some(
                self.graph
                    .final_difference(self.black, self.white, self.mover),
            );
        }
        // The root is always searched, so that its best move is stored.
        (taken != 0 && free.count_ones() <= SMALL).then(|| self.small_minimax())
    }

    #[inline]
    fn key(&self) -> u32 {
        u32::from(self.black) | u32::from(self.white) << 16
    }

    /// Squares by the points they would add for either colour right now
    /// (what the mover gains there plus what it denies), biggest first.
    #[inline]
    fn generate(&self, out: &mut Self::Candidates) {
        let graph = self.graph;
        let mut free = graph.full & !(self.black | self.white);
        // A move with a free earlier twin is worth what the twin is worth.
        let mut f = free;
        while f != 0 {
            let i = f.trailing_zeros() as usize;
            f &= f - 1;
            if graph.twins[i] & free != 0 {
                free &= !(1 << i);
            }
        }
        if free.count_ones() <= CHEAP_ORDER {
            let mut f = free;
            while f != 0 {
                out.push(f.trailing_zeros() as u8);
                f &= f - 1;
            }
            return;
        }
        let mut keys = [0i64; MAX_EMPTIES];
        let now = [graph.points(0, self.black), graph.points(1, self.white)];
        let mut f = free;
        while f != 0 {
            let i = f.trailing_zeros() as usize;
            f &= f - 1;
            let key = graph.points(0, self.black | 1 << i) - now[0]
                + graph.points(1, self.white | 1 << i)
                - now[1];
            // Insertion sort: at most 16 moves.
            let mut k = out.len();
            out.push(i as u8);
            while k > 0 && keys[k - 1] < key {
                keys[k] = keys[k - 1];
                out[k] = out[k - 1];
                k -= 1;
            }
            keys[k] = key;
            out[k] = i as u8;
        }
    }

    #[inline]
    fn move_of(&self, candidate: &u8) -> u8 {
        *candidate
    }

    #[inline]
    fn play(&self, &i: &u8) -> Self {
        let bit = 1u16 << i;
        match self.mover {
            Colour::Black => Node {
                black: self.black | bit,
                mover: Colour::White,
                ..*self
            },
            Colour::White => Node {
                white: self.white | bit,
                mover: Colour::Black,
                ..*self
            },
        }
    }
}

impl Endgame {
    /// Reduces a board with at most 16 empty squares.
    pub fn new(board: &Board) -> Result<Endgame, EndgameError> {
        let empties = board.empties();
        if empties > MAX_EMPTIES {
            return Err(EndgameError::TooManyEmpties(empties));
        }
        let cells: Vec<Cell> = board.empty().iter().map(|c| c as Cell).collect();
        let slot = |cell: Cell| cells.iter().position(|&c| c == cell);
        let mut link = [[0u16; MAX_EMPTIES]; 2];
        let mut fixed = [[0u64; MAX_EMPTIES]; 2];
        let mut fixed_area = Vec::new();
        let mut fixed_colour = Vec::new();
        let mut fixed_empties: Vec<u16> = Vec::new();
        let mut constant = [0i64; 2];
        for isle in board.isles() {
            let a = i64::from(isle.area());
            if isle.perimeter.is_empty() {
                constant[index(isle.colour)] += a * a;
                continue;
            }
            let id = fixed_area.len();
            let mut touching = 0u16;
            for cell in isle.perimeter.iter() {
                let i = slot(cell as Cell).expect("perimeter cells are empty");
                touching |= 1 << i;
                fixed[index(isle.colour)][i] |= 1 << id;
            }
            fixed_area.push(isle.area());
            fixed_colour.push(isle.colour);
            fixed_empties.push(touching);
        }
        let mut fixed_squares = [0i64; 2];
        for (id, &a) in fixed_area.iter().enumerate() {
            fixed_squares[index(fixed_colour[id])] += i64::from(a) * i64::from(a);
        }
        for (i, &cell) in cells.iter().enumerate() {
            let mut adjacent = 0u16;
            for nb in board.neighbours(cell) {
                if let Some(j) = slot(nb) {
                    adjacent |= 1 << j;
                }
            }
            for c in 0..2 {
                let mut l = adjacent;
                let mut f = fixed[c][i];
                while f != 0 {
                    let id = f.trailing_zeros() as usize;
                    f &= f - 1;
                    l |= fixed_empties[id];
                }
                link[c][i] = l & !(1 << i);
            }
        }
        let mut twins = [0u16; MAX_EMPTIES];
        for i in 0..cells.len() {
            for j in 0..i {
                let (bi, bj) = (1u16 << i, 1u16 << j);
                let same = (0..2)
                    .all(|c| fixed[c][i] == fixed[c][j] && link[c][i] & !bj == link[c][j] & !bi);
                if same {
                    twins[i] |= bj;
                }
            }
        }
        let full = if cells.len() == 16 {
            u16::MAX
        } else {
            (1u16 << cells.len()) - 1
        };
        Ok(Endgame {
            board: *board,
            cells,
            graph: Graph {
                full,
                link,
                fixed,
                fixed_area,
                fixed_squares,
                constant,
                twins,
            },
            table: None,
            table_mover: None,
        })
    }

    /// The empty squares, in the order of the mask bits.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Final difference for `mover` once the empties are split into `black` and `white`.
    fn final_difference(&self, black: u16, white: u16, mover: Colour) -> i32 {
        self.graph.final_difference(black, white, mover)
    }

    /// The table for a search with `mover` at the root, and the root position.
    fn prepare(&mut self, mover: Colour) -> (&mut AlwaysReplace<u8, u32>, Node<'_>) {
        // Keys do not name the mover: a table serves one root mover only.
        if self.table_mover != Some(mover) {
            self.table = None;
            self.table_mover = Some(mover);
        }
        let bits = (self.cells.len() + 6).clamp(10, 22) as u32;
        let table = self.table.get_or_insert_with(|| AlwaysReplace::new(bits));
        let root = Node {
            graph: &self.graph,
            black: 0,
            white: 0,
            mover,
        };
        (table, root)
    }

    /// Exact final difference (mover minus opponent) under perfect play, with
    /// `mover` to play.
    pub fn solve(&mut self, mover: Colour) -> i32 {
        let (table, root) = self.prepare(mover);
        Searcher::new(table).search(&root, i32::MIN + 1, i32::MAX, EXACT)
    }

    /// [`Endgame::solve`], giving up at `deadline` (then `None`).
    pub fn solve_until(&mut self, mover: Colour, deadline: Instant) -> Option<i32> {
        let (table, root) = self.prepare(mover);
        let mut searcher = Searcher::new(table).until(deadline);
        let value = searcher.search(&root, i32::MIN + 1, i32::MAX, EXACT);
        (!searcher.aborted()).then_some(value)
    }

    /// The exact value for `mover` and one optimal move, from a single search
    /// (`None` on a full board).
    pub fn solve_with_move(&mut self, mover: Colour) -> (i32, Option<Cell>) {
        let value = self.solve(mover);
        if self.cells.is_empty() {
            return (value, None);
        }
        // The root was searched with a full window: its entry is exact and was
        // written last, so it is still in the table.
        let (table, root) = self.prepare(mover);
        let hit = table.probe(&root.key()).expect("the root was stored last");
        debug_assert_eq!(hit.lower, hit.upper);
        let best = hit.best.expect("a position that goes on has a move");
        (value, Some(self.cells[usize::from(best)]))
    }

    /// The exact value of every move of `mover`, as (cell, value) in row-major order.
    pub fn move_values(&mut self, mover: Colour) -> Vec<(Cell, i32)> {
        let len = self.cells.len() as u8;
        let (table, root) = self.prepare(mover);
        let mut searcher = Searcher::new(table);
        let mut values: Vec<i32> = Vec::with_capacity(usize::from(len));
        for i in 0..len {
            // Every empty is free at the root: a twin's value is this one's.
            let twins = root.graph.twins[usize::from(i)];
            let value = if twins != 0 {
                values[twins.trailing_zeros() as usize]
            } else {
                searcher.value_of(&root, &i, i32::MIN + 1, i32::MAX, EXACT)
            };
            values.push(value);
        }
        self.cells.iter().copied().zip(values).collect()
    }

    /// The exact value for `mover` and one optimal move (`None` on a full board).
    pub fn best_move(&mut self, mover: Colour) -> (i32, Option<Cell>) {
        if self.cells.is_empty() {
            return (self.final_difference(0, 0, mover), None);
        }
        let values = self.move_values(mover);
        let &(cell, value) = values
            .iter()
            .max_by_key(|&&(c, v)| (v, std::cmp::Reverse(c)))
            .expect("a move");
        (value, Some(cell))
    }

    /// Expected final difference for `player` when the other colour follows the
    /// server's policy (uniform over its tied best squares), with `mover` to
    /// play; and the player's best move when it is the player's turn.
    pub fn against_server(&self, player: Colour, mover: Colour) -> (f64, Option<Cell>) {
        let geo = Geometry::new(self.board.n());
        let mut memo = HashMap::new();
        let mut ctx = Expecti {
            game: self,
            geo: &geo,
            player,
            memo: &mut memo,
        };
        ctx.value(0, 0, mover)
    }
}

struct Expecti<'a> {
    game: &'a Endgame,
    geo: &'a Geometry,
    player: Colour,
    memo: &'a mut HashMap<u32, f64>,
}

impl Expecti<'_> {
    fn board(&self, black: u16, white: u16) -> Board {
        let mut board = self.game.board;
        for (i, &cell) in self.game.cells.iter().enumerate() {
            if black >> i & 1 != 0 {
                board.place(cell, Colour::Black);
            } else if white >> i & 1 != 0 {
                board.place(cell, Colour::White);
            }
        }
        board
    }

    fn child(black: u16, white: u16, i: usize, mover: Colour) -> (u16, u16) {
        match mover {
            Colour::Black => (black | 1 << i, white),
            Colour::White => (black, white | 1 << i),
        }
    }

    fn value(&mut self, black: u16, white: u16, mover: Colour) -> (f64, Option<Cell>) {
        let game = self.game;
        if black | white == game.graph.full {
            return (
                f64::from(game.final_difference(black, white, self.player)),
                None,
            );
        }
        if mover == self.player {
            let mut best = f64::NEG_INFINITY;
            let mut best_cell = None;
            for i in 0..game.cells.len() {
                if (black | white) >> i & 1 != 0 {
                    continue;
                }
                let (b, w) = Self::child(black, white, i, mover);
                let v = self.cached(b, w, mover.other());
                if v > best {
                    best = v;
                    best_cell = Some(game.cells[i]);
                }
            }
            (best, best_cell)
        } else {
            let board = self.board(black, white);
            let choices = opponents::choices(self.geo, &board, mover).expect("board not full");
            let mut sum = 0.0;
            for &cell in &choices.cells {
                let i = game
                    .cells
                    .iter()
                    .position(|&c| c == cell)
                    .expect("server plays an empty square");
                let (b, w) = Self::child(black, white, i, mover);
                sum += self.cached(b, w, mover.other());
            }
            (sum / choices.cells.len() as f64, None)
        }
    }

    fn cached(&mut self, black: u16, white: u16, mover: Colour) -> f64 {
        let key = u32::from(black) | u32::from(white) << 16;
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let (v, _) = self.value(black, white, mover);
        self.memo.insert(key, v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search;
    use crate::tonga::Position;
    use crate::tonga::opponents::tests::random_board;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn final_scores_match_flood_fill() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for n in [4, 6, 8, 16] {
            for _ in 0..40 {
                let empties = rng.random_range(0..=16.min(n * n));
                let board = random_board(&mut rng, n, n * n - empties);
                let game = Endgame::new(&board).unwrap();
                // Fill the empties at random and compare with the scratch scorer.
                let mut full = board;
                let (mut black, mut white) = (0u16, 0u16);
                for (i, &cell) in game.cells().iter().enumerate() {
                    if rng.random_range(0..2) == 0 {
                        black |= 1 << i;
                        full.place(cell, Colour::Black);
                    } else {
                        white |= 1 << i;
                        full.place(cell, Colour::White);
                    }
                }
                let expected =
                    full.points(Colour::Black) as i32 - full.points(Colour::White) as i32;
                assert_eq!(game.final_difference(black, white, Colour::Black), expected);
            }
        }
    }

    #[test]
    fn solve_matches_plain_negamax() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for n in [4, 6, 8] {
            for _ in 0..25 {
                let empties = rng.random_range(0..=7);
                let board = random_board(&mut rng, n, n * n - empties);
                let position = Position::from_board(board);
                let expected = search::negamax(&position);
                let mut game = Endgame::new(&board).unwrap();
                assert_eq!(game.solve(position.to_move), expected, "\n{board}");
                // Every move's value, against the reference on each child.
                let (value, best) = game.solve_with_move(position.to_move);
                assert_eq!(value, expected);
                if let Some(cell) = best {
                    let (child, _) = crate::ZeroSum::after(&position, cell);
                    assert_eq!(-search::negamax(&child), expected, "best move is optimal");
                }
                for (cell, value) in game.move_values(position.to_move) {
                    let (child, _) = crate::ZeroSum::after(&position, cell);
                    assert_eq!(value, -search::negamax(&child));
                }
            }
        }
    }

    #[test]
    fn solve_matches_memo_negamax_on_bigger_endgames() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut memo = HashMap::new();
        for n in [4, 6, 10] {
            for _ in 0..3 {
                let empties = rng.random_range(9..=11);
                let board = random_board(&mut rng, n, n * n - empties);
                let position = Position::from_board(board);
                memo.clear();
                let expected = search::memo_negamax(&position, &mut memo);
                let mut game = Endgame::new(&board).unwrap();
                assert_eq!(game.solve(position.to_move), expected, "\n{board}");
            }
        }
    }

    /// A board of side `n` with `empties` empty squares, no two adjacent, the
    /// rest a random mix of both colours with counts of a game Black started.
    fn scattered_board(rng: &mut ChaCha8Rng, n: usize, empties: usize) -> Board {
        let mut holes = Board::new(n).unwrap();
        let mut chosen = 0;
        while chosen < empties {
            let cell = rng.random_range(0..n * n) as Cell;
            if holes.at(cell).is_none()
                && holes
                    .neighbours(cell)
                    .iter()
                    .all(|&nb| holes.at(nb).is_none())
            {
                holes.place(cell, Colour::Black);
                chosen += 1;
            }
        }
        let mut blacks = (n * n - empties).div_ceil(2);
        let mut whites = n * n - empties - blacks;
        let mut board = Board::new(n).unwrap();
        for cell in (0..n * n).map(|c| c as Cell) {
            if holes.at(cell).is_some() {
                continue;
            }
            if rng.random_range(0..blacks + whites) < blacks {
                board.place(cell, Colour::Black);
                blacks -= 1;
            } else {
                board.place(cell, Colour::White);
                whites -= 1;
            }
        }
        board
    }

    /// Scattered empties share isles rather than edges: every move's value
    /// against memoized negamax on each child.
    #[test]
    fn move_values_match_memo_negamax_on_scattered_empties() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let mut memo = HashMap::new();
        let (mut positions, mut twinned) = (0, 0);
        for n in [6, 8, 10] {
            for _ in 0..18 {
                let empties = rng.random_range(6..=11.min(n * n / 3));
                let board = scattered_board(&mut rng, n, empties);
                assert_eq!(board.empties(), empties);
                let position = Position::from_board(board);
                memo.clear();
                let mut game = Endgame::new(&board).unwrap();
                twinned += usize::from(game.graph.twins.iter().any(|&t| t != 0));
                let values = game.move_values(position.to_move);
                assert_eq!(values.len(), empties);
                for (cell, value) in values {
                    let (child, _) = crate::ZeroSum::after(&position, cell);
                    let expected = -search::memo_negamax(&child, &mut memo);
                    assert_eq!(value, expected, "{cell}\n{board}");
                }
                let best = search::memo_negamax(&position, &mut memo);
                assert_eq!(game.solve(position.to_move), best, "\n{board}");
                assert_eq!(game.solve_with_move(position.to_move).0, best);
                positions += 1;
            }
        }
        assert_eq!(positions, 54);
        // Twin moves are pruned: the sample must have some.
        assert!(twinned >= 5, "{twinned}");
    }

    /// Plain expectimax against the server's policy, straight from the rules.
    fn plain_against_server(board: &Board, player: Colour, mover: Colour) -> f64 {
        if board.is_full() {
            let d = board.points(player) as f64 - board.points(player.other()) as f64;
            return d;
        }
        if mover == player {
            board
                .empty()
                .iter()
                .map(|c| {
                    let mut b = *board;
                    b.place(c as Cell, mover);
                    plain_against_server(&b, player, mover.other())
                })
                .fold(f64::NEG_INFINITY, f64::max)
        } else {
            let choices = opponents::plain_choices(board, mover).unwrap();
            let sum: f64 = choices
                .cells
                .iter()
                .map(|&c| {
                    let mut b = *board;
                    b.place(c, mover);
                    plain_against_server(&b, player, mover.other())
                })
                .sum();
            sum / choices.cells.len() as f64
        }
    }

    #[test]
    fn against_server_matches_plain_expectimax() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for n in [4, 6] {
            for _ in 0..10 {
                let empties = rng.random_range(1..=6);
                let board = random_board(&mut rng, n, n * n - empties);
                let mover = board.to_move();
                for player in [mover, mover.other()] {
                    let game = Endgame::new(&board).unwrap();
                    let (v, _) = game.against_server(player, mover);
                    let expected = plain_against_server(&board, player, mover);
                    assert!((v - expected).abs() < 1e-9, "{v} vs {expected}\n{board}");
                }
            }
        }
    }

    #[test]
    fn too_many_empties_is_an_error() {
        let board = Board::new(6).unwrap();
        assert_eq!(
            Endgame::new(&board).unwrap_err(),
            EndgameError::TooManyEmpties(36)
        );
    }
}
