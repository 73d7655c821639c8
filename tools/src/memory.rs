//! Memory checks before large work: a build, a search's table, a run's
//! results. Work that cannot fit is refused in one line, instead of aborting
//! on allocation or being killed midway.

use anyhow::bail;
pub use tabula_tables::memory::available_memory;
use tabula_tables::memory::{Limit, THREADS_RESERVE, room};

/// Refuses work that needs `needed` bytes of memory when less is available
/// (see [`available_memory`]): the allocation would abort the process, or the
/// kernel would kill it midway. `what` names the work, `instead` what to do.
pub fn check_memory(needed: u64, what: &str, instead: &str) -> anyhow::Result<()> {
    let Some(room) = room() else {
        return Ok(());
    };
    if needed <= room.bytes {
        return Ok(());
    }
    let (available, needed) = (size(room.bytes), size(needed));
    match room.limit {
        Limit::System => {
            bail!("{what} needs at least {needed}, but {available} is available: {instead}")
        }
        Limit::Cgroup => bail!(
            "{what} needs at least {needed}, but the memory cgroup's limit is {available}: {instead}, or raise the limit"
        ),
        // Work of any size is refused when the limit is nearly all used.
        Limit::AddressSpace(limit) => bail!(
            "{what} needs at least {needed}, but the address-space limit (ulimit -v) of {} leaves {available} once tabula's own mappings and {} for its threads are counted: {instead}, or raise the limit",
            size(limit),
            size(THREADS_RESERVE)
        ),
    }
}

/// The progress bar of a run of `total` games, refused in one line when
/// keeping the results of the `held` of them played at once (one pairing's
/// in a round robin, else all) would not fit in memory (a large `--games`).
pub fn games_bar(total: usize, held: usize) -> anyhow::Result<indicatif::ProgressBar> {
    let needed = (held as u64).saturating_mul(tabula_verify::tournament::BYTES_PER_GAME);
    check_memory(needed, &format!("a run of {total} games"), "lower --games")?;
    Ok(crate::progress::bar(total, "games"))
}

/// A size in GiB, MiB or KiB (the largest below it), with one decimal.
fn size(bytes: u64) -> String {
    let (unit, name) = match bytes {
        b if b >= 1 << 30 => (1u64 << 30, "GiB"),
        b if b >= 1 << 20 => (1 << 20, "MiB"),
        _ => (1 << 10, "KiB"),
    };
    format!("{:.1} {name}", bytes as f64 / unit as f64)
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn sizes_name_the_largest_unit_below_them() {
        assert_eq!(size(0), "0.0 KiB");
        assert_eq!(size(6 * 1024), "6.0 KiB");
        assert_eq!(size(3 << 19), "1.5 MiB");
        assert_eq!(size(5 << 30), "5.0 GiB");
    }
}
