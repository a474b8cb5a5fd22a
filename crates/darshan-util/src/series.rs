//! A file's name with its digit runs as `#`: one file of a numbered
//! series (`out.0007.h5`, `ckpt_20261129`) is the same file from run to
//! run, and a file per process (`rank3.dat`) is one series. Used by the
//! history comparison and by darshan-replay's file groups.

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
    #[test]
    fn digit_runs_become_one_hash() {
        assert_eq!(super::pattern("/scratch/run/out.0007.h5"), "/scratch/run/out.#.h#");
        assert_eq!(super::pattern("rank12.dat"), "rank#.dat");
        assert_eq!(super::pattern("plain"), "plain");
    }
}
