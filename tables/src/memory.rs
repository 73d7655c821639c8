//! The memory available for new work: what a builder may hold in memory
//! rather than in a file's pages.

/// What sets the memory available for new work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// The machine's `MemAvailable`.
    System,
    /// This process's memory cgroup's limit.
    Cgroup,
    /// `ulimit -v`, with the limit in bytes.
    AddressSpace(u64),
}

/// The memory available for new work and what sets it.
#[derive(Clone, Copy, Debug)]
pub struct Room {
    /// The bytes available.
    pub bytes: u64,
    /// What sets them.
    pub limit: Limit,
}

/// The memory available for new work, in bytes, if the kernel says: its
/// `MemAvailable`, or less when this process's memory cgroup limit (as under
/// Slurm, or `docker --memory`) or address-space limit (`ulimit -v`) leaves less.
pub fn available_memory() -> Option<u64> {
    room().map(|room| room.bytes)
}

/// [`available_memory`] with what sets it.
pub fn room() -> Option<Room> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let available = line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024;
    let system = Room {
        bytes: available,
        limit: Limit::System,
    };
    let cgroup = cgroup_memory_limit().map(|limit| Room {
        bytes: limit,
        limit: Limit::Cgroup,
    });
    let address_space = address_space_left().map(|(left, limit)| Room {
        bytes: left,
        limit: Limit::AddressSpace(limit),
    });
    // The first of equal rooms: the machine's before a limit that says the same.
    [Some(system), cgroup, address_space]
        .into_iter()
        .flatten()
        .min_by_key(|room| room.bytes)
}

/// Address space that threads started after a check (a progress bar's
/// clock, rayon's workers) reserve first: each a stack and a malloc arena.
pub const THREADS_RESERVE: u64 = 128 << 20;

/// What `ulimit -v` leaves of this process's address space, and the limit,
/// if it sets one.
fn address_space_left() -> Option<(u64, u64)> {
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
    let left = limit.rlim_cur.saturating_sub(used + THREADS_RESERVE);
    Some((left, limit.rlim_cur))
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
