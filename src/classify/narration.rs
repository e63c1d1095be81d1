//! Narration: since Claude Code 2.1.170 the API may return a second `thinking`
//! block that is a short summary of the reasoning, identical in shape to reasoning
//! (NAR-001). The only discriminator is a tag inside the base64 `signature`:
//! protobuf field path 2 → 1 → 8, taking the LAST length-delimited field at each
//! level, whose payload reads `narration` or `thinking` (NAR-002, NAR-005).
//!
//! The whole signature must be decoded to read the tag (NAR-006), so a cheap gate
//! runs first: the token `narration` appears in the base64 at one of three
//! alignments (NAR-007), and real signatures carry no whitespace (NAR-008).

/// `narration` base64-encoded at stream offsets 0, 1 and 2 (NAR-007), as
/// finders built once: `str::contains` set each needle up again for every
/// signature (about 1% of stats' instructions on the generated home).
fn needles() -> [&'static memchr::memmem::Finder<'static>; 3] {
    use crate::scan::lit;
    [
        lit!(b"bmFycmF0aW9u"),
        lit!(b"5hcnJhdGlv"),
        lit!(b"uYXJyYXRp"),
    ]
}

/// Whether a thinking block with this signature is narration.
pub fn is_narration(signature: &str) -> bool {
    let b = signature.as_bytes();
    let gate = needles().iter().any(|n| n.find(b).is_some()) || has_blank(b);
    gate && signature_tag(signature).as_deref() == Some(b"narration".as_slice())
}

/// Whether `b` holds ASCII whitespace (`u8::is_ascii_whitespace`: space,
/// tab, newline, form feed, carriage return), which no real signature holds
/// and the decoder drops (NAR-008).
fn has_blank(b: &[u8]) -> bool {
    memchr::memchr3(b' ', b'\t', b'\n', b).is_some() || memchr::memchr2(b'\x0c', b'\r', b).is_some()
}

/// The tag bytes at path 2 → 1 → 8, or `None` for anything malformed (NAR-002).
pub fn signature_tag(signature: &str) -> Option<Vec<u8>> {
    let raw = base64_decode(signature)?;
    let mut cur: &[u8] = &raw;
    for field in [2u64, 1, 8] {
        cur = last_len_delimited(cur, field)?;
    }
    Some(cur.to_vec())
}

fn varint(b: &[u8], mut p: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let x = *b.get(p)?;
        p += 1;
        if shift > 63 {
            return None;
        }
        v |= u64::from(x & 0x7f) << shift;
        shift += 7;
        if x & 0x80 == 0 {
            return Some((v, p));
        }
    }
}

/// Payload of the LAST wire-type-2 field numbered `want`; `None` on any malformation.
fn last_len_delimited(b: &[u8], want: u64) -> Option<&[u8]> {
    let mut p = 0;
    let mut found = None;
    while p < b.len() {
        let (key, np) = varint(b, p)?;
        p = np;
        let (field, wire) = (key >> 3, key & 7);
        match wire {
            0 => p = varint(b, p)?.1,
            1 => p = p.checked_add(8)?,
            5 => p = p.checked_add(4)?,
            2 => {
                let (n, np) = varint(b, p)?;
                let n = usize::try_from(n).ok()?;
                let end = np.checked_add(n)?;
                if end > b.len() {
                    return None;
                }
                if field == want {
                    found = Some(&b[np..end]);
                }
                p = end;
            }
            _ => return None,
        }
        if p > b.len() {
            return None;
        }
    }
    found
}

/// Standard base64, padding optional and read up to the first `=`, ASCII
/// whitespace ignored (NAR-008), unused trailing bits allowed: the lenient
/// reading the signature gate has always had, now through the `base64` crate.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireNone)
            .with_decode_allow_trailing_bits(true),
    );
    let body = s.split('=').next().unwrap_or("");
    if has_blank(body.as_bytes()) {
        let kept: Vec<u8> = body.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        return LENIENT.decode(kept).ok();
    }
    LENIENT.decode(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn ld(field: u8, payload: &[u8]) -> Vec<u8> {
        let mut v = vec![(field << 3) | 2, payload.len() as u8];
        v.extend_from_slice(payload);
        v
    }

    /// A signature shaped like the real ones: version varint, then 2 → 1 → 8.
    fn signature(tag: &[u8], pad: usize) -> String {
        versioned(tag, pad, Some(4))
    }

    /// [`signature`] with the outer format-version varint `version` (or none).
    fn versioned(tag: &[u8], pad: usize, version: Option<u8>) -> String {
        let inner = [vec![0x08, 0x01], ld(8, tag)].concat();
        let mid = ld(1, &inner);
        let mut msg = version.map_or(vec![], |v| vec![0x08, v]);
        msg.extend(ld(2, &mid));
        let mut v = vec![0x1a, pad as u8];
        v.extend(std::iter::repeat_n(b'x', pad));
        v.extend(msg);
        b64(&v)
    }

    #[test]
    fn reads_the_tag_at_2_1_8_nar_002() {
        for pad in 0..3 {
            let s = signature(b"narration", pad);
            assert_eq!(signature_tag(&s).as_deref(), Some(&b"narration"[..]));
            assert!(
                is_narration(&s),
                "alignment {pad} must pass the gate (NAR-007)"
            );
            let t = signature(b"thinking", pad);
            assert!(!is_narration(&t));
        }
    }

    #[test]
    fn malformed_signatures_are_not_narration_nar_006() {
        assert!(!is_narration("bmFycmF0aW9u!!"));
        assert!(!is_narration(""));
        assert!(!is_narration("bmFycmF0aW9u"));
        assert_eq!(base64_decode("a"), None);
        assert_eq!(base64_decode("aGk=").as_deref(), Some(&b"hi"[..]));
        // The hand decoder's leniencies, kept: no padding, whitespace, trailing bits,
        // and nothing read past the first `=`.
        assert_eq!(base64_decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("aG\nk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("aGl=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("aGk=!!").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("aG!k"), None);
    }

    /// NAR-003: the outer version varint (2, 4 or absent) does not decide;
    /// NAR-005: a third tag value reads as itself and is not narration;
    /// The gate's and the decoder's whitespace is exactly the ASCII set.
    #[test]
    fn has_blank_is_ascii_whitespace_nar_008() {
        for c in 0..=255u8 {
            assert_eq!(
                has_blank(&[b'A', c, b'B']),
                c.is_ascii_whitespace(),
                "{c:#x}"
            );
        }
    }

    /// NAR-008: whitespace inside the base64 is accepted by the decoder.
    #[test]
    fn only_the_tag_decides_nar_003_nar_005_nar_008() {
        for version in [Some(2), Some(4), None] {
            for pad in 0..3 {
                let n = versioned(b"narration", pad, version);
                let t = versioned(b"thinking", pad, version);
                assert!(is_narration(&n), "{version:?} {pad}"); // NAR-003
                assert!(!is_narration(&t), "{version:?} {pad}"); // NAR-003
            }
        }
        let third = signature(b"reasoning", 1);
        assert_eq!(signature_tag(&third).as_deref(), Some(&b"reasoning"[..])); // NAR-005
        assert!(!is_narration(&third)); // NAR-005
        let n = signature(b"narration", 0);
        let spaced = format!("{}\n{}", &n[..8], &n[8..]);
        assert!(is_narration(&spaced)); // NAR-008

        // NAR-006: every strict prefix of a narration signature reads untagged.
        let n = signature(b"narration", 2);
        for cut in 0..n.trim_end_matches('=').len() - 1 {
            assert!(!is_narration(&n[..cut]), "prefix {cut}");
        }
    }
}
