//! The distributed build with every member reading the whole table
//! ([`Keep::Whole`](super::Keep::Whole)): member 0 solves in the output's
//! temporary file, mapped; the members on its machine map the same file and
//! solve in it too; the others keep a copy in memory each.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU8;
use std::time::Duration;

use memmap2::MmapMut;
use tabula_solver::distributed::Exchange;
use tabula_solver::distributed::whole::{WholeSolved, solve_whole};
use tabula_solver::retrograde::{Progress, StateSpace};

use super::{
    Checkpoints, Copies, DistributedError, Resumed, Traffic, all_say, check_values,
    finish_member_0, finish_other_member, loaded_everywhere, open_snapshots,
};
use crate::format::{TableSpec, TemporaryTable, write_table_mapped_in};
use crate::shares::Shares;
use crate::sigbus::Guard;
use crate::typed::{Records, Tabulated};

/// Where a whole-table build keeps its copies.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Placing {
    /// Whether the members of member 0's machine solve in its copy.
    pub share_copy: bool,
    /// Whether the other members of one machine share a copy in memory.
    pub share_machine: bool,
    /// The memory available for a copy, as a test assumes it (`None`: as
    /// the kernel says).
    pub assume_available: Option<u64>,
    /// The fewest bytes of a table that member 0 solves in memory rather
    /// than in the output's file, when the machine has room for it twice.
    pub in_memory_from: usize,
}

impl Default for Placing {
    /// Shared, in memory from a gigabyte: the 6^12 ring's values (2.2 GB) on
    /// 2 ranks took 60 s in memory and 85 s in the file, whose pages the
    /// kernel wrote back while they were solved; 6^10 (181 MB) took 0.3 s
    /// longer in memory (the copy into the file), 6^11's values the same.
    fn default() -> Placing {
        Placing {
            share_copy: true,
            share_machine: true,
            assume_available: None,
            in_memory_from: 1 << 30,
        }
    }
}

/// [`super::build_distributed_as`] with [`Keep::Whole`](super::Keep::Whole),
/// the copies placed as `placing` says.
pub(super) fn build_whole<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    group: &impl Exchange,
    (progress, every, placing): (Progress<'_>, Duration, Placing),
) -> Result<Traffic, DistributedError> {
    let spec = records.spec(game);
    let timing = (progress, every);
    if group.rank() != 0 {
        let incoming = group.exchange(vec![Vec::new(); group.size()]);
        let Some(offer) = Offer::decode(&incoming[0]) else {
            return Err(DistributedError::NoOutput);
        };
        let len = spec.entries as usize * spec.layout.record_size();
        let member_0s = placing
            .share_copy
            .then(|| Copy::mapped(&offer, len))
            .flatten();
        let (copy, copies) = agree_on_copies(group, (member_0s, len), placing)?;
        let copy = copy.expect("a member other than 0 has a copy");
        let table = (copy.records(), &copies[..], offer.in_memory);
        let (traffic, shares) = solve((game, &spec), path, group, table, timing)?;
        // Unmapped before member 0 writes the file back: else every page it
        // cleans would be a TLB flush on this member's processor as well.
        drop(copy);
        group.exchange(vec![Vec::new(); group.size()]);
        return Ok(finish_other_member(group, traffic, shares));
    }
    check_values(group, &spec, path)?;
    let (mut started, mut solved) = (false, None);
    let description = records.description(game);
    let written = write_table_mapped_in(path, &spec, &description, |payload, temporary| {
        started = true;
        // In memory when it fits: the file's pages, written back while
        // they are solved, cost every rank a fault and a TLB flush a page.
        let memory = InMemory::for_member_0(payload.len(), placing.in_memory_from);
        let (records, offer) = match &memory {
            Some(memory) => (
                memory.records(),
                Offer::of(memory.place(), payload.len(), true),
            ),
            None => (payload, Offer::of(temporary, payload.len(), false)),
        };
        group.exchange(vec![offer.encode(); group.size()]);
        let (_, copies) = agree_on_copies(group, (None, payload.len()), placing)?;
        solved = Some(solve(
            (game, &spec),
            path,
            group,
            (records, &copies, memory.is_some()),
            timing,
        )?);
        // The others unmap member 0's copy before it is written back.
        group.exchange(vec![Vec::new(); group.size()]);
        if let Some(memory) = &memory {
            memory.copy_to(payload);
        }
        Ok::<(), DistributedError>(())
    });
    // A refusal ([0]) is the message the others read as no offer.
    finish_member_0(group, started, written, solved)
}

/// Opens this member's snapshots, agrees with the others on the layer to
/// go on from, loads it and solves `game` into `records` with the group
/// (member `m` in copy `copies[m]`), snapshotting as [`Checkpoints`] says.
/// The first member of each copy snapshots it whole; the others of the
/// copy keep empty snapshots, so that the group agrees as it does on shares.
fn solve<T: Tabulated>(
    (game, spec): (&T, &TableSpec),
    path: &Path,
    group: &impl Exchange,
    (records, copies, in_memory): (&[AtomicU8], &[usize], bool),
    (progress, every): (Progress<'_>, Duration),
) -> Result<(Traffic, Option<Shares>), DistributedError> {
    let space = game.space();
    let rank = group.rank();
    let keeper = copies.iter().position(|&c| c == copies[rank]) == Some(rank);
    let kept = if keeper { records } else { &[] };
    let Resumed {
        mut shares,
        layer: resumed,
        snapshots,
    } = open_snapshots(path, spec, group, kept.len() as u64)?;
    let loaded = match (resumed, &shares) {
        (Some(layer), Some(shares)) => shares.load_into(layer, kept).map(Some),
        _ => Ok(None),
    };
    let before = loaded_everywhere(group, loaded)?.unwrap_or(0);
    let mut checkpoints = Checkpoints::new(every, space.num_layers());
    let mut finished = |layer: usize, _: &[AtomicU8], done: u64| {
        if let Some(shares) = shares.as_mut().filter(|_| snapshots) {
            checkpoints.after((layer, bytes_of(kept), before + done), group, shares)
        }
    };
    // The bar goes on from where the snapshot left it.
    let progress = &|done| progress(before + done);
    let first_layer = resumed.map_or(0, |layer| layer + 1);
    let mask_bytes = usize::from(spec.layout.mask_bytes);
    let table = (records, mask_bytes, copies);
    let solved = solve_whole(
        &space,
        group,
        table,
        (first_layer, Some(&mut finished)),
        progress,
    )
    .map_err(|error| DistributedError::Solve {
        game: spec.game,
        error,
    })?;
    let mut traffic = traffic(game, &solved, (copies, in_memory));
    traffic.reused_layers = first_layer;
    Ok((traffic, shares))
}

/// The bytes of `records`, read for a snapshot while no member writes them
/// (the group is between two layers, and waits for the snapshot).
fn bytes_of(records: &[AtomicU8]) -> &[u8] {
    // SAFETY: AtomicU8 has the size, alignment and validity of u8, and no
    // thread writes these records while the view lives (see above).
    unsafe { &*(records as *const [AtomicU8] as *const [u8]) }
}

/// Where every member solves (collective): in member 0's copy when it
/// maps it (`member_0s`, of `len` bytes; member 0 passes `None`), else in
/// one copy a machine, a memfd that the first such member of the machine
/// makes and the others map (as `placing` says), else in a copy of its
/// own. Returns this member's copy (`None` for member 0) and the copy of
/// every member, numbered by the member that holds it; or, when a machine
/// that would hold a copy in memory has no room for it, stops every member.
fn agree_on_copies(
    group: &impl Exchange,
    (member_0s, len): (Option<Copy>, usize),
    placing: Placing,
) -> Result<(Option<Copy>, Vec<usize>), DistributedError> {
    let (rank, size) = (group.rank(), group.size());
    let in_0s = all_say(group, rank == 0 || member_0s.is_some());
    // A copy in memory that does not fit would end in the kernel killing a rank.
    let available = placing
        .assume_available
        .or_else(crate::memory::available_memory);
    let room = in_0s[rank] || available.is_none_or(|bytes| bytes >= len as u64);
    if let Some(member) = all_say(group, room).iter().position(|&ok| !ok) {
        return Err(match member == rank {
            true => DistributedError::NoRoom {
                needed: len as u64,
                available: available.unwrap_or(0),
            },
            false => DistributedError::PeerRoom { member },
        });
    }
    let machine = match in_0s[rank] || !placing.share_machine {
        true => Vec::new(),
        false => boot_id().unwrap_or_default(),
    };
    let machines = group.exchange(vec![machine; size]);
    // The first member of each machine outside member 0's copy leads it.
    let leader = |m: usize| match machines[m].is_empty() {
        true => m,
        false => (0..size).find(|&k| machines[k] == machines[m]).unwrap_or(m),
    };
    let followed = (0..size).any(|m| m != rank && !in_0s[m] && leader(m) == rank);
    let made = (!in_0s[rank] && followed)
        .then(|| InMemory::create(len))
        .flatten();
    let offer = made.as_ref().map_or_else(Vec::new, |memory| {
        Offer::of(memory.place(), len, true).encode()
    });
    let offers = group.exchange(vec![offer; size]);
    let (copy, holder) = match (rank, member_0s, made) {
        (0, _, _) => (None, 0),
        (_, Some(copy), _) => (Some(copy), 0),
        (_, None, Some(memory)) => (Some(Copy::Memory(memory)), rank),
        (_, None, None) => {
            let lead = leader(rank);
            let mapped = Offer::decode(&offers[lead]).and_then(|offer| Copy::mapped(&offer, len));
            match mapped {
                Some(copy) if lead != rank => (Some(copy), lead),
                _ => (Some(Copy::Own(zeroed(len))), rank),
            }
        }
    };
    let holders = group.exchange(vec![(holder as u64).to_le_bytes().to_vec(); size]);
    let copies = holders
        .iter()
        .map(|bytes| u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default()) as usize)
        .collect();
    Ok((copy, copies))
}

/// What the group sent, for the build's report.
fn traffic<T: Tabulated>(
    game: &T,
    solved: &WholeSolved,
    (copies, in_memory): (&[usize], bool),
) -> Traffic {
    let space = game.space();
    let with_member_0 = copies.iter().filter(|&&c| c == 0).count();
    let count = (0..copies.len()).filter(|&m| copies.contains(&m)).count();
    Traffic {
        solving: solved.sent,
        gathering: 0,
        states: space.len(),
        solve_time: solved.solving,
        exchange_time: (
            solved.exchanging.iter().min().copied().unwrap_or_default(),
            solved.exchanging.iter().max().copied().unwrap_or_default(),
        ),
        reused_layers: 0,
        layers: space.num_layers(),
        copies: Some(Copies {
            count,
            with_member_0,
            in_memory,
            listed: solved.listed,
        }),
    }
}

/// Member 0's file, as it offers it to the others: which machine it is on
/// (its kernel's boot id), where, which file exactly, and where its payload is.
#[derive(Debug, PartialEq, Eq)]
struct Offer {
    /// Whether member 0's copy is in memory (else in the output's file).
    in_memory: bool,
    boot_id: Vec<u8>,
    path: PathBuf,
    device: u64,
    inode: u64,
    payload_offset: u64,
    payload_len: u64,
}

impl Offer {
    /// The offer of member 0's copy at `temporary` (the output's file, or
    /// memory under a path of `/proc`).
    fn of(temporary: TemporaryTable<'_>, payload_len: usize, in_memory: bool) -> Offer {
        let (device, inode) = identity(temporary.path).unwrap_or_default();
        Offer {
            in_memory,
            boot_id: boot_id().unwrap_or_default(),
            path: temporary.path.to_path_buf(),
            device,
            inode,
            payload_offset: temporary.payload_offset,
            payload_len: payload_len as u64,
        }
    }

    /// A go (1), in memory or not, the four numbers, the boot id's length
    /// and bytes, the path.
    fn encode(&self) -> Vec<u8> {
        let mut bytes = vec![1, u8::from(self.in_memory)];
        for n in [
            self.device,
            self.inode,
            self.payload_offset,
            self.payload_len,
        ] {
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        bytes.extend_from_slice(&(self.boot_id.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&self.boot_id);
        bytes.extend_from_slice(self.path.as_os_str().as_encoded_bytes());
        bytes
    }

    /// `None`: member 0 could not start (it reports why).
    fn decode(bytes: &[u8]) -> Option<Offer> {
        let (&go, rest) = bytes.split_first()?;
        let (&in_memory, rest) = rest.split_first()?;
        if go != 1 || rest.len() < 40 {
            return None;
        }
        let number = |k: usize| u64::from_le_bytes(rest[8 * k..8 * k + 8].try_into().unwrap());
        let boot_len = usize::try_from(number(4)).ok()?;
        let (boot_id, path) = rest[40..].split_at_checked(boot_len)?;
        Some(Offer {
            in_memory: in_memory == 1,
            boot_id: boot_id.to_vec(),
            path: path_of(path),
            device: number(0),
            inode: number(1),
            payload_offset: number(2),
            payload_len: number(3),
        })
    }
}

/// The path of these bytes (member 0's `as_encoded_bytes`).
#[cfg(unix)]
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// Elsewhere no member shares member 0's file.
#[cfg(not(unix))]
fn path_of(_: &[u8]) -> PathBuf {
    PathBuf::new()
}

/// Whether every member of `group` runs on one machine (collective).
pub(super) fn one_machine(group: &impl Exchange) -> bool {
    let id = boot_id().unwrap_or_default();
    let heard = group.exchange(vec![id.clone(); group.size()]);
    !id.is_empty() && heard.iter().all(|other| *other == id)
}

/// This machine's kernel boot id: two processes that read the same one
/// share the page cache.
fn boot_id() -> Option<Vec<u8>> {
    std::fs::read("/proc/sys/kernel/random/boot_id").ok()
}

/// A file's device and inode.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &Path) -> Option<(u64, u64)> {
    None
}

/// Where a member other than 0 solves.
enum Copy {
    /// Member 0's file, mapped: on the same machine.
    Mapped {
        // Dropped before the map it guards.
        _guard: Guard,
        map: MmapMut,
        offset: usize,
        len: usize,
    },
    /// A copy in memory that other members of this machine map.
    Memory(InMemory),
    /// A copy of its own, in memory.
    Own(Vec<AtomicU8>),
}

impl Copy {
    /// Maps the copy `offer` names, when it is on this machine and is the
    /// file offered.
    fn mapped(offer: &Offer, len: usize) -> Option<Copy> {
        let same_machine = boot_id().is_some_and(|id| id == offer.boot_id);
        let same_file = identity(&offer.path) == Some((offer.device, offer.inode));
        if !same_machine || !same_file || offer.payload_len != len as u64 {
            return None;
        }
        let file: File = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&offer.path)
            .ok()?;
        let offset = usize::try_from(offer.payload_offset).ok()?;
        // SAFETY: member 0 created the file for this build and keeps it at its
        // length until the group has solved; should another program shrink it,
        // the guard turns the fault into an error line and exit status 2.
        let map = unsafe { MmapMut::map_mut(&file) }.ok()?;
        if map.len() < offset.checked_add(len)? {
            return None;
        }
        let message = format!(
            "error: {}: the table being built was truncated by another program\n",
            offer.path.display()
        );
        let guard = Guard::register(map.as_ptr(), map.len(), message).ok()?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        Some(Copy::Mapped {
            map,
            _guard: guard,
            offset,
            len,
        })
    }

    fn records(&self) -> &[AtomicU8] {
        match self {
            Copy::Mapped {
                map, offset, len, ..
            } => {
                let bytes = &map[*offset..*offset + *len];
                // SAFETY: AtomicU8 has the size, alignment and validity of u8,
                // and the bytes are reached only through this view while solving.
                unsafe { &*(bytes as *const [u8] as *const [AtomicU8]) }
            }
            Copy::Memory(memory) => memory.records(),
            Copy::Own(records) => records,
        }
    }
}

/// A copy of the table in memory that other processes of its machine can
/// map: a `memfd`, which they open under `/proc/PID/fd/N`.
struct InMemory {
    map: MmapMut,
    path: PathBuf,
    // Closed after the map is gone.
    _file: File,
}

impl InMemory {
    /// Member 0's copy of a table of `len` bytes, when `len` is at least
    /// `from` and the machine has room for it and the output's pages
    /// besides (`None`: solve in the output's file).
    fn for_member_0(len: usize, from: usize) -> Option<InMemory> {
        let room = crate::memory::available_memory()?;
        (len >= from && room / 2 >= len as u64)
            .then(|| InMemory::create(len))
            .flatten()
    }

    /// A zeroed copy of `len` bytes (`None` when the machine cannot hold it).
    #[cfg(target_os = "linux")]
    fn create(len: usize) -> Option<InMemory> {
        use std::os::fd::{AsRawFd, FromRawFd};
        // SAFETY: a plain system call with a nul-terminated name; the
        // descriptor it returns is ours alone, and owned by the File below.
        let fd = unsafe { libc::memfd_create(c"tabula-table".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` is a new open descriptor that nothing else owns.
        let file = unsafe { File::from_raw_fd(fd) };
        // Reserved now: a copy the machine cannot hold fails here, not with a fault later.
        crate::atomic::allocate(&file, len as u64).ok()?;
        // SAFETY: the memfd is ours; the processes that map it too keep it at its length.
        let map = unsafe { MmapMut::map_mut(&file) }.ok()?;
        let path = PathBuf::from(format!(
            "/proc/{}/fd/{}",
            std::process::id(),
            file.as_raw_fd()
        ));
        Some(InMemory {
            map,
            path,
            _file: file,
        })
    }

    /// Elsewhere member 0 solves in the output's file, the others each in their own.
    #[cfg(not(target_os = "linux"))]
    fn create(_: usize) -> Option<InMemory> {
        None
    }

    fn records(&self) -> &[AtomicU8] {
        let bytes: &[u8] = &self.map;
        // SAFETY: AtomicU8 has the size, alignment and validity of u8, and the
        // bytes are reached only through this view while solving.
        unsafe { &*(bytes as *const [u8] as *const [AtomicU8]) }
    }

    fn place(&self) -> TemporaryTable<'_> {
        TemporaryTable {
            path: &self.path,
            payload_offset: 0,
        }
    }

    /// Copies the solved table into the output's payload, a piece a thread.
    fn copy_to(&self, payload: &[AtomicU8]) {
        use rayon::prelude::*;
        const PIECE: usize = 16 << 20;
        let (from, to) = (&self.map[..], payload);
        from.par_chunks(PIECE)
            .zip(to.par_chunks(PIECE))
            .for_each(|(from, to)| {
                // SAFETY: the pieces have the same length, `to` is reached by no
                // one else while the table is copied (every rank has solved),
                // and AtomicU8 is a u8 in memory.
                unsafe {
                    std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_ptr() as *mut u8, from.len())
                }
            });
    }
}

/// `len` zero bytes as atomics, from the allocator's zeroed pages (no pass
/// over them: the pages are made as the solve first touches them).
fn zeroed(len: usize) -> Vec<AtomicU8> {
    let mut bytes = std::mem::ManuallyDrop::new(vec![0u8; len]);
    let (ptr, len, capacity) = (bytes.as_mut_ptr(), bytes.len(), bytes.capacity());
    // SAFETY: AtomicU8 has the size, alignment and validity of u8, so the
    // allocation of `capacity` u8s is one of `capacity` AtomicU8s, and the
    // `len` first are initialised; `bytes` is never used or dropped again.
    unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU8>(), len, capacity) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offer_reads_back_as_sent_and_a_refusal_as_none() {
        let offer = Offer {
            in_memory: true,
            boot_id: b"1234-abcd\n".to_vec(),
            path: PathBuf::from("/tmp/dir with space/.tabula-x.tab"),
            device: 7,
            inode: 1 << 40,
            payload_offset: 4096,
            payload_len: 60_466_176,
        };
        assert_eq!(Offer::decode(&offer.encode()), Some(offer));
        assert_eq!(Offer::decode(&[0]), None);
        assert_eq!(Offer::decode(&[]), None);
        assert_eq!(Offer::decode(&[1, 0, 2, 3]), None);
    }
}
