//! Byte-level JSON skimming: find where a string or value ends and walk an
//! object's top-level fields, without deserialising anything. Strings are
//! skipped by searching for quotes only (eight bytes at a time, then memchr) and
//! counting the backslashes before each, so a value costs about one pass over
//! its bytes however much escaped text it holds. The skim checks structure
//! (terminated strings, balanced nesting) but not every scalar's grammar: it is
//! for locating fields in records serde already accepted, or for a fast first
//! look before serde decides.

pub(crate) use compact::{compact, decode_strings};

mod compact;

/// Where a byte range stopped being JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// Whitespace only (ignored, REC-040).
    Blank,
    /// A second value follows the object on the same line.
    Glued,
    /// The line ends inside a string or object.
    Unterminated,
    /// Anything else (not an object, stray bytes, invalid UTF-8).
    Invalid,
}

/// Skip blanks; a newline ends the line and is never skipped.
pub(crate) fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r') {
        i += 1;
    }
    i
}

/// Index just past the closing quote of a string whose body starts at `i`.
/// Looks for quotes (and newlines, which end the line) only and counts the
/// backslashes before a quote, so the frequent `\n` escapes in tool output
/// cost nothing.
pub(crate) fn string_end(b: &[u8], i: usize) -> Result<usize, Flaw> {
    let mut from = i;
    loop {
        let Some(q) = next_quote(b, from) else {
            return Err(Flaw::Unterminated);
        };
        let slashes = b[i..q].iter().rev().take_while(|&&c| c == b'\\').count();
        if slashes % 2 == 0 {
            return Ok(q + 1);
        }
        from = q + 1;
    }
}

/// The next `"` at or after `from`. Sixteen bytes at a time (SSE2, always
/// present on x86_64) for the first stretch, where JSON held inside strings puts
/// a quote every few bytes and a memchr call per quote costs more than the scan;
/// long bodies go to memchr. Other targets use an eight-byte SWAR loop.
fn next_quote(b: &[u8], from: usize) -> Option<usize> {
    let stop = b.len().min(from.saturating_add(256));
    let mut at = from;
    while at + 16 <= stop {
        let mask = quotes16(&b[at..at + 16]);
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
        at += 16;
    }
    memchr::memchr(b'"', b.get(at..)?).map(|k| at + k)
}

/// Bit `i` set when `chunk[i]` is a quote (`chunk` is 16 bytes).
#[cfg(target_arch = "x86_64")]
#[inline]
fn quotes16(chunk: &[u8]) -> u32 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    debug_assert!(chunk.len() >= 16);
    if chunk.len() < 16 {
        return 0;
    }
    // SAFETY: SSE2 is part of the x86_64 baseline; the load is unaligned and
    // reads exactly the 16 bytes the length check above guarantees.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn quotes16(chunk: &[u8]) -> u32 {
    chunk
        .iter()
        .take(16)
        .enumerate()
        .filter(|(_, &c)| c == b'"')
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// Index just past the value starting at `i`.
pub(crate) fn value_end(b: &[u8], i: usize) -> Result<usize, Flaw> {
    match b.get(i) {
        None | Some(b'\n') => Err(Flaw::Unterminated),
        Some(b'"') => string_end(b, i + 1),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j + 1)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(j + 1);
                        }
                    }
                    b'\n' => return Err(Flaw::Unterminated),
                    _ => {}
                }
                j += 1;
            }
            Err(Flaw::Unterminated)
        }
        Some(c) if c.is_ascii_digit() || matches!(c, b'-' | b't' | b'f' | b'n') => {
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'.' | b'+' | b'-'))
            {
                j += 1;
            }
            Ok(j)
        }
        Some(_) => Err(Flaw::Invalid),
    }
}

/// A `(key, value)` pair of byte ranges.
pub(crate) type Field<'a> = (&'a [u8], &'a [u8]);

/// The top-level fields of the object starting at `b[start]`: `(key, value)`
/// byte ranges, the key without its quotes (escapes as written), the value whole
/// (a string keeps its quotes). Ends after the closing brace; [`Fields::end`]
/// then says where. A structural flaw ends the walk with `Err`.
pub(crate) struct Fields<'a> {
    b: &'a [u8],
    i: usize,
    state: State,
}

#[derive(PartialEq)]
enum State {
    Start,
    Next,
    Done,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(b: &'a [u8], start: usize) -> Self {
        Fields {
            b,
            i: start,
            state: State::Start,
        }
    }

    /// Index just past the object, once every field has been read.
    pub(crate) fn end(&self) -> usize {
        self.i
    }

    /// The next field, its value's end found by `skip(key, value_start)` instead
    /// of [`value_end`]: a caller that must walk one value anyway (to read inside
    /// it) walks it once, here, and returns where it ended.
    pub(crate) fn next_with(
        &mut self,
        skip: impl FnOnce(&'a [u8], usize) -> Result<usize, Flaw>,
    ) -> Option<Result<Field<'a>, Flaw>> {
        if self.state == State::Done {
            return None;
        }
        match self.step(skip) {
            Ok(Some(kv)) => Some(Ok(kv)),
            Ok(None) => {
                self.state = State::Done;
                None
            }
            Err(f) => {
                self.state = State::Done;
                Some(Err(f))
            }
        }
    }

    fn step(
        &mut self,
        skip: impl FnOnce(&'a [u8], usize) -> Result<usize, Flaw>,
    ) -> Result<Option<Field<'a>>, Flaw> {
        let b = self.b;
        let mut i = ws(b, self.i);
        if self.state == State::Start {
            match b.get(i) {
                None | Some(b'\n') => return Err(Flaw::Blank),
                Some(b'{') => {}
                Some(_) => return Err(Flaw::Invalid),
            }
            i = ws(b, i + 1);
            if b.get(i) == Some(&b'}') {
                self.i = i + 1;
                return Ok(None);
            }
        }
        match b.get(i) {
            Some(b'"') => {}
            None | Some(b'\n') => return Err(Flaw::Unterminated),
            Some(_) => return Err(Flaw::Invalid),
        }
        let kend = string_end(b, i + 1)?;
        let key = &b[i + 1..kend - 1];
        i = ws(b, kend);
        match b.get(i) {
            Some(b':') => {}
            None | Some(b'\n') => return Err(Flaw::Unterminated),
            Some(_) => return Err(Flaw::Invalid),
        }
        let vstart = ws(b, i + 1);
        let vend = skip(key, vstart)?;
        i = ws(b, vend);
        match b.get(i) {
            Some(b',') => self.state = State::Next,
            Some(b'}') => self.state = State::Done,
            None | Some(b'\n') => return Err(Flaw::Unterminated),
            Some(_) => return Err(Flaw::Invalid),
        }
        self.i = i + 1;
        Ok(Some((key, &b[vstart..vend])))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Flaw>;
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.b;
        self.next_with(|_, i| value_end(b, i))
    }
}

/// The elements of the JSON array `arr`, as written; stops at a flaw.
pub(crate) fn elements(arr: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut i = match arr.first() {
        Some(b'[') => ws(arr, 1),
        _ => arr.len(),
    };
    std::iter::from_fn(move || {
        if arr.get(i).is_none_or(|&b| b == b']') {
            return None;
        }
        let end = value_end(arr, i).ok()?;
        let el = &arr[i..end];
        i = ws(arr, end);
        match arr.get(i) {
            Some(b',') => i = ws(arr, i + 1),
            _ => i = arr.len(),
        }
        Some(el)
    })
}

/// Whether the line `b` (without its newline) is structurally one JSON object and
/// nothing else, as [`Fields`] walks it; scalars' grammar, escapes and UTF-8 are
/// serde's to check. For lines a caller skips without parsing, so a line that
/// is not one record is still noticed.
pub(crate) fn one_object(b: &[u8]) -> Result<(), Flaw> {
    let mut fields = Fields::new(b, 0);
    for kv in fields.by_ref() {
        kv?;
    }
    match b.get(ws(b, fields.end())) {
        None => Ok(()),
        Some(b'{') => Err(Flaw::Glued),
        Some(_) => Err(Flaw::Invalid),
    }
}

/// The raw value of the first top-level `key` of the object `obj` (a string
/// keeps its quotes), when the walk reaches it.
pub(crate) fn field<'a>(obj: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    Fields::new(obj, 0)
        .map_while(Result::ok)
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// A string value's text when it holds no escape (the common case for ids,
/// types and statuses), so it can be borrowed as is.
pub(crate) fn plain_str(v: &[u8]) -> Option<&str> {
    let inner = v.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if memchr::memchr(b'\\', inner).is_some() {
        return None;
    }
    std::str::from_utf8(inner).ok()
}

/// A string value decoded: borrowed when plain, else through serde; a lone
/// surrogate escape reads as U+FFFD ([`crate::record::surrogate`]).
pub(crate) fn string(v: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    match plain_str(v) {
        Some(s) => Some(std::borrow::Cow::Borrowed(s)),
        None => serde_json::from_slice::<String>(v)
            .ok()
            .or_else(|| {
                let fixed = crate::record::surrogate::repair(v)?;
                serde_json::from_slice::<String>(&fixed).ok()
            })
            .map(std::borrow::Cow::Owned),
    }
}

#[cfg(test)]
mod tests;
