//! Backward-shift deletion for open-addressing tables with linear
//! probing (the aio and io_uring tables of requests in flight): no
//! tombstones, so a table whose entries come and go never fills with them.

/// Empty entry `s` of `w`, a table of `width`-word entries (a power-of-two
/// number of them), and move later entries of its run back into the hole
/// wherever their home allows, so that a lookup from any entry's home
/// still reaches it. `home(entry)`: the slot the entry's key hashes to,
/// None for an empty slot. An entry sitting at or after its home in the
/// hole's run is passed over, not a reason to stop: entries after it may
/// still need the hole. A full table (no empty slot to end the run) is
/// walked once around, not for ever: io_uring's fixed table of 4,096 hung
/// its program when a request completed with all 4,096 in flight.
pub fn remove(w: &mut [u64], width: usize, mut s: usize, home: impl Fn(&[u64]) -> Option<usize>) {
    let mask = w.len() / width - 1;
    let mut j = s;
    for _ in 0..mask {
        j = (j + 1) & mask;
        let Some(h) = home(&w[j * width..(j + 1) * width]) else { break };
        // The entry may fill the hole unless its home lies in (s, j].
        if j.wrapping_sub(h) & mask >= j.wrapping_sub(s) & mask {
            w.copy_within(j * width..(j + 1) * width, s * width);
            s = j;
        }
    }
    w[s * width..(s + 1) * width].fill(0);
}

#[cfg(test)]
mod tests {
    /// Keys 1-3 of a table of 8 one-word entries (0: empty), the home of
    /// key k being `k % 8`, looked up as the tables do.
    fn find(w: &[u64], k: u64) -> Option<usize> {
        let mut s = (k % 8) as usize;
        while w[s] != 0 {
            if w[s] == k {
                return Some(s);
            }
            s = (s + 1) % 8;
        }
        None
    }

    /// The removal stopped at the first entry it could not move (one at
    /// its home): an entry after it whose home lay before the hole was
    /// then cut off from its home by the empty slot, and never found.
    #[test]
    fn an_entry_after_one_at_its_home_was_cut_off_from_its_own() {
        // 13 and 6 probe from 5 and 6; 21 (home 5) went on to 7.
        let mut w = vec![0u64; 8];
        w[5] = 13;
        w[6] = 6;
        w[7] = 21;
        super::remove(&mut w, 1, 5, |e| (e[0] != 0).then(|| (e[0] % 8) as usize));
        assert_eq!((find(&w, 6), find(&w, 21), find(&w, 13)), (Some(6), Some(5), None));
    }

    /// A table with no empty slot: the removal walked round it for ever.
    #[test]
    fn a_removal_from_a_full_table_went_round_it_for_ever() {
        // 16 and 8 both home at 0, every other key at its home.
        let mut w: Vec<u64> = vec![16, 8, 10, 11, 12, 13, 14, 15];
        super::remove(&mut w, 1, 0, |e| (e[0] != 0).then(|| (e[0] % 8) as usize));
        assert_eq!(w, [8, 0, 10, 11, 12, 13, 14, 15]);
        assert!([8, 10, 11, 12, 13, 14, 15].iter().all(|&k| find(&w, k).is_some()));
    }

    /// Runs that wrap around the end, removals anywhere: every key left
    /// is found, against a set kept beside it.
    #[test]
    fn every_key_left_is_found_after_any_removal() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2000 {
            let mut w = vec![0u64; 8];
            let mut keys = Vec::new();
            for _ in 0..6 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = x % 1000 + 1;
                if find(&w, k).is_none() {
                    let mut s = (k % 8) as usize;
                    while w[s] != 0 {
                        s = (s + 1) % 8;
                    }
                    w[s] = k;
                    keys.push(k);
                }
            }
            let gone = keys.remove((x % keys.len() as u64) as usize);
            let at = find(&w, gone).unwrap();
            super::remove(&mut w, 1, at, |e| (e[0] != 0).then(|| (e[0] % 8) as usize));
            assert_eq!(find(&w, gone), None);
            for &k in &keys {
                assert!(find(&w, k).is_some(), "key {k} lost removing {gone}");
            }
        }
    }
}
