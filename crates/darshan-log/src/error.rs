//! Typed errors of the log reader and writer. Every failure a log file can
//! cause is one of these: the reader never panics, whatever the bytes.

use std::fmt;

#[derive(Debug)]
pub enum LogError {
    /// An operating-system error while reading or writing.
    Io(std::io::Error),
    /// The file is shorter than its fixed header.
    TooShort { size: u64, need: u64 },
    /// The magic number matches in neither byte order: not a Darshan log.
    BadMagic(u64),
    /// No byte of the header was written (an empty file, or version and
    /// magic all zeros): what a crash-safe file holds when its process
    /// was killed while making it, since the runtime writes the header last.
    NoHeader { size: u64 },
    /// The version string is not one of the five known 3.x versions.
    UnknownVersion(String),
    /// The header's compression type is not zlib, bzip2 or none.
    BadCompression(u8),
    /// A region's offset or length points outside the file.
    BadRegion { region: String, off: u64, len: u64, file_size: u64 },
    /// The trailer naming the regions of modules Darshan does not know
    /// (crate::extension) is damaged.
    BadExtensionMap(String),
    /// A compressed stream failed to decompress.
    Decompress { region: String, msg: String },
    /// The region ended in the middle of a compressed stream.
    TruncatedStream { region: String },
    /// A record is cut short or carries impossible sizes.
    BadRecord { module: String, msg: String },
    /// The module format version is 0 or newer than this library knows.
    BadModuleVersion { module: String, version: u32 },
    /// A name-table entry is cut short.
    BadNameRecord(String),
    /// Invalid arguments to the writer.
    Write(String),
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A file refused before reading (crate::safe_fs) says why alone.
            LogError::Io(e) if e.kind() == std::io::ErrorKind::InvalidInput => write!(f, "{e}"),
            LogError::Io(e) => write!(f, "I/O error: {e}"),
            LogError::TooShort { size, need } => write!(
                f,
                "file is too short to be a Darshan log ({size} bytes, a header needs at least {need}); truncated or not a Darshan log"
            ),
            LogError::NoHeader { size } => write!(
                f,
                "no header was ever written ({size} bytes{}): a crash-safe file whose process was killed while it made it, or a log never written; nothing in it can be read",
                if *size > 0 { ", the header all zeros" } else { "" }
            ),
            LogError::BadMagic(m) => write!(
                f,
                "not a Darshan log: bad magic number 0x{m:016x} (expected 0x0000000000643537 in either byte order)"
            ),
            LogError::UnknownVersion(v) => write!(
                f,
                "incompatible Darshan log version \"{v}\" (supported: 3.00, 3.10, 3.20, 3.21, 3.41)"
            ),
            LogError::BadCompression(c) => write!(f, "unknown compression type {c} in log header"),
            LogError::BadRegion { region, off, len, file_size } => write!(
                f,
                "{region} region (offset {off}, length {len}) lies outside the file ({file_size} bytes): the log is truncated or corrupt"
            ),
            LogError::BadExtensionMap(msg) => {
                write!(f, "damaged extension map at the end of the log: {msg}")
            }
            LogError::Decompress { region, msg } => {
                write!(f, "failed to decompress the {region} region: {msg}")
            }
            LogError::TruncatedStream { region } => write!(
                f,
                "the {region} region ends inside a compressed stream: the log is truncated or corrupt"
            ),
            LogError::BadRecord { module, msg } => write!(f, "bad {module} record: {msg}"),
            LogError::BadModuleVersion { module, version } => {
                write!(f, "Invalid {module} module version number (got {version})")
            }
            LogError::BadNameRecord(msg) => write!(f, "bad name record: {msg}"),
            LogError::Write(msg) => write!(f, "cannot write log: {msg}"),
        }
    }
}

impl std::error::Error for LogError {}

impl From<std::io::Error> for LogError {
    fn from(e: std::io::Error) -> Self {
        LogError::Io(e)
    }
}

pub type Result<T> = std::result::Result<T, LogError>;
