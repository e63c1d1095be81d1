//! The usage object read in one pass when Claude Code wrote it tight: no
//! blank between tokens and no backslash or newline anywhere. Every copy in
//! the sample and public homes is (a test pins it, so a Claude Code that
//! wrote them otherwise would show here, as a slower run, never a wrong one);
//! the sub-objects' shapes are REC-097's. The record parse has validated the
//! object, so a walk that trusts its grammar finds each top-level value by
//! its first byte; anything else (a blank, an escape, a shape it does not
//! know) answers `None`, and [`super::Parts::skim`] reads the copy as before.
//! The general skim walked every value twice (once to its end, once more
//! for the sub-objects' keys) and checked each key and value apart: about
//! 6% of stats' CPU on the generated home.

use super::Parts;

/// The top-level fields of `obj`, a JSON object written tight (see the
/// module doc), each handed to `f` as its key's and value's bytes; `None`
/// when `obj` is not tight or `f` answers `None`.
fn fields<'a>(obj: &'a [u8], mut f: impl FnMut(&'a [u8], &'a [u8]) -> Option<()>) -> Option<()> {
    let n = obj.len();
    if n < 2 || obj[0] != b'{' || obj[n - 1] != b'}' {
        return None;
    }
    if n == 2 {
        return Some(());
    }
    let mut i = 1;
    loop {
        if obj.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = i + 1 + memchr::memchr(b'"', &obj[i + 1..])?;
        let key = &obj[i + 1..key_end];
        if obj.get(key_end + 1) != Some(&b':') {
            return None;
        }
        let at = key_end + 2;
        let end = value_end(obj, at)?;
        f(key, &obj[at..end])?;
        match obj.get(end) {
            Some(b',') => i = end + 1,
            Some(b'}') if end + 1 == n => return Some(()),
            _ => return None,
        }
    }
}

/// Just past the value starting at `b[i]`, in an object with no backslash.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => Some(i + 2 + memchr::memchr(b'"', &b[i + 1..])?),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while let Some(&c) = b.get(j) {
                match c {
                    b'"' => j += 1 + memchr::memchr(b'"', &b[j + 1..])?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        c if c.is_ascii_digit() || matches!(c, b'-' | b't' | b'f' | b'n') => {
            let len = b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-'))
                .count();
            Some(i + len)
        }
        _ => None,
    }
}

/// Whether `raw` holds a backslash or a newline. A newline never occurs in
/// a value cut from a line, but the general skim stops at one, so the tight
/// reader declines it too rather than answer otherwise.
fn untight(raw: &str) -> bool {
    memchr::memchr2(b'\\', b'\n', raw.as_bytes()).is_some()
}

/// `bytes`, a slice of `text` on ASCII boundaries, as `text`'s own `&str`.
fn within<'a>(text: &'a str, bytes: &[u8]) -> Option<&'a str> {
    let from = (bytes.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    text.get(from..from.checked_add(bytes.len())?)
}

impl<'a> Parts<'a> {
    /// [`Parts::skim`]'s answer for a tight object; `None` when it is not
    /// tight (or a known key repeats: the skim then refuses it too).
    pub(super) fn tight(raw: &'a str) -> Option<Parts<'a>> {
        if untight(raw) {
            return None;
        }
        let mut p = Parts::default();
        fields(raw.as_bytes(), |k, v| p.put(k, within(raw, v)?))?;
        Some(p)
    }
}

/// [`super::subs`]'s answer for a tight sub-object (the last of repeated
/// keys, 0 for a non-number); `None` when it is not tight.
pub(super) fn subs<const N: usize>(raw: &str, keys: [&str; N]) -> Option<[u64; N]> {
    if untight(raw) {
        return None;
    }
    let mut found: [Option<&[u8]>; N] = [None; N];
    fields(raw.as_bytes(), |k, v| {
        if let Some(i) = keys.iter().position(|key| k == key.as_bytes()) {
            found[i] = Some(v);
        }
        Some(())
    })?;
    Some(found.map(|v| v.and_then(|v| within(raw, v)).map_or(0, super::count)))
}

#[cfg(test)]
mod tests;
