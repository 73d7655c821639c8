//! Before writing a table: does the file system have room for it?
//!
//! A build that would fill the disk, or make a file larger than the file
//! system (or `ulimit -f`) allows, is refused at once in one line, before any
//! file is created or any work is done, instead of failing hours later with
//! `No space left on device` or `File too large (os error 27)`.

use std::io;
use std::path::Path;

/// Test-only: when set to a number of bytes, it replaces the free space the
/// file system reports, so that tests can provoke the refusal without filling a disk.
pub const FREE_BYTES_OVERRIDE: &str = "TABULA_TEST_FREE_BYTES";

/// Checks that a file of `len` bytes can be written at `path`: the free space
/// of its directory's file system, the largest file that file system holds,
/// and the process's file-size limit. Errors do not name `path` (callers add
/// it); they name the directory. Where the system cannot say, the check passes.
pub fn check_room(path: &Path, len: u64) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if let Some(largest) = largest_file(dir)
        && len > largest
    {
        return Err(io::Error::other(format!(
            "the table needs {}, more than the largest file allowed in {} ({})",
            bytes(len),
            dir.display(),
            bytes(largest)
        )));
    }
    if let Some(free) = free_bytes(dir)
        && len > free
    {
        return Err(io::Error::other(format!(
            "the table needs {}, {} free on {}",
            bytes(len),
            bytes(free),
            dir.display()
        )));
    }
    Ok(())
}

/// Explains an `EFBIG` from creating a file of `len` bytes at `path` (a file
/// system's limit that `pathconf` does not report, as on ext4); other errors pass unchanged.
pub fn explain_too_large(path: &Path, len: u64, error: io::Error) -> io::Error {
    if error.raw_os_error() != Some(libc::EFBIG) {
        return error;
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    io::Error::other(format!(
        "the table needs {}, more than the largest file allowed in {}",
        bytes(len),
        dir.display()
    ))
}

/// The bytes an unprivileged process may still write in `dir`'s file system.
// The statvfs fields are u64 on some targets only.
#[allow(clippy::unnecessary_cast)]
fn free_bytes(dir: &Path) -> Option<u64> {
    if let Ok(text) = std::env::var(FREE_BYTES_OVERRIDE) {
        return text.trim().parse().ok();
    }
    statvfs(dir).map(|s| (s.f_bavail as u64).saturating_mul(s.f_frsize as u64))
}

/// The largest file `dir`'s file system and the `ulimit -f` limit allow.
// rlim_t is u64 on some targets only.
#[allow(clippy::unnecessary_cast)]
fn largest_file(dir: &Path) -> Option<u64> {
    let mut largest: Option<u64> = None;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a plain system call reading a NUL-terminated path.
        let bits = unsafe { libc::pathconf(name.as_ptr(), libc::_PC_FILESIZEBITS) };
        // A signed offset of `bits` bits: 2^(bits-1) - 1 bytes at most.
        if (2..64).contains(&bits) {
            largest = Some((1u64 << (bits - 1)) - 1);
        }
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct we pass and nothing else.
        if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            let cur = limit.rlim_cur as u64;
            largest = Some(largest.map_or(cur, |l| l.min(cur)));
        }
    }
    largest
}

#[cfg(unix)]
fn statvfs(dir: &Path) -> Option<libc::statvfs> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: all-zero bytes are a valid statvfs (plain integers).
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: statvfs reads the NUL-terminated path and writes only `stat`.
    (unsafe { libc::statvfs(name.as_ptr(), &mut stat) } == 0).then_some(stat)
}

#[cfg(not(unix))]
fn statvfs(_dir: &Path) -> Option<()> {
    None
}

/// A size for people: bytes below a kilobyte, else kB, MB, GB or TB (powers of 1000).
pub fn bytes(n: u64) -> String {
    const UNITS: [(&str, f64); 4] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (unit, size) in UNITS {
        if n as f64 >= size {
            return format!("{:.1} {unit}", n as f64 / size);
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_the_largest_unit_that_fits() {
        assert_eq!(bytes(999), "999 bytes");
        assert_eq!(bytes(61_234_000_000), "61.2 GB");
        assert_eq!(bytes(12_400_000_000), "12.4 GB");
        assert_eq!(bytes(1_500), "1.5 kB");
    }

    #[test]
    fn a_small_file_fits_where_a_huge_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tab");
        check_room(&path, 4096).unwrap();
        let error = check_room(&path, u64::MAX / 2).unwrap_err().to_string();
        assert!(
            error.starts_with("the table needs 9223372.0 TB, "),
            "{error}"
        );
    }
}
