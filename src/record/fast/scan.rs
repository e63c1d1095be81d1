//! The grammar the fast reader checks as it goes: a string's end (sixteen or
//! thirty-two bytes at a time, for a quote, a backslash or a control
//! character in one pass), an escape, a number, a literal, and a whole value
//! skipped. Each refuses exactly what serde_json 1.0.154 refuses in the same
//! place (read.rs `ignore_str`/`ignore_escape`, de.rs `ignore_value`/
//! `ignore_integer`): a control character in a string, an escape other than
//! `\" \\ \/ \b \f \n \r \t \uXXXX`, a number outside JSON's grammar, a
//! trailing comma, a key that is no string. It is stricter in one place only:
//! a value nested deeper than 128 containers is declined, where serde's own
//! skip has no limit; a declined line goes to serde_json whole.

use super::Decline;

/// Skip JSON blanks from `i`.
#[inline]
pub(super) fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The index of the closing quote of the string whose body starts at `i`,
/// and whether the body holds an escape.
#[inline]
pub(super) fn string_end(b: &[u8], mut i: usize) -> Result<(usize, bool), Decline> {
    let mut escaped = false;
    loop {
        i = next_special(b, i);
        match b.get(i) {
            Some(b'"') => return Ok((i, escaped)),
            Some(b'\\') => {
                escaped = true;
                // The two-byte escapes first, without a call: most of a
                // transcript's escapes are `\n`, `\"` and `\\`.
                i = match b.get(i + 1) {
                    Some(&c) if short_escape(c) => i + 2,
                    _ => escape_end(b, i + 1)?,
                };
            }
            // A control character, or the end of the input.
            _ => return Err(Decline),
        }
    }
}

/// Whether `c`, after a backslash, is a one-letter escape: `\" \\ \/ \b \f
/// \n \r \t` (serde_json's read.rs `parse_escape`/`ignore_escape`).
#[inline]
fn short_escape(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

/// Just past the escape whose letter is at `i` (after its backslash).
fn escape_end(b: &[u8], i: usize) -> Result<usize, Decline> {
    match b.get(i) {
        Some(&c) if short_escape(c) => Ok(i + 1),
        Some(b'u') => match b.get(i + 1..i + 5) {
            Some(h) if h.iter().all(u8::is_ascii_hexdigit) => Ok(i + 5),
            _ => Err(Decline),
        },
        _ => Err(Decline),
    }
}

/// Just past the literal `word` at `i`.
#[inline]
pub(super) fn literal_end(b: &[u8], i: usize, word: &[u8]) -> Result<usize, Decline> {
    match b.get(i..i + word.len()) {
        Some(w) if w == word => Ok(i + word.len()),
        _ => Err(Decline),
    }
}

/// Just past the number at `i`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(super) fn number_end(b: &[u8], mut i: usize) -> Result<usize, Decline> {
    let digits = |b: &[u8], mut i: usize| {
        while let Some(b'0'..=b'9') = b.get(i) {
            i += 1;
        }
        i
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => {
            i += 1;
            if let Some(b'0'..=b'9') = b.get(i) {
                return Err(Decline);
            }
        }
        Some(b'1'..=b'9') => i = digits(b, i + 1),
        _ => return Err(Decline),
    }
    if b.get(i) == Some(&b'.') {
        let from = i + 1;
        i = digits(b, from);
        if i == from {
            return Err(Decline);
        }
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let from = i;
        i = digits(b, from);
        if i == from {
            return Err(Decline);
        }
    }
    Ok(i)
}

/// Just past a key's `"…"` and its colon, the key's quote at `i`.
fn key_end(b: &[u8], i: usize) -> Result<usize, Decline> {
    if b.get(i) != Some(&b'"') {
        return Err(Decline);
    }
    let i = ws(b, string_end(b, i + 1)?.0 + 1);
    match b.get(i) {
        Some(b':') => Ok(i + 1),
        _ => Err(Decline),
    }
}

/// Just past the value starting at `i` (blanks before it skipped), every
/// byte of it checked. Containers nest by a 128-bit stack (a set bit is an
/// object).
pub(super) fn value_end(b: &[u8], mut i: usize) -> Result<usize, Decline> {
    let mut stack: u128 = 0;
    let mut depth: u32 = 0;
    loop {
        i = ws(b, i);
        match b.get(i) {
            Some(b'"') => i = string_end(b, i + 1)?.0 + 1,
            Some(&open @ (b'{' | b'[')) => {
                if depth == 128 {
                    return Err(Decline);
                }
                let object = open == b'{';
                stack = stack << 1 | u128::from(object);
                depth += 1;
                i = ws(b, i + 1);
                let close = if object { b'}' } else { b']' };
                if b.get(i) != Some(&close) {
                    if object {
                        i = key_end(b, i)?;
                    }
                    continue;
                }
                // Empty: closed below, as a value that ends here.
            }
            Some(b't') => i = literal_end(b, i, b"true")?,
            Some(b'f') => i = literal_end(b, i, b"false")?,
            Some(b'n') => i = literal_end(b, i, b"null")?,
            Some(b'-' | b'0'..=b'9') => i = number_end(b, i)?,
            _ => return Err(Decline),
        }
        // After a value: close what ends here, or go on to the next one.
        loop {
            if depth == 0 {
                return Ok(i);
            }
            let object = stack & 1 == 1;
            i = ws(b, i);
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                    if object {
                        i = key_end(b, ws(b, i))?;
                    }
                    break;
                }
                Some(b'}') if object => {}
                Some(b']') if !object => {}
                _ => return Err(Decline),
            }
            i += 1;
            stack >>= 1;
            depth -= 1;
        }
    }
}

/// The first index at or after `i` holding a quote, a backslash or a
/// control character; `b.len()` when there is none.
#[inline]
fn next_special(b: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if i + 16 <= b.len() {
            let m = simd::special16(b, i);
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            i += 16;
            if simd::avx2() {
                // SAFETY: AVX2 is present (checked just above).
                i = unsafe { simd::skip_plain_avx2(b, i) };
            }
            while i + 16 <= b.len() {
                let m = simd::special16(b, i);
                if m != 0 {
                    return i + m.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
    }
    while let Some(&c) = b.get(i) {
        if special(c) {
            return i;
        }
        i += 1;
    }
    i
}

#[inline]
fn special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// Whether this machine has AVX2 (checked once by std).
    #[inline]
    pub(super) fn avx2() -> bool {
        std::is_x86_feature_detected!("avx2")
    }

    /// A bit per byte of `b[i..i + 16]` that is a quote, a backslash or a
    /// control character (`i + 16 <= b.len()`, checked by the caller; a
    /// shorter slice gives 0).
    #[inline]
    pub(super) fn special16(b: &[u8], i: usize) -> u32 {
        let Some(chunk) = b.get(i..i + 16) else {
            return 0;
        };
        // SAFETY: SSE2 is part of the x86_64 baseline; the unaligned load
        // reads exactly the 16 bytes of `chunk`.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let s = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let low = _mm_set1_epi8(0x1f);
            let c = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, s), c)) as u32
        }
    }

    /// From `i`, skip 32-byte blocks that hold no quote, backslash or control
    /// character; the index of the first block that does, or where fewer
    /// than 32 bytes are left.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn skip_plain_avx2(b: &[u8], mut i: usize) -> usize {
        let quote = _mm256_set1_epi8(b'"' as i8);
        let slash = _mm256_set1_epi8(b'\\' as i8);
        let low = _mm256_set1_epi8(0x1f);
        while i + 32 <= b.len() {
            // SAFETY: the loop condition keeps the 32-byte unaligned load
            // inside `b`.
            let v = unsafe { _mm256_loadu_si256(b.as_ptr().add(i).cast::<__m256i>()) };
            let q = _mm256_cmpeq_epi8(v, quote);
            let s = _mm256_cmpeq_epi8(v, slash);
            let c = _mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low);
            let m = _mm256_or_si256(_mm256_or_si256(q, s), c);
            if _mm256_testz_si256(m, m) == 0 {
                return i;
            }
            i += 32;
        }
        i
    }
}
