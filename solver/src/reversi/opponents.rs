//! The computer opponents' rule, as the statement describes it: a strategy is
//! one weight per cell; for each legal move the opponent simulates it and
//! takes the ratio of the weights of the cells it would own to the weights of
//! the cells all the other players would own, and plays the best ratio.
//!
//! The statement leaves the corner cases open. They are decided here, each
//! selectable through [`Rule`]:
//! - a zero denominator: IEEE division by default (`x/0` is ±∞, `0/0` is NaN);
//! - a NaN ratio never beats another move (it is the worst);
//! - ties: the first best move in row-major order by default.
//!
//! Negative denominators are divided as they are (a negative ratio can then
//! rank above a positive one only by being larger as a number).

use super::board::{Board, MAX_CELLS};
use crate::grid::Square;

/// One weight per cell, row-major; cells past the board are ignored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights(pub [f64; MAX_CELLS]);

/// What a zero denominator means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ZeroDenominator {
    /// IEEE division: `x/0` is ±∞ by the sign of x, `0/0` is NaN (the worst).
    #[default]
    Ieee,
    /// The move is rated by its numerator alone, as if divided by one.
    Numerator,
}

/// Which of several equally rated moves is played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ties {
    /// The first in row-major order.
    #[default]
    First,
    /// The last in row-major order.
    Last,
}

/// The corner cases of the opponents' rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rule {
    /// A zero denominator.
    pub zero: ZeroDenominator,
    /// Ties.
    pub ties: Ties,
}

/// As the command line spells it: `zero ieee, ties first`.
impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let zero = match self.zero {
            ZeroDenominator::Ieee => "ieee",
            ZeroDenominator::Numerator => "numerator",
        };
        let ties = match self.ties {
            Ties::First => "first",
            Ties::Last => "last",
        };
        write!(f, "zero {zero}, ties {ties}")
    }
}

impl Weights {
    /// The rating of the position for `seat`: its cells' weight over everyone else's.
    pub fn ratio(&self, board: &Board, seat: usize, rule: Rule) -> f64 {
        let mut own = 0.0;
        let mut others = 0.0;
        for s in 0..board.players() {
            let sum: f64 = board.pieces(s).iter().map(|c| self.0[c]).sum();
            if s == seat {
                own += sum;
            } else {
                others += sum;
            }
        }
        self.rate(own, others, rule)
    }

    fn rate(&self, own: f64, others: f64, rule: Rule) -> f64 {
        if others == 0.0 && rule.zero == ZeroDenominator::Numerator {
            own
        } else {
            own / others
        }
    }

    /// Each legal move of the mover of `board` with the ratio it would give,
    /// in row-major order (none once the game is over): what [`Weights::choose`]
    /// compares.
    ///
    /// Each move is rated from the position's sums and the weight of the cells
    /// it takes, so a rating costs one flip scan, not a board sum.
    pub fn ratings<'a>(
        &'a self,
        board: &'a Board,
        rule: Rule,
    ) -> impl Iterator<Item = (Square, f64)> + 'a {
        let seat = board.mover();
        let own_now: f64 = seat.map_or(0.0, |s| board.pieces(s).iter().map(|c| self.0[c]).sum());
        let all_now: f64 = board.occupied().iter().map(|c| self.0[c]).sum();
        seat.into_iter()
            .flat_map(move |seat| board.moves_with_flips(seat))
            .map(move |(square, flips)| {
                let taken: f64 = flips.iter().map(|c| self.0[c]).sum();
                let own = own_now + taken + self.0[square as usize];
                let others = all_now - own_now - taken;
                (square, self.rate(own, others, rule))
            })
    }

    /// The move the strategy plays for the mover of `board`; `None` once over.
    pub fn choose(&self, board: &Board, rule: Rule) -> Option<Square> {
        let mut best: Option<(f64, Square)> = None;
        for (square, rating) in self.ratings(board, rule) {
            let better = match best {
                None => true,
                Some((b, _)) if b.is_nan() => !rating.is_nan() || rule.ties == Ties::Last,
                Some(_) if rating.is_nan() => false,
                Some((b, _)) => rating > b || (rating == b && rule.ties == Ties::Last),
            };
            if better {
                best = Some((rating, square));
            }
        }
        best.map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    fn flat(w: f64) -> Weights {
        Weights([w; MAX_CELLS])
    }

    /// The plain reading: rate every move, keep the first strictly better one.
    fn plain_choice(weights: &Weights, board: &Board) -> Option<Square> {
        let seat = board.mover()?;
        let mut rated: Vec<(Square, f64)> = board
            .moves()
            .iter()
            .map(|&m| {
                let mut next = *board;
                next.play(m);
                let g = next.geometry();
                let (mut own, mut others) = (0.0, 0.0);
                for cell in 0..g.cells() {
                    match next.owner(cell as Square) {
                        Some(s) if s == seat => own += weights.0[cell],
                        Some(_) => others += weights.0[cell],
                        None => {}
                    }
                }
                (m, own / others)
            })
            .collect();
        rated.retain(|(_, r)| !r.is_nan());
        let best = rated
            .iter()
            .map(|&(_, r)| r)
            .fold(f64::NEG_INFINITY, f64::max);
        rated.iter().find(|&&(_, r)| r == best).map(|&(m, _)| m)
    }

    #[test]
    fn the_choice_matches_the_plain_reading_on_random_weights() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for n in super::super::board::MIN_N..=super::super::board::MAX_N {
            for _ in 0..5 {
                let mut w = flat(0.0);
                for x in w.0.iter_mut() {
                    *x = rng.random_range(-50.0..50.0);
                }
                let mut board = Board::start(n).unwrap();
                while let Some(mv) = w.choose(&board, Rule::default()) {
                    assert_eq!(Some(mv), plain_choice(&w, &board), "n {n}");
                    board.play(mv);
                }
                assert!(board.mover().is_none());
            }
        }
    }

    #[test]
    fn flat_weights_take_the_most_pieces_and_ties_go_first_or_last() {
        let board = Board::start(7).unwrap();
        let w = flat(1.0);
        let first = w.choose(&board, Rule::default()).unwrap();
        let last = w
            .choose(
                &board,
                Rule {
                    ties: Ties::Last,
                    ..Rule::default()
                },
            )
            .unwrap();
        let moves = board.moves();
        let flips = |m: Square| board.flips(0, m).count();
        let most = moves.iter().map(|&m| flips(m)).max().unwrap();
        let best: Vec<Square> = moves
            .iter()
            .copied()
            .filter(|&m| flips(m) == most)
            .collect();
        assert_eq!((first, last), (best[0], *best.last().unwrap()));
    }

    #[test]
    fn a_zero_denominator_follows_the_rule() {
        // Zero weights everywhere but the mover's side: others weigh 0.
        let board = Board::start(7).unwrap();
        let w = flat(0.0);
        // 0/0 everywhere is NaN: IEEE still plays (the first move), and Numerator rates 0.
        assert_eq!(w.choose(&board, Rule::default()), Some(board.moves()[0]));
        let numerator = Rule {
            zero: ZeroDenominator::Numerator,
            ..Rule::default()
        };
        assert_eq!(w.ratio(&board, 0, numerator), 0.0);
        assert!(w.ratio(&board, 0, Rule::default()).is_nan());
    }

    #[test]
    fn each_move_s_rating_is_the_ratio_of_the_board_after_it() {
        // The incremental rating against the whole board's sums, along a game.
        let mut w = flat(0.0);
        for (k, cell) in w.0.iter_mut().enumerate() {
            *cell = ((k * 37) % 101) as f64 - 50.0;
        }
        let rule = Rule::default();
        let mut board = Board::start(8).unwrap();
        while let Some(seat) = board.mover() {
            let rated: Vec<(Square, f64)> = w.ratings(&board, rule).collect();
            assert_eq!(rated.len(), board.moves_of(seat).count() as usize);
            for &(square, rating) in &rated {
                let mut after = board;
                after.play_as(seat, square);
                let whole = w.ratio(&after, seat, rule);
                assert!(
                    (rating - whole).abs() <= 1e-9 * whole.abs().max(1.0),
                    "{rating} {whole}"
                );
            }
            board.play(w.choose(&board, rule).unwrap());
        }
        assert_eq!(w.ratings(&board, rule).count(), 0);
    }
}
