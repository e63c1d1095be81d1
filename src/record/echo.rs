//! A record's `toolUseResult` (a tool's echo of its result) and, when the
//! line was read by [`parse_line`](super::parse_line), which of the top-level
//! keys its readers ask about it holds, taken in the record's one serde walk.
//! The echo is the largest part of a carrier (a Read or Write echo holds the
//! whole file), and stats' shape detector (REC-071) and the answer check
//! (TURN-009) each walked it a second time to learn its keys.
//!
//! The walk reads the object's keys and takes each value as a raw slice;
//! the echo's own raw text is then placed in the line from the first key to
//! the last value (`{` before, `}` after), and handed to serde_json's raw
//! value through its map form, so it is not walked again. What the walk
//! cannot place (an empty object, an escaped first key, an escaped string, a
//! number) is found by a skim of the line's top-level keys; failing that
//! (the key itself escaped), [`parse_line`](super::parse_line) reparses the
//! line with serde's own raw value, as every other reader of a record (tests,
//! the nested record of an agent_progress) always does.

mod keys;

use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

pub(crate) use keys::{EchoKeys, Key, Status, Ty};

/// A `toolUseResult` value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Echo<'a> {
    /// The value as written; `None` only between a fused walk and its
    /// placement (never in a record [`parse_line`](super::parse_line) returns).
    raw: Option<&'a RawValue>,
    /// Where the fused walk saw the value in its input, to place `raw`.
    span: Option<Span>,
    /// The keys read in the walk; `None` when they were not (a plain read, or
    /// a value that is no object).
    pub(crate) keys: Option<EchoKeys>,
}

/// The input addresses a fused walk saw: `from` is the first key's opening
/// quote or the first element's first byte, `to` just past the last value.
#[derive(Debug, Clone, Copy)]
struct Span {
    open: u8,
    from: usize,
    to: usize,
}

thread_local! {
    /// Whether a `toolUseResult` read on this thread now takes the fused walk.
    static FUSED: Cell<bool> = const { Cell::new(false) };
}

/// Run `f` with `toolUseResult` values read by the fused walk.
pub(super) fn fused<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            FUSED.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(FUSED.with(|c| c.replace(true)));
    f()
}

impl<'a> Echo<'a> {
    pub(crate) fn raw(&self) -> Option<&'a RawValue> {
        self.raw
    }

    /// Place a fused walk's value in `text`, the input it was read from;
    /// `false` when it cannot be (the line is then read the plain way).
    pub(super) fn place(&mut self, text: &'a str) -> bool {
        if self.raw.is_some() {
            return true;
        }
        let placed = self
            .span
            .and_then(|s| place(text, s))
            .or_else(|| by_key(text));
        let Some(raw) = placed.and_then(borrowed_raw) else {
            return false;
        };
        self.raw = Some(raw);
        true
    }
}

/// The slice of `text` a span covers, checked byte by byte.
fn place(text: &str, s: Span) -> Option<&str> {
    let b = text.as_bytes();
    let base = b.as_ptr() as usize;
    let from = s.from.checked_sub(base).filter(|&i| i <= b.len())?;
    let to =
        s.to.checked_sub(base)
            .filter(|&i| i <= b.len() && i >= from)?;
    if s.open == b'"' {
        let start = from.checked_sub(1)?;
        (b.get(start) == Some(&b'"') && b.get(to) == Some(&b'"')).then_some(())?;
        return text.get(start..to + 1);
    }
    let close = if s.open == b'{' { b'}' } else { b']' };
    let before = b[..from].iter().rposition(|c| !is_ws(*c))?;
    (b[before] == s.open).then_some(())?;
    let after = to + b[to..].iter().position(|c| !is_ws(*c))?;
    (b[after] == close).then_some(())?;
    text.get(before..after + 1)
}

/// The record's `toolUseResult` value in `text` (the record's own object),
/// found by a skim of its top-level keys: for a value the walk could not
/// place (an escaped string, an empty object, a number). serde's derive
/// refuses a repeated field, so the one key spelled plainly is the one it
/// read; one spelled with escapes is not found (the line is read plainly).
fn by_key(text: &str) -> Option<&str> {
    let v = crate::scan::json::field(text.as_bytes(), b"toolUseResult")?;
    let from = (v.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    text.get(from..from.checked_add(v.len())?)
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// serde_json's borrowed raw value for `s`, through the map form its own
/// deserializer uses (one entry under its private token), so `s` is not
/// walked again. `None` if serde_json refuses it (a token it no longer
/// knows): the caller reads the line the plain way.
fn borrowed_raw(s: &str) -> Option<&RawValue> {
    use serde::de::value::{BorrowedStrDeserializer, Error, MapDeserializer};
    const TOKEN: &str = "$serde_json::private::RawValue";
    let entry = (
        BorrowedStrDeserializer::<Error>::new(TOKEN),
        BorrowedStrDeserializer::<Error>::new(s),
    );
    let d = MapDeserializer::<_, Error>::new(std::iter::once(entry));
    <&RawValue>::deserialize(d).ok()
}

/// Deserialise a record's `toolUseResult`: fused inside [`fused`], plain
/// (serde's raw value) elsewhere.
pub(crate) fn read<'de: 'a, 'a, D>(d: D) -> Result<Option<Echo<'a>>, D::Error>
where
    D: Deserializer<'de>,
{
    if !FUSED.with(Cell::get) {
        let raw = Option::<&'a RawValue>::deserialize(d)?;
        return Ok(raw.map(|raw| Echo {
            raw: Some(raw),
            span: None,
            keys: None,
        }));
    }
    Option::<Walked<'a>>::deserialize(d).map(|w| w.map(|w| w.0))
}

struct Walked<'a>(Echo<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for Walked<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Walk(std::marker::PhantomData))
            .map(Walked)
    }
}

struct Walk<'a>(std::marker::PhantomData<&'a ()>);

fn unplaced<'a>() -> Echo<'a> {
    Echo::default()
}

/// A walked value still to be placed: `open` its first byte (`{`, `[` or a
/// string's `"`), `from` the address of its first key, element or string
/// byte (`None`: nothing to place by), `to` just past its last.
fn walked<'a>(open: u8, from: Option<usize>, to: usize, keys: Option<EchoKeys>) -> Echo<'a> {
    Echo {
        raw: None,
        span: from.map(|from| Span { open, from, to }),
        keys,
    }
}

/// The address just past `s`.
fn end_of(s: &str) -> usize {
    s.as_ptr() as usize + s.len()
}

impl<'de: 'a, 'a> Visitor<'de> for Walk<'a> {
    type Value = Echo<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut keys = EchoKeys::default();
        let mut from = None;
        let mut to = 0;
        let mut first = true;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            let v: &'de RawValue = map.next_value()?;
            if first {
                // Only a key borrowed from the input says where it is.
                from = match &k {
                    KeyStr::Borrowed(s) => (s.as_ptr() as usize).checked_sub(1),
                    KeyStr::Owned(_) => None,
                };
                first = false;
            }
            keys.note(k.as_str(), v.get().as_bytes());
            to = end_of(v.get());
        }
        Ok(walked(b'{', from, to, Some(keys)))
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut from = None;
        let mut to = 0;
        while let Some(v) = seq.next_element::<&'de RawValue>()? {
            from.get_or_insert(v.get().as_ptr() as usize);
            to = end_of(v.get());
        }
        Ok(walked(b'[', from, to, None))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(walked(b'"', Some(v.as_ptr() as usize), end_of(v), None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(unplaced())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(unplaced())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(unplaced())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(unplaced())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(unplaced())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(unplaced())
    }
}

/// An object key, borrowed from the input unless it holds escapes.
enum KeyStr<'a> {
    Borrowed(&'a str),
    Owned(String),
}

impl KeyStr<'_> {
    fn as_str(&self) -> &str {
        match self {
            KeyStr::Borrowed(s) => s,
            KeyStr::Owned(s) => s,
        }
    }
}

struct KeySeed;

impl<'de> de::DeserializeSeed<'de> for KeySeed {
    type Value = KeyStr<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = KeyStr<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(KeyStr::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(KeyStr::Owned(v.to_string()))
    }
}

#[cfg(test)]
mod tests;
