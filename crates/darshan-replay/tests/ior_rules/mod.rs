//! IOR's and mdtest's rules, as their sources state them (hpc/ior:
//! src/parse_options.c and src/mdtest.c for the options each takes and
//! their kinds, src/ior.c ValidateTests for what IOR refuses to run, the
//! transfer loop of WriteOrRead and GetOffsetArrayRandom for where each
//! task's transfers land), for the tests of `darshan-replay --ior`. IOR is
//! not packaged by Debian, so it cannot run here: these rules are the
//! oracle a generated command is held to, and the access model turns a
//! command into what Darshan would count of it.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// IOR options without a value, and with one ('l': a size, 'd': an
/// integer, 's': a string).
const IOR_FLAGS: &str = "cCeEFgkKmrRuvwWxyYzZ";
const IOR_VALUES: &[(char, char)] = &[
    ('a', 's'),
    ('A', 'd'),
    ('b', 'l'),
    ('d', 'd'),
    ('D', 'd'),
    ('f', 's'),
    ('G', 'd'),
    ('i', 'd'),
    ('j', 'd'),
    ('l', 's'),
    ('M', 's'),
    ('N', 'd'),
    ('o', 's'),
    ('O', 's'),
    ('Q', 'd'),
    ('s', 'l'),
    ('t', 'l'),
    ('T', 'd'),
    ('X', 'd'),
];
const MDTEST_FLAGS: &str = "CTErUDFkLPRSctuvXyYZ";
const MDTEST_VALUES: &[(char, char)] = &[
    ('a', 's'),
    ('b', 'd'),
    ('d', 's'),
    ('B', 'd'),
    ('e', 'l'),
    ('f', 'd'),
    ('G', 'd'),
    ('i', 'd'),
    ('I', 'l'),
    ('l', 'd'),
    ('n', 'l'),
    ('N', 'd'),
    ('p', 'd'),
    ('s', 'd'),
    ('V', 'd'),
    ('w', 'l'),
    ('W', 'd'),
    ('x', 's'),
    ('z', 'd'),
];
/// IOR's back ends that exist without extra libraries or storage.
const APIS: &[&str] = &["POSIX", "MPIIO", "HDF5", "NCMPI", "MMAP", "DUMMY"];

/// One `ior` run.
#[derive(Clone, Debug, Default)]
pub struct Ior {
    pub np: u64,
    pub api: String,
    pub flags: String,
    pub transfer: u64,
    pub block: u64,
    pub segments: u64,
    pub file: String,
    /// Lays a file out before a read (the comment before it says it is
    /// not part of the job's I/O).
    pub setup: bool,
}

impl Ior {
    pub fn has(&self, f: char) -> bool {
        self.flags.contains(f)
    }
    /// Bytes in the file when it is done (per file with -F).
    pub fn extent(&self) -> u64 {
        self.block * self.segments * if self.has('F') { 1 } else { self.np }
    }
}

/// One `mdtest` run.
#[derive(Clone, Debug, Default)]
pub struct Mdtest {
    pub np: u64,
    pub flags: String,
    pub items: u64,
    pub dir: String,
}

#[derive(Clone, Debug)]
pub enum Run {
    Ior(Ior),
    Mdtest(Mdtest),
}

/// IOR's sizes: a number with an optional k, m, g, t or p (powers of 1024).
fn size(v: &str) -> Option<u64> {
    let (digits, mult) = match v.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => {
            let pow = "kmgtp".find(c.to_ascii_lowercase())? as u32 + 1;
            (&v[..i], 1u64 << (10 * pow))
        }
        _ => (v, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// The options of one command: flags in `flags`, values by letter.
fn options(words: &[&str], flags: &str, values: &[(char, char)]) -> Result<(String, BTreeMap<char, String>), String> {
    let (mut on, mut vals) = (String::new(), BTreeMap::new());
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let letter = w.strip_prefix('-').filter(|r| r.len() == 1).and_then(|r| r.chars().next());
        let Some(c) = letter else { return Err(format!("{w:?} is not an option")) };
        if flags.contains(c) {
            on.push(c);
        } else if let Some((_, kind)) = values.iter().find(|v| v.0 == c) {
            let v = it.next().ok_or(format!("-{c} needs a value"))?;
            let ok = match kind {
                'l' => size(v).is_some(),
                'd' => v.parse::<i64>().is_ok(),
                _ => !v.is_empty(),
            };
            if !ok {
                return Err(format!("-{c} {v}: not a {}", if *kind == 's' { "string" } else { "number" }));
            }
            vals.insert(c, v.to_string());
        } else {
            return Err(format!("-{c}: no such option"));
        }
    }
    Ok((on, vals))
}

/// What IOR's ValidateTests refuses, and what a replay must not ask.
fn validate(r: &Ior) -> Result<(), String> {
    let (t, b) = (r.transfer, r.block);
    let rules = [
        (!r.has('w') && !r.has('r'), "test must write, read, or check read/write file"),
        (b % 8 != 0, "block size must be a multiple of access size"),
        (t % 8 != 0, "transfer size must be a multiple of access size"),
        (t == 0, "test will not complete with zero transfer size"),
        (t != 0 && b % t != 0, "block size must be a multiple of transfer size"),
        (b < t, "block size must not be smaller than transfer size"),
        (r.has('z') && b == t, "IOR will randomize access within a block ... choose blocksize > transferSize"),
        (r.api == "HDF5" && r.has('z'), "random offset not available with HDF5"),
        (r.api == "NCMPI" && r.has('z'), "random offset not available with NCMPI"),
        (r.api == "NCMPI" && r.has('F'), "file-per-proc not available in current NCMPI"),
        (!APIS.contains(&r.api.as_str()), "no such API"),
        (r.has('c') && r.api == "POSIX", "collective I/O asked of POSIX (IOR ignores it)"),
        (r.segments == 0, "no segments"),
        (r.np == 0, "too few tasks for testing"),
        (!r.has('k'), "the file is removed at the end (-k keeps it for the next run)"),
    ];
    match rules.iter().find(|x| x.0) {
        Some((_, why)) => Err(why.to_string()),
        None => Ok(()),
    }
}

fn ior(np: u64, words: &[&str]) -> Result<Ior, String> {
    let (flags, v) = options(words, IOR_FLAGS, IOR_VALUES)?;
    let num = |c: char, default: u64| v.get(&c).map_or(Some(default), |x| size(x));
    let r = Ior {
        np,
        api: v.get(&'a').cloned().unwrap_or_else(|| "POSIX".into()),
        flags,
        // IOR's defaults: 256 KiB transfers, 1 MiB blocks, 1 segment.
        transfer: num('t', 262144).ok_or("bad -t")?,
        block: num('b', 1 << 20).ok_or("bad -b")?,
        segments: num('s', 1).ok_or("bad -s")?,
        file: v.get(&'o').cloned().ok_or("no -o: IOR would write ./testFile")?,
        setup: false,
    };
    validate(&r)?;
    Ok(r)
}

fn mdtest(np: u64, words: &[&str]) -> Result<Mdtest, String> {
    let (flags, v) = options(words, MDTEST_FLAGS, MDTEST_VALUES)?;
    let items = v.get(&'n').and_then(|n| size(n)).ok_or("mdtest needs -n items per task")?;
    let m = Mdtest { np, flags, items, dir: v.get(&'d').cloned().ok_or("no -d")? };
    if m.items == 0 || !APIS.contains(&v.get(&'a').map_or("POSIX", |a| a.as_str())) {
        return Err("no items, or no such API".into());
    }
    Ok(m)
}

/// Every run of a `darshan-replay --ior` script, each held to IOR's and
/// mdtest's rules, and in an order that runs: a read only of a file an
/// earlier run made at least as large, an mdtest stat or remove only of
/// files an earlier (or the same) run created.
pub fn parse_script(text: &str) -> Result<Vec<Run>, String> {
    let mut runs = Vec::new();
    let (mut made, mut created) = (BTreeMap::<String, u64>::new(), Vec::<String>::new());
    let mut setup = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if line.starts_with('#') {
            setup = line.contains("not part of the job's I/O");
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["set", "-e"] | ["mkdir", "-p", "\"$DIR\""] => continue,
            [assign] if assign.contains("=${") => continue,
            ["$MPIRUN", "-np", np, prog, rest @ ..] => {
                let np: u64 = np.parse().map_err(|_| format!("-np {np}"))?;
                let run = match *prog {
                    "$IOR" => Run::Ior(Ior { setup, ..ior(np, rest).map_err(|e| format!("{line}: {e}"))? }),
                    "$MDTEST" => Run::Mdtest(mdtest(np, rest).map_err(|e| format!("{line}: {e}"))?),
                    _ => return Err(format!("{line}: not ior or mdtest")),
                };
                match &run {
                    Run::Ior(r) if r.has('w') => {
                        made.insert(r.file.clone(), r.extent());
                    }
                    Run::Ior(r) if made.get(&r.file).is_none_or(|n| *n < r.extent()) => {
                        return Err(format!("{line}: reads {} before a run made it that large", r.file))
                    }
                    Run::Mdtest(m) if m.flags.contains('C') => created.push(m.dir.clone()),
                    Run::Mdtest(m) if !created.contains(&m.dir) => {
                        return Err(format!("{line}: stats or removes files no run created"))
                    }
                    _ => {}
                }
                runs.push(run);
                setup = false;
            }
            _ => return Err(format!("{line}: not a line of a replay script")),
        }
    }
    Ok(runs)
}

/// What Darshan would count of one IOR run at the interface it uses: per
/// request size, requests; bytes; and for POSIX its sequential and
/// consecutive requests (a request past the last byte of the task's
/// previous one on the file since it opened it; one that starts right
/// after it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counted {
    pub bytes: u64,
    pub ops: u64,
    pub sizes: BTreeMap<u64, u64>,
    pub seq: u64,
    pub consec: u64,
    pub files: u64,
}

/// IOR's transfers of one task, in order (WriteOrRead: segment by
/// segment; with -z, GetOffsetArrayRandom's shuffle, here by a fixed
/// generator of our own: where, not which random numbers, is the rule).
pub fn offsets(r: &Ior, rank: u64, rng: &mut u64) -> Vec<u64> {
    let (t, b, np) = (r.transfer, r.block, r.np);
    let mut next = || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    };
    let mut base: Vec<u64> = if !r.has('z') {
        (0..b / t).map(|j| j * t).collect()
    } else if r.has('F') {
        (0..b / t).map(|j| j * t).collect()
    } else {
        (0..b * np / t).map(|j| j * t).filter(|_| next() % np == rank).collect()
    };
    if r.has('z') {
        for i in 0..base.len() {
            let k = (next() % base.len() as u64) as usize;
            base.swap(i, k);
        }
    }
    let mut out = Vec::with_capacity(base.len() * r.segments as usize);
    for i in 0..r.segments {
        let seg = if r.has('F') {
            i * b
        } else if r.has('z') {
            i * np * b
        } else {
            i * np * b + rank * b
        };
        out.extend(base.iter().map(|o| o + seg));
    }
    out
}

pub fn counted(r: &Ior) -> Counted {
    let mut c = Counted { files: if r.has('F') { r.np } else { 1 }, ..Default::default() };
    let mut rng = 0x9e3779b97f4a7c15u64;
    for rank in 0..r.np {
        let mut last_byte = 0u64;
        for off in offsets(r, rank, &mut rng) {
            c.ops += 1;
            c.bytes += r.transfer;
            *c.sizes.entry(r.transfer).or_default() += 1;
            c.seq += (off > last_byte) as u64;
            c.consec += (off == last_byte + 1) as u64;
            last_byte = off + r.transfer - 1;
        }
    }
    c
}

/// Darshan's size bucket of a request (inclusive upper bounds).
pub fn bucket(size: u64) -> &'static str {
    const B: [(u64, &str); 9] = [
        (100, "0_100"),
        (1024, "100_1K"),
        (10240, "1K_10K"),
        (102400, "10K_100K"),
        (1048576, "100K_1M"),
        (4194304, "1M_4M"),
        (10485760, "4M_10M"),
        (104857600, "10M_100M"),
        (1073741824, "100M_1G"),
    ];
    B.iter().find(|b| size <= b.0).map_or("1G_PLUS", |b| b.1)
}
