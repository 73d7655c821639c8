//! The game as the referee holds it: both hands in the order dealt, the line
//! of play, the stock, and draws from the stock as chance.
//!
//! The stock's order is not part of the state: a draw is a [`Turn::Chance`]
//! turn whose outcomes are the stock's tiles in index order, each equally
//! likely. A referee that feeds every game of a deal the same chance stream
//! therefore hands out the same tiles in the same order whoever draws them,
//! which is what "the same deals for every player" needs.

use arrayvec::ArrayVec;
use rand::Rng;
use rand::seq::SliceRandom;

use super::tiles::{MAX_HAND, MAX_NUMBERS, MAX_TILES, MIN_HAND, MIN_NUMBERS, Tile, Tiles};
use crate::game::{Determinize, Game, IllegalMove, MoveList, Scores, Seat, Turn};

/// The parameters of a test case: N numbers, H tiles dealt to each hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rules {
    /// The numbers run over `0..numbers` (the statement's N, 5..=9).
    pub numbers: u8,
    /// Tiles dealt to each hand (the statement's H, 4..=7).
    pub hand: u8,
}

/// Why a pair (N, H) is not a case of the contest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("N={numbers} H={hand} is not a case: N must be 5..=9 and H 4..=7")]
pub struct RulesError {
    /// The N given.
    pub numbers: u32,
    /// The H given.
    pub hand: u32,
}

impl Rules {
    /// The case (N, H), checked against the statement's ranges.
    pub fn new(numbers: u32, hand: u32) -> Result<Rules, RulesError> {
        let ok = (u32::from(MIN_NUMBERS)..=u32::from(MAX_NUMBERS)).contains(&numbers)
            && (u32::from(MIN_HAND)..=u32::from(MAX_HAND)).contains(&hand);
        if ok {
            Ok(Rules {
                numbers: numbers as u8,
                hand: hand as u8,
            })
        } else {
            Err(RulesError { numbers, hand })
        }
    }

    /// The contest's 20 cases, N then H ascending.
    pub fn all() -> impl Iterator<Item = Rules> {
        (MIN_NUMBERS..=MAX_NUMBERS)
            .flat_map(|numbers| (MIN_HAND..=MAX_HAND).map(move |hand| Rules { numbers, hand }))
    }

    /// Every tile of the set.
    pub fn tiles(self) -> Tiles {
        Tiles::full(self.numbers)
    }

    /// The number of tiles in the set.
    pub fn tile_count(self) -> u32 {
        self.tiles().len()
    }
}

/// One end of the line of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The left end (`L<i>`).
    Left,
    /// The right end (`R<i>`).
    Right,
}

/// A move of a seat, or a tile drawn by chance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Places a tile of the mover's hand at one end.
    Place(Tile, Side),
    /// Asks for a tile from the stock (only when no tile fits).
    Draw,
    /// Passes (only when no tile fits and the stock is empty).
    Pass,
    /// Chance: the tile that a draw hands to the seat that asked.
    Drawn(Tile),
}

/// A tile of the line of play as it lies: `(left half, right half)`.
pub type Placed = (u8, u8);

/// A hand in the order its tiles were received (dealt first, drawn appended).
pub type Hand = ArrayVec<Tile, MAX_TILES>;

/// The legal moves of a seat: at most the N tiles of each end's suit, plus one.
pub type Moves = MoveList<Move, { 2 * MAX_NUMBERS as usize + 1 }>;

/// The move list of a draw: the tiles of the stock.
type Outcomes = MoveList<Move, MAX_TILES>;

/// The opening tile: the highest double dealt, else the single with the
/// highest pip sum (ties: the higher greatest number). `None` for no tiles.
pub fn opening_tile(dealt: Tiles) -> Option<Tile> {
    dealt
        .iter()
        .max_by_key(|t| (t.is_double(), t.pips(), t.high()))
}

/// The deal of one game: both hands in the order dealt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The case.
    pub rules: Rules,
    /// The hands of seat 0 and seat 1, in the order dealt.
    pub hands: [ArrayVec<Tile, { MAX_HAND as usize }>; 2],
}

impl Deal {
    /// A uniformly random deal.
    pub fn random(rules: Rules, rng: &mut impl Rng) -> Deal {
        let mut tiles: ArrayVec<Tile, MAX_TILES> = rules.tiles().iter().collect();
        tiles.shuffle(rng);
        let h = usize::from(rules.hand);
        Deal {
            rules,
            hands: [
                tiles[..h].iter().copied().collect(),
                tiles[h..2 * h].iter().copied().collect(),
            ],
        }
    }

    /// The same deal with the hands of the two seats exchanged.
    pub fn swapped(&self) -> Deal {
        Deal {
            rules: self.rules,
            hands: [self.hands[1].clone(), self.hands[0].clone()],
        }
    }

    /// The seat that opens and the tile placed for it.
    pub fn opening(&self) -> (Seat, Tile) {
        let sets = self
            .hands
            .each_ref()
            .map(|h| h.iter().copied().collect::<Tiles>());
        let tile = opening_tile(sets[0].or(sets[1])).expect("a deal has tiles");
        (usize::from(sets[1].contains(tile)), tile)
    }
}

/// Who acts next in a [`Match`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    /// This seat places, draws or passes.
    Move(Seat),
    /// Chance hands this seat a tile from the stock.
    Draw(Seat),
}

/// One game of Dominoes in progress, as the referee holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    rules: Rules,
    hands: [Hand; 2],
    stock: Tiles,
    line: ArrayVec<Placed, MAX_TILES>,
    phase: Phase,
    opener: Seat,
    /// Seats that see the other hand (the clairvoyant reference player).
    open_hand: [bool; 2],
}

impl Match {
    /// The game of `deal`, after the opening tile has been placed automatically.
    pub fn new(deal: &Deal) -> Match {
        let (opener, tile) = deal.opening();
        let mut hands = deal
            .hands
            .each_ref()
            .map(|h| h.iter().copied().collect::<Hand>());
        hands[opener].retain(|t| *t != tile);
        let dealt: Tiles = deal.hands.iter().flatten().copied().collect();
        let mut line = ArrayVec::new();
        line.push((tile.low(), tile.high()));
        Match {
            rules: deal.rules,
            hands,
            stock: deal.rules.tiles().minus(dealt),
            line,
            phase: Phase::Move(1 - opener),
            opener,
            open_hand: [false; 2],
        }
    }

    /// A game in an arbitrary position, for tests and tools: `hands`, the line
    /// (each tile `(left, right)`), the stock, and the seat to move.
    ///
    /// Panics if a tile is repeated, out of the set, or the line does not chain.
    pub fn from_parts(
        rules: Rules,
        hands: [&[Tile]; 2],
        line: &[Placed],
        mover: Seat,
        opener: Seat,
    ) -> Match {
        let mut seen = Tiles::EMPTY;
        let placed = line.iter().map(|&(a, b)| Tile::new(a, b));
        for t in hands.iter().flat_map(|h| h.iter().copied()).chain(placed) {
            assert!(
                rules.tiles().contains(t) && !seen.contains(t),
                "tile {t} is repeated or out of the set"
            );
            seen.insert(t);
        }
        assert!(
            !line.is_empty() && line.windows(2).all(|w| w[0].1 == w[1].0),
            "the line does not chain"
        );
        Match {
            rules,
            hands: hands.map(|h| h.iter().copied().collect()),
            stock: rules.tiles().minus(seen),
            line: line.iter().copied().collect(),
            phase: Phase::Move(mover),
            opener,
            open_hand: [false; 2],
        }
    }

    /// Lets `seat` see the other hand in its view (never the stock's order).
    pub fn with_open_hand(mut self, seat: Seat) -> Match {
        self.open_hand[seat] = true;
        self
    }

    /// The case.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The seat whose tile opened the game.
    pub fn opener(&self) -> Seat {
        self.opener
    }

    /// The seat to move, or the seat a draw is for (the last mover once over).
    pub fn mover(&self) -> Seat {
        match self.phase {
            Phase::Move(seat) | Phase::Draw(seat) => seat,
        }
    }

    /// A seat's hand, in the order received.
    pub fn hand(&self, seat: Seat) -> &[Tile] {
        &self.hands[seat]
    }

    /// A seat's hand as a set.
    pub fn hand_set(&self, seat: Seat) -> Tiles {
        self.hands[seat].iter().copied().collect()
    }

    /// The tiles in the stock.
    pub fn stock(&self) -> Tiles {
        self.stock
    }

    /// The line of play, left to right.
    pub fn line(&self) -> &[Placed] {
        &self.line
    }

    /// The numbers open at the left and right ends.
    pub fn ends(&self) -> (u8, u8) {
        (self.line[0].0, self.line[self.line.len() - 1].1)
    }

    fn can_place(&self, seat: Seat) -> bool {
        let (left, right) = self.ends();
        !self
            .hand_set(seat)
            .and(Tiles::matching(left, right))
            .is_empty()
    }

    fn blocked(&self) -> bool {
        self.stock.is_empty() && !self.can_place(0) && !self.can_place(1)
    }
}

/// The legal moves with `hand` at `ends` and `stock` tiles left: every fitting
/// tile at every end it fits, else a draw, else a pass.
pub fn legal_moves(hand: &[Tile], ends: (u8, u8), stock: u32) -> Moves {
    let mut moves = Moves::new();
    for &t in hand {
        if t.has(ends.0) {
            moves.push(Move::Place(t, Side::Left));
        }
        if t.has(ends.1) {
            moves.push(Move::Place(t, Side::Right));
        }
    }
    if moves.is_empty() {
        moves.push(if stock > 0 { Move::Draw } else { Move::Pass });
    }
    moves
}

/// Checks a seat's move against its hand, the ends and the stock, with the reason in words.
pub fn check_move(hand: &[Tile], ends: (u8, u8), stock: u32, mv: Move) -> Result<(), IllegalMove> {
    let fits = hand.iter().any(|t| t.has(ends.0) || t.has(ends.1));
    let refuse = |why: String| Err(IllegalMove(why));
    match mv {
        Move::Place(t, side) => {
            let end = if side == Side::Left { ends.0 } else { ends.1 };
            if !hand.contains(&t) {
                refuse(format!("tile {t} is not in the hand"))
            } else if !t.has(end) {
                let name = if side == Side::Left { "left" } else { "right" };
                refuse(format!("tile {t} does not fit the {name} end {end}"))
            } else {
                Ok(())
            }
        }
        Move::Draw if fits => refuse("cannot draw while a tile fits".into()),
        Move::Draw if stock == 0 => refuse("cannot draw from an empty stock".into()),
        Move::Pass if fits => refuse("cannot pass while a tile fits".into()),
        Move::Pass if stock > 0 => refuse("cannot pass while the stock has tiles".into()),
        Move::Draw | Move::Pass => Ok(()),
        Move::Drawn(_) => refuse("only chance hands out tiles".into()),
    }
}

/// What one seat sees: exactly what the protocol's `play` shows, plus the case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The case.
    pub rules: Rules,
    /// The seat that sees this.
    pub seat: Seat,
    /// Its hand, in the order received.
    pub hand: Hand,
    /// The line of play, left to right.
    pub line: ArrayVec<Placed, MAX_TILES>,
    /// Tiles left in the stock.
    pub stock: u32,
    /// The other hand, for a seat that plays with open hands only.
    pub open_hand: Option<Tiles>,
}

impl View {
    /// The numbers open at the left and right ends.
    pub fn ends(&self) -> (u8, u8) {
        (self.line[0].0, self.line[self.line.len() - 1].1)
    }

    /// The tiles this seat cannot see: the other hand and the stock together.
    pub fn unseen(&self) -> Tiles {
        let placed: Tiles = self.line.iter().map(|&(a, b)| Tile::new(a, b)).collect();
        let hand: Tiles = self.hand.iter().copied().collect();
        self.rules.tiles().minus(placed).minus(hand)
    }

    /// The number of tiles in the other hand.
    pub fn opponent_count(&self) -> u32 {
        self.unseen().len() - self.stock
    }
}

/// What a seat learns of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    /// A seat placed this tile at this end.
    Placed(Tile, Side),
    /// A seat asked to draw.
    Draw,
    /// A seat passed.
    Pass,
    /// A tile was drawn: shown only to the seat that drew it.
    Drawn(Option<Tile>),
}

impl Game for Match {
    type Move = Move;
    type Moves = Outcomes;
    type View = View;
    type Observation = Observation;
    type Params = Rules;

    fn seats(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.hands.iter().any(|h| h.is_empty()) || self.blocked() {
            return Turn::Over;
        }
        match self.phase {
            Phase::Move(seat) => Turn::Seat(seat),
            Phase::Draw(_) => Turn::Chance,
        }
    }

    fn moves(&self) -> Outcomes {
        match (self.turn(), self.phase) {
            (Turn::Over, _) => Outcomes::new(),
            (_, Phase::Draw(_)) => self.stock.iter().map(Move::Drawn).collect(),
            (_, Phase::Move(seat)) => legal_moves(&self.hands[seat], self.ends(), self.stock.len())
                .into_iter()
                .collect(),
        }
    }

    fn apply(&mut self, mv: Move) {
        match (self.phase, mv) {
            (Phase::Move(seat), Move::Place(tile, side)) => {
                self.hands[seat].retain(|t| *t != tile);
                let (left, right) = self.ends();
                match side {
                    Side::Left => self.line.insert(0, (tile.other(left), left)),
                    Side::Right => self.line.push((right, tile.other(right))),
                }
                self.phase = Phase::Move(1 - seat);
            }
            (Phase::Move(seat), Move::Draw) => self.phase = Phase::Draw(seat),
            (Phase::Move(seat), Move::Pass) => self.phase = Phase::Move(1 - seat),
            (Phase::Draw(seat), Move::Drawn(tile)) => {
                self.stock.remove(tile);
                self.hands[seat].push(tile);
                self.phase = Phase::Move(seat);
            }
            (phase, mv) => panic!("{mv:?} cannot be played in {phase:?}"),
        }
    }

    fn scores(&self) -> Scores {
        let mut scores: Scores = [0.0, 0.0].into_iter().collect();
        if self.turn() != Turn::Over {
            return scores;
        }
        let pips = [0, 1].map(|s| self.hand_set(s).pips());
        let empty = [0, 1].map(|s| self.hands[s].is_empty());
        match (empty, pips[0].cmp(&pips[1])) {
            ([true, _], _) => scores[0] = 1.0,
            ([_, true], _) => scores[1] = 1.0,
            (_, std::cmp::Ordering::Less) => scores[0] = 1.0,
            (_, std::cmp::Ordering::Greater) => scores[1] = 1.0,
            (_, std::cmp::Ordering::Equal) => scores = [0.5, 0.5].into_iter().collect(),
        }
        scores
    }

    fn view(&self, seat: Seat) -> View {
        View {
            rules: self.rules,
            seat,
            hand: self.hands[seat].clone(),
            line: self.line.clone(),
            stock: self.stock.len(),
            open_hand: self.open_hand[seat].then(|| self.hand_set(1 - seat)),
        }
    }

    fn observe(&self, mv: Move, seat: Seat) -> Observation {
        match mv {
            Move::Place(t, side) => Observation::Placed(t, side),
            Move::Draw => Observation::Draw,
            Move::Pass => Observation::Pass,
            Move::Drawn(t) => Observation::Drawn((self.phase == Phase::Draw(seat)).then_some(t)),
        }
    }

    fn view_moves(view: &View) -> Outcomes {
        legal_moves(&view.hand, view.ends(), view.stock)
            .into_iter()
            .collect()
    }

    fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        // The phase still names a mover after the end: the end is checked first.
        if self.turn() == Turn::Over {
            return Err(IllegalMove("the game is over".into()));
        }
        match self.phase {
            Phase::Move(seat) => check_move(&self.hands[seat], self.ends(), self.stock.len(), mv),
            Phase::Draw(_) => match mv {
                Move::Drawn(t) if self.stock.contains(t) => Ok(()),
                _ => Err(IllegalMove(format!("{mv:?} is not a tile of the stock"))),
            },
        }
    }
}

/// The other hand drawn uniformly from the tiles `seat` cannot see (or the
/// hand itself when it is open to `seat`), `seat` to move. The opener is not
/// in a view: the sample names `seat`.
impl Determinize for Match {
    fn sample(view: &View, seat: Seat, rng: &mut impl Rng) -> Match {
        let other: Vec<Tile> = match view.open_hand {
            Some(hand) => hand.iter().collect(),
            None => {
                let mut unseen: Vec<Tile> = view.unseen().iter().collect();
                unseen.shuffle(rng);
                unseen.truncate(view.opponent_count() as usize);
                unseen
            }
        };
        let mut hands: [&[Tile]; 2] = [&other, &other];
        hands[seat] = &view.hand;
        let game = Match::from_parts(view.rules, hands, &view.line, seat, seat);
        match view.open_hand {
            Some(_) => game.with_open_hand(seat),
            None => game,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(a: u8, b: u8) -> Tile {
        Tile::new(a, b)
    }

    fn rules(n: u32, h: u32) -> Rules {
        Rules::new(n, h).unwrap()
    }

    /// Why `game` refuses `mv` (it must).
    fn refusal(game: &Match, mv: Move) -> String {
        game.check_move(mv).unwrap_err().to_string()
    }

    /// A deal of case (6, 4) with these hands.
    fn deal_6_4(first: [Tile; 4], second: [Tile; 4]) -> Deal {
        Deal {
            rules: rules(6, 4),
            hands: [first.into_iter().collect(), second.into_iter().collect()],
        }
    }

    #[test]
    fn the_twenty_cases_and_no_others() {
        assert_eq!(Rules::all().count(), 20);
        assert!(Rules::new(4, 5).is_err() && Rules::new(5, 8).is_err());
        assert_eq!(rules(5, 7).tile_count(), 15);
        assert_eq!(rules(9, 4).tile_count(), 45);
    }

    #[test]
    fn the_highest_double_opens_and_the_other_seat_moves() {
        let deal = deal_6_4(
            [t(0, 0), t(1, 5), t(2, 5), t(3, 4)],
            [t(3, 3), t(5, 4), t(0, 1), t(1, 2)],
        );
        let game = Match::new(&deal);
        assert_eq!(game.opener(), 1);
        assert_eq!(game.line(), &[(3, 3)]);
        assert_eq!(game.hand(1), &[t(4, 5), t(0, 1), t(1, 2)]);
        assert_eq!(game.turn(), Turn::Seat(0));
        assert_eq!(game.stock().len(), 21 - 8);
    }

    #[test]
    fn without_doubles_the_heaviest_single_opens_ties_to_the_higher_number() {
        // 1-5 and 2-4 both sum to 6; 1-5 has the greater number.
        let deal = deal_6_4(
            [t(0, 1), t(2, 4), t(0, 3), t(1, 3)],
            [t(0, 2), t(1, 5), t(0, 4), t(1, 2)],
        );
        assert_eq!(deal.opening(), (1, t(1, 5)));
        assert_eq!(deal.swapped().opening(), (0, t(1, 5)));
        assert_eq!(
            opening_tile([t(2, 4), t(0, 0)].into_iter().collect()),
            Some(t(0, 0))
        );
    }

    #[test]
    fn a_seat_with_no_fit_draws_until_it_can_place() {
        let r = rules(5, 4);
        // Ends 0 and 4; seat 0 holds nothing with 0 or 4.
        let mut game = Match::from_parts(r, [&[t(1, 2), t(2, 3)], &[t(1, 1)]], &[(0, 4)], 0, 1);
        assert_eq!(game.moves().as_slice(), &[Move::Draw]);
        assert!(refusal(&game, Move::Pass).contains("stock"));
        assert!(refusal(&game, Move::Place(t(1, 2), Side::Left)).contains("does not fit"));
        game.apply(Move::Draw);
        assert_eq!(game.turn(), Turn::Chance);
        assert!(game.moves().contains(&Move::Drawn(t(3, 3))));
        game.apply(Move::Drawn(t(3, 3)));
        assert_eq!(game.turn(), Turn::Seat(0));
        assert_eq!(
            game.moves().as_slice(),
            &[Move::Draw],
            "3-3 does not fit either"
        );
        game.apply(Move::Draw);
        game.apply(Move::Drawn(t(0, 2)));
        assert_eq!(game.hand(0), &[t(1, 2), t(2, 3), t(3, 3), t(0, 2)]);
        assert_eq!(game.moves().as_slice(), &[Move::Place(t(0, 2), Side::Left)]);
        assert!(refusal(&game, Move::Draw).contains("fits"));
        assert_eq!(
            game.observe(Move::Drawn(t(0, 2)), 1),
            Observation::Drawn(None)
        );
    }

    #[test]
    fn an_empty_stock_forces_a_pass() {
        let r = rules(5, 4);
        let placed = [(2, 0), (0, 0), (0, 1), (1, 1), (1, 4)];
        let rest = r
            .tiles()
            .minus(placed.iter().map(|&(a, b)| t(a, b)).collect());
        // Seat 0 holds only 3s; seat 1 everything else, so the stock is empty.
        let threes = [t(3, 3), t(1, 3)];
        let others: Vec<Tile> = rest.iter().filter(|x| !threes.contains(x)).collect();
        let mut game = Match::from_parts(r, [&threes, &others], &placed, 0, 1);
        assert!(game.stock().is_empty());
        assert_eq!(game.moves().as_slice(), &[Move::Pass]);
        game.apply(Move::Pass);
        assert_eq!(game.turn(), Turn::Seat(1));
    }

    #[test]
    fn a_blocked_line_goes_to_the_lower_pip_count_or_ties() {
        let r = rules(5, 4);
        // Every 0 and every 4 is on the line: nothing fits 0 ... 4, and the stock is empty.
        let placed = [
            (0, 0),
            (0, 1),
            (1, 4),
            (4, 4),
            (4, 0),
            (0, 2),
            (2, 4),
            (4, 3),
            (3, 0),
        ];
        let used: Tiles = placed.iter().map(|&(a, b)| t(a, b)).collect();
        let rest: Vec<Tile> = r.tiles().minus(used).iter().collect();
        assert_eq!(
            rest,
            vec![t(1, 1), t(1, 2), t(2, 2), t(1, 3), t(2, 3), t(3, 3)]
        );
        let (a, b) = ([t(1, 1), t(1, 2), t(2, 3)], [t(2, 2), t(1, 3), t(3, 3)]);
        // 2 + 3 + 5 = 10 against 4 + 4 + 6 = 14: seat 0 wins.
        let game = Match::from_parts(r, [&a, &b], &placed, 0, 1);
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!(game.scores().as_slice(), &[1.0, 0.0]);
        let (e, f) = ([t(1, 1), t(3, 3), t(2, 2)], [t(1, 2), t(1, 3), t(2, 3)]);
        // 2 + 6 + 4 = 12 against 3 + 4 + 5 = 12.
        let tie = Match::from_parts(r, [&e, &f], &placed, 1, 1);
        assert_eq!(tie.scores().as_slice(), &[0.5, 0.5]);
    }

    #[test]
    fn emptying_the_hand_wins_at_once() {
        let r = rules(5, 4);
        let mut game = Match::from_parts(r, [&[t(4, 2)], &[t(1, 1), t(3, 3)]], &[(0, 4)], 0, 1);
        game.apply(Move::Place(t(2, 4), Side::Right));
        assert_eq!(game.line(), &[(0, 4), (4, 2)]);
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!(game.scores().as_slice(), &[1.0, 0.0]);
    }

    /// The statement's sample game: 4-4 opens; 4-3 goes left (reversed), 3-1
    /// left (reversed again), 4-0 right.
    #[test]
    fn the_statements_sample_game_builds_its_line() {
        let r = rules(5, 4);
        let hands: [&[Tile]; 2] = [&[t(4, 3), t(4, 0), t(1, 2)], &[t(3, 1), t(1, 1)]];
        let mut game = Match::from_parts(r, hands, &[(4, 4)], 0, 1);
        let steps = [
            (0, t(4, 3), Side::Left, vec![(3, 4), (4, 4)], (3, 4)),
            (1, t(3, 1), Side::Left, vec![(1, 3), (3, 4), (4, 4)], (1, 4)),
            (
                0,
                t(4, 0),
                Side::Right,
                vec![(1, 3), (3, 4), (4, 4), (4, 0)],
                (1, 0),
            ),
        ];
        for (seat, tile, side, line, ends) in steps {
            assert_eq!(game.turn(), Turn::Seat(seat));
            let mv = Move::Place(tile, side);
            assert!(game.moves().contains(&mv), "{mv:?}");
            game.apply(mv);
            assert_eq!(game.line(), line.as_slice(), "{mv:?}");
            assert_eq!(game.ends(), ends, "{mv:?}");
        }
        // Both hands still hold a tile, and 1-1 fits the left end: play goes on.
        assert_eq!(game.turn(), Turn::Seat(1));
        let view = game.view(1);
        assert_eq!(view.line.as_slice(), game.line());
        assert_eq!(view.opponent_count(), 1);
        assert_eq!(view.unseen().len(), 1 + view.stock);
        assert_eq!(view.open_hand, None);
        assert_eq!(
            game.clone().with_open_hand(1).view(1).open_hand,
            Some([t(1, 2)].into_iter().collect())
        );
    }
}
