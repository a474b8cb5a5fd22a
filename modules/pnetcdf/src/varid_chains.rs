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
//! head: a doubling swaps the ends, an add replaces the head); per bucket,
//! its entries and expand_mult; and the table's uthash counters. Varids
//! are indices (PnetCDF numbers a file's variables from 0), so a varid's
//! words are found without a search and a doubling costs one pass over
//! the varids and one over the buckets. The words are taken in pages, never
//! from the heap, and grow with the varids and the buckets; if they cannot
//! be had, or a varid is past [`MOST_VARIDS`], the model stops and every
//! varid is found as last added from then on.

use darshan_core::arena::ZeroedWords;

/// Varids modelled (24 MiB of words at most).
pub const MOST_VARIDS: usize = 1 << 20;
/// Buckets modelled (16 MiB): uthash doubles past them only for some
/// ten million entries spread over as many varids.
const MOST_LOG2_BUCKETS: u32 = 20;
/// Words per varid: entries, the record at the chain's head, at its tail.
const W: usize = 3;
const ENTRIES: usize = 0;
const HEAD: usize = 1;
const TAIL: usize = 2;
/// Words per bucket: entries, expand_mult.
const B: usize = 2;
/// Varid words taken at the first definition (64 varids: one page).
const FIRST_VARIDS: usize = 64;
/// uthash's HASH_INITIAL_NUM_BUCKETS (log2) and HASH_BKT_CAPACITY_THRESH.
const LOG2_INITIAL_BUCKETS: u32 = 5;
const BUCKET_THRESHOLD: u64 = 10;

pub struct VaridChains {
    /// W words per varid, at `varid * W`; entries 0: no entry.
    varids: ZeroedWords,
    /// B words per bucket, 2^log2_buckets of them once the first is added.
    buckets: ZeroedWords,
    entries: u64,
    log2_buckets: u32,
    ineff_expands: u32,
    noexpand: bool,
    /// Words could not be had or a varid was past the modelled ones.
    stopped: bool,
}

impl VaridChains {
    pub const fn new() -> VaridChains {
        VaridChains {
            varids: ZeroedWords::empty(),
            buckets: ZeroedWords::empty(),
            entries: 0,
            log2_buckets: LOG2_INITIAL_BUCKETS,
            ineff_expands: 0,
            noexpand: false,
            stopped: false,
        }
    }

    /// An entry `varid` -> `record` was added; `found(varid, record)` is
    /// told every varid whose lookup now finds another record.
    pub fn add(&mut self, varid: i32, record: usize, found: &mut dyn FnMut(i32, usize)) {
        found(varid, record);
        let Some(v) = self.room_for(varid) else { return };
        let s = &mut self.varids[v * W..(v + 1) * W];
        if s[ENTRIES] == 0 {
            s[TAIL] = record as u64;
        }
        s[HEAD] = record as u64;
        s[ENTRIES] += 1;
        self.entries += 1;
        let b = bucket(v, self.log2_buckets) * B;
        let bucket = &mut self.buckets[b..b + B];
        bucket[0] += 1;
        if bucket[0] >= (bucket[1] + 1) * BUCKET_THRESHOLD && !self.noexpand {
            self.expand(found);
        }
    }

    /// `varid` as an index into words that have room for it (None: the
    /// model has stopped, or stops now).
    fn room_for(&mut self, varid: i32) -> Option<usize> {
        let v = usize::try_from(varid).ok().filter(|&v| v < MOST_VARIDS && !self.stopped);
        let had = v.and_then(|v| {
            if self.buckets.is_empty() {
                self.buckets = ZeroedWords::in_pages(B << LOG2_INITIAL_BUCKETS)?;
            }
            if self.varids.len() < (v + 1) * W {
                let n = (v + 1).next_power_of_two().max(FIRST_VARIDS);
                let mut bigger = ZeroedWords::in_pages(n * W)?;
                bigger[..self.varids.len()].copy_from_slice(&self.varids);
                self.varids = bigger;
            }
            Some(v)
        });
        self.stopped |= had.is_none();
        had
    }

    /// HASH_EXPAND_BUCKETS: twice the buckets, every chain reversed, each
    /// bucket's expand_mult and the table's inefficiency counted again.
    fn expand(&mut self, found: &mut dyn FnMut(i32, usize)) {
        let log2 = self.log2_buckets + 1;
        let Some(mut buckets) = (log2 <= MOST_LOG2_BUCKETS).then(|| ZeroedWords::in_pages(B << log2)).flatten() else {
            self.stopped = true;
            return;
        };
        for (v, s) in self.varids.chunks_exact_mut(W).enumerate().filter(|(_, s)| s[ENTRIES] > 0) {
            buckets[bucket(v, log2) * B] += s[ENTRIES];
            (s[HEAD], s[TAIL]) = (s[TAIL], s[HEAD]);
            if s[HEAD] != s[TAIL] {
                found(v as i32, s[HEAD] as usize);
            }
        }
        let n = self.entries;
        let ideal = (n >> log2) + u64::from(n & ((1 << log2) - 1) != 0);
        let mut nonideal = 0;
        for bucket in buckets.chunks_exact_mut(B).filter(|b| b[0] > ideal) {
            nonideal += bucket[0] - ideal;
            bucket[1] = bucket[0] / ideal;
        }
        self.buckets = buckets;
        self.log2_buckets = log2;
        self.ineff_expands = if nonideal > n >> 1 { self.ineff_expands + 1 } else { 0 };
        self.noexpand |= self.ineff_expands > 1;
    }

    /// A forked child's table starts empty, as its handles do.
    pub fn clear(&mut self) {
        *self = VaridChains::new();
    }
}

/// The bucket of varid `v` in a table of 2^`log2` buckets.
fn bucket(v: usize, log2: u32) -> usize {
    jenkins(&(v as i32).to_le_bytes()) as usize & ((1 << log2) - 1)
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

    /// Past the modelled varids the model stops: each varid, any other
    /// too, is found as last added, even where uthash would find another.
    #[test]
    fn a_varid_past_the_modelled_ones_is_found_as_last_added() {
        let mut chains = VaridChains::new();
        let mut last = (0, 0);
        chains.add(MOST_VARIDS as i32, 7, &mut |v, r| last = (v, r));
        assert_eq!(last, (MOST_VARIDS as i32, 7));
        for f in 0..20 {
            chains.add(0, f, &mut |v, r| last = (v, r));
            assert_eq!(last, (0, f), "file {f}");
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
    /// "file varid count" lines: C's records not written exactly once.
    fn not_written_once(c: &str) -> Vec<(usize, usize, usize)> {
        let n = |x: &str| x.parse::<usize>().unwrap();
        c.lines().map(|l| l.split(' ').map(n).collect::<Vec<_>>()).map(|n| (n[0], n[1], n[2])).collect()
    }

    /// Ours, as the same lines.
    fn ours_not_written_once(files: usize, vars: usize) -> Vec<(usize, usize, usize)> {
        let per_file = writes_per_record(files, vars).into_iter().enumerate();
        let with_index = per_file.flat_map(|(f, per_var)| per_var.into_iter().enumerate().map(move |(v, n)| (f, v, n)));
        with_index.filter(|&(_, _, n)| n != 1).collect()
    }

    /// A new varid took expand_mult 0 instead of its bucket's, so a bucket
    /// with a multiple doubled the table early: with 300 variables or more
    /// per file, writes were counted for other records than C's (396 of
    /// 900 records differed for three files of 300, 1,100 of 2,000 for
    /// two of 1,000). The oracle: C Darshan 3.5.0's log of
    /// tests/programs/pnetcdf_many_vars.c, every record not written once.
    #[test]
    fn a_new_varid_took_expand_mult_0_and_hundreds_of_variables_moved_writes() {
        let c = not_written_once(include_str!("c_3_files_300_vars.txt"));
        assert_eq!(c.len(), 118);
        assert_eq!(ours_not_written_once(3, 300), c);
    }

    /// The model followed 1,024 varids: the entries of the others were not
    /// counted in their buckets, so the table doubled at other times than
    /// C's (642 of 12,000 records differed for six files of 2,000
    /// variables, 50 of 13,200 for twelve of 1,100). The oracle: C's log
    /// of `pnetcdf_many_vars DIR 6 2000`.
    #[test]
    fn varids_past_the_1024th_were_left_out_of_their_buckets() {
        let c = not_written_once(include_str!("c_6_files_2000_vars.txt"));
        assert_eq!(c.len(), 1056);
        assert_eq!(ours_not_written_once(6, 2000), c);
    }
}
