//! Dominoes's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::dominoes::{self, Rules, Side, Tile};

use crate::notation::{field, strings, uint};
use crate::record::Notation;

/// Dominoes: `L a-b` and `R a-b` place a tile at an end, `DRAW`, `PASS`, and
/// chance's `drawn a-b` hands the drawer a tile. The wire's `L<i>` indexes the
/// hand, which a log reader cannot see, so the tile is written instead.
impl Notation for dominoes::Match {
    const NAME: &'static str = "dominoes";
    const CHANCE: bool = true;

    fn params_json(rules: &Rules) -> Value {
        json!({ "n": rules.numbers, "h": rules.hand })
    }

    fn start_json(&self) -> Value {
        let hand = |seat| -> Vec<String> { self.hand(seat).iter().map(Tile::to_string).collect() };
        let line: Vec<String> = self
            .line()
            .iter()
            .map(|(l, r)| format!("{l}-{r}"))
            .collect();
        json!({
            "n": self.rules().numbers,
            "h": self.rules().hand,
            "hands": [hand(0), hand(1)],
            "line": line,
            "mover": self.mover(),
            "opener": self.opener(),
        })
    }

    fn from_start_json(value: &Value) -> Result<dominoes::Match, String> {
        let small = |name: &str| -> Result<u32, String> {
            u32::try_from(uint(value, name)?).map_err(|_| format!("'{name}' is out of range"))
        };
        let rules = Rules::new(small("n")?, small("h")?).map_err(|e| e.to_string())?;
        let hands = field(value, "hands")?
            .as_array()
            .filter(|h| h.len() == 2)
            .ok_or("'hands' is not two hands")?;
        let mut seen = dominoes::Tiles::EMPTY;
        let mut tiles = |text: &str| -> Result<Tile, String> {
            let (a, b) =
                dominoes::tiles::parse_oriented(text, rules.numbers).map_err(|e| e.to_string())?;
            let tile = Tile::new(a, b);
            if seen.contains(tile) {
                return Err(format!("tile {tile} is repeated"));
            }
            seen.insert(tile);
            Ok(tile)
        };
        let mut parsed: [Vec<Tile>; 2] = [Vec::new(), Vec::new()];
        for (seat, hand) in hands.iter().enumerate() {
            let hand = hand.as_array().ok_or("a hand is not a list")?;
            for t in hand {
                parsed[seat].push(tiles(t.as_str().ok_or("a tile is not a string")?)?);
            }
        }
        let mut line = Vec::new();
        for t in strings(value, "line")? {
            let placed =
                dominoes::tiles::parse_oriented(t, rules.numbers).map_err(|e| e.to_string())?;
            tiles(t)?;
            line.push(placed);
        }
        if line.is_empty() || !line.windows(2).all(|w| w[0].1 == w[1].0) {
            return Err("the line does not chain".into());
        }
        let seat = |name| -> Result<usize, String> {
            match uint(value, name)? {
                s @ 0..=1 => Ok(s as usize),
                s => Err(format!("no seat {s}")),
            }
        };
        let (mover, opener) = (seat("mover")?, seat("opener")?);
        check_deal(rules, &parsed, &line, mover, opener)?;
        Ok(dominoes::Match::from_parts(
            rules,
            [&parsed[0], &parsed[1]],
            &line,
            mover,
            opener,
        ))
    }

    fn check_params(&self, params: &Value) -> Result<(), String> {
        let rules = self.rules();
        if *params != Self::params_json(&rules) {
            return Err(format!(
                "a deal of N={} H={}, but the case's params are {}",
                rules.numbers,
                rules.hand,
                crate::wire::short(&params.to_string())
            ));
        }
        Ok(())
    }

    fn move_text(&self, mv: dominoes::Move) -> String {
        match mv {
            dominoes::Move::Place(tile, Side::Left) => format!("L {tile}"),
            dominoes::Move::Place(tile, Side::Right) => format!("R {tile}"),
            dominoes::Move::Draw => "DRAW".into(),
            dominoes::Move::Pass => "PASS".into(),
            dominoes::Move::Drawn(tile) => format!("drawn {tile}"),
        }
    }

    fn parse_move(&self, text: &str) -> Result<dominoes::Move, String> {
        let tile = |t: &str| -> Result<Tile, String> {
            let (a, b) = dominoes::tiles::parse_oriented(t, self.rules().numbers)
                .map_err(|e| e.to_string())?;
            Ok(Tile::new(a, b))
        };
        match text.split_once(' ') {
            None if text == "DRAW" => Ok(dominoes::Move::Draw),
            None if text == "PASS" => Ok(dominoes::Move::Pass),
            Some(("L", t)) => Ok(dominoes::Move::Place(tile(t)?, Side::Left)),
            Some(("R", t)) => Ok(dominoes::Move::Place(tile(t)?, Side::Right)),
            Some(("drawn", t)) => Ok(dominoes::Move::Drawn(tile(t)?)),
            _ => Err(format!(
                "'{text}': expected L a-b, R a-b, DRAW, PASS or drawn a-b"
            )),
        }
    }
}

/// Refuses a Dominoes start that no deal gives: after the automatic opening
/// the line is the opening tile alone (the highest of the deal), the opener
/// holds H−1 tiles and the other seat H, and the other seat moves.
fn check_deal(
    rules: Rules,
    hands: &[Vec<Tile>; 2],
    line: &[dominoes::rules::Placed],
    mover: usize,
    opener: usize,
) -> Result<(), String> {
    let &[(a, b)] = line else {
        return Err(format!(
            "the line holds {} tiles, but a game starts from the opening tile alone",
            line.len()
        ));
    };
    let h = usize::from(rules.hand);
    for (seat, hand) in hands.iter().enumerate() {
        let (who, dealt) = match seat == opener {
            true => (", the opener,", h - 1),
            false => ("", h),
        };
        if hand.len() != dealt {
            return Err(format!(
                "seat {seat}{who} holds {} tiles, but a deal at H={h} leaves it {dealt}",
                hand.len()
            ));
        }
    }
    if mover == opener {
        return Err(format!("seat {mover} opened, but it is also to move"));
    }
    let opening = Tile::new(a, b);
    let dealt: dominoes::Tiles = hands.iter().flatten().copied().chain([opening]).collect();
    match dominoes::rules::opening_tile(dealt) {
        Some(highest) if highest != opening => Err(format!(
            "the line opens with {opening}, but the deal's opening tile is {highest}"
        )),
        _ => Ok(()),
    }
}
