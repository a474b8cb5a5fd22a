//! Facts in words and units, for the section's lines.

use darshan_log::roles::bucket_bounds;
use darshan_util::units;

use crate::judge::Kind;

/// A size bucket's label ("1M_4M") as a range ("1-4 MiB").
pub fn bucket(label: &str) -> String {
    let (lo, hi) = bucket_bounds(label);
    let short = |b: f64| {
        let s = units::bytes(b);
        s.replace(".00", "")
    };
    match hi {
        None => format!("{} and more", short(lo)),
        Some(hi) => {
            let (l, h) = (short(lo), short(hi));
            match (l.rsplit_once(' '), h.rsplit_once(' ')) {
                (Some((lv, lu)), Some((hv, hu))) if lu == hu => format!("{lv}-{hv} {hu}"),
                _ => format!("{l}-{h}"),
            }
        }
    }
}

/// What a fact is.
pub fn label(fact: &str) -> String {
    let fixed = match fact {
        "run_time" => "run time",
        "io_time" => "time in I/O, all ranks",
        "files" => "files",
        "shared_files" => "files shared by ranks",
        "unique_files" => "files of one rank",
        "bytes_read" => "bytes read",
        "bytes_written" => "bytes written",
        "reads" => "reads",
        "writes" => "writes",
        "read_time" => "read time",
        "write_time" => "write time",
        "meta_time" => "metadata time",
        "meta_ops" => "metadata operations",
        "slowest_rank_time" => "slowest rank's time in I/O",
        "collective_ops" => "collective reads and writes",
        "independent_ops" => "independent reads and writes",
        "comm_time" => "time in MPI communication, all ranks",
        "slowest_rank_comm_time" => "slowest rank's time in MPI communication",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_string();
    }
    // An MPI operation's figures (AutoPerf's APMPI records).
    if let Some((op, what)) = fact.strip_prefix("MPI_").and_then(|f| f.rsplit_once('_')) {
        let op = format!("MPI_{op}");
        match what {
            "calls" => return format!("{op} calls"),
            "bytes" => return format!("bytes moved by {op}"),
            "time" => return format!("time in {op}, all ranks"),
            _ => {}
        }
    }
    if let Some(l) = fact.strip_prefix("read_") {
        return format!("reads of {}", bucket(l));
    }
    if let Some(l) = fact.strip_prefix("write_") {
        return format!("writes of {}", bucket(l));
    }
    fact.replace('_', " ")
}

/// A value in its units.
pub fn value(kind: Kind, v: f64) -> String {
    match kind {
        Kind::Bytes => units::bytes(v),
        Kind::Time | Kind::RunTime => units::secs(v),
        Kind::Ops | Kind::Files => units::count(v.round() as i64),
    }
}

pub use darshan_util::series::pattern;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_read_as_words() {
        assert_eq!(label("write_1M_4M"), "writes of 1-4 MiB");
        assert_eq!(label("MPI_ALLREDUCE_time"), "time in MPI_ALLREDUCE, all ranks");
        assert_eq!(label("MPI_WAIT_calls"), "MPI_WAIT calls");
        assert_eq!(label("MPI_REDUCE_SCATTER_BLOCK_bytes"), "bytes moved by MPI_REDUCE_SCATTER_BLOCK");
        assert_eq!(label("slowest_rank_comm_time"), "slowest rank's time in MPI communication");
        assert_eq!(label("read_0_100"), "reads of 0-100 B");
        assert_eq!(label("write_100K_1M"), "writes of 100 KiB-1 MiB");
        assert_eq!(label("read_1G_PLUS"), "reads of 1 GiB and more");
        assert_eq!(label("unlinks"), "unlinks");
        assert_eq!(value(Kind::Bytes, 1048576.0), "1.00 MiB");
    }
}
