//! A recorded BG/Q node description, replayed as the platform: what the
//! tests run through the whole runtime (the hardware is retired), and a
//! way to give a log the record of a BG/Q job whose personality was
//! written down. The text has one `key = value` per line, `#` comments:
//!
//! ```text
//! job_id = 3288074
//! ranks_per_node = 16
//! io_node_id = 12 12 13 13   # one id, or one per rank (rank r: the
//!                            # (r mod n)th)
//! # the personality; all four, or none (Kernel_GetPersonality failed)
//! nodes = 128
//! dims = 2 2 4 4 2           # A B C D E
//! torus = 1 1 1 1 0          # which dimensions wrap around
//! ddr_mb = 16384
//! ```

use crate::{BgqPlatform, Node, Personality};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    job_id: i64,
    ranks_per_node: i64,
    io_node_ids: Vec<i64>,
    personality: Option<Personality>,
}

/// At most this many values in a list (a rank list longer than this is
/// a mistake; the check keeps a bad file from costing memory).
const MAX_VALUES: usize = 1 << 20;

/// Why a recording cannot be used: the line and what is wrong with it,
/// or what the whole is missing.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordingError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: LineError },
    #[error("nodes, dims, torus and ddr_mb go together (all or none)")]
    PartialPersonality,
    #[error("{0} missing")]
    Missing(&'static str),
}

/// What is wrong with one `key = value` line.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("not `key = value`")]
    NotKeyValue,
    #[error("one number expected")]
    NotOne,
    #[error("five numbers expected (A B C D E)")]
    NotFive,
    /// The key, at most 40 characters of it.
    #[error("unknown key `{0}`")]
    UnknownKey(String),
    #[error("more than {MAX_VALUES} numbers")]
    TooMany,
    /// The word, at most 40 characters of it.
    #[error("`{0}` is not an integer")]
    NotInteger(String),
    #[error("no value")]
    NoValue,
}

impl Recorded {
    /// Parse a recording; the error names the line and what is wrong.
    pub fn parse(text: &str) -> Result<Recorded, RecordingError> {
        let mut job_id = None;
        let mut ranks_per_node = None;
        let mut io_node_ids = None;
        let (mut nodes, mut dims, mut torus, mut ddr_mb) = (None, None, None, None);
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |why: LineError| RecordingError::Line { line: n + 1, why };
            let (key, value) = line.split_once('=').ok_or_else(|| at(LineError::NotKeyValue))?;
            let values = numbers(value).map_err(at)?;
            let one = || match values[..] {
                [v] => Ok(v),
                _ => Err(at(LineError::NotOne)),
            };
            let five = || <[i64; 5]>::try_from(&values[..]).map_err(|_| at(LineError::NotFive));
            match key.trim() {
                "job_id" => job_id = Some(one()?),
                "ranks_per_node" => ranks_per_node = Some(one()?),
                "io_node_id" => io_node_ids = Some(values),
                "nodes" => nodes = Some(one()?),
                "dims" => dims = Some(five()?),
                "torus" => torus = Some(five()?.map(|v| v != 0)),
                "ddr_mb" => ddr_mb = Some(one()?),
                other => return Err(at(LineError::UnknownKey(short(other)))),
            }
        }
        let personality = match (nodes, dims, torus, ddr_mb) {
            (Some(nodes), Some(dims), Some(torus), Some(ddr_mb)) => Some(Personality { nodes, dims, torus, ddr_mb }),
            (None, None, None, None) => None,
            _ => return Err(RecordingError::PartialPersonality),
        };
        Ok(Recorded {
            job_id: job_id.ok_or(RecordingError::Missing("job_id"))?,
            ranks_per_node: ranks_per_node.ok_or(RecordingError::Missing("ranks_per_node"))?,
            io_node_ids: io_node_ids.ok_or(RecordingError::Missing("io_node_id"))?,
            personality,
        })
    }
}

impl BgqPlatform for Recorded {
    fn node(&self, rank: i64) -> Option<Node> {
        let n = self.io_node_ids.len() as i64;
        Some(Node {
            job_id: self.job_id,
            ranks_per_node: self.ranks_per_node,
            io_node_id: self.io_node_ids[rank.rem_euclid(n) as usize],
            personality: self.personality.clone(),
        })
    }
}

/// The whitespace-separated integers of a value, at least one.
fn numbers(value: &str) -> Result<Vec<i64>, LineError> {
    let mut v = Vec::new();
    for w in value.split_whitespace() {
        if v.len() == MAX_VALUES {
            return Err(LineError::TooMany);
        }
        v.push(w.parse::<i64>().map_err(|_| LineError::NotInteger(short(w)))?);
    }
    if v.is_empty() {
        return Err(LineError::NoValue);
    }
    Ok(v)
}

/// At most 40 characters of a bad word, for the message.
fn short(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        t.push_str("...");
    }
    t
}
