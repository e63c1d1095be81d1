//! Loss detectors shared by `audit` (over whole files) and `guard` (over a live
//! session's newest records): a light reading of a record's message that keeps
//! only what tells a block was lost ([`lite`]), a skim of a record's top-level
//! fields that judges its JSON grammar without building it ([`skim`]), and the
//! hash both use to key records they carry between reads ([`fnv1a`]).
//! Nothing here reports or prints: the commands decide what a finding is.

pub(crate) mod eaten;
pub mod lite;
pub mod skim;

/// FNV-1a over `bytes`: uuids and first lines are random enough that a 64-bit
/// hash tells apart the few records compared (duplicate lines in `audit`, the
/// records of one message id that `guard` carries between fires).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV1A_OFFSET, bytes)
}

/// FNV-1a's starting state: `fnv1a(b) == fnv1a_from(FNV1A_OFFSET, b)`.
pub(crate) const FNV1A_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a continued over `bytes` from state `h`: the hash of a concatenation
/// without building it (`fnv1a_from(fnv1a(a), b) == fnv1a(a ++ b)`).
pub(crate) fn fnv1a_from(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // From the FNV reference (isthe.com/chongo/tech/comp/fnv): "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
