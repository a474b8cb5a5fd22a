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
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_string();
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

/// A file's name with the digits of numbered files (`out.0007.h5`,
/// `ckpt_20261129`) as `#`, so that one file of a series is the same file
/// from run to run.
pub fn pattern(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_digits = false;
    for c in name.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_read_as_words() {
        assert_eq!(label("write_1M_4M"), "writes of 1-4 MiB");
        assert_eq!(label("read_0_100"), "reads of 0-100 B");
        assert_eq!(label("write_100K_1M"), "writes of 100 KiB-1 MiB");
        assert_eq!(label("read_1G_PLUS"), "reads of 1 GiB and more");
        assert_eq!(label("unlinks"), "unlinks");
        assert_eq!(pattern("/scratch/run/out.0007.h5"), "/scratch/run/out.#.h#");
        assert_eq!(value(Kind::Bytes, 1048576.0), "1.00 MiB");
    }
}
