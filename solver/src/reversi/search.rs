//! Model-free searches for MultiplayerReversi: a fixed positional table, a
//! generic evaluation, paranoid alpha-beta and Best-Reply Search.
//!
//! - **Positional table** ([`positional_table`], any side 7..12): corners
//!   [`CORNER`], the diagonal neighbours of a corner ("X squares") [`X_SQUARE`],
//!   the edge cells next to a corner ("C squares") [`C_SQUARE`], other edge
//!   cells [`EDGE`], the rest of the second ring [`RING`], the interior [`INNER`].
//!   Corners can never be taken back; X and C squares give them away.
//! - **Evaluation** ([`Evaluation::evaluate`], for one player `me`):
//!   `PIECE·own + shape·empties/cells`, where `shape = table(own) −
//!   table(others)/(P−1) + MOBILITY·moves(me)`. The shape terms fade as the
//!   board fills, so a finished game is worth exactly `PIECE·own` (the case
//!   score is own pieces), with no jump between the last heuristic leaves and
//!   the game's end. Integer arithmetic keeps searches exactly reproducible.
//! - **Paranoid** ([`Kind::Paranoid`]): every other player minimises `me`'s
//!   evaluation; players move in turn order, a player without a move is
//!   skipped (no ply is spent on a skip), alpha-beta with moves ordered by the
//!   table (best first, then row-major).
//! - **Best-Reply Search** ([`Kind::BestReply`], Schadd & Winands 2011): `me`'s
//!   layers alternate with one layer where only the single best reply among
//!   *all* opponents' moves is played, as if they were one player; then `me`
//!   moves again. When `me` cannot move the opponents' layer follows at once,
//!   and when no opponent can move `me` moves again (skips cost no ply).
//!
//! Both deepen iteratively from one ply until the depth limit, the node
//! budget (counted, so decisions do not depend on the machine's speed) or the
//! game's end; an iteration cut by the budget is dropped, and each iteration
//! tries the previous one's best move first. Nothing here allocates.

use super::board::{Board, MAX_CELLS};
use crate::game::Seat;
use crate::grid::{Square, Squares};

/// A corner's weight.
pub const CORNER: i32 = 100;
/// A diagonal neighbour of a corner.
pub const X_SQUARE: i32 = -50;
/// An edge cell next to a corner.
pub const C_SQUARE: i32 = -20;
/// Any other edge cell.
pub const EDGE: i32 = 10;
/// The second ring, apart from X and C squares.
pub const RING: i32 = -5;
/// The interior.
pub const INNER: i32 = 1;
/// The weight of one own piece.
pub const PIECE: i32 = 8;
/// The weight of one own legal move.
pub const MOBILITY: i32 = 6;

/// A value above every evaluation.
const INFINITE: i32 = i32::MAX / 2;
/// The most moves of all opponents together in one position.
const MAX_REPLIES: usize = 3 * MAX_CELLS;

/// The fixed positional table of side `n` (7..12), row-major; see the module notes.
pub fn positional_table(n: usize) -> [i32; MAX_CELLS] {
    let mut table = [0; MAX_CELLS];
    let last = n - 1;
    let edge = |i: usize| i == 0 || i == last;
    let ring = |i: usize| i == 1 || i == last - 1;
    for r in 0..n {
        for c in 0..n {
            table[r * n + c] = if edge(r) && edge(c) {
                CORNER
            } else if ring(r) && ring(c) {
                X_SQUARE
            } else if (edge(r) && ring(c)) || (ring(r) && edge(c)) {
                C_SQUARE
            } else if edge(r) || edge(c) {
                EDGE
            } else if ring(r) || ring(c) {
                RING
            } else {
                INNER
            };
        }
    }
    table
}

/// The generic evaluation of one side's positions (see the module notes).
#[derive(Clone, Debug)]
pub struct Evaluation {
    table: [i32; MAX_CELLS],
    cells: i32,
}

impl Evaluation {
    /// The evaluation for side `n`.
    pub fn new(n: usize) -> Evaluation {
        Evaluation {
            table: positional_table(n),
            cells: (n * n) as i32,
        }
    }

    /// The positional table.
    pub fn table(&self) -> &[i32; MAX_CELLS] {
        &self.table
    }

    /// The table's sum over `set`.
    pub fn positional(&self, set: Squares) -> i32 {
        set.iter().map(|c| self.table[c]).sum()
    }

    /// The value of `board` for `me`; a finished game is worth `PIECE·own`.
    pub fn evaluate(&self, board: &Board, me: Seat) -> i32 {
        let own = board.pieces(me);
        let material = PIECE * own.count() as i32;
        if board.mover().is_none() {
            return material;
        }
        let occupied = board.occupied();
        let empties = self.cells - occupied.count() as i32;
        let others = occupied.and_not(own);
        let shape = self.positional(own) - self.positional(others) / (board.players() as i32 - 1)
            + MOBILITY * board.moves_of(me).count() as i32;
        material + shape * empties / self.cells
    }
}

/// Which search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Every opponent minimises `me`'s value, in turn order.
    Paranoid,
    /// Only the single best reply among all opponents, then `me` again.
    BestReply,
}

/// How far a decision may search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies (BRS: layers).
    pub depth: u32,
    /// Nodes for the whole decision; the first ply is always searched.
    pub nodes: u64,
}

/// A search's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The move.
    pub square: Square,
    /// Its value at the deepest completed iteration.
    pub value: i32,
    /// That iteration's depth.
    pub depth: u32,
    /// Nodes visited, every iteration included.
    pub nodes: u64,
}

/// Squares of `set` best first by the table, then row-major; returns how many.
fn order(set: Squares, table: &[i32; MAX_CELLS], out: &mut [(i32, Square); MAX_CELLS]) -> usize {
    let mut k = 0;
    for s in set.iter() {
        out[k] = (-table[s], s as Square);
        k += 1;
    }
    out[..k].sort_unstable();
    k
}

struct Search<'a> {
    eval: &'a Evaluation,
    me: Seat,
    /// The replies a paranoid opponent finds plausible (all its moves when `None`).
    plausible: Option<Plausible<'a>>,
    nodes: u64,
    budget: u64,
    aborted: bool,
}

impl Search<'_> {
    /// Counts a node; false once the budget is spent (the iteration is then dropped).
    fn enter(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.aborted = true;
        }
        !self.aborted
    }

    fn paranoid(&mut self, board: &Board, depth: u32, alpha: i32, beta: i32) -> i32 {
        if !self.enter() {
            return 0;
        }
        let Some(mover) = board.mover() else {
            return self.eval.evaluate(board, self.me);
        };
        if depth == 0 {
            return self.eval.evaluate(board, self.me);
        }
        let maximise = mover == self.me;
        let legal = board.moves_of(mover);
        // An opponent's plausible replies, and what an implausible one costs
        // it (`None`: it is not played).
        let (plausible, margin) = match self.plausible {
            Some(p) if !maximise => {
                let likely = (p.replies)(board, mover).and(legal);
                if likely.is_empty() {
                    (legal, None)
                } else {
                    (likely, p.margin)
                }
            }
            _ => (legal, None),
        };
        let mut list = [(0, 0); MAX_CELLS];
        // The plausible replies first, each part ordered by the table.
        let mut k = order(plausible, &self.eval.table, &mut list);
        if margin.is_some() {
            let mut rest = [(0, 0); MAX_CELLS];
            let r = order(legal.and_not(plausible), &self.eval.table, &mut rest);
            list[k..k + r].copy_from_slice(&rest[..r]);
            k += r;
        }
        let moves = list[..k].iter().map(|&(_, square)| (mover, square));
        self.best_of(
            board,
            maximise,
            (alpha, beta),
            moves,
            |search, next, square, (alpha, beta)| {
                let cost = match margin {
                    Some(margin) if !plausible.has(square as usize) => margin,
                    _ => 0,
                };
                cost + search.paranoid(next, depth - 1, alpha - cost, beta - cost)
            },
        )
    }

    fn best_reply(&mut self, board: &Board, mine: bool, depth: u32, alpha: i32, beta: i32) -> i32 {
        if !self.enter() {
            return 0;
        }
        if board.mover().is_none() || depth == 0 {
            return self.eval.evaluate(board, self.me);
        }
        // The other side replies to each move.
        let reply = |search: &mut Self, next: &Board, _: Square, (alpha, beta): (i32, i32)| {
            search.best_reply(next, !mine, depth - 1, alpha, beta)
        };
        let table = &self.eval.table;
        if mine {
            let mut list = [(0, 0); MAX_CELLS];
            let k = order(board.moves_of(self.me), table, &mut list);
            if k == 0 {
                return self.best_reply(board, false, depth, alpha, beta);
            }
            let me = self.me;
            let moves = list[..k].iter().map(|&(_, square)| (me, square));
            self.best_of(board, true, (alpha, beta), moves, reply)
        } else {
            let mut replies = [(0, 0, 0); MAX_REPLIES];
            let mut k = 0;
            for seat in (0..board.players()).filter(|&s| s != self.me) {
                for s in board.moves_of(seat).iter() {
                    replies[k] = (-table[s], seat as u8, s as Square);
                    k += 1;
                }
            }
            if k == 0 {
                return self.best_reply(board, true, depth, alpha, beta);
            }
            replies[..k].sort_unstable();
            let moves = replies[..k]
                .iter()
                .map(|&(_, seat, square)| (usize::from(seat), square));
            self.best_of(board, false, (alpha, beta), moves, reply)
        }
    }

    /// The best value over `moves` (each by its seat), in order: the most
    /// when `maximise`, else the least; `value` values the board after a
    /// move within the alpha-beta window it is given.
    fn best_of(
        &mut self,
        board: &Board,
        maximise: bool,
        (mut alpha, mut beta): (i32, i32),
        moves: impl Iterator<Item = (Seat, Square)>,
        mut value: impl FnMut(&mut Self, &Board, Square, (i32, i32)) -> i32,
    ) -> i32 {
        let mut best = if maximise { -INFINITE } else { INFINITE };
        for (seat, square) in moves {
            let mut next = *board;
            next.play_as(seat, square);
            let v = value(self, &next, square, (alpha, beta));
            if self.aborted {
                return 0;
            }
            if maximise {
                best = best.max(v);
                alpha = alpha.max(best);
            } else {
                best = best.min(v);
                beta = beta.min(best);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// `me`'s move by the search `kind` within `limits`; `None` unless `me` is to move.
pub fn decide(
    kind: Kind,
    board: &Board,
    me: Seat,
    eval: &Evaluation,
    limits: Limits,
) -> Option<Decision> {
    decide_within(kind, board, me, eval, limits, None)
}

/// The replies of an opponent that a model finds plausible, for a paranoid
/// search that trusts the model: the opponent minimises over those only
/// (`margin` `None`), or over all its moves with each implausible one
/// counting `margin` more for the searcher (`Some`).
#[derive(Clone, Copy)]
pub struct Plausible<'a> {
    /// The plausible moves of `seat` at a board (all its moves if none is legal).
    pub replies: &'a dyn Fn(&Board, Seat) -> Squares,
    /// What an implausible reply costs the opponent, in evaluation units.
    pub margin: Option<i32>,
}

/// [`decide`], where a paranoid opponent minimises over the replies
/// `plausible` allows (every move when `None`).
pub fn decide_within(
    kind: Kind,
    board: &Board,
    me: Seat,
    eval: &Evaluation,
    limits: Limits,
    plausible: Option<Plausible<'_>>,
) -> Option<Decision> {
    if board.mover() != Some(me) {
        return None;
    }
    let mut list = [(0, 0); MAX_CELLS];
    let k = order(board.moves_of(me), &eval.table, &mut list);
    let empties = board.geometry().cells() - board.occupied().count() as usize;
    let mut search = Search {
        eval,
        me,
        plausible,
        nodes: 0,
        budget: u64::MAX,
        aborted: false,
    };
    let mut decision: Option<Decision> = None;
    for depth in 1..=limits.depth.max(1) {
        search.budget = if depth == 1 { u64::MAX } else { limits.nodes };
        let mut best: Option<(i32, usize)> = None;
        for (i, &(_, square)) in list[..k].iter().enumerate() {
            let mut next = *board;
            next.play_as(me, square);
            let alpha = best.map_or(-INFINITE, |(v, _)| v);
            let v = match kind {
                Kind::Paranoid => search.paranoid(&next, depth - 1, alpha, INFINITE),
                Kind::BestReply => search.best_reply(&next, false, depth - 1, alpha, INFINITE),
            };
            if search.aborted {
                break;
            }
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, i));
            }
        }
        if search.aborted {
            break;
        }
        let (value, i) = best.expect("the mover has a move");
        decision = Some(Decision {
            square: list[i].1,
            value,
            depth,
            nodes: search.nodes,
        });
        // The next iteration tries this one's best move first.
        list[..=i].rotate_right(1);
        if depth as usize >= empties {
            break;
        }
    }
    decision.map(|d| Decision {
        nodes: search.nodes,
        ..d
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::{MAX_N, MIN_N};
    use rand::{RngExt, SeedableRng};

    /// Plain paranoid minimax: no pruning, no ordering.
    fn plain_paranoid(eval: &Evaluation, board: &Board, me: Seat, depth: u32) -> i32 {
        let Some(mover) = board.mover() else {
            return eval.evaluate(board, me);
        };
        if depth == 0 {
            return eval.evaluate(board, me);
        }
        let values = board.moves_of(mover).iter().map(|s| {
            let mut next = *board;
            next.play(s as Square);
            plain_paranoid(eval, &next, me, depth - 1)
        });
        if mover == me {
            values.max().unwrap()
        } else {
            values.min().unwrap()
        }
    }

    /// Plain paranoid minimax where an opponent's replies outside
    /// `plausible` are left out (`margin` `None`) or cost it `margin`.
    fn plain_plausible(
        eval: &Evaluation,
        board: &Board,
        me: Seat,
        depth: u32,
        plausible: &dyn Fn(&Board, Seat) -> Squares,
        margin: Option<i32>,
    ) -> i32 {
        let Some(mover) = board.mover() else {
            return eval.evaluate(board, me);
        };
        if depth == 0 {
            return eval.evaluate(board, me);
        }
        let legal = board.moves_of(mover);
        let likely = plausible(board, mover).and(legal);
        let mut values = Vec::new();
        for s in legal.iter() {
            let mut next = *board;
            next.play(s as Square);
            let v = plain_plausible(eval, &next, me, depth - 1, plausible, margin);
            let implausible = mover != me && !likely.is_empty() && !likely.has(s);
            match (implausible, margin) {
                (false, _) => values.push(v),
                (true, Some(m)) => values.push(v + m),
                (true, None) => {}
            }
        }
        if mover == me {
            values.into_iter().max().unwrap()
        } else {
            values.into_iter().min().unwrap()
        }
    }

    /// Plain Best-Reply Search: every reply of every opponent, no pruning.
    fn plain_brs(eval: &Evaluation, board: &Board, me: Seat, mine: bool, depth: u32) -> i32 {
        if board.mover().is_none() || depth == 0 {
            return eval.evaluate(board, me);
        }
        let mut values = Vec::new();
        let seats: Vec<Seat> = if mine {
            vec![me]
        } else {
            (0..board.players()).filter(|&s| s != me).collect()
        };
        for seat in seats {
            for s in board.moves_of(seat).iter() {
                let mut next = *board;
                next.play_as(seat, s as Square);
                values.push(plain_brs(eval, &next, me, !mine, depth - 1));
            }
        }
        match (values.is_empty(), mine) {
            (true, _) => plain_brs(eval, board, me, !mine, depth),
            (false, true) => values.into_iter().max().unwrap(),
            (false, false) => values.into_iter().min().unwrap(),
        }
    }

    /// Positions reached by random play, each with its mover.
    fn positions(seed: u64, count: usize) -> Vec<Board> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let n = rng.random_range(MIN_N..=MAX_N);
            let mut board = Board::start(n).unwrap();
            let plies = rng.random_range(0..(n * n) as u32);
            for _ in 0..plies {
                let Some(seat) = board.mover() else { break };
                let moves: Vec<usize> = board.moves_of(seat).iter().collect();
                board.play(moves[rng.random_range(0..moves.len())] as Square);
            }
            if board.mover().is_some() {
                out.push(board);
            }
        }
        out
    }

    /// Positions with one or two empty cells left, each with its mover.
    fn late_positions(seed: u64, count: usize) -> Vec<Board> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut board = Board::start(rng.random_range(MIN_N..=MAX_N)).unwrap();
            let empties = |b: &Board| b.geometry().cells() - b.occupied().count() as usize;
            while let Some(seat) = board.mover() {
                if empties(&board) <= 2 {
                    out.push(board);
                    break;
                }
                let moves: Vec<usize> = board.moves_of(seat).iter().collect();
                board.play(moves[rng.random_range(0..moves.len())] as Square);
            }
        }
        out
    }

    fn unlimited(depth: u32) -> Limits {
        Limits {
            depth,
            nodes: u64::MAX,
        }
    }

    #[test]
    fn the_table_is_symmetric_with_corners_best_and_their_neighbours_worst() {
        for n in MIN_N..=MAX_N {
            let t = positional_table(n);
            let at = |r: usize, c: usize| t[r * n + c];
            let l = n - 1;
            for r in 0..n {
                for c in 0..n {
                    assert_eq!(at(r, c), at(c, r));
                    assert_eq!(at(r, c), at(l - r, c));
                    assert_eq!(at(r, c), at(r, l - c));
                }
            }
            assert_eq!((at(0, 0), at(1, 1), at(0, 1)), (CORNER, X_SQUARE, C_SQUARE));
            assert_eq!((at(0, 2), at(2, 1), at(3, 3)), (EDGE, RING, INNER));
            assert!(t[n * n..].iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn a_finished_game_is_worth_its_pieces() {
        let rows = [
            "11.22.3", ".......", ".......", ".......", ".......", ".......", ".......",
        ];
        let board = Board::from_rows(&rows, 0).unwrap();
        assert!(board.mover().is_none());
        let eval = Evaluation::new(7);
        assert_eq!(eval.evaluate(&board, 0), 2 * PIECE);
        // At the start the shape terms are scaled by the empty share, 40 of 49 cells.
        let start = Board::start(7).unwrap();
        let own = start.pieces(0);
        let others = start.occupied().and_not(own);
        let shape = eval.positional(own) - eval.positional(others) / 2
            + MOBILITY * start.moves_of(0).count() as i32;
        assert_eq!(eval.evaluate(&start, 0), 3 * PIECE + shape * (49 - 9) / 49);
    }

    #[test]
    fn alpha_beta_paranoid_equals_plain_paranoid_minimax() {
        for board in positions(1, 40) {
            let me = board.mover().unwrap();
            let eval = Evaluation::new(board.n());
            for depth in 1..=3 {
                let d = decide(Kind::Paranoid, &board, me, &eval, unlimited(depth)).unwrap();
                let children = |s: Square| {
                    let mut next = board;
                    next.play(s);
                    plain_paranoid(&eval, &next, me, depth - 1)
                };
                let plain = plain_paranoid(&eval, &board, me, depth);
                let remaining = board.geometry().cells() - board.occupied().count() as usize;
                assert_eq!(d.depth, depth.min(remaining as u32));
                if d.depth == depth {
                    assert_eq!(d.value, plain, "depth {depth}\n{board:?}");
                    assert_eq!(children(d.square), plain);
                }
            }
        }
    }

    #[test]
    fn paranoid_over_plausible_replies_equals_its_plain_minimax() {
        // Plausible: the replies on even squares, or on odd ones for player 2.
        let plausible = |board: &Board, seat: Seat| {
            let mut set = Squares::EMPTY;
            for s in board.moves_of(seat).iter().filter(|s| s % 2 == seat % 2) {
                set.set(s);
            }
            set
        };
        let (mut differs, mut checked) = (0, 0);
        for board in positions(4, 30) {
            let me = board.mover().unwrap();
            let eval = Evaluation::new(board.n());
            for margin in [None, Some(0), Some(24)] {
                for depth in 1..=3 {
                    let limits = unlimited(depth);
                    let filter = Plausible {
                        replies: &plausible,
                        margin,
                    };
                    let d = decide_within(Kind::Paranoid, &board, me, &eval, limits, Some(filter))
                        .unwrap();
                    if d.depth != depth {
                        continue;
                    }
                    let plain = plain_plausible(&eval, &board, me, depth, &plausible, margin);
                    assert_eq!(d.value, plain, "depth {depth} margin {margin:?}\n{board:?}");
                    let mut next = board;
                    next.play(d.square);
                    let chosen = plain_plausible(&eval, &next, me, depth - 1, &plausible, margin);
                    assert_eq!(chosen, plain);
                    checked += 1;
                    // A margin of 0 is plain paranoid.
                    let paranoid = plain_paranoid(&eval, &board, me, depth);
                    if margin == Some(0) {
                        assert_eq!(d.value, paranoid);
                    } else {
                        differs += usize::from(d.value != paranoid);
                    }
                }
            }
        }
        // The filter changes values: the test would notice it ignored.
        assert!(checked > 200 && differs > 20, "{checked} {differs}");
    }

    #[test]
    fn alpha_beta_brs_equals_plain_brs() {
        let (mut full_depth, mut cut) = (0, 0);
        for board in positions(2, 40).into_iter().chain(late_positions(5, 10)) {
            let me = board.mover().unwrap();
            let eval = Evaluation::new(board.n());
            for depth in 1..=3 {
                let d = decide(Kind::BestReply, &board, me, &eval, unlimited(depth)).unwrap();
                let remaining = board.geometry().cells() - board.occupied().count() as usize;
                assert_eq!(d.depth, depth.min(remaining as u32));
                // The value is that of the deepest iteration, even one cut by the game's end.
                let plain = plain_brs(&eval, &board, me, true, d.depth);
                let mut next = board;
                next.play_as(me, d.square);
                assert_eq!(d.value, plain, "depth {depth}\n{board:?}");
                assert_eq!(plain_brs(&eval, &next, me, false, d.depth - 1), plain);
                full_depth += usize::from(d.depth == depth);
                cut += usize::from(d.depth < depth);
            }
        }
        // Both kinds of case occur, so neither branch of the checks is vacuous.
        assert!(full_depth >= 100, "{full_depth} cases at full depth");
        assert!(cut >= 5, "{cut} cases cut by the game's end");
    }

    #[test]
    fn a_node_budget_keeps_the_last_complete_iteration_and_is_reproducible() {
        for board in positions(3, 10) {
            let me = board.mover().unwrap();
            let eval = Evaluation::new(board.n());
            for kind in [Kind::Paranoid, Kind::BestReply] {
                let limits = Limits {
                    depth: 12,
                    nodes: 2_000,
                };
                let d = decide(kind, &board, me, &eval, limits).unwrap();
                assert!(board.moves_of(me).has(d.square as usize));
                assert_eq!(decide(kind, &board, me, &eval, limits), Some(d));
                // The budget's decision is the fixed-depth search of its depth.
                let fixed = decide(kind, &board, me, &eval, unlimited(d.depth)).unwrap();
                assert_eq!(fixed.value, d.value, "{kind:?}");
            }
        }
        let start = Board::start(8).unwrap();
        let eval = Evaluation::new(8);
        assert_eq!(
            decide(Kind::Paranoid, &start, 1, &eval, unlimited(2)),
            None,
            "not its turn"
        );
    }
}
