//! A fast hasher for maps keyed by ids read from a transcript (tool_use ids,
//! message ids) or by names of the home's own files (session ids, project
//! directories, pack keys): SipHash was 3% of a census on the generated
//! home. Keys come from the home being read, whose worst case costs only
//! that run its time.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hash over eight bytes a step.
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

/// A `HashMap` hashed by [`Fx`].
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// A `HashSet` hashed by [`Fx`].
pub(crate) type FxSet<K> = HashSet<K, BuildHasherDefault<Fx>>;

/// A key's 64-bit hash, seeded with its length, for maps keyed by the hash
/// alone that confirm a match on the key itself (audit's uuid and id maps).
pub(crate) fn key(bytes: &[u8]) -> u64 {
    let mut h = Fx(bytes.len() as u64);
    h.write(bytes);
    h.finish()
}

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            self.write_u64(u64::from_le_bytes(a));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut a = [0u8; 8];
            a[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(a) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that differ only in length or in a late byte land apart, and a
    /// map over them finds each.
    #[test]
    fn fx_map_keeps_keys_apart() {
        let keys = [
            "",
            "a",
            "a\0",
            "toolu_01",
            "toolu_02",
            "toolu_01x",
            "m\0msg_1",
        ];
        let mut m: FxMap<String, usize> = FxMap::default();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k.to_string(), i);
        }
        assert_eq!(m.len(), keys.len());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(m.get(*k), Some(&i));
        }
    }
}
