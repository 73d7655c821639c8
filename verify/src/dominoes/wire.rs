//! The init/reset/play line protocol, both ends in one type.
//!
//! The referee writes `init N H` once per case and `reset a-b` once per game
//! (the opening tile as it lies), both answered `0`; then `play <hand> <line>
//! <stock>` whenever the player must move, where `hand` and `line` are String[]
//! (their length, then their tiles as `a-b`) and `stock` the tiles left. The
//! hand is in the order received; each tile of the line is written as it lies,
//! its left half first. The answer is `L<i>` or `R<i>` (place `hand[i]` at the
//! left or right end), `DRAW` or `PASS`.
//!
//! The player side learns only what the requests show: its seat is unknowable
//! (views say seat 0), and the view given at `reset` has an empty hand (the
//! hand is first shown by `play`), the opening tile as the line and the stock
//! as dealt.

use tabula_solver::Seat;
use tabula_solver::dominoes::rules::Placed;
use tabula_solver::dominoes::tiles::parse_oriented;
use tabula_solver::dominoes::{Match, Move, Rules, Side, Tile, Tiles, View};

use crate::protocol::Request;
use crate::wire::{Incoming, Wire, short};

/// The Dominoes wire; [`DominoesWire::default`] for either end.
#[derive(Clone, Debug, Default)]
pub struct DominoesWire {
    /// Player side: the case, from `init`.
    rules: Option<Rules>,
    /// Player side: the opening tile of the game, from `reset`, as it lies.
    opening: Option<Placed>,
}

/// `a-b` for a tile of the line as it lies.
fn placed_text(&(a, b): &Placed) -> String {
    format!("{a}-{b}")
}

/// The request for a move: `play <hand> <line> <stock>`.
pub fn play_request(view: &View) -> String {
    let mut words = vec!["play".to_string(), view.hand.len().to_string()];
    words.extend(view.hand.iter().map(Tile::to_string));
    words.push(view.line.len().to_string());
    words.extend(view.line.iter().map(placed_text));
    words.push(view.stock.to_string());
    words.join(" ")
}

/// Reads an answer `L<i>`, `R<i>`, `DRAW` or `PASS` against the hand of `view`
/// (whether the move is legal is the match loop's check).
pub fn parse_answer(view: &View, line: &str) -> Result<Move, String> {
    let text = line.trim();
    match text {
        "DRAW" => return Ok(Move::Draw),
        "PASS" => return Ok(Move::Pass),
        _ => {}
    }
    let bad = || {
        format!(
            "invalid answer '{}': expected L<i>, R<i>, DRAW or PASS",
            short(line)
        )
    };
    let side = match text.as_bytes().first() {
        Some(b'L') => Side::Left,
        Some(b'R') => Side::Right,
        _ => return Err(bad()),
    };
    let digits = &text[1..];
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let size = view.hand.len();
    match digits.parse::<usize>() {
        Ok(i) if i < size => Ok(Move::Place(view.hand[i], side)),
        _ => Err(format!(
            "invalid answer '{}': index {} is out of range for a hand of {size} tiles",
            short(line),
            short(digits)
        )),
    }
}

/// The answer for `mv`, chosen from `view`'s hand.
pub fn answer_text(view: &View, mv: Move) -> String {
    match mv {
        Move::Place(tile, side) => {
            let letter = if side == Side::Left { 'L' } else { 'R' };
            let index = view
                .hand
                .iter()
                .position(|&t| t == tile)
                .expect("a placed tile is in the hand");
            format!("{letter}{index}")
        }
        Move::Draw => "DRAW".into(),
        Move::Pass => "PASS".into(),
        Move::Drawn(tile) => panic!("a seat never answers chance's move {tile}"),
    }
}

/// A count from a request, as u32.
fn count(value: i64, name: &str) -> Result<u32, String> {
    u32::try_from(value).map_err(|_| format!("{name}: {value} is not a count"))
}

impl DominoesWire {
    fn init(&mut self, mut req: Request<'_>) -> Result<Incoming<Match>, String> {
        let n = req.int("N")?;
        let h = req.int("H")?;
        req.finish()?;
        let rules = match (u32::try_from(n), u32::try_from(h)) {
            (Ok(n), Ok(h)) => Rules::new(n, h).map_err(|e| e.to_string())?,
            _ => return Err(format!("N={n} H={h} is not a case")),
        };
        self.rules = Some(rules);
        self.opening = None;
        Ok(Incoming::Case(rules))
    }

    fn reset(&mut self, mut req: Request<'_>) -> Result<Incoming<Match>, String> {
        let text = req.string("first")?;
        req.finish()?;
        let rules = self.rules.ok_or("reset before init")?;
        let tile = parse_oriented(text, rules.numbers).map_err(|e| e.to_string())?;
        self.opening = Some(tile);
        let mut view = empty_view(rules);
        view.line.push(tile);
        view.stock = rules.tile_count() - 2 * u32::from(rules.hand);
        Ok(Incoming::Game { seat: 0, view })
    }

    fn play(&mut self, mut req: Request<'_>) -> Result<Incoming<Match>, String> {
        let hand = req.strings("hand")?;
        let line = req.strings("line")?;
        let stock = req.int("stock")?;
        req.finish()?;
        let rules = self.rules.ok_or("play before init")?;
        let opening = self.opening.ok_or("play before reset")?;
        let view = read_view(rules, opening, &hand, &line, stock)?;
        Ok(Incoming::Move {
            start: None,
            observed: Vec::new(),
            view,
        })
    }
}

/// A view of `rules` with nothing in it yet, seen from seat 0.
fn empty_view(rules: Rules) -> View {
    View {
        rules,
        seat: 0,
        hand: Default::default(),
        line: Default::default(),
        stock: 0,
        open_hand: None,
    }
}

/// The view a `play` request shows, checked against the case and the game's
/// opening tile: every tile once, a line that chains, counts that add up.
fn read_view(
    rules: Rules,
    opening: Placed,
    hand: &[&str],
    line: &[&str],
    stock: i64,
) -> Result<View, String> {
    let n = rules.numbers;
    let mut seen = Tiles::EMPTY;
    let mut note = |tile: Tile, text: &str| {
        if seen.contains(tile) {
            return Err(format!("tile {} is given twice", short(text)));
        }
        seen.insert(tile);
        Ok(())
    };
    if hand.is_empty() {
        return Err("the hand is empty: the game is over".into());
    }
    let mut view = empty_view(rules);
    for text in hand {
        let (a, b) = parse_oriented(text, n).map_err(|e| format!("hand: {e}"))?;
        let tile = Tile::new(a, b);
        note(tile, text)?;
        view.hand.push(tile);
    }
    if line.is_empty() {
        return Err("the line is empty: it holds at least the opening tile".into());
    }
    for text in line {
        let placed = parse_oriented(text, n).map_err(|e| format!("line: {e}"))?;
        note(Tile::new(placed.0, placed.1), text)?;
        if let Some(&(_, right)) = view.line.last()
            && right != placed.0
        {
            return Err(format!(
                "line: {} does not chain after {}",
                short(text),
                placed_text(&view.line[view.line.len() - 1])
            ));
        }
        view.line.push(placed);
    }
    if !view.line.contains(&opening) {
        return Err(format!(
            "line: the opening tile {} is not on it as it lay",
            placed_text(&opening)
        ));
    }
    let stock = count(stock, "stock")?;
    let dealt_stock = rules.tile_count() - 2 * u32::from(rules.hand);
    if stock > dealt_stock {
        return Err(format!(
            "stock {stock}: more than the {dealt_stock} tiles left after the deal"
        ));
    }
    let shown = view.hand.len() as u32 + view.line.len() as u32;
    let total = rules.tile_count();
    let Some(opponent) = total.checked_sub(shown + stock).filter(|&o| o > 0) else {
        return Err(format!(
            "stock {stock}: with {shown} tiles shown, the {total} tiles leave none for the opponent"
        ));
    };
    // Every tile held was dealt (H at most) or drawn from the stock.
    let limit = u32::from(rules.hand) + dealt_stock - stock;
    if view.hand.len() as u32 > limit {
        return Err(format!(
            "stock {stock}: the hand holds more than the {limit} tiles dealt and drawn"
        ));
    }
    if opponent > limit {
        return Err(format!(
            "stock {stock}: the opponent would hold {opponent} tiles (all not in the hand, \
             the line or the stock), more than the {limit} dealt and drawn"
        ));
    }
    view.stock = stock;
    Ok(view)
}

impl Wire<Match> for DominoesWire {
    fn case_request(&mut self, rules: &Rules) -> Option<String> {
        Some(format!("init {} {}", rules.numbers, rules.hand))
    }

    fn game_request(&mut self, _seat: Seat, view: &View) -> Option<String> {
        Some(format!("reset {}", placed_text(&view.line[0])))
    }

    fn move_request(&mut self, view: &View) -> String {
        play_request(view)
    }

    fn decode_answer(&mut self, view: &View, line: &str) -> Result<Move, String> {
        parse_answer(view, line)
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Match>, String> {
        let req = Request::parse(line)?;
        match req.method {
            "init" => self.init(req),
            "reset" => self.reset(req),
            "play" => self.play(req),
            other => Err(format!("unknown method '{}'", short(other))),
        }
    }

    fn encode_answer(&mut self, view: &View, mv: Move) -> String {
        answer_text(view, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use crate::protocol::Reply;
    use crate::tournament::{Purpose, stream};
    use crate::wire::Session;
    use rand::RngExt;
    use tabula_solver::dominoes::Deal;
    use tabula_solver::{Game, Turn};

    fn t(a: u8, b: u8) -> Tile {
        Tile::new(a, b)
    }

    /// What the player side can know of a referee's view.
    fn as_sent(view: &View) -> View {
        View {
            seat: 0,
            open_hand: None,
            ..view.clone()
        }
    }

    fn move_of(incoming: Incoming<Match>) -> View {
        match incoming {
            Incoming::Move { start, view, .. } => {
                assert_eq!(start, None);
                view
            }
            other => panic!("expected a move request, got {other:?}"),
        }
    }

    #[test]
    fn views_and_answers_round_trip_over_random_games() {
        let mut requests = 0;
        let cases: Vec<Rules> = Rules::all().collect();
        for (g, &rules) in cases.iter().cycle().take(200).enumerate() {
            let mut rng = stream(11, Purpose::Setup, 0, g as u64, 0);
            let deal = Deal::random(rules, &mut rng);
            let mut game = Match::new(&deal);
            let (mut referee, mut player) = (DominoesWire::default(), DominoesWire::default());
            let init = referee.case_request(&rules).unwrap();
            assert_eq!(init, format!("init {} {}", rules.numbers, rules.hand));
            assert!(matches!(player.decode_request(&init), Ok(Incoming::Case(r)) if r == rules));
            let reset = referee.game_request(0, &game.view(0)).unwrap();
            let tile = deal.opening().1;
            assert_eq!(reset, format!("reset {tile}"));
            match player.decode_request(&reset).unwrap() {
                Incoming::Game { seat: 0, view } => {
                    assert_eq!(view.line.as_slice(), game.line());
                    assert_eq!(view.stock, game.stock().len());
                    assert!(view.hand.is_empty());
                }
                other => panic!("expected a game start, got {other:?}"),
            }
            while let Turn::Seat(_) | Turn::Chance = game.turn() {
                if game.turn() == Turn::Chance {
                    let mv = game.sample_chance(&mut rng);
                    game.apply(mv);
                    continue;
                }
                let Turn::Seat(seat) = game.turn() else {
                    unreachable!()
                };
                let view = game.view(seat);
                let request = referee.move_request(&view);
                let seen = move_of(player.decode_request(&request).unwrap());
                assert_eq!(seen, as_sent(&view), "{request}");
                requests += 1;
                let moves = Match::view_moves(&seen);
                let mv = moves[rng.random_range(0..moves.len())];
                let answer = player.encode_answer(&seen, mv);
                assert_eq!(referee.decode_answer(&view, &answer), Ok(mv), "{answer}");
                game.apply(mv);
            }
        }
        assert!(requests > 2000, "{requests}");
    }

    /// The statement's sample line (4-4, then 4-3 left, 3-1 left, 4-0 right),
    /// written as it lies and read back by the player side.
    #[test]
    fn the_statements_sample_line_is_written_as_it_lies() {
        let deal = Deal {
            rules: Rules::new(5, 4).unwrap(),
            hands: [
                [t(4, 3), t(4, 0), t(1, 2), t(0, 0)].into_iter().collect(),
                [t(4, 4), t(3, 1), t(1, 1), t(2, 2)].into_iter().collect(),
            ],
        };
        let mut game = Match::new(&deal);
        assert_eq!(game.line(), &[(4, 4)]);
        game.apply(Move::Place(t(4, 3), Side::Left));
        game.apply(Move::Place(t(3, 1), Side::Left));
        game.apply(Move::Place(t(4, 0), Side::Right));
        // 15 tiles less 8 dealt leave 7 in the stock; nobody drew.
        let request = play_request(&game.view(1));
        assert_eq!(request, "play 2 1-1 2-2 4 1-3 3-4 4-4 4-0 7");
        let mut player = DominoesWire::default();
        player.decode_request("init 5 4").unwrap();
        player.decode_request("reset 4-4").unwrap();
        let view = move_of(player.decode_request(&request).unwrap());
        assert_eq!(view.line.as_slice(), &[(1, 3), (3, 4), (4, 4), (4, 0)]);
        assert_eq!(view.ends(), (1, 0));
    }

    #[test]
    fn the_issues_example_reads_as_written() {
        // The issue's own example holds 3-4 in the hand and on the line; refused.
        let mut player = DominoesWire::default();
        player.decode_request("init 6 4").unwrap();
        player.decode_request("reset 4-4").unwrap();
        let error = player
            .decode_request("play 3 1-2 3-4 0-0 2 4-4 4-3 10")
            .unwrap_err();
        assert_eq!(error, "tile 4-3 is given twice");
    }

    /// The view a player decodes from the corrected example's requests.
    fn corrected_example() -> View {
        let mut player = DominoesWire::default();
        player.decode_request("init 6 4").unwrap();
        player.decode_request("reset 4-4").unwrap();
        move_of(
            player
                .decode_request("play 3 1-2 3-5 0-0 2 4-4 4-3 10")
                .unwrap(),
        )
    }

    #[test]
    fn a_corrected_example_reads_as_written() {
        let view = corrected_example();
        assert_eq!(view.hand.as_slice(), &[t(1, 2), t(3, 5), t(0, 0)]);
        assert_eq!(view.line.as_slice(), &[(4, 4), (4, 3)]);
        // 21 tiles: 3 in the hand, 2 on the line, 10 in the stock, 6 with the opponent.
        assert_eq!(
            (view.ends(), view.stock, view.opponent_count()),
            ((4, 3), 10, 6)
        );
        assert_eq!(
            parse_answer(&view, "R1"),
            Ok(Move::Place(t(3, 5), Side::Right))
        );
        assert_eq!(
            parse_answer(&view, "L0"),
            Ok(Move::Place(t(1, 2), Side::Left))
        );
        assert_eq!(answer_text(&view, Move::Place(t(0, 0), Side::Left)), "L2");
        assert_eq!(answer_text(&view, Move::Draw), "DRAW");
        assert_eq!(answer_text(&view, Move::Pass), "PASS");
    }

    #[test]
    fn malformed_answers_are_refused_with_a_reason() {
        let view = corrected_example();
        for (answer, reason) in [
            ("L3", "index 3 is out of range for a hand of 3 tiles"),
            ("R99999999999999999999999", "out of range"),
            ("L", "expected L<i>, R<i>, DRAW or PASS"),
            ("L-1", "expected L<i>"),
            ("R+1", "expected L<i>"),
            ("l0", "expected L<i>"),
            ("X1", "expected L<i>"),
            ("draw", "expected L<i>"),
            ("L0 R1", "expected L<i>"),
            ("", "invalid answer ''"),
        ] {
            let error = parse_answer(&view, answer).unwrap_err();
            assert!(error.contains(reason), "{answer:?}: {error}");
        }
        // Surrounding blanks are tolerated; legality is not checked here.
        assert_eq!(parse_answer(&view, " PASS \r"), Ok(Move::Pass));
        let long = format!("L{}", "7".repeat(500));
        assert!(parse_answer(&view, &long).unwrap_err().len() < 200);
    }

    #[test]
    fn malformed_requests_are_refused_with_a_reason() {
        let mut player = DominoesWire::default();
        for (request, reason) in [
            ("play 1 0-1 1 1-1 5", "play before init"),
            ("reset 1-1", "reset before init"),
            ("init 4 4", "not a case"),
            ("init 5 8", "not a case"),
            ("init -5 4", "not a case"),
            ("init 5", "missing argument H"),
            ("init 5 4 1", "extra argument"),
            ("deal 5 4", "unknown method 'deal'"),
        ] {
            let error = player.decode_request(request).unwrap_err();
            assert!(error.contains(reason), "{request:?}: {error}");
        }
        player.decode_request("init 5 4").unwrap();
        assert!(
            player
                .decode_request("play 1 0-1 1 1-1 5")
                .unwrap_err()
                .contains("play before reset")
        );
        assert!(
            player
                .decode_request("reset 5-5")
                .unwrap_err()
                .contains("out of range")
        );
        assert!(
            player
                .decode_request("reset 44")
                .unwrap_err()
                .contains("bad tile")
        );
        player.decode_request("reset 4-4").unwrap();
        // N = 5, H = 4: 15 tiles, 7 in the stock after the deal; the non-opener's first view.
        assert!(
            player
                .decode_request("play 4 0-1 0-2 0-3 1-2 1 4-4 7")
                .is_ok()
        );
        for (request, reason) in [
            ("play 0 1 4-4 7", "the hand is empty"),
            ("play 4 0-1 0-2 0-3 1-2 0 7", "the line is empty"),
            ("play 4 0-1 1-0 0-3 1-2 1 4-4 7", "tile 1-0 is given twice"),
            ("play 4 0-1 0-2 0-3 4-4 1 4-4 7", "tile 4-4 is given twice"),
            ("play 4 0-1 0-2 0-3 0-5 1 4-4 7", "hand: bad tile '0-5'"),
            ("play 4 0-1 0-2 0-3 1-2 1 4-x 7", "line: bad tile '4-x'"),
            (
                "play 3 0-1 0-2 0-3 2 4-4 3-4 7",
                "3-4 does not chain after 4-4",
            ),
            ("play 3 0-1 0-2 0-3 2 4-4 4-3 7", "ok"),
            (
                "play 4 0-1 0-2 0-3 1-2 1 3-3 7",
                "the opening tile 4-4 is not on it",
            ),
            (
                "play 4 0-1 0-2 0-3 1-2 1 4-4 8",
                "more than the 7 tiles left after the deal",
            ),
            ("play 4 0-1 0-2 0-3 1-2 1 4-4 -1", "not a count"),
            ("play 4 0-1 0-2 0-3 1-2 1 4-4 x", "not an int"),
            ("play 4 0-1 0-2 0-3 1-2 1 4-4", "missing argument stock"),
            ("play 4 0-1 0-2 0-3 1-2 1 4-4 7 7", "extra argument"),
            (
                "play 9 0-1 1 4-4 7",
                "argument hand: length 9, but 4 words follow",
            ),
            // 6 in the hand, 2 on the line, 7 in the stock: 15, none left.
            (
                "play 6 0-0 0-1 0-2 0-3 1-1 1-2 2 4-4 4-3 7",
                "none for the opponent",
            ),
            // 5 in the hand with nothing drawn yet: more than the 4 dealt.
            (
                "play 5 0-0 0-1 0-2 0-3 1-1 1 4-4 7",
                "the hand holds more than the 4 tiles dealt and drawn",
            ),
            // 1 in the hand, 1 on the line, an empty stock: 13 for the opponent.
            ("play 1 1-1 1 4-4 0", "the opponent would hold 13 tiles"),
        ] {
            match player.decode_request(request) {
                Ok(_) => assert_eq!(reason, "ok", "{request:?} was accepted"),
                Err(error) => assert!(error.contains(reason), "{request:?}: {error}"),
            }
        }
    }

    #[test]
    fn a_session_serves_a_whole_run_and_keeps_going_after_errors() {
        let agent = RandomAgent::new(stream(1, Purpose::Agent, 0, 0, 0));
        let mut session = Session::new(DominoesWire::default(), agent);
        let line = |session: &mut Session<_, _, _>, request: &str| match session.handle(request) {
            Ok(Reply::Line(answer)) => answer,
            Ok(other) => panic!("{request}: {other:?}"),
            Err(error) => format!("error: {error}"),
        };
        assert_eq!(line(&mut session, "init 6 4"), "0");
        assert_eq!(line(&mut session, "reset 4-4"), "0");
        let answer = line(&mut session, "play 3 1-2 3-5 0-0 2 4-4 4-3 10");
        assert_eq!(answer, "R1", "3-5 fits the right end only");
        assert!(line(&mut session, "play 1 6-6 1 4-4 9").starts_with("error: hand: bad tile"));
        // Nothing fits 4 | 3 and the stock has tiles: the only move is a draw.
        assert_eq!(line(&mut session, "play 2 1-2 0-0 2 4-4 4-3 10"), "DRAW");
        // Nothing fits and the stock is empty: a pass.
        assert_eq!(line(&mut session, "play 2 1-2 0-0 2 4-4 4-3 0"), "PASS");
    }
}
