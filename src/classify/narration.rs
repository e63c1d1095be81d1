//! Narration: since Claude Code 2.1.170 the API may return a second `thinking`
//! block that is a short summary of the reasoning, identical in shape to reasoning
//! (NAR-001). The only discriminator is a tag inside the base64 `signature`:
//! protobuf field path 2 → 1 → 8, taking the LAST length-delimited field at each
//! level, whose payload reads `narration` or `thinking` (NAR-002, NAR-005).
//!
//! The whole signature must be decoded to read the tag (NAR-006), so a cheap gate
//! runs first: the token `narration` appears in the base64 at one of three
//! alignments (NAR-007), and real signatures carry no whitespace (NAR-008).

/// `narration` base64-encoded at stream offsets 0, 1 and 2 (NAR-007).
const NEEDLES: [&str; 3] = ["bmFycmF0aW9u", "5hcnJhdGlv", "uYXJyYXRp"];

/// Whether a thinking block with this signature is narration.
pub fn is_narration(signature: &str) -> bool {
    let gate = NEEDLES.iter().any(|n| signature.contains(n))
        || signature.bytes().any(|b| b.is_ascii_whitespace());
    gate && signature_tag(signature).as_deref() == Some(b"narration".as_slice())
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

/// Standard base64 with optional padding; ASCII whitespace ignored (NAR-008).
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let mut n = 0usize;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            c if c.is_ascii_whitespace() => continue,
            _ => return None,
        };
        n += 1;
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if n % 4 == 1 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    s.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    }

    fn ld(field: u8, payload: &[u8]) -> Vec<u8> {
        let mut v = vec![(field << 3) | 2, payload.len() as u8];
        v.extend_from_slice(payload);
        v
    }

    /// A signature shaped like the real ones: version varint, then 2 → 1 → 8.
    fn signature(tag: &[u8], pad: usize) -> String {
        let inner = [vec![0x08, 0x01], ld(8, tag)].concat();
        let mid = ld(1, &inner);
        let mut msg = vec![0x08, 0x04];
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
    }
}
