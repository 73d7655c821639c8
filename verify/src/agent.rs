//! The agent trait: an in-process player that sees only its own seat's view.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tabula_solver::{Game, Seat, Turn};
use tabula_tables::LookupError;

/// Why a run cannot go on: an in-process agent found its table damaged in
/// the middle of a game (a table checked record by record as it is read).
///
/// Agents do not fail (an agent's move is not a `Result`), so this unwinds
/// to the binary, which reports it as a one-line error, as salsa's
/// `Cancelled` does: [`RunAborted::throw`] uses `resume_unwind`, so no panic
/// message is printed, and rayon hands the payload on to its caller.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RunAborted(pub String);

impl RunAborted {
    /// Stops the run with `reason`, which names the file and the problem.
    ///
    /// It must run under [`RunAborted::catch`] (the binary's `main` is):
    /// elsewhere it ends its thread as a panic does, but without a message.
    pub fn throw(reason: impl Into<String>) -> ! {
        std::panic::resume_unwind(Box::new(RunAborted(reason.into())))
    }

    /// Runs `work`, turning a [`RunAborted::throw`] inside it into an error;
    /// any other panic goes on unwinding.
    pub fn catch<T>(work: impl FnOnce() -> T) -> Result<T, RunAborted> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            Ok(value) => Ok(value),
            Err(payload) => match payload.downcast::<RunAborted>() {
                Ok(aborted) => Err(*aborted),
                Err(other) => std::panic::resume_unwind(other),
            },
        }
    }
}

/// The result of a table lookup made during play: a damaged record stops
/// the run ([`RunAborted::throw`]); a position the table does not hold means
/// the table was opened for another game, which is a bug.
pub fn looked_up<T, E: std::error::Error>(result: Result<T, LookupError<E>>) -> T {
    match result {
        Ok(value) => value,
        Err(LookupError::Record(damaged)) => RunAborted::throw(damaged.to_string()),
        Err(other) => panic!("the table does not fit the game: {other}"),
    }
}

/// A built-in player. It is told when a case and a game start, sees every
/// move as its seat may see it, and chooses from its view; it never receives
/// the hidden state.
pub trait Agent<G: Game>: Send {
    /// Short name used in reports (`random`, `greedy1`, `solver-d4-e12`).
    fn name(&self) -> String;

    /// A new test case starts with these parameters.
    fn start_case(&mut self, _params: &G::Params) {}

    /// A new game starts; this agent sits in `seat`.
    fn start_game(&mut self, _seat: Seat, _view: &G::View) {}

    /// The next game's random stream, from a runner that keeps the agent for
    /// a whole case: the agent's play then depends on earlier games only
    /// through what it chose to learn from them (caches that would change its
    /// choices are dropped too).
    fn reseed(&mut self, _rng: ChaCha8Rng) {}

    /// A move was played (by another seat or by chance), as this seat sees it.
    fn observe(&mut self, _mover: Turn, _observation: &G::Observation) {}

    /// A legal move for this seat, whose turn it is.
    fn choose(&mut self, view: &G::View) -> G::Move;
}

/// Implements [`Agent`] for a pointer type by forwarding every method to the
/// agent it points to (one list of methods for `Box<A>` and `&mut A`).
macro_rules! forward_agent {
    ($($pointer:ty),*) => {$(
        impl<G: Game, A: Agent<G> + ?Sized> Agent<G> for $pointer {
            fn name(&self) -> String {
                (**self).name()
            }
            fn start_case(&mut self, params: &G::Params) {
                (**self).start_case(params)
            }
            fn start_game(&mut self, seat: Seat, view: &G::View) {
                (**self).start_game(seat, view)
            }
            fn reseed(&mut self, rng: ChaCha8Rng) {
                (**self).reseed(rng)
            }
            fn observe(&mut self, mover: Turn, observation: &G::Observation) {
                (**self).observe(mover, observation)
            }
            fn choose(&mut self, view: &G::View) -> G::Move {
                (**self).choose(view)
            }
        }
    )*};
}

forward_agent!(Box<A>, &mut A);

/// Plays uniformly at random among the legal moves, from a seeded stream.
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random agent drawing from `rng`.
    pub fn new(rng: ChaCha8Rng) -> RandomAgent {
        RandomAgent { rng }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn reseed(&mut self, rng: ChaCha8Rng) {
        self.rng = rng;
    }

    fn choose(&mut self, view: &G::View) -> G::Move {
        let moves = G::view_moves(view);
        moves[self.rng.random_range(0..moves.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::RunAborted;
    use rayon::prelude::*;

    #[test]
    fn an_abort_reaches_the_catch_from_rayon_threads_and_other_panics_go_on() {
        let caught = RunAborted::catch(|| {
            (0..64).into_par_iter().for_each(|i| {
                if i == 37 {
                    RunAborted::throw("t.tab: corrupted: record 37");
                }
            })
        });
        assert_eq!(
            caught,
            Err(RunAborted("t.tab: corrupted: record 37".into()))
        );
        assert_eq!(RunAborted::catch(|| 5), Ok(5));
        let other = std::panic::catch_unwind(|| RunAborted::catch(|| panic!("a bug")));
        let payload = other.expect_err("a panic goes on unwinding");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"a bug"));
    }
}
