//! The record-id hash: Bob Jenkins' 64-bit lookup8 `hash()` (1997), which
//! Darshan calls `darshan_hash`. Record ids are `hash(name, 0)`.

#[inline(always)]
fn mix64(a: &mut u64, b: &mut u64, c: &mut u64) {
    macro_rules! step {
        ($x:ident, $y:ident, $z:ident, $op:tt, $n:expr) => {
            *$x = $x.wrapping_sub(*$y);
            *$x = $x.wrapping_sub(*$z);
            *$x ^= *$z $op $n;
        };
    }
    step!(a, b, c, >>, 43);
    step!(b, c, a, <<, 9);
    step!(c, a, b, >>, 8);
    step!(a, b, c, >>, 38);
    step!(b, c, a, <<, 23);
    step!(c, a, b, >>, 5);
    step!(a, b, c, >>, 35);
    step!(b, c, a, <<, 49);
    step!(c, a, b, >>, 11);
    step!(a, b, c, >>, 12);
    step!(b, c, a, <<, 18);
    step!(c, a, b, >>, 22);
}

fn le_word(k: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&k[..8]);
    u64::from_le_bytes(w)
}

/// lookup8 `hash(k, length, level)`; bytes are assembled little-endian
/// whatever the host order, as the C code does.
pub fn hash_with_level(key: &[u8], level: u64) -> u64 {
    let mut a = level;
    let mut b = level;
    let mut c: u64 = 0x9e37_79b9_7f4a_7c13;
    let mut k = key;
    while k.len() >= 24 {
        a = a.wrapping_add(le_word(&k[0..]));
        b = b.wrapping_add(le_word(&k[8..]));
        c = c.wrapping_add(le_word(&k[16..]));
        mix64(&mut a, &mut b, &mut c);
        k = &k[24..];
    }
    c = c.wrapping_add(key.len() as u64);
    // Tail: bytes 16..22 go to c at shifts 8..56 (the low byte of c holds
    // the length), bytes 8..15 to b, bytes 0..7 to a.
    for (i, &byte) in k.iter().enumerate() {
        let v = byte as u64;
        match i {
            0..=7 => a = a.wrapping_add(v << (8 * i)),
            8..=15 => b = b.wrapping_add(v << (8 * (i - 8))),
            _ => c = c.wrapping_add(v << (8 * (i - 15))),
        }
    }
    mix64(&mut a, &mut b, &mut c);
    c
}

/// The record id of a name, as the Darshan runtime computes it.
pub fn record_id(name: &[u8]) -> u64 {
    hash_with_level(name, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_from_real_logs_and_lookup8() {
        let cases: &[(&str, u64)] = &[
            ("<STDIN>", 14734109647742566553),
            ("<STDOUT>", 15920181672442173319),
            ("<STDERR>", 7238257241479193519),
            ("heatmap:POSIX", 16592106915301738621),
            ("heatmap:MPIIO", 3668870418325792824),
            ("heatmap:STDIO", 3989511027826779520),
            ("/tmp/work/mmap/data/f1.dat", 2156226017896119341),
            ("", 10211412111675192767),
            ("a", 2110215103713784748),
            ("abcdefghijklmnopqrstuvwxyz0123456789", 13964317756826103930),
        ];
        for (name, id) in cases {
            assert_eq!(record_id(name.as_bytes()), *id, "hash of {name:?}");
        }
    }
}
