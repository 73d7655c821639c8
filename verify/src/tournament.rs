//! Seeded, parallel, reproducible runs of many games.

use std::sync::atomic::{AtomicUsize, Ordering};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// How a run reports progress: called with the number of games finished so far.
pub type Progress<'a> = &'a (dyn Fn(usize) + Sync);

/// The random stream of game `stream` of a run seeded with `seed`.
///
/// Each game draws from its own stream, so results do not depend on the order
/// in which threads happen to play the games.
pub fn rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Plays games `0..count` in parallel with `play` and returns the results in order.
pub fn run<T: Send>(
    count: usize,
    progress: Progress<'_>,
    play: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let done = AtomicUsize::new(0);
    (0..count)
        .into_par_iter()
        .map(|game| {
            let result = play(game);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
            result
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn same_seed_same_results_in_order() {
        let play = |i: usize| {
            let mut r = rng(42, i as u64);
            (i, r.random_range(0..1_000_000u32))
        };
        let a = run(64, &|_| {}, play);
        let b = run(64, &|_| {}, play);
        assert_eq!(a, b);
        assert!(a.iter().enumerate().all(|(i, &(j, _))| i == j));
        // Different streams differ.
        assert_ne!(a[0].1, a[1].1);
        let c = run(64, &|_| {}, |i| {
            rng(43, i as u64).random_range(0..1_000_000u32)
        });
        assert_ne!(a.iter().map(|x| x.1).collect::<Vec<_>>(), c);
    }
}
