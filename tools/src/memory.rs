//! Memory checks before large work: a build, a search's table, a run's
//! results. Work that cannot fit is refused in one line, instead of aborting
//! on allocation or being killed midway.

use anyhow::bail;

/// Refuses work that needs `needed` bytes of memory when less is available
/// (see [`available_memory`]): the allocation would abort the process, or the
/// kernel would kill it midway. `what` names the work, `instead` what to do.
pub fn check_memory(needed: u64, what: &str, instead: &str) -> anyhow::Result<()> {
    match available_memory() {
        Some(available) if needed > available => bail!(
            "{what} needs at least {}, but {} is available: {instead}",
            size(needed),
            size(available)
        ),
        _ => Ok(()),
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

/// A size in GiB, or in MiB below 1 GiB, with one decimal.
fn size(bytes: u64) -> String {
    match bytes >= 1 << 30 {
        true => format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30)),
        false => format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20)),
    }
}

/// The memory available for new work, in bytes, if the kernel says: its
/// `MemAvailable`, or less when this process's memory cgroup limit (as under
/// Slurm, or `docker --memory`) or address-space limit (`ulimit -v`) leaves less.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let available = line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024;
    let limits = [cgroup_memory_limit(), address_space_left()];
    Some(limits.into_iter().flatten().fold(available, u64::min))
}

/// What `ulimit -v` leaves of this process's address space, if it sets a limit.
fn address_space_left() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let used = line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024;
    // Threads started after the check (a progress bar's clock, rayon's workers)
    // each reserve a stack and a malloc arena of address space first.
    const THREADS_RESERVE: u64 = 128 << 20;
    Some(limit.rlim_cur.saturating_sub(used + THREADS_RESERVE))
}

/// This process's memory cgroup limit (cgroup v2 `memory.max`, or v1
/// `memory.limit_in_bytes`), if it has one.
fn cgroup_memory_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    groups.lines().filter_map(limit_file).find_map(|file| {
        let text = std::fs::read_to_string(file).ok()?;
        // "max" (v2) and v1's huge "no limit" value both mean no limit.
        text.trim()
            .parse::<u64>()
            .ok()
            .filter(|&bytes| bytes < 1 << 60)
    })
}

/// The file holding the memory limit of the cgroup named by a line of
/// `/proc/self/cgroup` ("ID:CONTROLLERS:PATH"), if the line names one.
fn limit_file(line: &str) -> Option<String> {
    let mut fields = line.splitn(3, ':');
    let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
    match controllers {
        "" => Some(format!("/sys/fs/cgroup{path}/memory.max")),
        c if c.split(',').any(|c| c == "memory") => {
            Some(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::limit_file;

    #[test]
    fn cgroup_lines_name_their_memory_limit_files() {
        assert_eq!(
            limit_file("0::/user.slice/job_42").as_deref(),
            Some("/sys/fs/cgroup/user.slice/job_42/memory.max")
        );
        assert_eq!(
            limit_file("4:memory:/slurm/uid_0/job_7").as_deref(),
            Some("/sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes")
        );
        assert_eq!(
            limit_file("7:cpuacct,memory:/a").as_deref(),
            Some("/sys/fs/cgroup/memory/a/memory.limit_in_bytes")
        );
        assert_eq!(limit_file("3:cpuset:/"), None);
        assert_eq!(limit_file("garbage"), None);
    }
}
