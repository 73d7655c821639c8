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

/// The ladder, weakest first: the opponents `tabula verify dominoes` uses by default.
pub const LADDER: [&str; 5] = ["random", "heaviest", "doubles", "blocker", "server"];

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
pub fn choose_by<K: Ord>(view: &View, key: impl FnMut(Tile, Side) -> K) -> Move {
    best_by(&legal_moves(&view.hand, view.ends(), view.stock), key)
}

/// Of a mover's legal `moves`, the placement with the greatest `key`, or
/// the draw or pass when that is the only move.
pub fn best_by<K: Ord>(moves: &[Move], mut key: impl FnMut(Tile, Side) -> K) -> Move {
    let mut best: Option<(K, Move)> = None;
    for &mv in moves {
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

/// Doubles' order of placements: a double first, then [`heavy_key`].
pub fn doubles_key(tile: Tile, side: Side) -> (bool, (u32, u8, bool)) {
    (tile.is_double(), heavy_key(tile, side))
}

/// The blocker's order of placements (see [`Blocker`]) for a mover holding
/// `hand` at `ends`, the other seat known to lack the numbers of `lacks`.
pub fn blocker_key(
    ends: (u8, u8),
    hand: Tiles,
    lacks: Numbers,
    tile: Tile,
    side: Side,
) -> (u8, u32, (u32, u8, bool)) {
    let (l, r) = ends_after(ends, tile, side);
    let blocked = u8::from(lacks & number_bit(l) != 0) + u8::from(lacks & number_bit(r) != 0);
    let mut rest = hand;
    rest.remove(tile);
    (
        blocked,
        numbers_of(rest).count_ones(),
        heavy_key(tile, side),
    )
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

    /// This seat's move on `view` by the greatest `key` of its placements
    /// ([`choose_by`]), the other seat's moves read before and the move
    /// recorded after; `key` is given this seat's hand as a set and the
    /// numbers the other seat cannot hold ([`Reading::lacks`]).
    pub fn choose<K: Ord>(
        &mut self,
        view: &View,
        key: impl Fn(Tiles, Numbers, Tile, Side) -> K,
    ) -> Move {
        self.update(view);
        let lacks = self.lacks(view);
        let hand: Tiles = view.hand.iter().copied().collect();
        let mv = choose_by(view, |tile, side| key(hand, lacks, tile, side));
        self.played(view, mv);
        mv
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
        choose_by(view, doubles_key)
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
        self.reading.choose(view, |hand, lacks, tile, side| {
            blocker_key(view.ends(), hand, lacks, tile, side)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominoes::agent;
    use crate::dominoes::train::{deal, paired_match};
    use crate::tournament::{Purpose, stream};
    use tabula_solver::dominoes::Rules;
    use tabula_solver::dominoes::rules::Placed;
    use tabula_solver::{Game, Turn};

    fn t(a: u8, b: u8) -> Tile {
        Tile::new(a, b)
    }

    fn view(rules: Rules, hand: &[Tile], line: &[Placed], stock: u32) -> View {
        View {
            rules,
            seat: 0,
            hand: hand.iter().copied().collect(),
            line: line.iter().copied().collect(),
            stock,
            open_hand: None,
        }
    }

    const LADDER: [&str; 4] = ["heaviest", "doubles", "blocker", "server"];

    #[test]
    fn every_ladder_player_plays_legally_against_random_in_every_case() {
        for name in LADDER {
            let me = |rng| agent(name, rng).expect("registered");
            let random = |rng| agent("random", rng).expect("registered");
            // `play_pair` asserts that no game ends on a fault; 50 deals of each case.
            let result = paired_match(&me, &random, 1000, 11, 0, &|_| {});
            assert_eq!(result.games, 2000, "{name}");
            assert_eq!(result.wins + result.ties + result.losses, 2000);
        }
    }

    #[test]
    fn heaviest_breaks_ties_by_the_greater_number_then_the_left_end() {
        let rules = Rules::new(7, 4).unwrap();
        let line = [(2, 4), (4, 5)];
        // 1-5 and 2-4 both have 6 pips: 1-5 has the greater number.
        let v = view(rules, &[t(2, 4), t(1, 5), t(0, 0)], &line, 10);
        assert_eq!(Heaviest.choose(&v), Move::Place(t(1, 5), Side::Right));
        // 2-5 fits both ends: the left one.
        let v = view(rules, &[t(2, 4), t(2, 5), t(1, 5)], &line, 10);
        assert_eq!(Heaviest.choose(&v), Move::Place(t(2, 5), Side::Left));
        // Nothing fits: draw, or pass on an empty stock.
        let v = view(rules, &[t(0, 0), t(1, 3)], &line, 10);
        assert_eq!(Heaviest.choose(&v), Move::Draw);
        let v = view(rules, &[t(0, 0), t(1, 3)], &line, 0);
        assert_eq!(Heaviest.choose(&v), Move::Pass);
    }

    #[test]
    fn doubles_plays_a_lighter_double_before_a_heavier_single() {
        let rules = Rules::new(7, 4).unwrap();
        let line = [(2, 4), (4, 5)];
        let v = view(rules, &[t(1, 5), t(2, 2), t(6, 6)], &line, 10);
        assert_eq!(Doubles.choose(&v), Move::Place(t(2, 2), Side::Left));
        // Two doubles fit: the heavier.
        let v = view(rules, &[t(1, 5), t(2, 2), t(5, 5)], &line, 10);
        assert_eq!(Doubles.choose(&v), Move::Place(t(5, 5), Side::Right));
        // No double fits: the heaviest tile.
        let v = view(rules, &[t(0, 5), t(1, 5), t(6, 6)], &line, 10);
        assert_eq!(Doubles.choose(&v), Move::Place(t(1, 5), Side::Right));
    }

    /// The replier's first two views: it answers 6-6 with 6-1, then the other
    /// seat places 6-2 on the right, after drawing `drawn` tiles.
    fn blocker_after_reply(drawn: u32) -> (Blocker, Move) {
        let rules = Rules::new(7, 4).unwrap();
        let stock = 28 - 8;
        let mut blocker = Blocker::new();
        // What `reset 6-6` shows: the opening tile alone, no hand yet.
        blocker.start_game(1, &view(rules, &[], &[(6, 6)], stock));
        let first = view(
            rules,
            &[t(6, 1), t(1, 3), t(1, 2), t(2, 5)],
            &[(6, 6)],
            stock,
        );
        assert_eq!(
            blocker.choose(&first),
            Move::Place(t(1, 6), Side::Left),
            "the only tile that fits; both ends are alike, so the left one"
        );
        let line = [(1, 6), (6, 6), (6, 2)];
        let second = view(rules, &[t(1, 3), t(1, 2), t(2, 5)], &line, stock - drawn);
        let mv = blocker.choose(&second);
        (blocker, mv)
    }

    #[test]
    fn blocker_reads_a_draw_as_the_other_hand_lacking_both_ends() {
        // It drew facing 1 and 6: it holds neither. Placing 1-2 on the right
        // leaves 1 at both ends.
        let (blocker, mv) = blocker_after_reply(2);
        assert_eq!(blocker.reading().missing(), number_bit(1) | number_bit(6));
        assert_eq!(mv, Move::Place(t(1, 2), Side::Right));
        // Without the draw, nothing is known: 1-2 keeps the most numbers in
        // hand (1, 2, 3, 5), and the tie between its ends goes left.
        let (blocker, mv) = blocker_after_reply(0);
        assert_eq!(blocker.reading().missing(), 0);
        assert_eq!(mv, Move::Place(t(1, 2), Side::Left));
    }

    #[test]
    fn the_openers_first_view_reads_a_reply_made_after_drawing() {
        let rules = Rules::new(6, 5).unwrap();
        let dealt = 21 - 10;
        let mine = [t(0, 1), t(0, 2), t(1, 2), t(0, 3)];
        // The other seat drew three tiles facing 5-5, then placed 3-5.
        let first = view(rules, &mine, &[(5, 5), (5, 3)], dealt - 3);
        for told in [true, false] {
            let mut reading = Reading::new();
            if told {
                reading.start_game(&view(rules, &[], &[(5, 5)], dealt));
            }
            // Untold, the opening rule ranks the double 5-5 above 3-5.
            reading.update(&first);
            assert_eq!(reading.missing(), number_bit(5), "told: {told}");
        }
        // The replier's first view: nobody has moved, nothing is known.
        let mut reading = Reading::new();
        let hand = [t(0, 1), t(0, 2), t(1, 2), t(0, 3), t(3, 5)];
        reading.update(&view(rules, &hand, &[(5, 5)], dealt));
        assert_eq!(reading.missing(), 0);
    }

    #[test]
    fn a_pass_adds_to_what_is_known() {
        let rules = Rules::new(5, 7).unwrap();
        // Stock empty; the other seat (1) holds no 4.
        let mine = [t(0, 4), t(1, 4), t(2, 4), t(0, 3), t(1, 3), t(2, 3)];
        let theirs = [
            t(0, 0),
            t(0, 1),
            t(1, 1),
            t(0, 2),
            t(1, 2),
            t(2, 2),
            t(3, 3),
        ];
        let mut game = Match::from_parts(rules, [&mine, &theirs], &[(3, 4), (4, 4)], 0, 1);
        let mut reading = Reading::new();
        let right = |a, b| Move::Place(t(a, b), Side::Right);
        let left = |a, b| Move::Place(t(a, b), Side::Left);
        let rounds = [
            (right(0, 4), right(0, 1)),
            (right(1, 3), left(3, 3)),
            (left(2, 3), left(2, 2)),
            (left(2, 4), Move::Pass),
        ];
        for (k, (mv, reply)) in rounds.into_iter().enumerate() {
            let view = game.view(0);
            if k > 0 {
                reading.update(&view);
                assert_eq!(reading.missing(), 0, "placing teaches nothing");
            }
            reading.played(&view, mv);
            for m in [mv, reply] {
                assert!(game.moves().contains(&m), "{m:?}");
                game.apply(m);
            }
        }
        // It passed facing 4 and 3.
        let view = game.view(0);
        reading.update(&view);
        assert_eq!(reading.missing(), number_bit(3) | number_bit(4));
        // Numbers with no unseen tile count as lacked too: 3 and 4 here.
        assert_eq!(reading.lacks(&view), number_bit(3) | number_bit(4));
    }

    /// Plays one game in-process, then replays it to fresh copies of the
    /// players fed only what the protocol shows (`reset` with the opening
    /// tile alone, then `play` views), and checks they choose the same moves.
    #[test]
    fn the_ladder_plays_from_views_alone() {
        use crate::arena::play_game;
        use crate::seat::{Clock, Local, Player};
        // Five deals of each case; every ordered pair of players (and self-play).
        for g in 0..100 {
            let names = [LADDER[g % 4], LADDER[(g / 4) % 4]];
            let (d, chance) = deal(3, 0, g);
            let start = Match::new(&d);
            let mut a = Local(agent(names[0], stream(3, Purpose::Agent, 0, 0, 0)).unwrap());
            let mut b = Local(agent(names[1], stream(3, Purpose::Agent, 0, 0, 1)).unwrap());
            let mut players: Vec<&mut dyn Player<Match>> = vec![&mut a, &mut b];
            let mut clocks = vec![Clock::default(); 2];
            let record = play_game(
                start.clone(),
                &mut players,
                &[0, 1],
                &mut clocks,
                &mut chance.clone(),
            );
            assert!(record.fault.is_none());
            let mut fresh = names.map(|n| agent(n, stream(3, Purpose::Agent, 0, 0, 0)).unwrap());
            for (seat, player) in fresh.iter_mut().enumerate() {
                let reset = View {
                    hand: Default::default(),
                    ..start.view(seat)
                };
                player.start_game(seat, &reset);
            }
            let mut game = start;
            for ply in &record.plies {
                if let Turn::Seat(seat) = ply.turn {
                    assert_eq!(
                        fresh[seat].choose(&game.view(seat)),
                        ply.mv,
                        "{names:?} game {g}"
                    );
                }
                game.apply(ply.mv);
            }
        }
    }
}
