//! The tester's cases: which (N, H) pairs, how each game is dealt and seated,
//! and one case played between the tested player and an opponent, tallied the
//! contest's way (wins + ties/2).
//!
//! Every random draw comes from a named stream of [`tournament::stream`] keyed
//! by the case ([`case_key`]) and the deal's number, never by who sits where:
//! the deal from (setup, key, deal, 0), the tiles drawn from the stock from
//! (chance, key, deal, 0). Every tested player, and both games of a pair, meet
//! the same deals and the same draws.

use std::collections::{BTreeMap, HashSet};

use rand_chacha::ChaCha8Rng;
use serde::Serialize;

pub use crate::report::RefereeReport;
use crate::report::RefereedCase;
use tabula_solver::dominoes::{Deal, Match, Rules, Tile};
use tabula_solver::{Seat, Turn, weighted_pick};

use crate::arena::{self, GameRecord, Outcome};
use crate::record::Notation;
use crate::seat::{Clock, FaultKind, Limits, Player};
use crate::tournament::{self, Purpose};

/// The case's part of its streams' names: 10 N + H, so that a case's deals do
/// not depend on which other cases a run plays.
pub fn case_key(rules: Rules) -> u64 {
    10 * u64::from(rules.numbers) + u64::from(rules.hand)
}

/// Deal number `index` of the case.
pub fn deal(seed: u64, rules: Rules, index: usize) -> Deal {
    let mut rng = tournament::stream(seed, Purpose::Setup, case_key(rules), index as u64, 0);
    Deal::random(rules, &mut rng)
}

/// The stream that draws tiles from the stock in deal number `index`.
pub fn draws(seed: u64, rules: Rules, index: usize) -> ChaCha8Rng {
    tournament::stream(seed, Purpose::Chance, case_key(rules), index as u64, 0)
}

/// The name of [`draws`]' stream, as the game log gives it.
pub fn draws_name(rules: Rules, index: usize) -> String {
    tournament::stream_name(Purpose::Chance, case_key(rules), index as u64, 0)
}

/// The stock of deal number `index` in the order the referee's draws take it:
/// each draw picks among the tiles left, on [`draws`], exactly as the match
/// loop's chance turn does, so a deal's draws do not depend on when they come.
pub fn stock_order(seed: u64, rules: Rules, index: usize) -> Vec<Tile> {
    let mut stock = Match::new(&deal(seed, rules, index)).stock();
    let mut rng = draws(seed, rules, index);
    let mut order = Vec::with_capacity(stock.len() as usize);
    while !stock.is_empty() {
        let left: Vec<Tile> = stock.iter().collect();
        let tile = weighted_pick(&left, &vec![1.0; left.len()], &mut rng);
        stock.remove(tile);
        order.push(tile);
    }
    order
}

/// The referee's built-in opponent's own random choices in case `rules`
/// (one opponent serves the whole case).
pub fn opponent_rng(seed: u64, rules: Rules) -> ChaCha8Rng {
    tournament::stream(seed, Purpose::Agent, case_key(rules), 0, 1)
}

/// Parses `--cases`: `all` (the contest's 20 cases) or `N:H` pairs separated
/// by commas, each a case of the contest and none twice.
pub fn parse_cases(text: &str) -> Result<Vec<Rules>, String> {
    if text.trim() == "all" {
        return Ok(Rules::all().collect());
    }
    let mut cases = Vec::new();
    let mut seen = HashSet::new();
    for item in text.split(',') {
        let item = item.trim();
        let quoted = crate::wire::short(item);
        let (n, h) = item
            .split_once(':')
            .ok_or_else(|| format!("'{quoted}' is not N:H (e.g. 5:4,9:7, or all)"))?;
        let (Ok(n), Ok(h)) = (n.parse::<u32>(), h.parse::<u32>()) else {
            return Err(format!("'{quoted}' is not N:H with two numbers"));
        };
        let rules = Rules::new(n, h).map_err(|e| e.to_string())?;
        if !seen.insert(rules) {
            return Err(format!("case {n}:{h} is given twice"));
        }
        cases.push(rules);
    }
    Ok(cases)
}

/// How the games of a case are dealt and seated. Player 0 is the tested
/// player, player 1 the opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseSetup {
    /// The run's seed.
    pub seed: u64,
    /// Games in the case (even when paired).
    pub games: usize,
    /// Whether each deal is played twice, the players exchanging seats (so hands).
    pub paired: bool,
    /// Whether each player sees the other hand (a clairvoyant reference player).
    pub open_hand: [bool; 2],
}

impl CaseSetup {
    /// The deal game `game` plays: its own, or with `paired` one deal per two games.
    pub fn deal_index(&self, game: usize) -> usize {
        if self.paired { game / 2 } else { game }
    }

    /// The tested player's seat in game `game`: 0 in even games, 1 in odd ones.
    /// The deal decides who opens, as in the contest. Paired, the second game of
    /// a deal seats the tested player where the opponent sat, which is
    /// [`Deal::swapped`] with the seats kept.
    pub fn tested_seat(game: usize) -> Seat {
        game % 2
    }

    /// Game `game`'s start, its draws and its seating (`seating[seat]` = player).
    pub fn start(&self, rules: Rules, game: usize) -> (Match, ChaCha8Rng, Vec<usize>) {
        let index = self.deal_index(game);
        let tested = CaseSetup::tested_seat(game);
        let seating = if tested == 0 { vec![0, 1] } else { vec![1, 0] };
        let mut start = Match::new(&deal(self.seed, rules, index));
        for (seat, &player) in seating.iter().enumerate() {
            if self.open_hand[player] {
                start = start.with_open_hand(seat);
            }
        }
        (start, draws(self.seed, rules, index), seating)
    }
}

/// The tested player's results in one case.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CaseResult {
    /// N, the numbers on the tiles.
    pub n: u8,
    /// H, the tiles dealt to each hand.
    pub h: u8,
    /// Games played (or lost unplayed).
    pub games: usize,
    /// Games won.
    pub wins: usize,
    /// Games tied (JSON: `draws`, as every game's win-draw-loss counts).
    #[serde(rename = "draws")]
    pub ties: usize,
    /// Games lost.
    pub losses: usize,
    /// Wins + ties/2: the contest's score of the case.
    pub score: f64,
    /// Games the tested player lost by a fault.
    pub faults: usize,
    /// Those games by their fault's kind (JSON: `{"crash": 4, ...}`, the
    /// kinds that occurred; the games a dead player never played count as
    /// its death's kind).
    pub fault_kinds: BTreeMap<FaultKind, usize>,
    /// The first of those games, its fault's kind and its reason (JSON:
    /// `{"game", "kind", "reason"}` or null).
    pub first_fault: Option<FirstFault>,
}

/// The first game of a case that the tested player lost by a fault.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FirstFault {
    /// The game, from 0.
    pub game: usize,
    /// The fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub kind: FaultKind,
    /// The reason in words.
    pub reason: String,
}

impl RefereedCase for CaseResult {
    fn score(&self) -> f64 {
        self.score
    }

    fn faults(&self) -> usize {
        self.faults
    }

    /// `case N H score W T L`, then the faults if there were any.
    fn line(&self) -> String {
        let mut line = format!(
            "case {} {} {} {} {} {}",
            self.n, self.h, self.score, self.wins, self.ties, self.losses
        );
        if let Some(first) = &self.first_fault {
            line.push_str(&format!(
                " faults {}, first in game {}: {}",
                self.faults, first.game, first.reason
            ));
        }
        line
    }

    /// `total SCORE of GAMES`.
    fn total_line(report: &RefereeReport<Self>) -> String {
        format!("total {} of {}", report.total, report.games())
    }
}

impl RefereeReport<CaseResult> {
    /// Games played over every case.
    pub fn games(&self) -> usize {
        self.cases.iter().map(|c| c.games).sum()
    }
}

/// Plays one case between `tested` (player 0) and `opponent` (player 1) on
/// the shared match loop; `limits` bind the tested player only. A malformed or
/// illegal answer loses its game; a fault that ends the case (time-out of the
/// case budget, a dead player) loses the rest of it. Each game's record goes
/// to `each` as soon as the game ends (to log it).
pub fn referee_case(
    rules: Rules,
    setup: &CaseSetup,
    tested: &mut dyn Player<Match>,
    opponent: &mut dyn Player<Match>,
    limits: Limits,
    each: &mut dyn FnMut(usize, &GameRecord<Match>),
) -> (CaseResult, Vec<GameRecord<Match>>) {
    let mut players: [&mut dyn Player<Match>; 2] = [tested, opponent];
    let mut clocks = [Clock::new(limits), Clock::default()];
    let records = arena::play_case_each(
        &rules,
        setup.games,
        &mut players,
        &mut clocks,
        |game| setup.start(rules, game),
        each,
    );
    let mut result = CaseResult::new(rules);
    for (game, record) in records.iter().enumerate() {
        result.add(CaseResult::of_game(rules, game, record));
    }
    (result, records)
}

impl CaseResult {
    /// A case of `rules` with no game played yet.
    pub fn new(rules: Rules) -> CaseResult {
        CaseResult {
            n: rules.numbers,
            h: rules.hand,
            games: 0,
            wins: 0,
            ties: 0,
            losses: 0,
            score: 0.0,
            faults: 0,
            fault_kinds: BTreeMap::new(),
            first_fault: None,
        }
    }

    /// Game `game` of a case of `rules` on its own, as the tested player's.
    pub fn of_game(rules: Rules, game: usize, record: &GameRecord<Match>) -> CaseResult {
        let mut result = CaseResult::new(rules);
        result.games = 1;
        let seat = CaseSetup::tested_seat(game);
        match record.outcome(seat) {
            Outcome::Win => result.wins += 1,
            Outcome::Draw => result.ties += 1,
            Outcome::Loss => result.losses += 1,
        }
        if let Some(fault) = record.fault.as_ref().filter(|f| f.seat == seat) {
            result.faults += 1;
            *result.fault_kinds.entry(fault.kind).or_default() += 1;
            result.first_fault = Some(FirstFault {
                game,
                kind: fault.kind,
                reason: fault.reason.clone(),
            });
        }
        result.score = result.wins as f64 + result.ties as f64 / 2.0;
        result
    }

    /// Adds the results of later games of the same case.
    pub fn add(&mut self, later: CaseResult) {
        self.games += later.games;
        self.wins += later.wins;
        self.ties += later.ties;
        self.losses += later.losses;
        self.faults += later.faults;
        for (kind, count) in later.fault_kinds {
            *self.fault_kinds.entry(kind).or_default() += count;
        }
        self.first_fault = self.first_fault.take().or(later.first_fault);
        self.score = self.wins as f64 + self.ties as f64 / 2.0;
    }
}

/// One game as a line of the transcript: the tested seat, the result and
/// every move in the game log's notation (`0:L 3-4` seat 0 placed 3-4 on the
/// left, `1:DRAW`, `*:drawn 2-5` a tile drawn from the stock).
pub fn game_line(game: usize, setup: &CaseSetup, record: &GameRecord<Match>) -> String {
    let seat = CaseSetup::tested_seat(game);
    let outcome = match record.outcome(seat) {
        Outcome::Win => "win",
        Outcome::Draw => "tie",
        Outcome::Loss => "loss",
    };
    let moves: Vec<String> = record
        .plies
        .iter()
        .map(|ply| {
            let who = match ply.turn {
                Turn::Seat(s) => s.to_string(),
                _ => "*".into(),
            };
            format!("{who}:{}", record.start.move_text(ply.mv))
        })
        .collect();
    let mut line = format!(
        "game {game} deal {} seat {seat} opener {}: {outcome}",
        setup.deal_index(game),
        record.end.opener()
    );
    if let Some(fault) = &record.fault {
        line.push_str(&format!(" (seat {} fault: {})", fault.seat, fault.reason));
    }
    line.push_str(&format!("; moves {}", moves.join(" ")));
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{Agent, RandomAgent};
    use crate::referee::tests::assert_rejects;
    use crate::seat::{Failure, FaultKind, Local};
    use crate::tournament::stream;
    use tabula_solver::Game;
    use tabula_solver::dominoes::Move;

    fn rules(n: u32, h: u32) -> Rules {
        Rules::new(n, h).unwrap()
    }

    /// A case's setup in which neither player sees the other's hand.
    fn hidden(seed: u64, games: usize, paired: bool) -> CaseSetup {
        CaseSetup {
            seed,
            games,
            paired,
            open_hand: [false; 2],
        }
    }

    #[test]
    fn cases_parse_strictly() {
        assert_eq!(parse_cases("all").unwrap().len(), 20);
        assert_eq!(
            parse_cases("5:4,9:7").unwrap(),
            vec![rules(5, 4), rules(9, 7)]
        );
        let bad = [
            ("", "is not N:H"),
            ("5:4,", "is not N:H"),
            ("5-4", "is not N:H"),
            ("5:x", "two numbers"),
            ("5:4:3", "two numbers"),
            ("4:4", "not a case"),
            ("10:4", "not a case"),
            ("5:8", "not a case"),
            ("5:4,9:7,5:4", "case 5:4 is given twice"),
            ("all,5:4", "is not N:H"),
        ];
        assert_rejects(parse_cases, &bad);
    }

    #[test]
    fn a_deals_draws_follow_its_stock_order_whoever_plays() {
        let r = rules(5, 4);
        let setup = hidden(9, 40, false);
        let mut drew = 0;
        for game in 0..setup.games {
            // The match loop's games, between random players.
            let (start, mut chance, seating) = setup.start(r, game);
            let [mut a, mut b] = [0, 1].map(|p| {
                Local(RandomAgent::new(stream(
                    3,
                    Purpose::Agent,
                    0,
                    game as u64,
                    p,
                )))
            });
            let mut players: Vec<&mut dyn Player<Match>> = vec![&mut a, &mut b];
            let mut clocks = vec![Clock::default(), Clock::default()];
            let record = arena::play_game(start, &mut players, &seating, &mut clocks, &mut chance);
            let drawn: Vec<Tile> = record
                .plies
                .iter()
                .filter_map(|ply| match ply.mv {
                    Move::Drawn(tile) => Some(tile),
                    _ => None,
                })
                .collect();
            let order = stock_order(setup.seed, r, game);
            assert_eq!(order.len(), 7, "the stock: 15 tiles less two hands of 4");
            assert_eq!(drawn[..], order[..drawn.len()], "game {game}");
            drew += drawn.len();
        }
        assert!(drew > 40, "the games drew: {drew}");
    }

    #[test]
    fn every_game_of_a_pair_meets_the_same_deal_from_the_other_seat() {
        let r = rules(7, 5);
        let paired = hidden(4, 6, true);
        for pair in 0..3 {
            let (a, _, seating_a) = paired.start(r, 2 * pair);
            let (b, _, seating_b) = paired.start(r, 2 * pair + 1);
            assert_eq!((seating_a, seating_b), (vec![0, 1], vec![1, 0]));
            // The tested player (player 0) holds in game b what the opponent held in a.
            assert_eq!(a.hand_set(1), b.hand_set(1));
            assert_eq!(a.hand_set(0), b.hand_set(0));
            assert_eq!((a.line(), a.stock()), (b.line(), b.stock()));
            // The same as the swapped deal with the seats kept.
            let swapped = Match::new(&deal(4, r, pair).swapped());
            assert_eq!(swapped.hand_set(0), b.hand_set(1));
        }
        // Unpaired, every game has its own deal; the deals do not depend on pairing.
        let single = CaseSetup {
            paired: false,
            ..paired
        };
        let deals: Vec<Match> = (0..6).map(|g| single.start(r, g).0).collect();
        assert_ne!(deals[0], deals[1]);
        assert_eq!(deals[2], paired.start(r, 4).0);
        // Another case or seed deals differently.
        assert_ne!(deal(4, r, 0), deal(5, r, 0));
        assert_ne!(deal(4, r, 0).hands, deal(4, rules(7, 6), 0).hands);
    }

    #[test]
    fn the_open_hand_goes_to_the_clairvoyant_players_seat() {
        let setup = CaseSetup {
            open_hand: [false, true],
            ..hidden(1, 2, false)
        };
        for game in 0..2 {
            let (start, _, seating) = setup.start(rules(6, 4), game);
            let opponent_seat = seating.iter().position(|&p| p == 1).unwrap();
            assert!(start.view(opponent_seat).open_hand.is_some());
            assert!(start.view(1 - opponent_seat).open_hand.is_none());
        }
    }

    /// A player that answers from a list of canned results, then plays randomly.
    struct Scripted {
        faults: Vec<Option<Failure>>,
        agent: RandomAgent,
    }

    impl Player<Match> for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn start_case(&mut self, _: &Rules, _: &mut Clock) -> Result<(), Failure> {
            Ok(())
        }
        fn start_game(
            &mut self,
            _: Seat,
            _: &tabula_solver::dominoes::View,
            _: &mut Clock,
        ) -> Result<(), Failure> {
            Ok(())
        }
        fn observe(
            &mut self,
            _: Turn,
            _: &tabula_solver::dominoes::Observation,
        ) -> Result<(), Failure> {
            Ok(())
        }
        fn choose(
            &mut self,
            view: &tabula_solver::dominoes::View,
            _: &mut Clock,
        ) -> Result<Move, Failure> {
            match self.faults.pop().flatten() {
                Some(failure) => Err(failure),
                None => Ok(Agent::<Match>::choose(&mut self.agent, view)),
            }
        }
        fn end_game(&mut self, _: &tabula_solver::dominoes::View) {}
    }

    #[test]
    fn a_case_is_tallied_the_contests_way_and_faults_are_counted() {
        let setup = hidden(2, 40, true);
        let r = rules(5, 4);
        let mut tested = Local(RandomAgent::new(stream(2, Purpose::Agent, 0, 0, 0)));
        let mut opponent = Local(RandomAgent::new(stream(2, Purpose::Agent, 0, 0, 1)));
        let (result, records) = referee_case(
            r,
            &setup,
            &mut tested,
            &mut opponent,
            Limits::default(),
            &mut |_, _| {},
        );
        assert_eq!(records.len(), 40);
        assert_eq!(result.wins + result.ties + result.losses, 40);
        assert_eq!(result.score, result.wins as f64 + result.ties as f64 / 2.0);
        let by_scores: f64 = records
            .iter()
            .enumerate()
            .map(|(g, rec)| rec.scores[CaseSetup::tested_seat(g)])
            .sum();
        assert_eq!(result.score, by_scores);
        assert!(result.ties > 0 || result.wins > 0, "{result:?}");
        assert_eq!(result.faults, 0);
        assert!(records.iter().all(|r| r.fault.is_none()));
        assert_eq!(
            result.line(),
            format!(
                "case 5 4 {} {} {} {}",
                result.score, result.wins, result.ties, result.losses
            )
        );
        let log = game_line(0, &setup, &records[0]);
        assert!(log.starts_with("game 0 deal 0 seat 0 opener "), "{log}");

        // A malformed answer loses one game; a dead player the rest of the case.
        // Faults are popped from the back: the first choice fails, then one plays.
        let mut faulty = Scripted {
            faults: vec![
                Some(Failure {
                    kind: FaultKind::Crash,
                    reason: "gone".into(),
                    ends_case: true,
                }),
                None,
                Some(Failure::new(FaultKind::MalformedAnswer, "bad answer 'x'")),
            ],
            agent: RandomAgent::new(stream(2, Purpose::Agent, 0, 0, 0)),
        };
        let setup = CaseSetup {
            games: 6,
            paired: false,
            ..setup
        };
        // Every game goes to `each` as it ends, the unplayed ones included.
        let mut handed = Vec::new();
        let (result, records) = referee_case(
            r,
            &setup,
            &mut faulty,
            &mut opponent,
            Limits::default(),
            &mut |game, record| handed.push((game, record.fault.clone())),
        );
        let faults: Vec<_> = records.iter().map(|r| r.fault.clone()).collect();
        assert_eq!(handed, faults.into_iter().enumerate().collect::<Vec<_>>());
        // Game 0 lost to the bad answer, game 1 to the crash, games 2 to 5 unplayed.
        assert_eq!(result.faults, 6, "{result:?}");
        // The player could not go on: the case's last games carry the crash.
        assert!(records[5].fault.as_ref().is_some_and(|f| f.ends_case));
        assert_eq!(
            result.first_fault,
            Some(FirstFault {
                game: 0,
                kind: FaultKind::MalformedAnswer,
                reason: "bad answer 'x'".to_string()
            })
        );
        assert!(
            result.line().contains("first in game 0: bad answer 'x'"),
            "{}",
            result.line()
        );
        assert!(
            records
                .last()
                .unwrap()
                .fault
                .as_ref()
                .unwrap()
                .reason
                .contains("gone")
        );
        let json = serde_json::to_value(RefereeReport::new(vec![result.clone()])).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"cases": [{"n": 5, "h": 4, "games": 6, "wins": result.wins,
                "draws": result.ties, "losses": result.losses, "score": result.score,
                "faults": result.faults,
                "fault_kinds": {"malformed-answer": 1, "crash": 5},
                "first_fault": {"game": 0, "kind": "malformed-answer", "reason": "bad answer 'x'"}}], "total": result.score})
        );
    }

    #[test]
    fn through_the_wire_an_agent_plays_every_case_exactly_as_in_process() {
        use crate::dominoes::DominoesWire;
        use crate::process::served;

        let agent = || RandomAgent::new(stream(9, Purpose::Agent, 0, 0, 0));
        let (mut remote, server) = served::<Match, DominoesWire, _>(agent());
        let mut local = Local(agent());
        let setup = hidden(9, 10, true);
        let mut games = 0;
        for r in Rules::all() {
            // The case against the same opponent, afresh for each side.
            let play = |tested: &mut dyn Player<Match>| {
                let rng = stream(9, Purpose::Agent, case_key(r), 0, 1);
                let mut opponent = Local(RandomAgent::new(rng));
                referee_case(
                    r,
                    &setup,
                    tested,
                    &mut opponent,
                    Limits::default(),
                    &mut |_, _| {},
                )
            };
            let (a, served) = play(&mut remote);
            let (b, in_process) = play(&mut local);
            assert_eq!(a, b);
            assert_eq!(a.faults, 0, "{a:?}");
            for (x, y) in served.iter().zip(&in_process) {
                let moves =
                    |rec: &GameRecord<Match>| rec.plies.iter().map(|p| p.mv).collect::<Vec<_>>();
                assert_eq!(moves(x), moves(y));
                assert_eq!(x.end, y.end);
                games += 1;
            }
        }
        assert_eq!(games, 200);
        // Closing its input ends the service cleanly.
        drop(remote);
        server.join().unwrap().unwrap();
    }
}
