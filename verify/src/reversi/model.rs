//! Inferring the opponents' weights from their observed choices.
//!
//! Over the protocol a player sees only boards. [`reconstruct`] recovers the
//! moves the others played between two of its boards; each such move is a
//! [`Choice`]: its ratio beat every alternative's under the rule. A [`Model`]
//! keeps an ensemble of candidate weight vectors, scores each by the
//! alternatives that would have beaten the observed moves (a candidate that
//! reproduces every choice scores 0; later choices count a little more), and
//! improves them by local search: one cell's weight perturbed or redrawn at a
//! time, kept when the score does not worsen, and the worst candidates
//! replaced by crossovers of the best. The opponents of a case come from one
//! evolved population (near-clones), so every opponent's choices train the
//! same ensemble; each opponent is then predicted by the candidate that best
//! fits the pool with its own choices counted three times.
//!
//! Candidates start from U(−50, 50) per cell, the genetic algorithm's initial
//! distribution (its populations drift from there but stay near it). The
//! ratios do not change when all weights are scaled, so only directions matter.

use arrayvec::ArrayVec;
use rand::{Rng, RngExt};

use tabula_solver::game::Seat;
use tabula_solver::grid::{Square, Squares};
use tabula_solver::reversi::board::{Board, MAX_CELLS};
use tabula_solver::reversi::opponents::{Rule, Ties, Weights, ZeroDenominator};

/// The sequences of moves (board before, move) by players other than `me`
/// that turn `prev` (another player to move, or `me` skipped) into `next`
/// (`me` to move). Each sequence plays, in turn order, exactly the squares
/// that `next` has filled; at most `limit` sequences are returned.
pub fn reconstruct(
    prev: &Board,
    next: &Board,
    me: Seat,
    limit: usize,
) -> Vec<Vec<(Board, Square)>> {
    let mut out = Vec::new();
    if next.n() != prev.n() || next.mover() != Some(me) {
        return out;
    }
    let filled = next.occupied().and_not(prev.occupied());
    // Pieces are never removed: a board that lost one is not a successor.
    if !prev.occupied().and_not(next.occupied()).is_empty() {
        return out;
    }
    let mut path = Vec::new();
    search(prev, next, me, filled, &mut path, &mut out, limit);
    out
}

fn search(
    board: &Board,
    next: &Board,
    me: Seat,
    left: Squares,
    path: &mut Vec<(Board, Square)>,
    out: &mut Vec<Vec<(Board, Square)>>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    let Some(seat) = board.mover() else { return };
    if seat == me {
        let same = (0..board.players()).all(|s| board.pieces(s) == next.pieces(s));
        if left.is_empty() && same {
            out.push(path.clone());
        }
        return;
    }
    for square in board.moves_of(seat).and(left).iter() {
        let mut after = *board;
        after.play(square as Square);
        let mut rest = left;
        rest.clear(square);
        path.push((*board, square as Square));
        search(&after, next, me, rest, path, out, limit);
        path.pop();
    }
}

/// One observed choice, kept in the form that rates it fast under any weights.
#[derive(Clone, Debug)]
pub struct Choice {
    /// Who chose.
    pub seat: Seat,
    own: Squares,
    occupied: Squares,
    /// Each legal move with the squares it turns, row-major.
    moves: Vec<(Square, Squares)>,
    /// The index of the move played.
    chosen: usize,
    /// Cells whose weight can change this choice's outcome.
    relevant: Squares,
}

impl Choice {
    /// The mover of `board` played `square` (it must be legal).
    pub fn new(board: &Board, square: Square) -> Choice {
        let seat = board.mover().expect("somebody moved");
        let moves: Vec<(Square, Squares)> = board.moves_with_flips(seat).collect();
        let chosen = moves
            .iter()
            .position(|&(s, _)| s == square)
            .expect("the move is legal");
        let mut relevant = board.occupied();
        for &(s, _) in &moves {
            relevant.set(s as usize);
        }
        Choice {
            seat,
            own: board.pieces(seat),
            occupied: board.occupied(),
            moves,
            chosen,
            relevant,
        }
    }

    /// The alternatives that the rule would prefer to the move played under
    /// `weights` (0: the weights reproduce the choice).
    pub fn misses(&self, weights: &[f64; MAX_CELLS], rule: Rule) -> u32 {
        self.misses_given(self.sums(weights), weights, rule)
    }

    /// The weight of the mover's cells and of every occupied cell before the move.
    fn sums(&self, weights: &[f64; MAX_CELLS]) -> (f64, f64) {
        let sum = |set: Squares| set.iter().map(|c| weights[c]).sum::<f64>();
        (sum(self.own), sum(self.occupied))
    }

    /// [`Choice::misses`] with the position's sums already known (kept up to
    /// date cell by cell during the search, which saves the long sums).
    fn misses_given(
        &self,
        (own_now, all_now): (f64, f64),
        weights: &[f64; MAX_CELLS],
        rule: Rule,
    ) -> u32 {
        let sum = |set: Squares| set.iter().map(|c| weights[c]).sum::<f64>();
        let rate = |&(square, flips): &(Square, Squares)| {
            let taken = sum(flips);
            let own = own_now + taken + weights[square as usize];
            let others = all_now - own_now - taken;
            if others == 0.0 && rule.zero == ZeroDenominator::Numerator {
                own
            } else {
                own / others
            }
        };
        let mine = rate(&self.moves[self.chosen]);
        let mut misses = 0;
        for (j, m) in self.moves.iter().enumerate() {
            if j == self.chosen {
                continue;
            }
            let r = rate(m);
            // The rule's order: NaN last; equal ratios by position.
            let earlier = (j < self.chosen) == (rule.ties == Ties::First);
            let beats = match (r.is_nan(), mine.is_nan()) {
                (true, true) => earlier,
                (true, false) => false,
                (false, true) => true,
                (false, false) => r > mine || (r == mine && earlier),
            };
            misses += u32::from(beats);
        }
        misses
    }
}

/// The ensemble's size.
pub const CANDIDATES: usize = 32;
/// How much more an opponent's own choices count when picking its model.
const OWN_FACTOR: f64 = 3.0;
/// The candidates that vote on a prediction.
pub const VOTERS: usize = 16;

/// The moves `voters` choose for the mover of `board` with their votes,
/// most votes first; equal votes in the order first voted for (so the first
/// voter's move wins a tie). Empty once the game is over.
pub fn votes(voters: &[Weights], board: &Board, rule: Rule) -> ArrayVec<(Square, u32), CANDIDATES> {
    let mut votes: ArrayVec<(Square, u32), CANDIDATES> = ArrayVec::new();
    for w in voters.iter().take(CANDIDATES) {
        let Some(mv) = w.choose(board, rule) else {
            continue;
        };
        match votes.iter_mut().find(|v| v.0 == mv) {
            Some(v) => v.1 += 1,
            None => votes.push((mv, 1)),
        }
    }
    // A stable sort keeps the first-voted order among equal votes.
    votes.sort_by_key(|v| std::cmp::Reverse(v.1));
    votes
}

/// One candidate weight vector and its misses per observed choice.
#[derive(Clone, Debug)]
struct Candidate {
    weights: [f64; MAX_CELLS],
    misses: Vec<u32>,
    /// Per choice, the position's sums under these weights.
    sums: Vec<(f64, f64)>,
}

/// An ensemble of candidate weights fitted to the observed choices.
#[derive(Clone, Debug)]
pub struct Model {
    cells: usize,
    rule: Rule,
    choices: Vec<Choice>,
    candidates: Vec<Candidate>,
    next: usize,
}

impl Model {
    /// A model for side `n` with `rule`, its candidates drawn from the prior.
    pub fn new(n: usize, rule: Rule, rng: &mut impl Rng) -> Model {
        let cells = n * n;
        let candidates = (0..CANDIDATES)
            .map(|_| {
                let mut weights = [0.0; MAX_CELLS];
                for w in weights.iter_mut().take(cells) {
                    *w = rng.random_range(-50.0..50.0);
                }
                Candidate {
                    weights,
                    misses: Vec::new(),
                    sums: Vec::new(),
                }
            })
            .collect();
        Model {
            cells,
            rule,
            choices: Vec::new(),
            candidates,
            next: 0,
        }
    }

    /// The choices observed so far.
    pub fn choices(&self) -> &[Choice] {
        &self.choices
    }

    /// Records that the mover of `board` played `square`.
    pub fn observe(&mut self, board: &Board, square: Square) {
        let choice = Choice::new(board, square);
        for c in &mut self.candidates {
            let sums = choice.sums(&c.weights);
            c.misses
                .push(choice.misses_given(sums, &c.weights, self.rule));
            c.sums.push(sums);
        }
        self.choices.push(choice);
    }

    /// How much choice `i` counts: later choices a little more.
    fn weight(&self, i: usize) -> f64 {
        1.0 + i as f64 / self.choices.len().max(1) as f64
    }

    fn cost(&self, c: &Candidate, seat: Option<Seat>) -> f64 {
        c.misses
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                let own = seat == Some(self.choices[i].seat);
                f64::from(m) * self.weight(i) * if own { OWN_FACTOR } else { 1.0 }
            })
            .sum()
    }

    /// `steps` proposals of local search, then the worst quarter replaced.
    pub fn learn(&mut self, steps: usize, rng: &mut impl Rng) {
        if self.choices.is_empty() {
            return;
        }
        for _ in 0..steps {
            let k = self.next;
            self.next = (self.next + 1) % self.candidates.len();
            self.propose(k, rng);
        }
        self.renew(rng);
    }

    /// Perturbs one cell of candidate `k`, kept if no worse.
    fn propose(&mut self, k: usize, rng: &mut impl Rng) {
        let cell = self.pick_cell(k, rng);
        let old = self.candidates[k].weights[cell];
        let new = if rng.random_range(0..4) == 0 {
            rng.random_range(-50.0..50.0)
        } else {
            old + rng.random_range(-15.0..15.0)
        };
        let mut trial = self.candidates[k].weights;
        trial[cell] = new;
        let step = new - old;
        let mut delta = 0.0;
        let mut changed = Vec::new();
        for (i, choice) in self.choices.iter().enumerate() {
            if !choice.relevant.has(cell) {
                continue;
            }
            let (own, all) = self.candidates[k].sums[i];
            let sums = (
                own + if choice.own.has(cell) { step } else { 0.0 },
                all + if choice.occupied.has(cell) { step } else { 0.0 },
            );
            let m = choice.misses_given(sums, &trial, self.rule);
            let was = self.candidates[k].misses[i];
            delta += (f64::from(m) - f64::from(was)) * self.weight(i);
            changed.push((i, m, sums));
        }
        if delta <= 0.0 {
            let c = &mut self.candidates[k];
            c.weights[cell] = new;
            for (i, m, sums) in changed {
                c.misses[i] = m;
                c.sums[i] = sums;
            }
        }
    }

    /// A cell to change: half the time one that matters to a missed choice.
    fn pick_cell(&self, k: usize, rng: &mut impl Rng) -> usize {
        let c = &self.candidates[k];
        if rng.random::<bool>() {
            let missed: Vec<usize> = (0..self.choices.len())
                .filter(|&i| c.misses[i] > 0)
                .collect();
            if !missed.is_empty() {
                let choice = &self.choices[missed[rng.random_range(0..missed.len())]];
                let (square, flips) = choice.moves[rng.random_range(0..choice.moves.len())];
                let mut cells = flips;
                cells.set(square as usize);
                let cells: Vec<usize> = cells.iter().collect();
                return cells[rng.random_range(0..cells.len())];
            }
        }
        rng.random_range(0..self.cells)
    }

    /// Replaces the worst quarter by crossovers of the best half.
    fn renew(&mut self, rng: &mut impl Rng) {
        let order = self.ranking(None);
        let n = order.len();
        for r in 0..n / 4 {
            let (a, b) = (
                order[rng.random_range(0..n / 2)],
                order[rng.random_range(0..n / 2)],
            );
            let mut weights = self.candidates[a].weights;
            for (cell, w) in weights.iter_mut().enumerate().take(self.cells) {
                if rng.random::<bool>() {
                    *w = self.candidates[b].weights[cell];
                }
            }
            let sums: Vec<(f64, f64)> = self.choices.iter().map(|c| c.sums(&weights)).collect();
            let misses = self
                .choices
                .iter()
                .zip(&sums)
                .map(|(c, &s)| c.misses_given(s, &weights, self.rule))
                .collect();
            self.candidates[order[n - 1 - r]] = Candidate {
                weights,
                misses,
                sums,
            };
        }
    }

    /// The `count` candidates that best fit `seat`'s choices (its own
    /// counting `OWN_FACTOR` times, the other opponents' once), best first.
    pub fn ranked_for(&self, seat: Seat, count: usize) -> Vec<Weights> {
        self.ranking(Some(seat))
            .into_iter()
            .take(count)
            .map(|k| Weights(self.candidates[k].weights))
            .collect()
    }

    /// The candidates' indices, best fit first (pooled, or for `seat`);
    /// equal costs keep the ensemble's order.
    fn ranking(&self, seat: Option<Seat>) -> Vec<usize> {
        let mut order: Vec<(f64, usize)> = self
            .candidates
            .iter()
            .enumerate()
            .map(|(k, c)| (self.cost(c, seat), k))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        order.into_iter().map(|(_, k)| k).collect()
    }

    /// The model's guess of the move the mover of `board` plays: the vote of
    /// the best-fitting half of the ensemble, ties to the best candidate's move.
    pub fn predict(&self, board: &Board) -> Option<Square> {
        let seat = board.mover()?;
        let voters = self.ranked_for(seat, VOTERS);
        votes(&voters, board, self.rule).first().map(|v| v.0)
    }

    /// The share of observed choices the best pooled candidate reproduces.
    pub fn fit(&self) -> Option<f64> {
        let best = self
            .candidates
            .iter()
            .min_by(|a, b| self.cost(a, None).total_cmp(&self.cost(b, None)))?;
        let total = best.misses.len();
        (total > 0).then(|| best.misses.iter().filter(|&&m| m == 0).count() as f64 / total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use tabula_solver::Game;

    fn random_weights(rng: &mut ChaCha8Rng) -> Weights {
        let mut w = Weights([0.0; MAX_CELLS]);
        for x in w.0.iter_mut() {
            *x = rng.random_range(-50.0..50.0);
        }
        w
    }

    /// Every legal sequence of other players' moves from `board` until `me`
    /// is to move (or the game is over), with its end.
    fn all_sequences(board: &Board, me: Seat, depth: usize) -> Vec<(Vec<(Board, Square)>, Board)> {
        match board.mover() {
            Some(s) if s != me && depth > 0 => {
                let mut out = Vec::new();
                for &mv in board.moves().iter() {
                    let mut after = *board;
                    after.play(mv);
                    for (mut seq, end) in all_sequences(&after, me, depth - 1) {
                        seq.insert(0, (*board, mv));
                        out.push((seq, end));
                    }
                }
                out
            }
            Some(s) if s != me => Vec::new(),
            _ => vec![(Vec::new(), *board)],
        }
    }

    #[test]
    fn reconstruction_finds_exactly_the_sequences_a_brute_force_finds() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut checked = 0;
        let mut ambiguous = 0;
        for n in [7, 8] {
            for _ in 0..6 {
                let mut board = Board::start(n).unwrap();
                while let Some(seat) = board.mover() {
                    let moves = board.moves();
                    board.play(moves[rng.random_range(0..moves.len())]);
                    if seat != 0 || board.mover().is_none() {
                        continue;
                    }
                    // Seat 0 just moved: the others play at random until it moves again.
                    let prev = board;
                    while let Some(s) = board.mover() {
                        if s == 0 {
                            break;
                        }
                        let moves = board.moves();
                        board.play(moves[rng.random_range(0..moves.len())]);
                    }
                    if board.mover() != Some(0) {
                        break;
                    }
                    let filled = board.occupied().count() - prev.occupied().count();
                    let mut brute: Vec<Vec<(Board, Square)>> =
                        all_sequences(&prev, 0, filled as usize)
                            .into_iter()
                            .filter(|(seq, end)| seq.len() == filled as usize && *end == board)
                            .map(|(seq, _)| seq)
                            .collect();
                    let mut found = reconstruct(&prev, &board, 0, usize::MAX);
                    brute.sort_by_key(|s| s.iter().map(|m| m.1).collect::<Vec<_>>());
                    found.sort_by_key(|s| s.iter().map(|m| m.1).collect::<Vec<_>>());
                    assert_eq!(found, brute, "n {n}");
                    assert!(!found.is_empty());
                    checked += 1;
                    ambiguous += usize::from(found.len() > 1);
                }
            }
        }
        assert!(checked > 50, "{checked} {ambiguous}");
        // A board that is not a successor has no sequence.
        let start = Board::start(7).unwrap();
        let mut later = start;
        later.play(later.moves()[0]);
        assert!(reconstruct(&later, &start, 0, 8).is_empty());
    }

    #[test]
    fn misses_are_zero_exactly_for_the_weights_choice() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for n in [7, 10] {
            let w = random_weights(&mut rng);
            let other = random_weights(&mut rng);
            let mut board = Board::start(n).unwrap();
            while let Some(mv) = w.choose(&board, Rule::default()) {
                let choice = Choice::new(&board, mv);
                assert_eq!(choice.misses(&w.0, Rule::default()), 0);
                let theirs = other.choose(&board, Rule::default()).unwrap();
                assert_eq!(choice.misses(&other.0, Rule::default()) == 0, theirs == mv);
                board.play(mv);
            }
        }
    }

    #[test]
    fn the_model_learns_to_predict_near_clones_far_better_than_chance() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for n in [10, 11] {
            let base = random_weights(&mut rng);
            let p = Board::players_for(n);
            // Near-clones, as an evolved population gives.
            let opponents: Vec<Weights> = (1..p)
                .map(|_| {
                    let mut w = base;
                    for x in w.0.iter_mut() {
                        *x += rng.random_range(-2.0..2.0);
                    }
                    w
                })
                .collect();
            let mut model = Model::new(n, Rule::default(), &mut rng);
            let (mut right, mut asked, mut chance) = (0, 0, 0.0);
            let mut board = Board::start(n).unwrap();
            while let Some(seat) = board.mover() {
                let mv = if seat == 0 {
                    let moves = board.moves();
                    moves[rng.random_range(0..moves.len())]
                } else {
                    let mv = opponents[seat - 1].choose(&board, Rule::default()).unwrap();
                    if model.choices().len() >= 10 {
                        asked += 1;
                        right += usize::from(model.predict(&board) == Some(mv));
                        chance += 1.0 / board.moves().len() as f64;
                    }
                    model.observe(&board, mv);
                    model.learn(1500, &mut rng);
                    mv
                };
                board.play(mv);
            }
            let rate = right as f64 / asked as f64;
            let guess = chance / asked as f64;
            assert!(rate > 2.0 * guess, "n {n}: {rate} vs chance {guess}");
            assert!(model.fit().unwrap() > rate, "n {n}");
            // Each opponent's ranking: best fit first, by its own cost.
            for seat in 1..p {
                let ranked = model.ranked_for(seat, 5);
                assert_eq!(ranked.len(), 5);
                let cost = |w: &Weights| {
                    let c = model.candidates.iter().find(|c| c.weights == w.0).unwrap();
                    model.cost(c, Some(seat))
                };
                assert!(ranked.windows(2).all(|w| cost(&w[0]) <= cost(&w[1])));
                let least = model
                    .candidates
                    .iter()
                    .map(|c| model.cost(c, Some(seat)))
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(cost(&ranked[0]), least);
            }
            // The sums kept cell by cell are the sums.
            for c in &model.candidates {
                for (choice, &(own, all)) in model.choices.iter().zip(&c.sums) {
                    let (o, a) = choice.sums(&c.weights);
                    assert!((own - o).abs() < 1e-6 && (all - a).abs() < 1e-6);
                }
            }
        }
    }
}
