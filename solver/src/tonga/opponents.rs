//! The TopCoder server's policy, exactly.
//!
//! Every empty square gets the value of a 3-ply minimax (server move, every
//! player reply, the server's best second move) of [`Board::server_eval`]; the
//! server picks uniformly among the squares of maximal value. On an empty board
//! it picks one of the 4 middle squares instead.
//!
//! [`plain_choices`] is the full-width reference, scoring every leaf from
//! scratch. [`choices`] gives the same set fast: the evaluation is kept
//! incrementally over union-find isles, the third ply is a scan of evaluation
//! changes, and alpha-beta cuts only what cannot change the set of maximal
//! squares (a square is dropped once its value is known to be strictly lower
//! than the best so far; a reply is dropped once it cannot lower the minimum).

pub use super::isles::Isles;
pub use crate::grid::Geometry;

use super::{Board, Cell, Colour, MAX_CELLS};

/// The squares the server may play and their common minimax value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choices {
    /// The maximal 3-ply value (0 on an empty board, where no search is made).
    pub value: i64,
    /// The squares of maximal value, in row-major order.
    pub cells: Vec<Cell>,
}

/// The 4 middle squares of an empty board, in row-major order.
pub fn middle_squares(board: &Board) -> Vec<Cell> {
    let h = board.n() / 2;
    vec![
        board.cell(h - 1, h - 1),
        board.cell(h - 1, h),
        board.cell(h, h - 1),
        board.cell(h, h),
    ]
}

/// The server's choices by plain full-width minimax, every leaf scored from scratch.
///
/// Returns `None` on a full board.
pub fn plain_choices(board: &Board, server: Colour) -> Option<Choices> {
    if board.is_full() {
        return None;
    }
    if board.occupied().is_empty() {
        return Some(Choices {
            value: 0,
            cells: middle_squares(board),
        });
    }
    let player = server.other();
    let mut best = i64::MIN;
    let mut cells = Vec::new();
    let mut b1 = *board;
    for m1 in board.empty().iter() {
        b1.place(m1 as Cell, server);
        let value = plain_value(&b1, server, player, 2);
        b1.remove(m1 as Cell);
        if value > best {
            best = value;
            cells.clear();
        }
        if value == best {
            cells.push(m1 as Cell);
        }
    }
    Some(Choices { value: best, cells })
}

/// The server's minimax value of `board` with `mover` to place, `plies` plies
/// deep; a full board and the last ply's boards are scored from scratch.
fn plain_value(board: &Board, server: Colour, mover: Colour, plies: u32) -> i64 {
    if plies == 0 || board.is_full() {
        return board.server_eval(server);
    }
    let (mut next, empty) = (*board, board.empty());
    let values = empty.iter().map(|cell| {
        next.place(cell as Cell, mover);
        let value = plain_value(&next, server, mover.other(), plies - 1);
        next.remove(cell as Cell);
        value
    });
    let value = if mover == server {
        values.max()
    } else {
        values.min()
    };
    value.expect("a board that is not full has an empty square")
}

/// The greedy choices of `colour`: the empty squares that raise its points the
/// most (its final-score difference, one ply ahead), in row-major order.
pub fn greedy_choices(geo: &Geometry, board: &Board, colour: Colour) -> Vec<Cell> {
    let isles = Isles::new(geo, board, colour);
    let mut best = i64::MIN;
    let mut cells = Vec::new();
    for cell in board.empty().iter() {
        let gain = isles.points_gain(cell as Cell, colour);
        if gain > best {
            best = gain;
            cells.clear();
        }
        if gain == best {
            cells.push(cell as Cell);
        }
    }
    cells
}

/// The server's choices, fast; the same set as [`plain_choices`].
///
/// Returns `None` on a full board.
pub fn choices(geo: &Geometry, board: &Board, server: Colour) -> Option<Choices> {
    scored(geo, board, server, false).map(|(value, cells, _)| Choices { value, cells })
}

/// The exact 3-ply value of every empty square (no cut at the root), row-major.
///
/// Used by players that want to rank all squares the way the server does.
pub fn all_values(geo: &Geometry, board: &Board, server: Colour) -> Vec<(Cell, i64)> {
    scored(geo, board, server, true).map_or_else(Vec::new, |(_, _, all)| all)
}

/// Shared search: best value, best cells and (if `exact_all`) every square's value.
#[allow(clippy::type_complexity)]
fn scored(
    geo: &Geometry,
    board: &Board,
    server: Colour,
    exact_all: bool,
) -> Option<(i64, Vec<Cell>, Vec<(Cell, i64)>)> {
    if board.is_full() {
        return None;
    }
    if board.occupied().is_empty() && !exact_all {
        return Some((0, middle_squares(board), Vec::new()));
    }
    let player = server.other();
    let mut isles = Isles::new(geo, board, server);
    let mut order1 = [(0i64, 0 as Cell); MAX_CELLS];
    let mut len1 = 0;
    for cell in board.empty().iter() {
        order1[len1] = (isles.delta(cell as Cell, server), cell as Cell);
        len1 += 1;
    }
    // Promising squares first, so the best value rises early and cuts the rest.
    order1[..len1].sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut best = i64::MIN;
    let mut cells = Vec::new();
    let mut all = Vec::new();
    let mut order2 = [(0i64, 0 as Cell); MAX_CELLS];
    let mut order3 = [(0i64, 0 as Cell); MAX_CELLS];
    for &(_, m1) in &order1[..len1] {
        isles.apply(m1, server);
        let cut = if exact_all { i64::MIN } else { best };
        let value = min_reply(&mut isles, server, player, cut, &mut order2, &mut order3);
        isles.undo();
        if exact_all {
            all.push((m1, value));
        }
        if value > best {
            best = value;
            cells.clear();
        }
        if value == best {
            cells.push(m1);
        }
    }
    cells.sort_unstable();
    all.sort_unstable();
    Some((best, cells, all))
}

/// Puts the smallest few items (by `cmp`) first and in order; the rest stay unordered.
fn partial_sort(
    items: &mut [(i64, Cell)],
    cmp: impl Fn(&(i64, Cell), &(i64, Cell)) -> std::cmp::Ordering,
) {
    const HEAD: usize = 12;
    if items.len() > HEAD * 2 {
        items.select_nth_unstable_by(HEAD, &cmp);
        items[..HEAD].sort_unstable_by(&cmp);
    } else {
        items.sort_unstable_by(cmp);
    }
}

/// Minimum over the player's replies of the server's best second move; stops
/// (returning something below `cut`) as soon as the minimum falls below `cut`.
fn min_reply(
    isles: &mut Isles<'_>,
    server: Colour,
    player: Colour,
    cut: i64,
    order2: &mut [(i64, Cell); MAX_CELLS],
    order3: &mut [(i64, Cell); MAX_CELLS],
) -> i64 {
    let empty = isles.empty();
    if empty.is_empty() {
        return isles.total();
    }
    let mut len = 0;
    for cell in empty.iter() {
        order2[len] = (isles.delta(cell as Cell, player), cell as Cell);
        order3[len] = (isles.delta(cell as Cell, server), cell as Cell);
        len += 1;
    }
    // Replies that hurt the server most first; second moves by their gain now.
    // Only the heads are sorted: a cut almost always comes from the first few.
    partial_sort(&mut order2[..len], |a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    partial_sort(&mut order3[..len], |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut worst = i64::MAX;
    for &(_, m2) in &order2[..len] {
        isles.apply(m2, player);
        let reply = if len == 1 {
            isles.total()
        } else {
            let base = isles.total();
            let mut top = i64::MIN;
            for &(_, m3) in &order3[..len] {
                if m3 == m2 {
                    continue;
                }
                let v = base + isles.delta(m3, server);
                if v > top {
                    top = v;
                    // This reply can no longer lower the minimum.
                    if top >= worst {
                        break;
                    }
                }
            }
            top
        };
        isles.undo();
        worst = worst.min(reply);
        if worst < cut {
            break;
        }
    }
    worst
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random board of side `n` with `stones` stones in alternating colours.
    pub(crate) fn random_board(rng: &mut ChaCha8Rng, n: usize, stones: usize) -> Board {
        let mut board = Board::new(n).unwrap();
        let mut colour = Colour::Black;
        let mut placed = 0;
        while placed < stones {
            let cell = rng.random_range(0..n * n) as Cell;
            if board.at(cell).is_none() {
                board.place(cell, colour);
                colour = colour.other();
                placed += 1;
            }
        }
        board
    }

    /// `count` random boards of side `n` from the random stream `seed`, each
    /// of a number of stones drawn from `stones`.
    fn random_boards(
        seed: u64,
        n: usize,
        count: usize,
        stones: std::ops::Range<usize>,
    ) -> impl Iterator<Item = Board> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count).map(move |_| {
            let stones = rng.random_range(stones.clone());
            random_board(&mut rng, n, stones)
        })
    }

    #[test]
    fn fast_server_matches_plain_on_random_positions() {
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        let mut compared = 0;
        for n in [4, 6, 8, 10] {
            let geo = Geometry::new(n);
            let cells = n * n;
            for _ in 0..120 {
                // Few empties so that the plain search stays cheap, but down to 1.
                let empties = rng.random_range(1..=cells.min(22));
                let board = random_board(&mut rng, n, cells - empties);
                for server in [Colour::Black, Colour::White] {
                    let fast = choices(&geo, &board, server).unwrap();
                    let plain = plain_choices(&board, server).unwrap();
                    assert_eq!(fast, plain, "n={n}\n{board}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 960);
    }

    /// Checks the fast server against the plain search, for the side to
    /// move, on `boards` random boards of each side in `sizes`, with
    /// `stones(rng, n)` stones each.
    fn check_fast_against_plain(
        seed: u64,
        sizes: &[usize],
        boards: usize,
        stones: impl Fn(&mut ChaCha8Rng, usize) -> usize,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for &n in sizes {
            let geo = Geometry::new(n);
            for _ in 0..boards {
                let stones = stones(&mut rng, n);
                let board = random_board(&mut rng, n, stones);
                let server = board.to_move();
                assert_eq!(
                    choices(&geo, &board, server),
                    plain_choices(&board, server),
                    "n={n}\n{board}"
                );
            }
        }
    }

    #[test]
    fn fast_server_matches_plain_on_big_boards() {
        // Late positions of the big boards: the plain search stays affordable.
        check_fast_against_plain(1616, &[12, 14, 16], 12, |rng, n| {
            n * n - rng.random_range(1..=14)
        });
    }

    #[test]
    fn fast_server_matches_plain_on_open_boards() {
        // Mostly empty boards: many squares, many ties, the cut matters most here.
        check_fast_against_plain(99, &[6, 8], 6, |rng, _| rng.random_range(1..8));
    }

    #[test]
    fn all_values_agree_with_the_best_set() {
        let geo = Geometry::new(6);
        for board in random_boards(5, 6, 20, 1..30) {
            let server = board.to_move();
            let all = all_values(&geo, &board, server);
            let best = all.iter().map(|&(_, v)| v).max().unwrap();
            let cells: Vec<Cell> = all.iter().filter(|p| p.1 == best).map(|p| p.0).collect();
            assert_eq!(
                Some(Choices { value: best, cells }),
                choices(&geo, &board, server)
            );
        }
    }

    #[test]
    fn greedy_gain_matches_points() {
        let geo = Geometry::new(8);
        for board in random_boards(12, 8, 30, 0..60) {
            let colour = board.to_move();
            let isles = Isles::new(&geo, &board, colour);
            let gains: Vec<i64> = board
                .empty()
                .iter()
                .map(|c| {
                    let mut b = board;
                    b.place(c as Cell, colour);
                    let gain = i64::from(b.points(colour)) - i64::from(board.points(colour));
                    assert_eq!(isles.points_gain(c as Cell, colour), gain);
                    gain
                })
                .collect();
            let best = *gains.iter().max().unwrap();
            let expected: Vec<Cell> = board
                .empty()
                .iter()
                .zip(&gains)
                .filter(|p| *p.1 == best)
                .map(|p| p.0 as Cell)
                .collect();
            assert_eq!(greedy_choices(&geo, &board, colour), expected);
        }
    }

    #[test]
    fn empty_board_gives_the_middle_squares() {
        let board = Board::new(6).unwrap();
        let geo = Geometry::new(6);
        let c = choices(&geo, &board, Colour::Black).unwrap();
        assert_eq!(c.cells, vec![14, 15, 20, 21]);
        assert_eq!(plain_choices(&board, Colour::Black).unwrap(), c);
        let mut full = board;
        for cell in 0..36 {
            full.place(cell, Colour::White);
        }
        assert_eq!(choices(&geo, &full, Colour::Black), None);
    }
}
