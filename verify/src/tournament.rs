//! Seeded, parallel, reproducible runs of many games: named random streams,
//! schedules of cases × games × seatings, and the parallel runner.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use tabula_solver::Game;
use xxhash_rust::xxh3::xxh3_64;

use crate::agent::Agent;
use crate::arena::{GameRecord, play_game};
use crate::seat::{Clock, Local, Player};

/// How a run reports progress: called with the number of games finished so far.
pub type Progress<'a> = &'a (dyn Fn(usize) + Sync);

/// ChaCha8 seeded with `seed` on stream number `number`: the raw stream under
/// the named ones of [`stream`], which is what a game's draws should use.
///
/// Each game draws from its own stream, so results do not depend on the order
/// in which threads happen to play the games.
pub fn numbered_stream(seed: u64, number: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(number);
    rng
}

/// What a named random stream is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Chance moves, deals and the referee's own random choices (a server's tie-breaks).
    Chance,
    /// A case's set-up: openings, generated opponents.
    Setup,
    /// A seat's agent (its own random choices).
    Agent,
}

impl Purpose {
    /// The purpose's name, part of the stream's name.
    pub fn name(self) -> &'static str {
        match self {
            Purpose::Chance => "chance",
            Purpose::Setup => "setup",
            Purpose::Agent => "agent",
        }
    }
}

/// The named random stream (seed, purpose, case, game, seat).
///
/// ChaCha8 seeded with `seed`, on the stream numbered by the xxh3-64 hash of
/// `"<purpose>/<case>/<game>/<seat>"`. Distinct names give independent
/// streams, and a stream does not depend on which other streams a run uses.
pub fn stream(seed: u64, purpose: Purpose, case: u64, game: u64, seat: u64) -> ChaCha8Rng {
    let name = stream_name(purpose, case, game, seat);
    numbered_stream(seed, xxh3_64(name.as_bytes()))
}

/// The random stream of a built-in player that `serve --seed SEED` runs, and
/// of the same player tested in-process (`referee --agent NAME --seed SEED`),
/// so that both play the same games: a served process knows only its seed,
/// not which game of a run it is in, so the stream is the same in each.
pub fn served_rng(seed: u64) -> ChaCha8Rng {
    stream(seed, Purpose::Agent, 0, 0, 0)
}

/// The name of a stream, `"<purpose>/<case>/<game>/<seat>"` (as game logs show it).
pub fn stream_name(purpose: Purpose, case: u64, game: u64, seat: u64) -> String {
    format!("{}/{case}/{game}/{seat}", purpose.name())
}

/// How the players are seated across the games of a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seatings {
    /// Player `s` always sits in seat `s`.
    Fixed,
    /// Every game is played once per rotation of the players around the seats
    /// (colour swaps for two players).
    Rotated,
}

/// How long an agent lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifetime {
    /// A fresh agent for every game.
    Game,
    /// One agent per seat for all the games of a case and seating, played in
    /// order, as one player process serves a whole case over the protocol;
    /// each game reseeds it ([`Agent::reseed`]) with the stream a fresh
    /// agent would have had, so it differs from fresh agents only by what it learns.
    Case,
}

/// One game of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// The case, `0..cases`.
    pub case: usize,
    /// The case's key, which names its random streams.
    pub key: u64,
    /// The game within the case, `0..games`.
    pub game: usize,
    /// The rotation of the players, `0..seats` (0 with fixed seats).
    pub rotation: usize,
}

impl Job {
    /// `seating[seat]` is the player (by lineup position) in `seat`.
    pub fn seating(&self, seats: usize) -> Vec<usize> {
        (0..seats).map(|s| (s + self.rotation) % seats).collect()
    }

    /// The seat of lineup position `player`.
    pub fn seat_of(&self, player: usize, seats: usize) -> usize {
        (player + seats - self.rotation % seats) % seats
    }
}

/// Cases × games × seatings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Each case's key, which names its random streams (distinct keys). A key
    /// that does not depend on the other cases of the run, such as the case's
    /// place in the game's full list, lets a case play the same games alone as
    /// beside the others; [`numbered`] keys the cases by their place in the run.
    pub case_keys: Vec<u64>,
    /// Games per case (each played once per seating).
    pub games: usize,
    /// Seats of the game.
    pub seats: usize,
    /// How players are seated.
    pub seatings: Seatings,
    /// How long agents live.
    pub lifetime: Lifetime,
}

/// The keys `0..cases`: each case keyed by its place in the run.
pub fn numbered(cases: usize) -> Vec<u64> {
    (0..cases as u64).collect()
}

impl Schedule {
    /// The number of cases.
    pub fn cases(&self) -> usize {
        self.case_keys.len()
    }

    /// Every game of the schedule, case by case, then game, then rotation.
    pub fn jobs(&self) -> Vec<Job> {
        let rotations = match self.seatings {
            Seatings::Fixed => 1,
            Seatings::Rotated => self.seats,
        };
        let mut jobs = Vec::with_capacity(self.cases() * self.games * rotations);
        for (case, &key) in self.case_keys.iter().enumerate() {
            for game in 0..self.games {
                for rotation in 0..rotations {
                    jobs.push(Job {
                        case,
                        key,
                        game,
                        rotation,
                    });
                }
            }
        }
        jobs
    }
}

/// Builds the agent named `name` with its random stream; the name is known to be valid.
pub type MakeAgent<'a, G> = &'a (dyn Fn(&str, ChaCha8Rng) -> Box<dyn Agent<G>> + Sync);

/// The players of a schedule: the agent named `names[i]` plays at lineup
/// position `i`, built by `make`.
pub struct Lineup<'a, G> {
    names: &'a [String],
    make: MakeAgent<'a, G>,
}

impl<'a, G> Lineup<'a, G> {
    /// The agents `names`, each built by `make`.
    pub fn new(names: &'a [String], make: MakeAgent<'a, G>) -> Lineup<'a, G> {
        Lineup { names, make }
    }
}

/// Writes one line of a game log (`GameLog::write_text`), or nothing.
pub type WriteLine<'a> = &'a (dyn Fn(&str) + Sync);

/// What a game of a schedule leaves once it is played: what the report keeps
/// of its record, and its log line when the run keeps a log.
#[derive(Clone, Debug, PartialEq)]
pub struct Played<T> {
    /// What the report needs of the game.
    pub kept: T,
    /// The game's log line (`GameLog::line`), `None` without a log.
    pub line: Option<String>,
}

/// The memory [`play_schedule`] holds per scheduled game, about: its job in the
/// list of jobs and again beside its result, with a result of up to 16 bytes
/// (a run's results are kept until it ends, in job order).
pub const BYTES_PER_GAME: u64 = 2 * std::mem::size_of::<Job>() as u64 + 16;

/// Called with each game of a schedule on the thread that played it, right
/// after it ends, in any order: reduces the record to what the run keeps,
/// so that a long run never holds many games' moves, whichever games end first.
pub type EachGame<'a, G, T> = &'a (dyn Fn(&Job, GameRecord<G>) -> Played<T> + Sync);

/// Plays every job of `schedule` in parallel with built-in agents, reduces
/// each record with `each` as soon as its game ends, hands the log lines to
/// `write_line` in job order as soon as the games before them are in, and
/// returns what `each` kept, in job order.
///
/// A job seats the lineup by its rotation. `setup(job)` gives the case's
/// parameters and the game's start. Chance draws from stream (seed, chance,
/// key, game, 0), `key` the case's key, the same for every rotation, so every
/// seating meets the same deals; the agent in seat `s` draws from (seed,
/// agent, key, game × rotations + rotation, s). With [`Lifetime::Case`] the
/// games of one case and rotation are played in order by the same agents,
/// and the cases and rotations in parallel.
pub fn play_schedule<G: Game, T: Send>(
    schedule: &Schedule,
    lineup: &Lineup<'_, G>,
    setup: &(dyn Fn(&Job) -> (G::Params, G) + Sync),
    seed: u64,
    progress: Progress<'_>,
    write_line: WriteLine<'_>,
    each: EachGame<'_, G, T>,
) -> Vec<(Job, T)> {
    let jobs = schedule.jobs();
    let rotations = match schedule.seatings {
        Seatings::Fixed => 1,
        Seatings::Rotated => schedule.seats as u64,
    };
    let agent_rng = |job: &Job, seat: usize| {
        let game = job.game as u64 * rotations + job.rotation as u64;
        stream(seed, Purpose::Agent, job.key, game, seat as u64)
    };
    // Plays `job` with `agents` (in seat order; built on first use).
    let play = |job: &Job, agents: &mut Vec<Local<Box<dyn Agent<G>>>>| {
        let (params, start) = setup(job);
        let seats = start.seats();
        let fresh = agents.is_empty();
        if fresh {
            *agents = job
                .seating(seats)
                .iter()
                .enumerate()
                .map(|(seat, &p)| Local((lineup.make)(&lineup.names[p], agent_rng(job, seat))))
                .collect();
        } else {
            for (seat, agent) in agents.iter_mut().enumerate() {
                agent.0.reseed(agent_rng(job, seat));
            }
        }
        // `agents` is in seat order, so the seating passed on is the identity.
        let identity: Vec<usize> = (0..seats).collect();
        let mut clocks = vec![Clock::default(); seats];
        let mut players: Vec<&mut dyn Player<G>> =
            agents.iter_mut().map(|a| a as &mut dyn Player<G>).collect();
        if fresh {
            for (p, player) in players.iter_mut().enumerate() {
                // In-process agents cannot fail.
                let _ = player.start_case(&params, &mut clocks[p]);
            }
        }
        let mut chance = stream(seed, Purpose::Chance, job.key, job.game as u64, 0);
        let record = play_game(start, &mut players, &identity, &mut clocks, &mut chance);
        each(job, record)
    };
    let in_order = |j: usize, played: Played<T>| {
        if let Some(line) = played.line {
            write_line(&line);
        }
        (jobs[j], played.kept)
    };
    match schedule.lifetime {
        Lifetime::Game => run_in_order(
            jobs.len(),
            progress,
            |j| play(&jobs[j], &mut Vec::new()),
            &in_order,
        ),
        Lifetime::Case => {
            // One group per case and rotation, its games in schedule order.
            let groups: Vec<(usize, usize)> = (0..schedule.cases())
                .flat_map(|case| (0..rotations as usize).map(move |r| (case, r)))
                .collect();
            let done = AtomicUsize::new(0);
            let ready = Ready::new(&in_order);
            in_index_order(groups.len(), &ready, |g, hand_on| {
                let (case, rotation) = groups[g];
                let mut agents = Vec::new();
                for j in (0..jobs.len())
                    .filter(|&j| jobs[j].case == case && jobs[j].rotation == rotation)
                {
                    let played = play(&jobs[j], &mut agents);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    hand_on(j, played);
                }
            });
            ready.into_results(jobs.len())
        }
    }
}

/// How many games [`run`] plays at once: the threads of rayon's global pool,
/// found by rayon's own rule (`RAYON_NUM_THREADS` if it is a positive number,
/// else the machine's cores) without starting the pool, which would first
/// start that many threads.
pub fn games_at_once() -> usize {
    let from_env = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0);
    from_env.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs jobs `0..count` in parallel with `play` (games, or other seeded work
/// such as evolving a case's opponents) and returns the results in order.
pub fn run<T: Send>(
    count: usize,
    progress: Progress<'_>,
    play: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    run_in_order(count, progress, play, &|_, result| result)
}

/// [`run`], handing each result by value to `in_order` in index order as soon
/// as it and every result before it are in, and returning what `in_order`
/// kept: a log can be written as the games come, and a long run keeps only
/// what its report needs.
pub fn run_in_order<T: Send, U: Send>(
    count: usize,
    progress: Progress<'_>,
    play: impl Fn(usize) -> T + Sync,
    in_order: &(dyn Fn(usize, T) -> U + Sync),
) -> Vec<U> {
    let done = AtomicUsize::new(0);
    let ready = Ready::new(in_order);
    in_index_order(count, &ready, |index, hand_on| {
        let result = play(index);
        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        hand_on(index, result);
    });
    ready.into_results(count)
}

/// How many results a thread of [`in_index_order`] keeps before it waits for
/// [`Ready`] to take them.
const HELD_AT_MOST: usize = 64;

/// Calls `work` on every index of `0..count` on rayon's threads, each thread
/// taking the lowest index not yet taken; `work` passes each result it makes,
/// with the result's own index, to the function it is given, which puts it in
/// `ready`.
///
/// Results then come in nearly in index order, so when every index takes
/// about as long, few wait in [`Ready`] for an earlier one; splitting the
/// range as `into_par_iter` does would start a second thread in the middle
/// and keep half the run waiting. A thread that finds `ready` busy keeps its
/// results until it is free, so that short games do not queue for the lock
/// one by one (up to [`HELD_AT_MOST`], and never the one `ready` waits for,
/// unless it came while the lock's holder was about to ask for it).
///
/// A panic in `work` or in handing on ends every thread's loop at its next
/// index, so that a lost run stops at once. A thread that waits inside `work`
/// for parallel work of its own (rayon lets it take other tasks meanwhile)
/// never starts a second loop of the same call, which would keep its
/// unfinished result, and every later one, waiting until the end.
fn in_index_order<T: Send, U: Send>(
    count: usize,
    ready: &Ready<'_, T, U>,
    work: impl Fn(usize, &mut dyn FnMut(usize, T)) + Sync,
) {
    let next = AtomicUsize::new(0);
    let threads = rayon::current_num_threads().min(count);
    (0..threads).into_par_iter().for_each(|_| {
        let Some(_looping) = Looping::enter(&next, count) else {
            return;
        };
        let mut held = Vec::new();
        let mut hand_on = |index: usize, result: T| {
            held.push((index, result));
            let wanted = ready.wanted();
            if held.len() >= HELD_AT_MOST || held.iter().any(|(i, _)| *i == wanted) {
                ready.put(&mut held);
            } else {
                ready.try_put(&mut held);
            }
        };
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= count {
                break;
            }
            work(index, &mut hand_on);
        }
        if !held.is_empty() {
            ready.put(&mut held);
        }
    });
}

thread_local! {
    /// The loops of [`in_index_order`] running on this thread, by the address
    /// of their index counter, innermost last.
    static LOOPS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// A thread's loop of one [`in_index_order`] call, from start to end.
struct Looping<'a> {
    next: &'a AtomicUsize,
    count: usize,
}

impl<'a> Looping<'a> {
    /// The loop of the call counting with `next`, or `None` if this thread
    /// already runs one further up its stack.
    fn enter(next: &'a AtomicUsize, count: usize) -> Option<Looping<'a>> {
        let id = std::ptr::from_ref(next) as usize;
        LOOPS.with_borrow_mut(|loops| {
            if loops.contains(&id) {
                return None;
            }
            loops.push(id);
            Some(Looping { next, count })
        })
    }
}

impl Drop for Looping<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // The other threads take no more indices.
            self.next.store(self.count, Ordering::Relaxed);
        }
        LOOPS.with_borrow_mut(|loops| {
            loops.pop();
        });
    }
}

/// The next index to hand on, the results waiting for it, and what was kept.
type State<T, U> = (usize, BTreeMap<usize, T>, Vec<U>);

/// Results of parallel work gathered by index, each handed on in index order
/// as soon as it and every result before it are in; only those waiting for an
/// earlier one are held.
struct Ready<'a, T, U> {
    /// The next index to hand on, the results waiting for it, and what was kept.
    state: Mutex<State<T, U>>,
    /// The next index to hand on, as of the last hand-on, read without the lock.
    wanted: AtomicUsize,
    in_order: &'a (dyn Fn(usize, T) -> U + Sync),
}

impl<'a, T, U> Ready<'a, T, U> {
    fn new(in_order: &'a (dyn Fn(usize, T) -> U + Sync)) -> Ready<'a, T, U> {
        Ready {
            state: Mutex::new((0, BTreeMap::new(), Vec::new())),
            wanted: AtomicUsize::new(0),
            in_order,
        }
    }

    /// The index the next hand-on waits for.
    fn wanted(&self) -> usize {
        self.wanted.load(Ordering::Acquire)
    }

    /// Takes every result of `held` and hands on those now in order.
    fn put(&self, held: &mut Vec<(usize, T)>) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.take(state, held);
    }

    /// [`Ready::put`] if no other thread is putting, else nothing.
    fn try_put(&self, held: &mut Vec<(usize, T)>) {
        match self.state.try_lock() {
            Ok(state) => self.take(state, held),
            Err(TryLockError::Poisoned(e)) => self.take(e.into_inner(), held),
            Err(TryLockError::WouldBlock) => {}
        }
    }

    fn take(&self, mut state: MutexGuard<'_, State<T, U>>, held: &mut Vec<(usize, T)>) {
        let (next, waiting, kept) = &mut *state;
        waiting.extend(held.drain(..));
        while let Some(ready) = waiting.remove(next) {
            kept.push((self.in_order)(*next, ready));
            *next += 1;
        }
        self.wanted.store(*next, Ordering::Release);
    }

    fn into_results(self, count: usize) -> Vec<U> {
        let (next, waiting, kept) = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        assert!(
            next == count && waiting.is_empty(),
            "every index was played"
        );
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use tabula_solver::nim::Nim;

    /// Plays `schedule` of Nim's built-in agents `lineup` on `setup`'s
    /// games, with no progress and no game log.
    fn play_nim<T: Send>(
        schedule: &Schedule,
        lineup: &[String],
        setup: &(dyn Fn(&Job) -> (u32, Nim) + Sync),
        seed: u64,
        each: EachGame<'_, Nim, T>,
    ) -> Vec<(Job, T)> {
        let make = |name: &str, rng| crate::nim::agent(name, rng).unwrap();
        let lineup = Lineup::new(lineup, &make);
        play_schedule(schedule, &lineup, setup, seed, &|_| {}, &|_: &str| {}, each)
    }

    #[test]
    fn results_are_handed_on_once_each_in_index_order() {
        // Early indices take the longest, so later ones tend to finish first.
        let play = |i: usize| (0..(200 - i) * 2000).fold(i as u64, |a, b| a ^ (b as u64));
        let seen = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let results = pool.install(|| {
            run_in_order(200, &|_| {}, play, &|i, r| {
                seen.lock().unwrap().push((i, r));
                r
            })
        });
        let expected: Vec<(usize, u64)> = results.iter().copied().enumerate().collect();
        assert_eq!(seen.into_inner().unwrap(), expected);
        assert_eq!(results, (0..200).map(play).collect::<Vec<_>>());
    }

    #[test]
    fn ready_hands_on_in_order_and_a_busy_ready_leaves_results_with_their_thread() {
        let seen = Mutex::new(Vec::new());
        let in_order = |i: usize, r: char| {
            seen.lock().unwrap().push(i);
            r.to_ascii_uppercase()
        };
        let ready = Ready::new(&in_order);
        let mut held = vec![(1, 'b'), (2, 'c')];
        ready.put(&mut held);
        assert!(held.is_empty());
        assert!(seen.lock().unwrap().is_empty(), "index 0 is not in yet");
        held.push((0, 'a'));
        {
            let _busy = ready.state.lock().unwrap();
            ready.try_put(&mut held);
        }
        assert_eq!(held, [(0, 'a')]);
        ready.try_put(&mut held);
        assert!(held.is_empty());
        assert_eq!(*seen.lock().unwrap(), [0, 1, 2]);
        ready.put(&mut vec![(3, 'd')]);
        assert_eq!(ready.into_results(4), ['A', 'B', 'C', 'D']);
    }

    #[test]
    fn a_schedule_writes_its_log_in_job_order_whatever_the_lifetime() {
        let heaps = [5u32, 8, 9];
        let lineup = ["random".to_string(), "optimal".to_string()];
        let make = |name: &str, rng| crate::nim::agent(name, rng).unwrap();
        let setup = |job: &Job| (heaps[job.case], Nim::new(heaps[job.case]));
        for lifetime in [Lifetime::Game, Lifetime::Case] {
            let schedule = Schedule {
                case_keys: numbered(3),
                games: 5,
                seats: 2,
                seatings: Seatings::Rotated,
                lifetime,
            };
            let written = Mutex::new(Vec::new());
            let each = |job: &Job, record: GameRecord<Nim>| Played {
                kept: record.scores.to_vec(),
                line: Some(format!("{job:?} {:?}", record.scores)),
            };
            let records = play_schedule(
                &schedule,
                &Lineup::new(&lineup, &make),
                &setup,
                7,
                &|_| {},
                &|line: &str| written.lock().unwrap().push(line.to_string()),
                &each,
            );
            let in_order: Vec<String> = records
                .iter()
                .map(|(job, scores)| format!("{job:?} {scores:?}"))
                .collect();
            assert_eq!(written.into_inner().unwrap(), in_order, "{lifetime:?}");
            let jobs: Vec<Job> = records.iter().map(|(job, _)| *job).collect();
            assert_eq!(jobs, schedule.jobs(), "{lifetime:?}");
        }
    }

    #[test]
    fn same_seed_same_results_in_order() {
        let play = |i: usize| {
            let mut r = numbered_stream(42, i as u64);
            (i, r.random_range(0..1_000_000u32))
        };
        let a = run(64, &|_| {}, play);
        let b = run(64, &|_| {}, play);
        assert_eq!(a, b);
        assert!(a.iter().enumerate().all(|(i, &(j, _))| i == j));
        // Different streams differ.
        assert_ne!(a[0].1, a[1].1);
        let c = run(64, &|_| {}, |i| {
            numbered_stream(43, i as u64).random_range(0..1_000_000u32)
        });
        assert_ne!(a.iter().map(|x| x.1).collect::<Vec<_>>(), c);
    }

    #[test]
    fn named_streams_differ_by_every_part_of_their_name() {
        let draw = |mut r: ChaCha8Rng| r.random::<u64>();
        let base = draw(stream(7, Purpose::Chance, 1, 2, 0));
        assert_eq!(base, draw(stream(7, Purpose::Chance, 1, 2, 0)));
        for other in [
            stream(8, Purpose::Chance, 1, 2, 0),
            stream(7, Purpose::Agent, 1, 2, 0),
            stream(7, Purpose::Chance, 2, 2, 0),
            stream(7, Purpose::Chance, 1, 3, 0),
            stream(7, Purpose::Chance, 1, 2, 1),
            // The parts are separated, so (12, 1) is not (1, 21).
            stream(7, Purpose::Chance, 12, 1, 0),
        ] {
            assert_ne!(base, draw(other));
        }
        assert_ne!(
            draw(stream(7, Purpose::Chance, 1, 21, 0)),
            draw(stream(7, Purpose::Chance, 12, 1, 0))
        );
    }

    #[test]
    fn a_case_plays_the_same_games_alone_as_beside_others_with_the_same_key() {
        let lineup = ["random".to_string(), "random".to_string()];
        let setup = |_: &Job| (21, Nim::new(21));
        let moves = |keys: Vec<u64>| -> Vec<(u64, Vec<String>)> {
            let schedule = Schedule {
                case_keys: keys,
                games: 6,
                seats: 2,
                seatings: Seatings::Rotated,
                lifetime: Lifetime::Case,
            };
            let moves = |_: &Job, r: GameRecord<Nim>| Played {
                kept: r
                    .plies
                    .iter()
                    .map(|p| format!("{:?}", p.mv))
                    .collect::<Vec<_>>(),
                line: None,
            };
            play_nim(&schedule, &lineup, &setup, 7, &moves)
                .into_iter()
                .map(|(job, moves)| (job.key, moves))
                .collect()
        };
        let beside = moves(vec![3, 9]);
        let alone = moves(vec![9]);
        let keyed_9: Vec<_> = beside.iter().filter(|(k, _)| *k == 9).cloned().collect();
        assert_eq!(alone, keyed_9);
        // Keyed by its place in the run, it would have met key 3's games.
        let games_of = |key: u64| -> Vec<Vec<String>> {
            beside
                .iter()
                .filter(|(k, _)| *k == key)
                .map(|(_, m)| m.clone())
                .collect()
        };
        assert_ne!(games_of(9), games_of(3));
    }

    #[test]
    fn rotated_schedules_seat_everyone_everywhere() {
        let schedule = Schedule {
            case_keys: numbered(2),
            games: 3,
            seats: 3,
            seatings: Seatings::Rotated,
            lifetime: Lifetime::Game,
        };
        let jobs = schedule.jobs();
        assert_eq!(jobs.len(), 18);
        for job in &jobs {
            let seating = job.seating(3);
            for player in 0..3 {
                assert_eq!(seating[job.seat_of(player, 3)], player);
            }
        }
        let fixed = Schedule {
            seatings: Seatings::Fixed,
            lifetime: Lifetime::Game,
            ..schedule
        };
        assert_eq!(fixed.jobs().len(), 6);
        assert!(fixed.jobs().iter().all(|j| j.seating(3) == vec![0, 1, 2]));
    }

    #[test]
    fn every_index_is_handed_on_once_in_order_whatever_the_threads_and_counts() {
        for threads in [1, 2, 8, 33] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                for count in [0usize, 1, 2, 3, 7, 65, 130, 1000] {
                    let seen = Mutex::new(Vec::new());
                    let r = run_in_order(count, &|_| {}, |i| i * 3, &|i, r| {
                        seen.lock().unwrap().push(i);
                        r + 1
                    });
                    assert_eq!(r, (0..count).map(|i| i * 3 + 1).collect::<Vec<_>>());
                    assert_eq!(seen.into_inner().unwrap(), (0..count).collect::<Vec<_>>());
                }
                let lineup = ["random".to_string(), "optimal".to_string()];
                let setup = |_: &Job| (7, Nim::new(7));
                for (cases, games, seatings) in [
                    (0, 5, Seatings::Rotated),
                    (3, 0, Seatings::Rotated),
                    (1, 1, Seatings::Fixed),
                    (5, 3, Seatings::Rotated),
                ] {
                    for lifetime in [Lifetime::Game, Lifetime::Case] {
                        let schedule = Schedule {
                            case_keys: numbered(cases),
                            games,
                            seats: 2,
                            seatings,
                            lifetime,
                        };
                        let each = |_: &Job, r: GameRecord<Nim>| Played {
                            kept: r.scores.to_vec(),
                            line: None,
                        };
                        let out = play_nim(&schedule, &lineup, &setup, 1, &each);
                        let jobs: Vec<Job> = out.iter().map(|(j, _)| *j).collect();
                        assert_eq!(jobs, schedule.jobs());
                    }
                }
            });
        }
    }

    #[test]
    fn a_thread_runs_one_loop_of_a_call_and_a_panic_in_it_ends_the_others() {
        let next = AtomicUsize::new(0);
        let outer = Looping::enter(&next, 10).unwrap();
        // A task of the same call, taken while this thread waits inside a game.
        assert!(Looping::enter(&next, 10).is_none());
        // Another call, made from inside a game, runs.
        let other = AtomicUsize::new(0);
        assert!(Looping::enter(&other, 5).is_some());
        drop(outer);
        assert!(Looping::enter(&next, 10).is_some());
        let failed = std::panic::catch_unwind(|| {
            let _looping = Looping::enter(&next, 10).unwrap();
            panic!("a game fails");
        });
        assert!(failed.is_err());
        assert_eq!(next.load(Ordering::Relaxed), 10, "no index left to take");
        assert_eq!(other.load(Ordering::Relaxed), 0);
        assert!(LOOPS.with_borrow(|loops| loops.is_empty()));
    }
}
