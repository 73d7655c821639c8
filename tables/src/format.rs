//! The table file: header layout, writer and checked reader.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `TABULA\0\x1a` |
//! | 8 | 4 | format version (u32, currently 1) |
//! | 12 | 4 | header size (u32, 128) |
//! | 16 | 16 | game name, ASCII, NUL-padded |
//! | 32 | 16 | game parameters, 4 × u32 (meaning per game) |
//! | 48 | 1 | value bytes per record (1 or 2, signed) |
//! | 49 | 1 | move-mask bytes per record (0, 1, 2, 4 or 8) |
//! | 50 | 6 | reserved, zero |
//! | 56 | 8 | entry count (u64) |
//! | 64 | 8 | metadata offset (u64, 128) |
//! | 72 | 8 | metadata length (u64) |
//! | 80 | 8 | payload offset (u64, a multiple of 4096) |
//! | 88 | 8 | payload length (u64, entry count × record size) |
//! | 96 | 8 | xxh3-64 of the metadata |
//! | 104 | 8 | xxh3-64 of the payload |
//! | 112 | 8 | reserved, zero |
//! | 120 | 8 | xxh3-64 of header bytes 0..120 |
//!
//! Record `i` sits at `payload offset + i × record size`: the value (signed,
//! little-endian) followed by the optimal-move mask (little-endian). The bytes
//! between the end of the metadata and the payload are zero.
//!
//! # Opening, and files that change
//!
//! Every open reads and checks the 128-byte header first, including the sizes
//! it declares against the file's length, so a file that is not a table (or
//! is far longer than its header says) is refused without reading the rest.
//! Then the metadata, the padding and both checksums are checked.
//!
//! [`Table::open`] reads files up to [`READ_LIMIT`] bytes into memory (the
//! IOI, PseudoTonga and Dominoes tables, and the smaller variants), so a table file changed or
//! truncated afterwards cannot affect a running command. Larger files are
//! memory-mapped ([`Table::map`]). A mapped table is registered with a SIGBUS
//! handler: if the file shrinks while mapped, the next lookup past its new end
//! ends the process with one line on stderr, `error: <file>: table file changed
//! or truncated while in use`, and exit status 2, never with a signal. A mapped
//! file rewritten in place (not truncated) is not detected after opening; its
//! lookups may return other records' bytes. tabula's own writers never do
//! that: they write a new file and rename it into place ([`crate::atomic`]),
//! which leaves existing mappings of the old file intact.

use std::fs::{self, File};
use std::io::{self, Read};
use std::ops::{Range, RangeInclusive};
use std::path::{Path, PathBuf};

use std::sync::atomic::AtomicU8;

use memmap2::{Mmap, MmapMut, UncheckedAdvice};

use crate::sigbus::Guard;
use serde::{Deserialize, Serialize};
use tabula_solver::retrograde::{Release, Solution};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The eight bytes every table starts with.
pub const MAGIC: [u8; 8] = *b"TABULA\0\x1a";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Size of the fixed header.
pub const HEADER_SIZE: usize = 128;
/// Payload alignment, so that a mapped payload starts on a page.
pub const PAYLOAD_ALIGN: u64 = 4096;
const GAME_NAME_LEN: usize = 16;
/// Files up to this size are read into memory by [`Table::open`]; larger ones are mapped.
pub const READ_LIMIT: u64 = 256 << 20;

/// Problems with a table file; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be opened, read or written.
    ///
    /// The message includes the OS error, so it is not also given as `source()`:
    /// an error chain printed whole shows it once.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        error: io::Error,
    },
    /// The path is a directory.
    #[error("{}: is a directory, not a table file", path.display())]
    Directory {
        /// The path.
        path: PathBuf,
    },
    /// The file is empty.
    #[error("{}: empty file, not a table", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file does not start with the tabula magic.
    #[error("{}: not a tabula table (wrong magic)", path.display())]
    WrongMagic {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by a newer format version.
    #[error("{}: format version {found} is not supported (this build reads version {FORMAT_VERSION})", path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The file is shorter than its header says.
    #[error("{}: truncated: {what}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What is missing.
        what: String,
    },
    /// A field or checksum does not match.
    #[error("{}: corrupted: {what}", path.display())]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// Which field or checksum is wrong.
        what: String,
    },
    /// The table is for another game or other parameters.
    #[error("{}: table is for {found}, expected {expected}", path.display())]
    WrongGame {
        /// The file.
        path: PathBuf,
        /// The game and parameters in the file.
        found: String,
        /// The game and parameters the command needs.
        expected: String,
    },
    /// A record holds something the game cannot have (see [`RecordBounds`]).
    #[error("{}: corrupted: record {index}: {problem}", path.display())]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// The record's index.
        index: u64,
        /// What is impossible about it.
        problem: String,
    },
}

impl TableError {
    pub(crate) fn io(path: &Path, error: io::Error) -> TableError {
        TableError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// What a game allows in its records; [`Table::checked_record`] refuses the rest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordBounds {
    /// The values a position can have.
    pub values: RangeInclusive<i16>,
    /// Number of move slots: mask bits at or above it are impossible (64 allows all).
    pub move_slots: u32,
}

/// One decoded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The stored value.
    pub value: i16,
    /// The stored optimal-move mask (0 when the layout has none).
    pub best: u64,
}

/// How one record is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Bytes of the signed value (1 or 2).
    pub value_bytes: u8,
    /// Bytes of the optimal-move mask (0, 1, 2, 4 or 8).
    pub mask_bytes: u8,
}

/// In words: "1-byte values and 2-byte move masks", or "1-byte values only".
impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.mask_bytes {
            0 => write!(f, "{}-byte values only", self.value_bytes),
            m => write!(
                f,
                "{}-byte values and {m}-byte move masks",
                self.value_bytes
            ),
        }
    }
}

impl Layout {
    /// Bytes per record.
    pub fn record_size(self) -> usize {
        usize::from(self.value_bytes) + usize::from(self.mask_bytes)
    }

    fn is_valid(self) -> bool {
        matches!(self.value_bytes, 1 | 2) && matches!(self.mask_bytes, 0 | 1 | 2 | 4 | 8)
    }
}

/// What a game's table is: name, parameters, record layout and entry count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSpec {
    /// Game name (at most 16 ASCII bytes).
    pub game: &'static str,
    /// Game parameters, meaning per game; unused ones are 0.
    pub params: [u32; 4],
    /// Record layout.
    pub layout: Layout,
    /// Number of records (the size of the game's index space).
    pub entries: u64,
}

impl TableSpec {
    fn describe(&self) -> String {
        describe(self.game, self.params)
    }

    /// The same table with values only: no move masks (readers derive the
    /// optimal moves from the children's values).
    pub fn values_only(self) -> TableSpec {
        TableSpec {
            layout: Layout {
                mask_bytes: 0,
                ..self.layout
            },
            ..self
        }
    }
}

impl Header {
    /// Fails unless the header of the file at `path` names the game and
    /// parameters of `spec`, and the entries and layout that they need (a
    /// header that lies about its own contents is a corrupted file): what
    /// every verb checks before it reads a board with the header's variant.
    pub fn expect(&self, spec: &TableSpec, path: &Path) -> Result<(), TableError> {
        if self.game != spec.game || self.params != spec.params {
            return Err(TableError::WrongGame {
                path: path.to_path_buf(),
                found: describe(&self.game, self.params),
                expected: spec.describe(),
            });
        }
        let layout_ok = self.layout == spec.layout || self.layout == spec.values_only().layout;
        if !layout_ok || self.entries != spec.entries {
            return Err(TableError::Corrupted {
                path: path.to_path_buf(),
                what: format!(
                    "{} entries of {}, the game needs {} entries of {} (or of {})",
                    self.entries,
                    self.layout,
                    spec.entries,
                    spec.layout,
                    spec.values_only().layout
                ),
            });
        }
        Ok(())
    }
}

fn describe(game: &str, params: [u32; 4]) -> String {
    format!("'{game}' with parameters {params:?}")
}

/// Free-form facts about a table, stored postcard-encoded after the header.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Meta {
    /// The program that wrote the table.
    pub generator: String,
    /// What the values and masks mean.
    pub description: String,
}

/// The decoded fixed header of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u32,
    /// Game name.
    pub game: String,
    /// Game parameters.
    pub params: [u32; 4],
    /// Record layout.
    pub layout: Layout,
    /// Number of records.
    pub entries: u64,
    /// Metadata offset and length.
    pub meta_range: (u64, u64),
    /// Payload offset and length.
    pub payload_range: (u64, u64),
    /// xxh3-64 of the metadata.
    pub meta_hash: u64,
    /// xxh3-64 of the payload.
    pub payload_hash: u64,
    /// xxh3-64 of the header bytes before it.
    pub header_hash: u64,
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

impl Header {
    fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut out = [0u8; HEADER_SIZE];
        out[0..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&self.version.to_le_bytes());
        out[12..16].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        out[16..16 + self.game.len()].copy_from_slice(self.game.as_bytes());
        for (i, param) in self.params.iter().enumerate() {
            out[32 + 4 * i..36 + 4 * i].copy_from_slice(&param.to_le_bytes());
        }
        out[48] = self.layout.value_bytes;
        out[49] = self.layout.mask_bytes;
        out[56..64].copy_from_slice(&self.entries.to_le_bytes());
        out[64..72].copy_from_slice(&self.meta_range.0.to_le_bytes());
        out[72..80].copy_from_slice(&self.meta_range.1.to_le_bytes());
        out[80..88].copy_from_slice(&self.payload_range.0.to_le_bytes());
        out[88..96].copy_from_slice(&self.payload_range.1.to_le_bytes());
        out[96..104].copy_from_slice(&self.meta_hash.to_le_bytes());
        out[104..112].copy_from_slice(&self.payload_hash.to_le_bytes());
        let header_hash = xxh3_64(&out[..120]);
        out[120..128].copy_from_slice(&header_hash.to_le_bytes());
        out
    }

    /// Decodes and checks a header against the file's length.
    fn decode(bytes: &[u8], file_len: u64, path: &Path) -> Result<Header, TableError> {
        let (version, header_hash) = check_envelope(bytes, path)?;
        let game = game_name(&bytes[16..16 + GAME_NAME_LEN])
            .ok_or_else(|| corrupted(path, "game name is not NUL-padded ASCII".into()))?;
        let params = [
            le_u32(bytes, 32),
            le_u32(bytes, 36),
            le_u32(bytes, 40),
            le_u32(bytes, 44),
        ];
        let layout = Layout {
            value_bytes: bytes[48],
            mask_bytes: bytes[49],
        };
        if !layout.is_valid() {
            return Err(corrupted(
                path,
                format!(
                    "record layout ({} value bytes, {} mask bytes)",
                    layout.value_bytes, layout.mask_bytes
                ),
            ));
        }
        if bytes[50..56]
            .iter()
            .chain(&bytes[112..120])
            .any(|&b| b != 0)
        {
            return Err(corrupted(path, "reserved header bytes are not zero".into()));
        }
        let header = Header {
            version,
            game,
            params,
            layout,
            entries: le_u64(bytes, 56),
            meta_range: (le_u64(bytes, 64), le_u64(bytes, 72)),
            payload_range: (le_u64(bytes, 80), le_u64(bytes, 88)),
            meta_hash: le_u64(bytes, 96),
            payload_hash: le_u64(bytes, 104),
            header_hash,
        };
        header.check_ranges(file_len, path)?;
        Ok(header)
    }

    /// Checks that the metadata and the payload follow the header in order,
    /// that the payload holds exactly the entries, and that the file ends with it.
    fn check_ranges(&self, file_len: u64, path: &Path) -> Result<(), TableError> {
        let (meta_offset, meta_len) = self.meta_range;
        let (payload_offset, payload_len) = self.payload_range;
        if meta_offset != HEADER_SIZE as u64 {
            return Err(corrupted(path, format!("metadata offset {meta_offset}")));
        }
        let meta_end = meta_offset
            .checked_add(meta_len)
            .ok_or_else(|| corrupted(path, "metadata length overflows".into()))?;
        if payload_offset % PAYLOAD_ALIGN != 0 || payload_offset < meta_end {
            return Err(corrupted(path, format!("payload offset {payload_offset}")));
        }
        let record_size = self.layout.record_size();
        if self.entries.checked_mul(record_size as u64) != Some(payload_len) {
            return Err(corrupted(
                path,
                format!(
                    "payload length {payload_len} does not match {} entries of {record_size} bytes",
                    self.entries
                ),
            ));
        }
        let end = payload_offset
            .checked_add(payload_len)
            .ok_or_else(|| corrupted(path, "payload length overflows".into()))?;
        if file_len < end {
            return Err(TableError::Truncated {
                path: path.to_path_buf(),
                what: format!("{file_len} bytes, the header promises {end}"),
            });
        }
        if file_len > end {
            return Err(corrupted(
                path,
                format!("{} trailing bytes after the payload", file_len - end),
            ));
        }
        Ok(())
    }
}

/// The table at `path` is damaged: `what` says where.
fn corrupted(path: &Path, what: String) -> TableError {
    TableError::Corrupted {
        path: path.to_path_buf(),
        what,
    }
}

/// Checks what a header must show before its fields are read: the magic, the
/// length, the checksum, the format version and the header size. Returns the
/// version and the header's checksum.
fn check_envelope(bytes: &[u8], path: &Path) -> Result<(u32, u64), TableError> {
    if bytes.is_empty() {
        return Err(TableError::Empty {
            path: path.to_path_buf(),
        });
    }
    if bytes.len() < MAGIC.len() || bytes[..8] != MAGIC {
        return Err(TableError::WrongMagic {
            path: path.to_path_buf(),
        });
    }
    if bytes.len() < HEADER_SIZE {
        return Err(TableError::Truncated {
            path: path.to_path_buf(),
            what: format!("{} bytes, the header alone is {HEADER_SIZE}", bytes.len()),
        });
    }
    let header_hash = le_u64(bytes, 120);
    if xxh3_64(&bytes[..120]) != header_hash {
        // Checked before the version so that a flipped version byte reads as damage.
        return Err(corrupted(path, "header checksum mismatch".into()));
    }
    let version = le_u32(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(TableError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    if le_u32(bytes, 12) as usize != HEADER_SIZE {
        return Err(corrupted(
            path,
            format!("header size {}", le_u32(bytes, 12)),
        ));
    }
    Ok((version, header_hash))
}

/// The game's name from its NUL-padded field: printable ASCII, not empty,
/// nothing but NULs after it; `None` otherwise.
fn game_name(field: &[u8]) -> Option<String> {
    let len = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    std::str::from_utf8(&field[..len])
        .ok()
        .filter(|name| !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()))
        .filter(|_| field[len..].iter().all(|&b| b == 0))
        .map(str::to_string)
}

/// Encodes a solution's values and masks as records of `layout`.
///
/// Panics if a value or mask does not fit the layout: that is a builder bug.
pub fn encode_records(solution: &Solution, layout: Layout) -> Vec<u8> {
    let mut out = Vec::with_capacity(solution.values.len() * layout.record_size());
    for (&value, &mask) in solution.values.iter().zip(&solution.best) {
        match layout.value_bytes {
            1 => out.push(i8::try_from(value).expect("value fits in one byte") as u8),
            _ => out.extend_from_slice(&value.to_le_bytes()),
        }
        let mask_bytes = usize::from(layout.mask_bytes);
        // No mask bytes: a table of values only.
        assert!(
            mask_bytes == 0 || mask_bytes == 8 || mask >> (8 * mask_bytes) == 0,
            "move mask fits the layout"
        );
        out.extend_from_slice(&mask.to_le_bytes()[..mask_bytes]);
    }
    out
}

/// The header of a table of `spec` with this metadata (payload hash 0, to be
/// filled in) and the encoded metadata.
pub(crate) fn plan(spec: &TableSpec, meta: &Meta) -> (Header, Vec<u8>) {
    assert!(spec.game.len() <= GAME_NAME_LEN && spec.game.is_ascii());
    assert!(spec.layout.is_valid());
    let meta_bytes = postcard::to_allocvec(meta).expect("metadata serializes");
    let meta_end = (HEADER_SIZE + meta_bytes.len()) as u64;
    let payload_offset = meta_end.div_ceil(PAYLOAD_ALIGN) * PAYLOAD_ALIGN;
    let header = Header {
        version: FORMAT_VERSION,
        game: spec.game.to_string(),
        params: spec.params,
        layout: spec.layout,
        entries: spec.entries,
        meta_range: (HEADER_SIZE as u64, meta_bytes.len() as u64),
        payload_range: (
            payload_offset,
            spec.entries * spec.layout.record_size() as u64,
        ),
        meta_hash: xxh3_64(&meta_bytes),
        payload_hash: 0,
        header_hash: 0,
    };
    (header, meta_bytes)
}

/// Builds the complete file image of a table.
pub fn table_bytes(spec: &TableSpec, meta: &Meta, payload: &[u8]) -> Vec<u8> {
    let (mut header, meta_bytes) = plan(spec, meta);
    assert_eq!(payload.len() as u64, header.payload_range.1);
    header.payload_hash = xxh3_64(payload);
    let payload_offset = header.payload_range.0 as usize;
    let mut out = Vec::with_capacity(payload_offset + payload.len());
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(&meta_bytes);
    out.resize(payload_offset, 0);
    out.extend_from_slice(payload);
    out
}

/// Writes a table whose payload `fill` writes in place, in a memory map of
/// the new file: the file is created at its final size (a temporary file
/// beside `path`, renamed into place at the end as [`write_table`] does), its
/// payload handed to `fill` as zeroed bytes that threads may share, then the
/// checksums and header are written. Only the pages `fill` touches live in
/// memory, and the kernel writes them back as it needs; `fill` may also hand
/// ranges of the payload it has finished to its second argument, which writes
/// them to the file and drops their pages at once.
pub fn write_table_mapped<E>(
    path: &Path,
    spec: &TableSpec,
    description: &str,
    fill: impl FnOnce(&[AtomicU8], Release<'_>) -> Result<(), E>,
) -> Result<Result<(), E>, TableError> {
    write_mapped(path, spec, description, |payload, mapped, _| {
        fill(payload, &|range| mapped.release(range))
    })
}

/// Where [`write_table_mapped_in`] solves: the temporary file that becomes
/// the table, and its payload's place in it, so that other processes of
/// this machine can map the same pages.
#[derive(Clone, Copy, Debug)]
pub struct TemporaryTable<'a> {
    /// The temporary file's path.
    pub path: &'a Path,
    /// Where the payload starts in it.
    pub payload_offset: u64,
}

/// [`write_table_mapped`], telling `fill` of the temporary file it fills.
pub fn write_table_mapped_in<E>(
    path: &Path,
    spec: &TableSpec,
    description: &str,
    fill: impl FnOnce(&[AtomicU8], TemporaryTable<'_>) -> Result<(), E>,
) -> Result<Result<(), E>, TableError> {
    write_mapped(path, spec, description, |payload, _, temporary| {
        fill(payload, temporary)
    })
}

/// Both of the above: a temporary file of the table's length, mapped and
/// filled, then renamed into place.
fn write_mapped<E>(
    path: &Path,
    spec: &TableSpec,
    description: &str,
    fill: impl FnOnce(&[AtomicU8], &Mapped<'_>, TemporaryTable<'_>) -> Result<(), E>,
) -> Result<Result<(), E>, TableError> {
    let io = |error: io::Error| TableError::io(path, error);
    let (header, meta_bytes) = plan(spec, &meta_for(description));
    let file_len = mapped_len(path, &header)?;
    crate::room::check_room(path, file_len).map_err(io)?;
    let tmp = crate::atomic::temporary_for(path).map_err(io)?;
    crate::atomic::allocate(tmp.as_file(), file_len)
        .map_err(|error| io(crate::room::explain_too_large(path, file_len, error)))?;
    let temporary = TemporaryTable {
        path: tmp.path(),
        payload_offset: header.payload_range.0,
    };
    let filled = fill_mapped(
        tmp.as_file(),
        path,
        header,
        &meta_bytes,
        |payload, mapped| fill(payload, mapped, temporary),
    )?;
    if filled.is_ok() {
        crate::atomic::persist(tmp, path).map_err(io)?;
    }
    Ok(filled)
}

/// The length of the file of a table with this header.
pub(crate) fn mapped_len(path: &Path, header: &Header) -> Result<u64, TableError> {
    let (payload_offset, payload_len) = header.payload_range;
    payload_offset
        .checked_add(payload_len)
        .ok_or_else(|| TableError::io(path, io::Error::other("table too large")))
}

/// A table file mapped while its payload is filled: what the filler may do
/// with the pieces it has written.
pub(crate) struct Mapped<'a> {
    map: &'a MmapMut,
    file: &'a File,
    payload_offset: usize,
}

impl Mapped<'_> {
    /// Writes a finished range of the payload back to the file, so that it
    /// survives a crash from here on.
    pub(crate) fn sync(&self, range: Range<usize>) -> io::Result<()> {
        self.map
            .flush_range(self.payload_offset + range.start, range.len())
    }

    /// Writes a finished range back and drops its pages (best effort: a
    /// piece that stays in memory only costs memory).
    pub(crate) fn release(&self, range: Range<usize>) {
        let (offset, len) = (self.payload_offset + range.start, range.len());
        if self.map.flush_range(offset, len).is_ok() {
            // SAFETY: a shared file mapping keeps its contents in the file:
            // dropping the pages loses nothing, and a later access reads them back.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, offset, len)
            };
            // Unmapped and written back, the pages can leave the page cache too,
            // which would otherwise keep them and evict pages still being read.
            #[cfg(target_os = "linux")]
            // SAFETY: a plain system call on our open file; it changes no memory.
            unsafe {
                use std::os::fd::AsRawFd;
                libc::posix_fadvise(
                    self.file.as_raw_fd(),
                    offset as libc::off_t,
                    len as libc::off_t,
                    libc::POSIX_FADV_DONTNEED,
                );
            }
        }
    }
}

/// Maps `file` (allocated at the table's length, its payload zero or as a
/// stopped run of the same build left it), has `fill` write the payload,
/// then writes the checksums and header and syncs the file. `path` is the
/// table's final name, for messages.
pub(crate) fn fill_mapped<E>(
    file: &File,
    path: &Path,
    mut header: Header,
    meta_bytes: &[u8],
    fill: impl FnOnce(&[AtomicU8], &Mapped<'_>) -> Result<(), E>,
) -> Result<Result<(), E>, TableError> {
    let io = |error: io::Error| TableError::io(path, error);
    let (payload_offset, payload_len) = header.payload_range;
    // SAFETY: the file is our own (a new temporary file, or a partial build
    // we hold the lock of), which nobody else writes or truncates while it is mapped.
    let mut map = unsafe { MmapMut::map_mut(file) }.map_err(io)?;
    // Should another program shrink the file anyway, a touch past its end ends
    // the build with this line and status 2, not with SIGBUS. (Declared after
    // the map, the guard is dropped before it.)
    let message = format!(
        "error: {}: the table being built was truncated by another program\n",
        path.display()
    );
    let guard = Guard::register(map.as_ptr(), map.len(), message).map_err(io)?;
    // Builders read records at random: a fault should not read ahead pages
    // that would only push out others (best effort, as all advice).
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Random);
    let payload = std::ptr::slice_from_raw_parts_mut(
        map[payload_offset as usize..].as_mut_ptr(),
        payload_len as usize,
    );
    // SAFETY: AtomicU8 has the size, alignment and validity of u8; the bytes
    // are reached only through this view until `fill` returns (the map is
    // only flushed and advised meanwhile, which reads no byte through Rust).
    let atomic = unsafe { &*(payload as *const [AtomicU8]) };
    let mapped = Mapped {
        map: &map,
        file,
        payload_offset: payload_offset as usize,
    };
    if let Err(e) = fill(atomic, &mapped) {
        return Ok(Err(e));
    }
    // Hashed a window at a time, each dropped after, so that the whole
    // payload is never resident at once.
    const WINDOW: usize = 64 << 20;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    let mut hasher = Xxh3::new();
    for start in (0..payload_len as usize).step_by(WINDOW) {
        let end = (start + WINDOW).min(payload_len as usize);
        hasher.update(&map[payload_offset as usize + start..payload_offset as usize + end]);
        mapped.release(start..end);
    }
    header.payload_hash = hasher.digest();
    map[..HEADER_SIZE].copy_from_slice(&header.encode());
    map[HEADER_SIZE..HEADER_SIZE + meta_bytes.len()].copy_from_slice(meta_bytes);
    map.flush().map_err(io)?;
    drop(guard);
    drop(map);
    Ok(Ok(()))
}

/// Writes a table atomically with [`crate::atomic::write_file`]; refuses a
/// `path` that is not a regular file.
pub fn write_table(
    path: &Path,
    spec: &TableSpec,
    meta: &Meta,
    payload: &[u8],
) -> Result<(), TableError> {
    let bytes = table_bytes(spec, meta, payload);
    crate::room::check_room(path, bytes.len() as u64)
        .map_err(|error| TableError::io(path, error))?;
    crate::atomic::write_file(path, |out| out.write_all(&bytes))
        .map_err(|error| TableError::io(path, error))
}

/// Checks, before a build solves anything, that the file system has room
/// for a table of `spec` at `path` (see [`crate::room`]); the metadata is
/// counted as the page it almost always fits in.
pub fn check_room_for(path: &Path, spec: &TableSpec) -> Result<(), TableError> {
    let len = spec
        .entries
        .checked_mul(spec.layout.record_size() as u64)
        .and_then(|payload| payload.checked_add(PAYLOAD_ALIGN))
        .unwrap_or(u64::MAX);
    crate::room::check_room(path, len).map_err(|error| TableError::io(path, error))
}

/// Writes a solved state space as a table of `spec`.
pub fn write_solution(
    path: &Path,
    spec: &TableSpec,
    solution: &Solution,
    description: &str,
) -> Result<(), TableError> {
    write_table(
        path,
        spec,
        &meta_for(description),
        &encode_records(solution, spec.layout),
    )
}

pub(crate) fn meta_for(description: &str) -> Meta {
    Meta {
        generator: format!("tabula {}", env!("CARGO_PKG_VERSION")),
        description: description.to_string(),
    }
}

enum Backing {
    Owned(Vec<u8>),
    /// The guard turns a fault on the map into exit status 2.
    Mapped {
        map: Mmap,
        _guard: Guard,
    },
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Owned(bytes) => bytes,
            Backing::Mapped { map, .. } => map,
        }
    }
}

/// An opened, fully checked table, read into memory or memory-mapped.
pub struct Table {
    path: PathBuf,
    header: Header,
    meta: Meta,
    backing: Backing,
}

impl Table {
    /// Opens and checks a table: read into memory up to [`READ_LIMIT`] bytes,
    /// memory-mapped (and guarded, see the module docs) above it.
    pub fn open(path: &Path) -> Result<Table, TableError> {
        let (file, head, len) = open_header(path)?;
        if len <= READ_LIMIT {
            Table::read_rest(file, head, len, path)
        } else {
            // SAFETY: tabula replaces tables by renaming, never by rewriting in
            // place; a file shrunk by someone else ends the process with exit 2
            // through the guard, not with undefined behaviour in our code.
            unsafe { Table::map_rest(file, len, path) }
        }
    }

    /// Reads and checks a table file's header alone (its game, parameters and
    /// layout), without its records: enough to tell which table a file is.
    pub fn read_header(path: &Path) -> Result<Header, TableError> {
        let (_, head, len) = open_header(path)?;
        Header::decode(&head, len, path)
    }

    /// Reads a table file into memory and checks it; the header is checked
    /// before anything else is read.
    pub fn read(path: &Path) -> Result<Table, TableError> {
        let (file, head, len) = open_header(path)?;
        Table::read_rest(file, head, len, path)
    }

    fn read_rest(
        file: File,
        mut bytes: Vec<u8>,
        len: u64,
        path: &Path,
    ) -> Result<Table, TableError> {
        // The header promised `len` bytes; read no more even if the file grew.
        let rest = len.saturating_sub(bytes.len() as u64);
        // A table too large for memory is an error, not an abort.
        usize::try_from(rest)
            .ok()
            .and_then(|rest| bytes.try_reserve_exact(rest).ok())
            .ok_or_else(|| {
                TableError::io(
                    path,
                    io::Error::new(io::ErrorKind::OutOfMemory, "too large to read into memory"),
                )
            })?;
        file.take(rest)
            .read_to_end(&mut bytes)
            .map_err(|error| TableError::io(path, error))?;
        Table::from_bytes(bytes, path)
    }

    /// Memory-maps a table file and checks it; the header is checked before
    /// the file is mapped.
    ///
    /// While the table is alive, a fault on the mapping (the file truncated)
    /// ends the process with one line on stderr naming the file and exit
    /// status 2, through a SIGBUS handler this installs once (Linux).
    ///
    /// # Safety
    /// The file must not be modified in place while the table is alive: the
    /// header and checksums are checked once, when the table is opened, and
    /// the map shows later writes, so lookups could return bytes that no
    /// longer pass those checks. Tables are written by renaming a new file
    /// into place, which leaves a mapping of the old file intact, so tabula's
    /// own writers are safe.
    pub unsafe fn map(path: &Path) -> Result<Table, TableError> {
        let (file, _, len) = open_header(path)?;
        // SAFETY: passed on from the caller.
        unsafe { Table::map_rest(file, len, path) }
    }

    /// # Safety
    /// As [`Table::map`].
    unsafe fn map_rest(file: File, len: u64, path: &Path) -> Result<Table, TableError> {
        // SAFETY: the caller promises the file is not rewritten in place while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(|error| TableError::io(path, error))?;
        if map.len() as u64 != len {
            return Err(TableError::io(
                path,
                io::Error::other("table file changed while being opened"),
            ));
        }
        // Registered before the checks touch the pages: they fault too if the file shrinks.
        let message = format!(
            "error: {}: table file changed or truncated while in use\n",
            path.display()
        );
        let guard = Guard::register(map.as_ptr(), map.len(), message)
            .map_err(|error| TableError::io(path, error))?;
        Table::check(Backing::Mapped { map, _guard: guard }, path)
    }

    /// Checks a complete file image held in memory; `path` names it in errors.
    pub fn from_bytes(bytes: Vec<u8>, path: &Path) -> Result<Table, TableError> {
        Table::check(Backing::Owned(bytes), path)
    }

    /// An in-memory table of a freshly solved space, for commands given no table file.
    pub fn from_solution(spec: &TableSpec, solution: &Solution, description: &str) -> Table {
        let payload = encode_records(solution, spec.layout);
        let bytes = table_bytes(spec, &meta_for(description), &payload);
        Table::from_bytes(bytes, Path::new("<built in memory>"))
            .expect("a freshly written table passes its own checks")
    }

    fn check(backing: Backing, path: &Path) -> Result<Table, TableError> {
        let bytes = backing.bytes();
        let header = Header::decode(bytes, bytes.len() as u64, path)?;
        let corrupted = |what: &str| TableError::Corrupted {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let (meta_offset, meta_len) = header.meta_range;
        let meta_bytes = &bytes[meta_offset as usize..(meta_offset + meta_len) as usize];
        if xxh3_64(meta_bytes) != header.meta_hash {
            return Err(corrupted("metadata checksum mismatch"));
        }
        let (meta, rest): (Meta, _) = postcard::take_from_bytes(meta_bytes)
            .map_err(|e| corrupted(&format!("metadata does not decode: {e}")))?;
        if !rest.is_empty() {
            return Err(corrupted(&format!(
                "{} bytes are left over after the metadata",
                rest.len()
            )));
        }
        let (payload_offset, payload_len) = header.payload_range;
        let padding = &bytes[(meta_offset + meta_len) as usize..payload_offset as usize];
        if padding.iter().any(|&b| b != 0) {
            return Err(corrupted("padding before the payload is not zero"));
        }
        let payload = &bytes[payload_offset as usize..(payload_offset + payload_len) as usize];
        if xxh3_64(payload) != header.payload_hash {
            return Err(corrupted("payload checksum mismatch"));
        }
        Ok(Table {
            path: path.to_path_buf(),
            header,
            meta,
            backing,
        })
    }

    /// Fails unless the table was built for this game and these parameters,
    /// with the spec's layout or its values only ([`TableSpec::values_only`]).
    pub fn expect(&self, spec: &TableSpec) -> Result<(), TableError> {
        self.header.expect(spec, &self.path)
    }

    /// The file this table came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The decoded metadata.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.header.entries as usize
    }

    /// Whether the table has no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn payload(&self) -> &[u8] {
        let (offset, len) = self.header.payload_range;
        &self.backing.bytes()[offset as usize..(offset + len) as usize]
    }

    /// Whether the table is memory-mapped (rather than read into memory).
    pub fn is_mapped(&self) -> bool {
        matches!(self.backing, Backing::Mapped { .. })
    }

    /// Record `index`, refused with [`TableError::BadRecord`] when the index is
    /// out of range or the record breaks `bounds`.
    pub fn checked_record(
        &self,
        index: usize,
        bounds: &RecordBounds,
    ) -> Result<Record, TableError> {
        let bad = |problem: String| TableError::BadRecord {
            path: self.path.clone(),
            index: index as u64,
            problem,
        };
        if index >= self.len() {
            return Err(bad(format!("index out of range ({} entries)", self.len())));
        }
        let record = Record {
            value: self.value(index),
            best: self.best(index),
        };
        if !bounds.values.contains(&record.value) {
            return Err(bad(format!(
                "value {} outside {}..={}",
                record.value,
                bounds.values.start(),
                bounds.values.end()
            )));
        }
        if bounds.move_slots < 64 && record.best >> bounds.move_slots != 0 {
            return Err(bad(format!(
                "move mask {:#x} has bits beyond the game's {} move slots",
                record.best, bounds.move_slots
            )));
        }
        Ok(record)
    }

    /// Checks every record against `bounds`; returns the number checked.
    pub fn check_bounds(&self, bounds: &RecordBounds) -> Result<usize, TableError> {
        for index in 0..self.len() {
            self.checked_record(index, bounds)?;
        }
        Ok(self.len())
    }

    /// The record of entry `index`; panics when out of range.
    #[inline]
    pub fn record(&self, index: usize) -> &[u8] {
        let size = self.header.layout.record_size();
        &self.payload()[index * size..(index + 1) * size]
    }

    /// The stored value of entry `index`.
    #[inline]
    pub fn value(&self, index: usize) -> i16 {
        let record = self.record(index);
        match self.header.layout.value_bytes {
            1 => i16::from(record[0] as i8),
            _ => i16::from_le_bytes([record[0], record[1]]),
        }
    }

    /// The stored optimal-move mask of entry `index` (0 when the layout has none).
    #[inline]
    pub fn best(&self, index: usize) -> u64 {
        let record = self.record(index);
        let mut mask = [0u8; 8];
        let value_bytes = usize::from(self.header.layout.value_bytes);
        mask[..record.len() - value_bytes].copy_from_slice(&record[value_bytes..]);
        u64::from_le_bytes(mask)
    }
}

/// Opens `path` and reads and checks its header (at most [`HEADER_SIZE`]
/// bytes) against its length; returns the file, the bytes read and the length.
fn open_header(path: &Path) -> Result<(File, Vec<u8>, u64), TableError> {
    let metadata = fs::metadata(path).map_err(|error| TableError::io(path, error))?;
    if metadata.is_dir() {
        return Err(TableError::Directory {
            path: path.to_path_buf(),
        });
    }
    if !metadata.is_file() {
        return Err(TableError::io(path, io::Error::other("not a regular file")));
    }
    let mut file = File::open(path).map_err(|error| TableError::io(path, error))?;
    let len = file
        .metadata()
        .map_err(|error| TableError::io(path, error))?
        .len();
    let mut head = Vec::with_capacity(HEADER_SIZE);
    (&mut file)
        .take(HEADER_SIZE as u64)
        .read_to_end(&mut head)
        .map_err(|error| TableError::io(path, error))?;
    Header::decode(&head, len, path)?;
    Ok((file, head, len))
}
