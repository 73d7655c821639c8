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
//! little-endian) followed by the optimal-move mask (little-endian).

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use serde::{Deserialize, Serialize};
use tabula_solver::retrograde::Solution;
use xxhash_rust::xxh3::xxh3_64;

/// The eight bytes every table starts with.
pub const MAGIC: [u8; 8] = *b"TABULA\0\x1a";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Size of the fixed header.
pub const HEADER_SIZE: usize = 128;
/// Payload alignment, so that a mapped payload starts on a page.
pub const PAYLOAD_ALIGN: u64 = 4096;
const GAME_NAME_LEN: usize = 16;

/// Problems with a table file; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
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
}

/// How one record is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Bytes of the signed value (1 or 2).
    pub value_bytes: u8,
    /// Bytes of the optimal-move mask (0, 1, 2, 4 or 8).
    pub mask_bytes: u8,
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
        let corrupted = |what: String| TableError::Corrupted {
            path: path.to_path_buf(),
            what,
        };
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
            return Err(corrupted("header checksum mismatch".into()));
        }
        let version = le_u32(bytes, 8);
        if version != FORMAT_VERSION {
            return Err(TableError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: version,
            });
        }
        if le_u32(bytes, 12) as usize != HEADER_SIZE {
            return Err(corrupted(format!("header size {}", le_u32(bytes, 12))));
        }
        let name_bytes = &bytes[16..16 + GAME_NAME_LEN];
        let name_len = name_bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(GAME_NAME_LEN);
        let game = std::str::from_utf8(&name_bytes[..name_len])
            .ok()
            .filter(|name| !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()))
            .filter(|_| name_bytes[name_len..].iter().all(|&b| b == 0))
            .ok_or_else(|| corrupted("game name is not NUL-padded ASCII".into()))?
            .to_string();
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
            return Err(corrupted(format!(
                "record layout ({} value bytes, {} mask bytes)",
                layout.value_bytes, layout.mask_bytes
            )));
        }
        if bytes[50..56]
            .iter()
            .chain(&bytes[112..120])
            .any(|&b| b != 0)
        {
            return Err(corrupted("reserved header bytes are not zero".into()));
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
        let (meta_offset, meta_len) = header.meta_range;
        let (payload_offset, payload_len) = header.payload_range;
        if meta_offset != HEADER_SIZE as u64 {
            return Err(corrupted(format!("metadata offset {meta_offset}")));
        }
        let meta_end = meta_offset
            .checked_add(meta_len)
            .ok_or_else(|| corrupted("metadata length overflows".into()))?;
        if payload_offset % PAYLOAD_ALIGN != 0 || payload_offset < meta_end {
            return Err(corrupted(format!("payload offset {payload_offset}")));
        }
        let expected_len = header.entries.checked_mul(layout.record_size() as u64);
        if expected_len != Some(payload_len) {
            return Err(corrupted(format!(
                "payload length {payload_len} does not match {} entries of {} bytes",
                header.entries,
                layout.record_size()
            )));
        }
        let end = payload_offset
            .checked_add(payload_len)
            .ok_or_else(|| corrupted("payload length overflows".into()))?;
        if file_len < end {
            return Err(TableError::Truncated {
                path: path.to_path_buf(),
                what: format!("{file_len} bytes, the header promises {end}"),
            });
        }
        if file_len > end {
            return Err(corrupted(format!(
                "{} trailing bytes after the payload",
                file_len - end
            )));
        }
        Ok(header)
    }
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
        assert!(
            mask_bytes == 8 || mask >> (8 * mask_bytes) == 0,
            "move mask fits the layout"
        );
        out.extend_from_slice(&mask.to_le_bytes()[..mask_bytes]);
    }
    out
}

/// Builds the complete file image of a table.
pub fn table_bytes(spec: &TableSpec, meta: &Meta, payload: &[u8]) -> Vec<u8> {
    assert!(spec.game.len() <= GAME_NAME_LEN && spec.game.is_ascii());
    assert!(spec.layout.is_valid());
    assert_eq!(
        payload.len() as u64,
        spec.entries * spec.layout.record_size() as u64
    );
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
        payload_range: (payload_offset, payload.len() as u64),
        meta_hash: xxh3_64(&meta_bytes),
        payload_hash: xxh3_64(payload),
        header_hash: 0,
    };
    let mut out = Vec::with_capacity(payload_offset as usize + payload.len());
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(&meta_bytes);
    out.resize(payload_offset as usize, 0);
    out.extend_from_slice(payload);
    out
}

/// Writes a table atomically: to a temporary file beside `path`, then renamed into place.
pub fn write_table(
    path: &Path,
    spec: &TableSpec,
    meta: &Meta,
    payload: &[u8],
) -> Result<(), TableError> {
    let io_error = |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = table_bytes(spec, meta, payload);
    let file_name = path
        .file_name()
        .ok_or_else(|| io_error(io::Error::other("not a file name")))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(file_name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(io_error)
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

fn meta_for(description: &str) -> Meta {
    Meta {
        generator: format!("tabula {}", env!("CARGO_PKG_VERSION")),
        description: description.to_string(),
    }
}

enum Backing {
    Owned(Vec<u8>),
    Mapped(Mmap),
}

/// An opened, fully checked table, read into memory or memory-mapped.
pub struct Table {
    path: PathBuf,
    header: Header,
    meta: Meta,
    backing: Backing,
}

impl Table {
    /// Reads a table file into memory and checks it.
    pub fn read(path: &Path) -> Result<Table, TableError> {
        let mut file = open_file(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|source| TableError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Table::from_bytes(bytes, path)
    }

    /// Memory-maps a table file and checks it.
    ///
    /// # Safety
    /// The file must not be truncated or modified while the table is alive:
    /// the header and checksums are checked once, when the table is opened,
    /// and a file shrunk afterwards makes later lookups fault (SIGBUS).
    /// Tables are written by renaming a new file into place, which leaves a
    /// mapping of the old file intact, so tabula's own writers are safe.
    pub unsafe fn map(path: &Path) -> Result<Table, TableError> {
        let file = open_file(path)?;
        let len = file
            .metadata()
            .map_err(|source| TableError::Io {
                path: path.to_path_buf(),
                source,
            })?
            .len();
        if len == 0 {
            // An empty mapping is an error on some systems; say what it is.
            return Err(TableError::Empty {
                path: path.to_path_buf(),
            });
        }
        // SAFETY: the caller promises the file stays as it is while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Table::check(Backing::Mapped(map), path)
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
        let bytes: &[u8] = match &backing {
            Backing::Owned(bytes) => bytes,
            Backing::Mapped(map) => map,
        };
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
        let meta: Meta = postcard::from_bytes(meta_bytes)
            .map_err(|e| corrupted(&format!("metadata does not decode: {e}")))?;
        let (payload_offset, payload_len) = header.payload_range;
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

    /// Fails unless the table was built for this game and these parameters.
    pub fn expect(&self, spec: &TableSpec) -> Result<(), TableError> {
        let h = &self.header;
        if h.game != spec.game || h.params != spec.params {
            return Err(TableError::WrongGame {
                path: self.path.clone(),
                found: describe(&h.game, h.params),
                expected: spec.describe(),
            });
        }
        if h.layout != spec.layout || h.entries != spec.entries {
            return Err(TableError::Corrupted {
                path: self.path.clone(),
                what: format!(
                    "{} entries of layout {:?}, the game needs {} of {:?}",
                    h.entries, h.layout, spec.entries, spec.layout
                ),
            });
        }
        Ok(())
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
        let bytes: &[u8] = match &self.backing {
            Backing::Owned(bytes) => bytes,
            Backing::Mapped(map) => map,
        };
        let (offset, len) = self.header.payload_range;
        &bytes[offset as usize..(offset + len) as usize]
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

fn open_file(path: &Path) -> Result<File, TableError> {
    let io_error = |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    };
    let metadata = fs::metadata(path).map_err(io_error)?;
    if metadata.is_dir() {
        return Err(TableError::Directory {
            path: path.to_path_buf(),
        });
    }
    if !metadata.is_file() {
        return Err(TableError::Io {
            path: path.to_path_buf(),
            source: io::Error::other("not a regular file"),
        });
    }
    File::open(path).map_err(io_error)
}
