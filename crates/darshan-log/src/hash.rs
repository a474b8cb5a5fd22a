//! The record-id hash: Bob Jenkins' 64-bit lookup8 `hash()` (1997), which
//! Darshan calls `darshan_hash`. Record ids are `hash(name, 0)`. Also his
//! 32-bit lookup3 `hashlittle()` (2006), Darshan's `darshan_hashlittle`,
//! with which darshan-convert obfuscates names, executables and ids.

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

/// lookup3's `hashlittle(key, length, initval)`: the bytes read as
/// little-endian 32-bit words whatever the host (C's aligned and
/// unaligned paths give these same values on a little-endian machine).
pub fn hashlittle(key: &[u8], initval: u32) -> u32 {
    let init = 0xdead_beef_u32.wrapping_add(key.len() as u32).wrapping_add(initval);
    let (mut a, mut b, mut c) = (init, init, init);
    let word = |k: &[u8]| -> u32 {
        let mut w = [0u8; 4];
        w[..k.len()].copy_from_slice(k);
        u32::from_le_bytes(w)
    };
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(word(&k[0..4]));
        b = b.wrapping_add(word(&k[4..8]));
        c = c.wrapping_add(word(&k[8..12]));
        (a, b, c) = mix(a, b, c);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    // The last 1..=12 bytes, zero-padded.
    a = a.wrapping_add(word(&k[..k.len().min(4)]));
    if k.len() > 4 {
        b = b.wrapping_add(word(&k[4..k.len().min(8)]));
    }
    if k.len() > 8 {
        c = c.wrapping_add(word(&k[8..]));
    }
    final_mix(a, b, c)
}

/// lookup3's `mix(a, b, c)`: each 12 bytes stirred in.
#[inline(always)]
fn mix(mut a: u32, mut b: u32, mut c: u32) -> (u32, u32, u32) {
    let rot = |x: u32, k: u32| x.rotate_left(k);
    a = a.wrapping_sub(c);
    a ^= rot(c, 4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a);
    b ^= rot(a, 6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b);
    c ^= rot(b, 8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c);
    a ^= rot(c, 16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a);
    b ^= rot(a, 19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b);
    c ^= rot(b, 4);
    b = b.wrapping_add(a);
    (a, b, c)
}

/// lookup3's `final(a, b, c)`, giving c.
#[inline(always)]
fn final_mix(mut a: u32, mut b: u32, mut c: u32) -> u32 {
    let rot = |x: u32, k: u32| x.rotate_left(k);
    c ^= b;
    c = c.wrapping_sub(rot(b, 14));
    a ^= c;
    a = a.wrapping_sub(rot(c, 11));
    b ^= a;
    b = b.wrapping_sub(rot(a, 25));
    c ^= b;
    c = c.wrapping_sub(rot(b, 16));
    a ^= c;
    a = a.wrapping_sub(rot(c, 4));
    b ^= a;
    b = b.wrapping_sub(rot(a, 14));
    c ^= b;
    c = c.wrapping_sub(rot(b, 24));
    c
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

    /// The values lookup3.c's own driver prints (its author's test
    /// vectors), with both initial values it uses.
    #[test]
    fn hashlittle_gives_lookup3s_published_values() {
        assert_eq!(hashlittle(b"", 0), 0xdead_beef);
        assert_eq!(hashlittle(b"", 0xdead_beef), 0xbd5b_7dde);
        assert_eq!(hashlittle(b"Four score and seven years ago", 0), 0x1777_0551);
        assert_eq!(hashlittle(b"Four score and seven years ago", 1), 0xcd62_8161);
    }
}
