//! Which record Darshan finds for a varid. darshan-pnetcdf adds an entry
//! (varid -> record) to its `varid_hash` at every `ncmpi_def_var` and
//! `ncmpi_inq_varid`, never removes one, and looks variables up by the
//! varid alone. Its uthash (1.9.1) keeps every entry of a key, adds at the
//! head of the bucket's chain and finds the first match there; and when
//! an add brings a bucket to its threshold (10 entries at first), the
//! buckets double and every chain comes out reversed. So a program that
//! makes ten files in turn with the same variables has the tenth file's
//! accesses to varid 0 counted for the first file, until the next entry
//! for varid 0 (C Darshan 3.5.0's log of tests/programs/pnetcdf_files.c).
//!
//! The model keeps, per varid, the records at the two ends of its chain
//! and how many entries it has (the order in between never reaches the
//! head: a doubling swaps the ends, an add replaces the head), and the
//! table's uthash counters. Its slots are taken in pages at the first
//! definition; a varid past them is found as last added.

use darshan_core::lazy_words::LazyWords;

/// Distinct varids modelled.
const KEYS: usize = 1024;
/// Words per varid: varid + 1 (0: free), head, tail, entries, hash,
/// its bucket's expand_mult.
const W: usize = 6;
const HEAD: usize = 1;
const TAIL: usize = 2;
const ENTRIES: usize = 3;
const HASH: usize = 4;
const MULT: usize = 5;
/// uthash's HASH_INITIAL_NUM_BUCKETS (log2) and HASH_BKT_CAPACITY_THRESH.
const LOG2_INITIAL_BUCKETS: u32 = 5;
const BUCKET_THRESHOLD: u64 = 10;

pub struct VaridChains {
    slots: LazyWords,
    used: usize,
    entries: u64,
    log2_buckets: u32,
    ineff_expands: u32,
    noexpand: bool,
}

impl VaridChains {
    pub const fn new() -> VaridChains {
        VaridChains {
            slots: LazyWords::of(KEYS * W),
            used: 0,
            entries: 0,
            log2_buckets: LOG2_INITIAL_BUCKETS,
            ineff_expands: 0,
            noexpand: false,
        }
    }

    /// An entry `varid` -> `record` was added; `found(varid, record)` is
    /// told every varid whose lookup now finds another record.
    pub fn add(&mut self, varid: i32, record: usize, found: &mut dyn FnMut(i32, usize)) {
        let Some(k) = self.slot(varid) else { return found(varid, record) };
        let Some(w) = self.slots.taken_mut() else { return found(varid, record) };
        let s = &mut w[k * W..(k + 1) * W];
        if s[ENTRIES] == 0 {
            s[TAIL] = record as u64;
        }
        s[HEAD] = record as u64;
        s[ENTRIES] += 1;
        let (hash, mult) = (s[HASH], s[MULT]);
        self.entries += 1;
        found(varid, record);
        let mask = (1u64 << self.log2_buckets) - 1;
        let count = bucket_entries(&w[..self.used * W], hash & mask, mask);
        if count >= (mult + 1) * BUCKET_THRESHOLD && !self.noexpand {
            self.expand(found);
        }
    }

    /// The slot of `varid`, made if it is new (None: no room).
    fn slot(&mut self, varid: i32) -> Option<usize> {
        let used = self.used;
        let w = self.slots.get_or_take()?;
        let key = varid as u32 as u64 + 1;
        if let Some(k) = (0..used).find(|&k| w[k * W] == key) {
            return Some(k);
        }
        if used == KEYS {
            return None;
        }
        let hash = jenkins(&varid.to_le_bytes()) as u64;
        // A bucket's expand_mult is the bucket's, not a key's: a new key
        // joins the one its bucket has (set at the last doubling for every
        // key in it; 0 for a bucket empty then). It started at 0, so a
        // bucket with a multiple doubled the table early, and files of
        // 300 variables or more had writes counted for other records.
        let mask = (1u64 << self.log2_buckets) - 1;
        let mult = w[..used * W].chunks_exact(W).find(|s| s[HASH] & mask == hash & mask).map_or(0, |s| s[MULT]);
        w[used * W] = key;
        w[used * W + HASH] = hash;
        w[used * W + MULT] = mult;
        self.used += 1;
        Some(used)
    }

    /// HASH_EXPAND_BUCKETS: twice the buckets, every chain reversed, each
    /// bucket's expand_mult and the table's inefficiency counted again.
    fn expand(&mut self, found: &mut dyn FnMut(i32, usize)) {
        let Some(w) = self.slots.taken_mut() else { return };
        let keys = &mut w[..self.used * W];
        let n = self.entries;
        let mask = (2u64 << self.log2_buckets) - 1;
        let ideal = (n >> (self.log2_buckets + 1)) + u64::from(n & mask != 0);
        let mut nonideal = 0;
        for k in 0..self.used {
            let bucket = keys[k * W + HASH] & mask;
            let count = bucket_entries(keys, bucket, mask);
            // A bucket's entries past the ideal, counted at its first key.
            if count > ideal && keys[..k * W].chunks_exact(W).all(|s| s[HASH] & mask != bucket) {
                nonideal += count - ideal;
            }
            let s = &mut keys[k * W..(k + 1) * W];
            s[MULT] = if count > ideal { count / ideal } else { 0 };
            (s[HEAD], s[TAIL]) = (s[TAIL], s[HEAD]);
            if s[HEAD] != s[TAIL] {
                found((s[0] - 1) as u32 as i32, s[HEAD] as usize);
            }
        }
        self.log2_buckets += 1;
        self.ineff_expands = if nonideal > n >> 1 { self.ineff_expands + 1 } else { 0 };
        self.noexpand |= self.ineff_expands > 1;
    }

    /// A forked child's table starts empty, as its handles do.
    pub fn clear(&mut self) {
        if let Some(w) = self.slots.taken_mut() {
            w[..self.used * W].fill(0);
        }
        (self.used, self.entries, self.log2_buckets) = (0, 0, LOG2_INITIAL_BUCKETS);
        (self.ineff_expands, self.noexpand) = (0, false);
    }
}

/// Entries of the varids in `keys` (their slots) in bucket `bucket` of a
/// table masked by `mask`.
fn bucket_entries(keys: &[u64], bucket: u64, mask: u64) -> u64 {
    keys.chunks_exact(W).filter(|s| s[HASH] & mask == bucket).map(|s| s[ENTRIES]).sum()
}

impl Default for VaridChains {
    fn default() -> Self {
        VaridChains::new()
    }
}

/// uthash's HASH_JEN (Bob Jenkins' lookup2) of a short key, its bytes read
/// as C's signed `char`, as uthash 1.9.1 reads them.
fn jenkins(key: &[u8; 4]) -> u32 {
    let byte = |i: usize| key[i] as i8 as i32 as u32;
    let mut a = 0x9e37_79b9u32;
    let mut b = 0x9e37_79b9u32;
    let mut c = 0xfeed_beefu32.wrapping_add(key.len() as u32);
    a = a.wrapping_add(byte(3) << 24).wrapping_add(byte(2) << 16).wrapping_add(byte(1) << 8).wrapping_add(byte(0));
    mix(&mut a, &mut b, &mut c);
    c
}

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    for (sa, sb, sc) in [(13, 8, 13), (12, 16, 5), (3, 10, 15)] {
        *a = a.wrapping_sub(*b).wrapping_sub(*c) ^ (*c >> sa);
        *b = b.wrapping_sub(*c).wrapping_sub(*a) ^ (*a << sb);
        *c = c.wrapping_sub(*a).wrapping_sub(*b) ^ (*b >> sc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files made in turn, each defining `vars` variables (varids 0, 1,
    /// ...), then writing each: the record each write is counted for.
    fn writes_counted_for(files: usize, vars: usize) -> Vec<Vec<usize>> {
        let mut chains = VaridChains::new();
        let mut finds = [usize::MAX; 8];
        let mut counted = Vec::new();
        for f in 0..files {
            for j in 0..vars {
                chains.add(j as i32, f * vars + j, &mut |varid, rec| finds[varid as usize] = rec);
            }
            counted.push(finds[..vars].to_vec());
        }
        counted
    }

    /// The oracle is C Darshan 3.5.0's log of tests/programs/pnetcdf_files.c
    /// (one rank): with one variable per file, file 9's writes count for
    /// file 0's record and file 109's for file 9's; with three, varids 0
    /// and 1 share a bucket of uthash's 32 and file 4's writes to them
    /// count for file 0's records, varid 2's never move.
    #[test]
    fn darshans_varid_table_finds_what_c_darshans_logs_say_it_found() {
        let one = writes_counted_for(130, 1);
        for (f, found) in one.iter().enumerate() {
            let want = match f {
                9 => 0,
                109 => 9,
                _ => f,
            };
            assert_eq!(found[0], want, "file {f}");
        }
        let three = writes_counted_for(40, 3);
        for (f, found) in three.iter().enumerate() {
            let want: Vec<usize> = (0..3).map(|j| if f == 4 && j < 2 { j } else { f * 3 + j }).collect();
            assert_eq!(*found, want, "file {f}");
        }
    }

    #[test]
    fn a_varid_past_the_modelled_ones_is_found_as_last_added() {
        let mut chains = VaridChains::new();
        let mut last = (0, 0);
        for k in 0..KEYS as i32 + 5 {
            chains.add(k, k as usize, &mut |v, r| last = (v, r));
            assert_eq!(last, (k, k as usize));
        }
    }

    /// A file defining `vars` variables, `files` times, each variable
    /// written once after its file's definitions: the writes each
    /// (file, varid) record gets.
    fn writes_per_record(files: usize, vars: usize) -> Vec<Vec<usize>> {
        let mut chains = VaridChains::new();
        let mut finds = vec![usize::MAX; vars];
        let mut writes = vec![vec![0; vars]; files];
        for f in 0..files {
            for j in 0..vars {
                chains.add(j as i32, f * vars + j, &mut |varid, rec| finds[varid as usize] = rec);
            }
            for found in &finds {
                writes[found / vars][found % vars] += 1;
            }
        }
        writes
    }

    /// A new varid took expand_mult 0 instead of its bucket's, so a bucket
    /// with a multiple doubled the table early: with 300 variables or more
    /// per file, writes were counted for other records than C's (396 of
    /// 900 records differed for three files of 300, 1,100 of 2,000 for
    /// two of 1,000). The oracle: C Darshan 3.5.0's log of
    /// tests/programs/pnetcdf_many_vars.c, every record not written once.
    #[test]
    fn a_new_varid_took_expand_mult_0_and_hundreds_of_variables_moved_writes() {
        let c: Vec<(usize, usize, usize)> = include_str!("c_3_files_300_vars.txt")
            .lines()
            .map(|l| {
                let n: Vec<usize> = l.split(' ').map(|x| x.parse().unwrap()).collect();
                (n[0], n[1], n[2])
            })
            .collect();
        assert_eq!(c.len(), 118);
        let ours = writes_per_record(3, 300);
        let mut not_once = Vec::new();
        for (f, per_var) in ours.iter().enumerate() {
            for (v, &n) in per_var.iter().enumerate() {
                if n != 1 {
                    not_once.push((f, v, n));
                }
            }
        }
        assert_eq!(not_once, c);
    }
}
