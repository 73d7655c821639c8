//! `best`: learns its opponents from the boards it is shown and searches
//! against what it learnt.
//!
//! Over the protocol a player sees only boards, so everything comes from
//! successive boards: between two of its boards, [`reconstruct`] recovers the
//! others' moves (ambiguous turns, rare, teach nothing); each move is first
//! predicted (counted in [`Predictions`]) and then added to the [`Model`],
//! which then learns for a while ([`Tuning::learn`] proposals).
//!
//! The move: until [`Tuning::after`] choices have been seen, Best-Reply
//! Search (the `brs` player's search, with a larger node budget). Then every
//! own move is rated by the lookahead (which solves the last empties
//! exactly) against each of [`Tuning::samples`] candidates per opponent,
//! taken every [`Tuning::spread`]-th down the model's ranking by fit (the
//! k-th of every opponent make one set of deterministic policies), and the
//! move with the best mean value, plus [`Tuning::caution`] times its worst
//! set's value, is played. One candidate names an opponent's move only about
//! a third of the time, and searching against one guess plays worse than
//! BRS; the mean over several guesses weighs each line by how many of them
//! lead to it, and guesses spread over the whole ensemble did better than the
//! best-fitting few (weighing the sets by fit did worse). The worst set's
//! term hedges against lines that only some guesses let through: counted
//! half, it gained; counted one and a half times, it lost.
//!
//! On the three-player sides ([`Tuning::defer_sides`]) the hedged mean
//! defers to a robust search's move: that move is played unless its hedged
//! worth is more than [`Tuning::defer`] below the best move's. The model still
//! vetoes the moves it is sure are bad, and where its guesses are unsure the
//! robust move is played. On 7×7 and 9×9 the robust move is the `paranoid`
//! player's. On 11×11 ([`Tuning::plausible_sides`]) it is that of a paranoid
//! search where each opponent's likely replies are the [`Tuning::plausible`]
//! moves most voted for by its best-fitting candidates: the search plays one
//! of those unless another is worse for this player by more than
//! [`Tuning::margin`] (three pieces), with [`Tuning::plausible_nodes`] (twice
//! BRS's nodes). There the combined lookahead has the fewest nodes per set of
//! the three-player sides, and the model's two likeliest replies hold the
//! opponent's actual move about half the time, so the search trusts the model
//! only that far; it did better there than plain paranoid search, and
//! worse at 7×7 and 9×9.

use std::sync::Arc;

use crate::reversi::model::{CANDIDATES, Model, VOTERS, reconstruct, votes};
use rand_chacha::ChaCha8Rng;
use tabula_solver::grid::Square;
use tabula_solver::grid::Squares;
use tabula_solver::reversi::board::{MAX_CELLS, MAX_PLAYERS};
use tabula_solver::reversi::lookahead::{self, Lookahead, Policies};
use tabula_solver::reversi::search::{
    Evaluation, Kind, Limits, PIECE, Plausible, decide, decide_within,
};
use tabula_solver::reversi::{Board, Rule, Weights};
use tabula_solver::{Game, Seat};

use super::Predictions;
use super::baselines::SEARCH_LIMITS;
use crate::agent::Agent;

/// Local-search proposals after each batch of observed moves.
pub const LEARN_STEPS: usize = 4000;

/// How much worse than its best move the hedged mean may rate paranoid
/// search's move and still play it, where it defers ([`Tuning::defer`]).
pub const DEFER: f64 = 2.0;

/// The knobs of `best`'s decision (see the module's notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// Best-Reply Search's limits.
    pub search: Limits,
    /// Candidates per opponent whose lookahead values are combined.
    pub samples: usize,
    /// The combined candidates are every `spread`-th of the ranking (the
    /// 1st, the 1 + spread-th, ...), so that they cover the ensemble.
    pub spread: usize,
    /// Lookahead nodes per decision at 12×12 and 11×11, shared by the
    /// draws; smaller sides get more (see [`Tuning::budget_for`]).
    pub budget: u64,
    /// Observed choices before the combined lookahead replaces BRS.
    pub after: usize,
    /// The model's local-search proposals after each batch of observed moves.
    pub learn: usize,
    /// A move is worth its mean over the sets plus `caution` times its worst
    /// set's value: a hedge against the guesses the mean trusts too much.
    pub caution: f64,
    /// On the sides in [`Tuning::plausible_sides`], once a choice is seen:
    /// paranoid search in which each opponent's `plausible` replies most
    /// voted for by its best-fitting candidates are its likely ones gives the
    /// robust move (the move itself where the side does not defer; 0: no
    /// such search).
    pub plausible: usize,
    /// What an unlikely reply costs the opponent in that search, in the
    /// evaluation's units (`None`: it is not considered at all).
    pub margin: Option<i32>,
    /// That search's nodes per decision: 48 000, twice BRS's, gained +0.084
    /// per case at 11×11 over 24 000 on four seeds (README, "Tried and dropped").
    pub plausible_nodes: u64,
    /// The sides that play that search: 11×11, the three-player side where
    /// the combined lookahead has the fewest nodes per candidate set. Played
    /// alone, it gained there over the lookahead on every seed tried; at 7×7
    /// it was level and at 9×9 it lost (README, "Tried and dropped").
    pub plausible_sides: &'static [usize],
    /// On the sides in [`Tuning::defer_sides`]: the robust move (the
    /// plausible search's on [`Tuning::plausible_sides`], else the
    /// `paranoid` player's, [`SEARCH_LIMITS`]) is played whenever the hedged
    /// mean rates it within `defer` of its best move, in the lookahead's
    /// units (a cell 1, a corner 4 more); `None`: never.
    pub defer: Option<f64>,
    /// The sides that defer so: the three-player sides, where the hedged
    /// mean alone was level with `paranoid` at 7×7 and 9×9, and the
    /// plausible search alone with it at 11×11 (README, "Tried and dropped").
    pub defer_sides: &'static [usize],
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            search: Limits {
                depth: 16,
                nodes: 24_000,
            },
            samples: 8,
            spread: 4,
            budget: 24_000,
            after: 1,
            learn: LEARN_STEPS,
            caution: 0.5,
            plausible: 2,
            // Three pieces.
            margin: Some(3 * PIECE),
            plausible_nodes: 48_000,
            plausible_sides: &[11],
            defer: Some(DEFER),
            defer_sides: &[7, 9, 11],
        }
    }
}

impl Tuning {
    /// Lookahead nodes per decision on side `n`: smaller boards have fewer
    /// and cheaper decisions, so they get more nodes (×4 at 7×7 and 8×8, ×2
    /// at 9×9, ×1.5 at 10×10) for roughly the time of a 12×12 game or less.
    pub fn budget_for(&self, n: usize) -> u64 {
        let halves = match n {
            ..=8 => 8,
            9 => 4,
            10 => 3,
            _ => 2,
        };
        self.budget * halves / 2
    }

    /// The plausible paranoid search's limits: [`Tuning::search`]'s depth
    /// with [`Tuning::plausible_nodes`].
    pub fn plausible_limits(&self) -> Limits {
        Limits {
            nodes: self.plausible_nodes,
            ..self.search
        }
    }
}

/// The learning player (see the module's notes).
pub struct Best {
    rng: ChaCha8Rng,
    predictions: Arc<Predictions>,
    /// The rule the opponents are assumed to follow: the statement's reading.
    rule: Rule,
    tuning: Tuning,
    game: Option<Game1>,
}

/// What one game taught.
struct Game1 {
    me: Seat,
    eval: Evaluation,
    model: Model,
    /// The board just after this player's last move.
    after: Option<Board>,
}

impl Best {
    /// A fresh player counting its predictions in `predictions`.
    pub fn new(rng: ChaCha8Rng, predictions: Arc<Predictions>) -> Best {
        Best::tuned(rng, predictions, Tuning::default())
    }

    /// [`Best::new`] with other knobs.
    pub fn tuned(rng: ChaCha8Rng, predictions: Arc<Predictions>, tuning: Tuning) -> Best {
        Best {
            rng,
            predictions,
            rule: Rule::default(),
            tuning,
            game: None,
        }
    }

    fn fresh(&mut self, me: Seat, view: &Board) -> Game1 {
        Game1 {
            me,
            eval: Evaluation::new(view.n()),
            model: Model::new(view.n(), self.rule, &mut self.rng),
            after: None,
        }
    }

    /// Learns from the others' moves since this player's last board.
    fn catch_up(&mut self, view: &Board) {
        let me = view.mover().expect("asked only when it can move");
        let sequences = match &self.game {
            Some(game) if game.me == me => match game.after {
                Some(after) => reconstruct(&after, view, me, 2),
                // The game's first board: nothing to learn yet.
                None => return,
            },
            _ => Vec::new(),
        };
        if sequences.is_empty() {
            // A new game, or a board that does not follow: start afresh.
            self.game = Some(self.fresh(me, view));
            return;
        }
        let game = self.game.as_mut().expect("checked above");
        if sequences.len() == 1 {
            for (board, mv) in &sequences[0] {
                if !game.model.choices().is_empty() {
                    self.predictions
                        .record(game.model.predict(board) == Some(*mv));
                }
                game.model.observe(board, *mv);
            }
            game.model.learn(self.tuning.learn, &mut self.rng);
        }
    }

    /// The move whose lookahead value over [`Tuning::samples`] candidates
    /// per opponent spread down the model's ranking (the mean, plus
    /// [`Tuning::caution`] times the worst) is highest, or the robust move
    /// within [`Tuning::defer`] of it where the side defers.
    fn hedged_mean(&self, view: &Board, me: Seat) -> Square {
        let game = self.game.as_ref().expect("a game is on");
        let k = self.tuning.samples;
        let spread = self.tuning.spread.clamp(1, (CANDIDATES / k).max(1));
        let mut draws = vec![[Weights([1.0; MAX_CELLS]); MAX_PLAYERS]; k];
        for seat in (0..view.players()).filter(|&s| s != me) {
            let ranked = game.model.ranked_for(seat, k * spread);
            for (draw, w) in draws.iter_mut().zip(ranked.into_iter().step_by(spread)) {
                draw[seat] = w;
            }
        }
        let limits = lookahead::Limits {
            budget: self.tuning.budget_for(view.n()) / k as u64,
            ..lookahead::Limits::default()
        };
        // Per move: the sum and the worst of its values over the sets.
        let mut rated: Vec<(Square, f64, f64)> = Vec::new();
        for weights in draws {
            let policies = Policies {
                weights,
                rule: self.rule,
            };
            let (_, values) = Lookahead::new(me, &policies, limits).decide_all(view);
            if rated.is_empty() {
                rated = values
                    .iter()
                    .map(|&(m, _)| (m, 0.0, f64::INFINITY))
                    .collect();
            }
            for (r, &(m, v)) in rated.iter_mut().zip(&values) {
                debug_assert_eq!(r.0, m);
                r.1 += v;
                r.2 = r.2.min(v);
            }
        }
        let worth =
            |&(_, sum, worst): &(Square, f64, f64)| sum / k as f64 + self.tuning.caution * worst;
        // Ties go to the first move in row-major order.
        let mut best = (rated[0].0, worth(&rated[0]));
        for r in &rated[1..] {
            let w = worth(r);
            if w > best.1 {
                best = (r.0, w);
            }
        }
        if let Some(defer) = self.tuning.defer
            && self.defers(view.n())
        {
            let safe = if self.plausible_side(view.n()) {
                self.plausible_paranoid(view, me)
            } else {
                decide(Kind::Paranoid, view, me, &game.eval, SEARCH_LIMITS)
                    .expect("the mover has a move")
                    .square
            };
            let rated_safe = rated.iter().find(|r| r.0 == safe).expect("a legal move");
            if worth(rated_safe) >= best.1 - defer {
                return safe;
            }
        }
        best.0
    }
}

impl Best {
    /// Whether side `n` plays the plausible paranoid search.
    fn plausible_side(&self, n: usize) -> bool {
        self.tuning.plausible > 0 && self.tuning.plausible_sides.contains(&n)
    }

    /// Whether the hedged mean defers to the robust move on side `n`.
    fn defers(&self, n: usize) -> bool {
        self.tuning.defer.is_some() && self.tuning.defer_sides.contains(&n)
    }

    /// Paranoid search in which the replies the model finds likely are the
    /// ones an opponent plays unless another is worse for this player by more
    /// than [`Tuning::margin`].
    fn plausible_paranoid(&self, view: &Board, me: Seat) -> Square {
        let game = self.game.as_ref().expect("a game is on");
        let voters: Vec<Vec<Weights>> = (0..view.players())
            .map(|seat| {
                if seat == me {
                    Vec::new()
                } else {
                    game.model.ranked_for(seat, VOTERS)
                }
            })
            .collect();
        let k = self.tuning.plausible;
        let rule = self.rule;
        let replies = |board: &Board, seat: Seat| {
            let mut set = Squares::EMPTY;
            for &(mv, _) in votes(&voters[seat], board, rule).iter().take(k) {
                set.set(mv as usize);
            }
            set
        };
        let limits = self.tuning.plausible_limits();
        decide_within(
            Kind::Paranoid,
            view,
            me,
            &game.eval,
            limits,
            Some(Plausible {
                replies: &replies,
                margin: self.tuning.margin,
            }),
        )
        .expect("the mover has a move")
        .square
    }
}

impl Agent<Board> for Best {
    fn name(&self) -> String {
        "best".into()
    }

    fn start_game(&mut self, seat: Seat, view: &Board) {
        self.game = Some(self.fresh(seat, view));
    }

    fn choose(&mut self, view: &Board) -> Square {
        self.catch_up(view);
        let me = view.mover().expect("asked only when it can move");
        let game = self.game.as_ref().expect("a game is on");
        let seen = game.model.choices().len();
        let learnt = seen >= self.tuning.after.max(1);
        let hedged = self.tuning.samples > 0;
        let mv = if learnt && self.plausible_side(view.n()) && !(hedged && self.defers(view.n())) {
            self.plausible_paranoid(view, me)
        } else if learnt && hedged {
            self.hedged_mean(view, me)
        } else {
            decide(Kind::BestReply, view, me, &game.eval, self.tuning.search)
                .expect("the mover has a move")
                .square
        };
        let mut after = *view;
        Game::apply(&mut after, mv);
        if let Some(game) = self.game.as_mut() {
            game.after = Some(after);
        }
        mv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::evolve::Settings;
    use crate::reversi::referee::opponents;
    use crate::reversi::{Opponent, case_agent};
    use crate::tournament::{Purpose, stream};
    use tabula_solver::reversi::{MAX_N, MIN_N};

    fn case(n: usize, seed: u64) -> Vec<Opponent> {
        let settings = Settings {
            generations: Some(2),
            games: 10,
            ..Settings::new(n)
        };
        let (weights, _) = opponents(seed, &settings, 0, &|_, _| {});
        weights
            .into_iter()
            .map(|weights| Opponent {
                weights,
                rule: Rule::default(),
            })
            .collect()
    }

    /// Plays a game of side `n`: seat 0 moves by `ours`, the others by their
    /// weights, `theirs` seeing each board an opponent moves on first.
    fn play_out(
        n: usize,
        opp: &[Opponent],
        mut ours: impl FnMut(&Board) -> Square,
        mut theirs: impl FnMut(&Board),
    ) {
        let mut board = Board::start(n).unwrap();
        while let Some(seat) = board.mover() {
            let mv = if seat == 0 {
                ours(&board)
            } else {
                theirs(&board);
                opp[seat - 1]
                    .weights
                    .choose(&board, Rule::default())
                    .unwrap()
            };
            board.play(mv);
        }
    }

    /// Plays `name` in seat 0 against `opp`; returns the predictions' counts
    /// and the chance of guessing each predicted move at random.
    fn play(name: &str, n: usize, opp: &[Opponent]) -> (Arc<Predictions>, f64, usize) {
        let predictions = Arc::new(Predictions::default());
        let mut player = case_agent(name, stream(1, Purpose::Agent, 0, 0, 0), opp, &predictions)
            .expect("a known player");
        assert_eq!(player.name(), name);
        player.start_game(0, &Board::start(n).unwrap());
        let (mut chance, mut turns) = (0.0, 0);
        play_out(
            n,
            opp,
            |board| {
                let mv = player.choose(board);
                assert!(board.check(mv).is_ok(), "{name} n {n}");
                mv
            },
            |board| {
                chance += 1.0 / board.moves().len() as f64;
                turns += 1;
            },
        );
        (predictions, chance, turns)
    }

    #[test]
    fn best_and_the_oracle_play_legal_moves_to_the_end_on_every_size() {
        for n in MIN_N..=MAX_N {
            let opp = case(n, 3);
            for name in ["best", "oracle"] {
                let (predictions, _, turns) = play(name, n, &opp);
                let (_, asked) = predictions.counts();
                if name == "best" {
                    // Every opponent move but the very first ones is predicted.
                    assert!(asked > 0 && asked as usize <= turns, "n {n}");
                } else {
                    assert_eq!(asked, 0);
                }
            }
        }
    }

    /// Near-clones of one strategy, as a long evolution leaves them.
    fn clones(n: usize, seed: u64) -> Vec<Opponent> {
        use rand::RngExt;
        let mut rng = stream(seed, Purpose::Setup, 0, 0, 0);
        let mut base = Weights([0.0; MAX_CELLS]);
        for x in base.0.iter_mut() {
            *x = rng.random_range(-50.0..50.0);
        }
        (1..Board::players_for(n))
            .map(|_| {
                let mut weights = base;
                for x in weights.0.iter_mut() {
                    *x += rng.random_range(-2.0..2.0);
                }
                Opponent {
                    weights,
                    rule: Rule::default(),
                }
            })
            .collect()
    }

    #[test]
    fn best_predicts_the_opponents_far_better_than_a_random_guess() {
        let (mut right, mut asked, mut chance, mut turns) = (0, 0, 0.0, 0);
        // Two games per size: one game's rate depends on the positions reached.
        for (n, seed) in [9, 10, 11, 12].into_iter().flat_map(|n| [(n, 4), (n, 6)]) {
            let opp = clones(n, seed);
            let (predictions, c, t) = play("best", n, &opp);
            let (r, a) = predictions.counts();
            right += r;
            asked += a;
            chance += c;
            turns += t;
        }
        let rate = right as f64 / asked as f64;
        let guess = chance / turns as f64;
        // About twice a random guess in two games per size (weights never seen stay unknown).
        assert!(rate > 1.5 * guess, "rate {rate} vs a random guess {guess}");
    }

    #[test]
    fn before_any_choice_is_seen_it_plays_best_reply_search() {
        use tabula_solver::reversi::search::decide;
        for n in MIN_N..=MAX_N {
            let tuning = Tuning::default();
            let mut best = Best::new(stream(2, Purpose::Agent, 0, 0, 0), Arc::default());
            let board = Board::start(n).unwrap();
            // Nothing observed yet: Best-Reply Search.
            let expect = decide(
                Kind::BestReply,
                &board,
                0,
                &Evaluation::new(n),
                tuning.search,
            );
            assert_eq!(Some(best.choose(&board)), expect.map(|d| d.square));
        }
    }

    /// `best`'s model as it will be once it has taken `board` in (learning
    /// on a copy of its random stream, as its own `choose` will).
    fn model_ahead(best: &Best, board: &Board) -> Model {
        let mut ahead = Best::tuned(best.rng.clone(), Arc::default(), best.tuning);
        ahead.game = best.game.as_ref().map(|g| Game1 {
            me: g.me,
            eval: Evaluation::new(board.n()),
            model: g.model.clone(),
            after: g.after,
        });
        ahead.catch_up(board);
        ahead.game.expect("a game is on").model
    }

    /// Per legal move (row-major): the sum of its lookahead values over the
    /// tuning's candidate sets, each searched alone, and its hedged worth
    /// (the mean plus the caution times the worst).
    fn hedged_worth(model: &Model, board: &Board, tuning: &Tuning) -> (Vec<f64>, Vec<f64>) {
        let k = tuning.samples;
        let limits = lookahead::Limits {
            budget: tuning.budget_for(board.n()) / k as u64,
            ..lookahead::Limits::default()
        };
        let (mut sum, mut worst): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
        for set in 0..k {
            let mut weights = [Weights([1.0; MAX_CELLS]); MAX_PLAYERS];
            for (s, w) in weights.iter_mut().enumerate().take(board.players()).skip(1) {
                *w = model.ranked_for(s, k * tuning.spread)[set * tuning.spread];
            }
            let policies = Policies {
                weights,
                rule: Rule::default(),
            };
            let (_, values) = Lookahead::new(0, &policies, limits).decide_all(board);
            sum.resize(values.len(), 0.0);
            worst.resize(values.len(), f64::INFINITY);
            for ((a, w), (_, v)) in sum.iter_mut().zip(&mut worst).zip(values) {
                *a += v;
                *w = w.min(v);
            }
        }
        let worth = sum
            .iter()
            .zip(&worst)
            .map(|(s, w)| s / k as f64 + tuning.caution * w)
            .collect();
        (sum, worth)
    }

    /// The default tuning with 3 candidate sets and a small lookahead budget,
    /// so that a test game is quick.
    fn few_small_sets() -> Tuning {
        Tuning {
            samples: 3,
            budget: 900,
            ..Tuning::default()
        }
    }

    /// Plays a game of side `n` against `opp` with a `best` of `tuning` (its
    /// stream from `seed`) in seat 0, and shows `check` each move it made once
    /// a choice was seen, with the board and the model it decided by.
    fn check_learnt_moves(
        n: usize,
        seed: u64,
        tuning: Tuning,
        opp: &[Opponent],
        mut check: impl FnMut(&Board, &Model, Square),
    ) {
        let mut best = Best::tuned(
            stream(seed, Purpose::Agent, 0, 0, 0),
            Arc::default(),
            tuning,
        );
        best.start_game(0, &Board::start(n).unwrap());
        play_out(
            n,
            opp,
            |board| {
                let model = model_ahead(&best, board);
                let mv = best.choose(board);
                if !model.choices().is_empty() {
                    check(board, &model, mv);
                }
                mv
            },
            |_| {},
        );
    }

    /// The index of the first highest value.
    fn first_best(values: &[f64]) -> usize {
        let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        values.iter().position(|&v| v == top).expect("some value")
    }

    #[test]
    fn once_choices_are_seen_it_plays_the_best_hedged_mean_over_the_candidates() {
        let n = 8;
        let opp = clones(n, 7);
        let tuning = few_small_sets();
        let (mut checked, mut hedged) = (0, 0);
        check_learnt_moves(n, 4, tuning, &opp, |board, model, mv| {
            let (sum, worth) = hedged_worth(model, board, &tuning);
            let first = first_best(&worth);
            assert_eq!(mv, board.moves()[first], "{board:?}");
            checked += 1;
            // The hedge matters: the mean alone would move elsewhere.
            hedged += usize::from(sum[first] < sum[first_best(&sum)]);
        });
        assert!(checked > 5, "{checked}");
        assert!(
            hedged > 0,
            "the worst set never changed the move in {checked}"
        );
    }

    /// Plays a game of side `n` against `opp` with a `best` of `tuning` and
    /// checks each move made once a choice is seen: `robust`'s move where the
    /// hedged mean rates it within [`DEFER`] of its top move, else the top
    /// move. Returns how often the robust move was played over the top one,
    /// the top one over it, and how often they were the same.
    fn check_deferral(
        n: usize,
        opp: &[Opponent],
        seed: u64,
        tuning: Tuning,
        mut robust: impl FnMut(&Board, &Model) -> Square,
    ) -> (usize, usize, usize) {
        assert_eq!(tuning.defer, Some(DEFER));
        let (mut deferred, mut overruled, mut kept) = (0, 0, 0);
        check_learnt_moves(n, seed, tuning, opp, |board, model, mv| {
            let (_, worth) = hedged_worth(model, board, &tuning);
            let top_index = first_best(&worth);
            let (top, first) = (worth[top_index], board.moves()[top_index]);
            let safe = robust(board, model);
            let safe_worth = worth[board.moves().iter().position(|&m| m == safe).unwrap()];
            let expected = if safe_worth >= top - DEFER {
                safe
            } else {
                first
            };
            assert_eq!(mv, expected, "{board:?}");
            match (mv == first, mv == safe) {
                (false, _) => deferred += 1,
                (true, false) => overruled += 1,
                (true, true) => kept += 1,
            }
        });
        (deferred, overruled, kept)
    }

    #[test]
    fn at_9x9_it_plays_paranoid_s_move_unless_the_hedged_mean_finds_it_too_much_worse() {
        let n = 9;
        let eval = Evaluation::new(n);
        let paranoid = |board: &Board, _: &Model| {
            decide(Kind::Paranoid, board, 0, &eval, SEARCH_LIMITS)
                .unwrap()
                .square
        };
        let (deferred, overruled, kept) =
            check_deferral(n, &clones(n, 9), 5, few_small_sets(), paranoid);
        // Both ways are taken: paranoid's move over the mean's and the mean's over paranoid's.
        assert!(
            deferred > 0 && overruled > 0,
            "{deferred} deferred, {overruled} overruled, {kept} agreed"
        );
    }

    #[test]
    fn at_11x11_it_defers_to_paranoid_over_the_model_s_likely_replies() {
        use crate::reversi::model::VOTERS;
        use std::collections::HashMap;
        let n = 11;
        let tuning = Tuning {
            search: Limits {
                depth: 16,
                nodes: 500,
            },
            plausible_nodes: 500,
            ..few_small_sets()
        };
        let eval = Evaluation::new(n);
        let limits = tuning.plausible_limits();
        let mut differs = 0;
        let mut plausible_search = |board: &Board, model: &Model| {
            let voters: Vec<Vec<Weights>> = (0..3).map(|s| model.ranked_for(s, VOTERS)).collect();
            // Each opponent's likely replies: the moves with the most
            // votes of its voters, the first voted for on equal votes.
            let likely = |b: &Board, s: Seat| {
                let mut votes: HashMap<Square, (usize, usize)> = HashMap::new();
                for (i, w) in voters[s].iter().enumerate() {
                    let m = w.choose(b, Rule::default()).unwrap();
                    votes.entry(m).or_insert((0, i)).0 += 1;
                }
                let mut ranked: Vec<(Square, (usize, usize))> = votes.into_iter().collect();
                ranked.sort_by_key(|&(_, (count, first))| (usize::MAX - count, first));
                let mut set = Squares::EMPTY;
                for &(m, _) in ranked.iter().take(tuning.plausible) {
                    set.set(m as usize);
                }
                set
            };
            let plausible = Plausible {
                replies: &likely,
                margin: tuning.margin,
            };
            let mv = decide_within(Kind::Paranoid, board, 0, &eval, limits, Some(plausible))
                .unwrap()
                .square;
            // The model matters: plain paranoid would move elsewhere.
            let plain = decide(Kind::Paranoid, board, 0, &eval, limits).unwrap();
            differs += usize::from(plain.square != mv);
            mv
        };
        let opp = clones(n, 8);
        let (deferred, overruled, kept) = check_deferral(n, &opp, 5, tuning, &mut plausible_search);
        assert!(
            deferred > 0 && overruled > 0,
            "{deferred} deferred, {overruled} overruled, {kept} agreed"
        );
        // Without the deferral the plausible search's move is played as it is.
        let alone = Tuning {
            defer: None,
            ..tuning
        };
        let mut checked = 0;
        check_learnt_moves(n, 5, alone, &opp, |board, model, mv| {
            assert_eq!(mv, plausible_search(board, model), "{board:?}");
            checked += 1;
        });
        assert!(checked > 5, "{checked}");
        assert!(differs > 0, "plain paranoid played the same moves");
    }

    #[test]
    fn a_new_game_or_a_board_that_does_not_follow_starts_afresh() {
        let n = 7;
        let opp = case(n, 5);
        let mut best = Best::new(stream(1, Purpose::Agent, 0, 0, 0), Arc::default());
        let start = Board::start(n).unwrap();
        // No start_game: the first board starts a game.
        let first = best.choose(&start);
        assert!(start.check(first).is_ok());
        let mut board = start;
        board.play(first);
        Policies::for_seat_zero(&[opp[0].weights, opp[1].weights], Rule::default())
            .advance(&mut board, 0);
        best.choose(&board);
        assert_eq!(best.game.as_ref().unwrap().model.choices().len(), 2);
        // The start again: a new game, nothing learnt.
        best.choose(&start);
        assert!(best.game.as_ref().unwrap().model.choices().is_empty());
    }
}

#[cfg(test)]
mod wire_tests {
    use super::*;
    use crate::process::served;
    use crate::reversi::ReversiWire;
    use crate::reversi::evolve::Settings;
    use crate::reversi::referee::{opponents, referee_case};
    use crate::seat::{Limits, Local};
    use crate::tournament::{Purpose, stream};

    #[test]
    fn served_best_plays_exactly_as_in_process() {
        // One fresh player per case on each side, as the tester runs it.
        for n in [7, 10] {
            let agent = || Best::new(stream(9, Purpose::Agent, 0, 0, 0), Arc::default());
            let (mut remote, server) = served::<Board, ReversiWire, _>(agent());
            let mut local = Local(agent());
            let settings = Settings {
                generations: Some(2),
                games: 10,
                ..Settings::new(n)
            };
            let (opp, _) = opponents(9, &settings, 0, &|_, _| {});
            let limits = Limits::default();
            let (a, served) = referee_case(n, &opp, Rule::default(), &mut remote, limits);
            let (b, in_process) = referee_case(n, &opp, Rule::default(), &mut local, limits);
            assert_eq!(a, b);
            assert_eq!(a.fault, None);
            let moves = |r: &crate::arena::GameRecord<Board>| {
                r.plies.iter().map(|p| p.mv).collect::<Vec<_>>()
            };
            assert_eq!(moves(&served), moves(&in_process));
            drop(remote);
            server.join().unwrap().unwrap();
        }
    }
}
