//! The opponent ladder below `server`: `heaviest`, `doubles` and `blocker`,
//! and the [`Reading`] of the other hand that `blocker` and `server` share.
//!
//! Every player here decides from its views alone (never from `observe`), so
//! it plays the same in-process and over the line protocol, where a player
//! only ever sees `init`, `reset` and `play`. All of them are deterministic.
//!
//! Tie-breaks are total: a placement is a tile and an end, and the last keys
//! of every order are the tile's pips, then its greater number, then the left
//! end before the right one (a tile fits both ends only when it shows both
//! numbers or the ends are equal).

use tabula_solver::Seat;
use tabula_solver::dominoes::rules::{Placed, legal_moves};
use tabula_solver::dominoes::{Match, Move, Side, Tile, Tiles, View};

use crate::agent::Agent;

/// A set of numbers `0..9`, one bit each.
pub type Numbers = u16;

/// The set holding `number` alone.
pub const fn number_bit(number: u8) -> Numbers {
    1 << number
}

/// The numbers that appear on `tiles`.
pub fn numbers_of(tiles: Tiles) -> Numbers {
    tiles
        .iter()
        .fold(0, |set, t| set | number_bit(t.low()) | number_bit(t.high()))
}

/// The ends of the line after placing `tile` at `side` of `ends`.
pub fn ends_after(ends: (u8, u8), tile: Tile, side: Side) -> (u8, u8) {
    match side {
        Side::Left => (tile.other(ends.0), ends.1),
        Side::Right => (ends.0, tile.other(ends.1)),
    }
}

/// The heaviest-first order of placements: more pips, then the higher
/// greater number (1-5 before 2-4), then the left end before the right one.
/// Distinct placements never compare equal.
pub fn heavy_key(tile: Tile, side: Side) -> (u32, u8, bool) {
    (tile.pips(), tile.high(), side == Side::Left)
}

/// The placement with the greatest `key`, or the forced draw or pass.
///
/// `key` must order distinct placements strictly (end it with [`heavy_key`]).
pub fn choose_by<K: Ord>(view: &View, mut key: impl FnMut(Tile, Side) -> K) -> Move {
    let moves = legal_moves(&view.hand, view.ends(), view.stock);
    let mut best: Option<(K, Move)> = None;
    for &mv in moves.iter() {
        let Move::Place(tile, side) = mv else {
            // No tile fits: the only move is the draw or the pass.
            return mv;
        };
        let k = key(tile, side);
        if best.as_ref().is_none_or(|(b, _)| k > *b) {
            best = Some((k, mv));
        }
    }
    best.expect("a seat to move has a legal move").1
}

/// The stock right after the deal.
fn initial_stock(view: &View) -> u32 {
    view.rules.tile_count() - 2 * u32::from(view.rules.hand)
}

/// The state of the line after this seat's last move, waiting to be compared
/// with the next view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    /// No view of this game seen yet.
    Start,
    /// The other seat moved (or the game ended) after the line reached this.
    Opponent {
        /// The ends the other seat faced.
        ends: (u8, u8),
        /// The line's length then.
        line: usize,
        /// The stock then.
        stock: u32,
    },
    /// This seat drew: the next view is its own again.
    Mine,
}

/// What a seat knows of the other hand from the differences between its
/// consecutive views: the numbers the other seat is known to lack.
///
/// The rule: after this seat's move the other seat faced ends `a`, `b` with
/// the stock at `s`, and the next view shows the stock at `s'` and the line
/// grown by one tile or not at all.
/// - It drew (`s' < s`): it held neither `a` nor `b`, every tile it drew but
///   the last lacked them too, and the last one (the only tile that fits) was
///   the one it placed, or it passed on an empty stock. So its hand now lacks
///   exactly `a` and `b` as far as we know: the known set becomes `{a, b}`
///   (older knowledge is dropped, a drawn tile may carry those numbers).
/// - It passed without drawing: it lacks `a` and `b` as well as what it
///   lacked before.
/// - It placed without drawing: nothing new; the old knowledge still holds.
///
/// For the opener's first view the state after its own move is the opening
/// tile on the line and the full stock, so a reply made after drawing is read
/// the same way. The opening tile is the single tile of the line given to
/// `start_game` (the protocol's `reset` shows it); failing that, of the two
/// tiles on the line, the one the opening rule ranks higher.
#[derive(Clone, Debug)]
pub struct Reading {
    pending: Pending,
    missing: Numbers,
    opening: Option<Placed>,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading::new()
    }
}

impl Reading {
    /// Knows nothing yet.
    pub fn new() -> Reading {
        Reading {
            pending: Pending::Start,
            missing: 0,
            opening: None,
        }
    }

    /// A new game: forgets the last one, keeps the opening tile if `view` shows it alone.
    pub fn start_game(&mut self, view: &View) {
        *self = Reading::new();
        if view.line.len() == 1 {
            self.opening = Some(view.line[0]);
        }
    }

    /// Reads the other seat's moves since this seat's last move from `view`, this seat's next view.
    pub fn update(&mut self, view: &View) {
        if self.pending == Pending::Start {
            self.pending = self.first(view);
        }
        if let Pending::Opponent { ends, line, stock } = self.pending {
            let (a, b) = ends;
            let both = number_bit(a) | number_bit(b);
            if view.stock > stock || view.line.len() < line || view.line.len() > line + 1 {
                // Not a continuation of the last view: a new game without notice.
                self.missing = 0;
            } else if view.stock < stock {
                self.missing = both;
            } else if view.line.len() == line {
                self.missing |= both;
            }
        }
        self.pending = Pending::Mine;
    }

    /// What stood before the other seat's first move of the game, as seen from the first view.
    fn first(&self, view: &View) -> Pending {
        let stock = initial_stock(view);
        if view.line.len() == 1 && view.stock == stock {
            // This seat replies to the opening: the other seat has not moved yet.
            return Pending::Mine;
        }
        // This seat opened; the other seat replied to the opening tile.
        let opening = match self.opening {
            Some(tile) if view.line.contains(&tile) => tile,
            _ => {
                let rank = |&(a, b): &Placed| {
                    let t = Tile::new(a, b);
                    (t.is_double(), t.pips(), t.high())
                };
                *view.line.iter().max_by_key(|p| rank(p)).expect("a line")
            }
        };
        Pending::Opponent {
            ends: opening,
            line: 1,
            stock,
        }
    }

    /// Records this seat's move `mv`, chosen from `view`.
    pub fn played(&mut self, view: &View, mv: Move) {
        let ends = view.ends();
        let line = view.line.len();
        self.pending = match mv {
            Move::Place(tile, side) => Pending::Opponent {
                ends: ends_after(ends, tile, side),
                line: line + 1,
                stock: view.stock,
            },
            Move::Pass => Pending::Opponent {
                ends,
                line,
                stock: view.stock,
            },
            Move::Draw | Move::Drawn(_) => Pending::Mine,
        };
    }

    /// The numbers the other seat is known to lack from its draws and passes.
    pub fn missing(&self) -> Numbers {
        self.missing
    }

    /// The numbers the other seat cannot hold: known missing, or with no
    /// tile left unseen by this seat (all on the line or in its own hand).
    pub fn lacks(&self, view: &View) -> Numbers {
        let unseen = numbers_of(view.unseen());
        let all = (1u16 << view.rules.numbers) - 1;
        self.missing | (all & !unseen)
    }
}

/// Plays the heaviest fitting tile (see [`heavy_key`]).
#[derive(Clone, Debug, Default)]
pub struct Heaviest;

impl Agent<Match> for Heaviest {
    fn name(&self) -> String {
        "heaviest".into()
    }

    fn choose(&mut self, view: &View) -> Move {
        choose_by(view, heavy_key)
    }
}

/// Plays a fitting double if it has one (the heaviest), else the heaviest tile.
#[derive(Clone, Debug, Default)]
pub struct Doubles;

impl Agent<Match> for Doubles {
    fn name(&self) -> String {
        "doubles".into()
    }

    fn choose(&mut self, view: &View) -> Move {
        choose_by(view, |t, s| (t.is_double(), heavy_key(t, s)))
    }
}

/// Plays to ends the other seat is known to lack, keeping its own suits.
///
/// The order of placements, first key first:
/// 1. the number of the new ends (0, 1 or 2; equal ends count twice) that the
///    other seat cannot hold ([`Reading::lacks`]);
/// 2. the number of distinct numbers left in its own hand (the numbers it can
///    still answer);
/// 3. [`heavy_key`].
#[derive(Clone, Debug, Default)]
pub struct Blocker {
    reading: Reading,
}

impl Blocker {
    /// A blocker that knows nothing yet.
    pub fn new() -> Blocker {
        Blocker::default()
    }

    /// What it has read of the other hand.
    pub fn reading(&self) -> &Reading {
        &self.reading
    }
}

impl Agent<Match> for Blocker {
    fn name(&self) -> String {
        "blocker".into()
    }

    fn start_game(&mut self, _seat: Seat, view: &View) {
        self.reading.start_game(view);
    }

    fn choose(&mut self, view: &View) -> Move {
        self.reading.update(view);
        let lacks = self.reading.lacks(view);
        let hand: Tiles = view.hand.iter().copied().collect();
        let mv = choose_by(view, |tile, side| {
            let (l, r) = ends_after(view.ends(), tile, side);
            let blocked = u8::from(lacks & number_bit(l) != 0) + u8::from(lacks & number_bit(r) != 0);
            let mut rest = hand;
            rest.remove(tile);
            let variety = numbers_of(rest).count_ones();
            (blocked, variety, heavy_key(tile, side))
        });
        self.reading.played(view, mv);
        mv
    }
}
