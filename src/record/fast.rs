//! The record parse's fast path: a serde `Deserializer` over a line's text
//! that drives the same derived visitors as serde_json (so a record read
//! here is the record serde_json reads), but checks a string's bytes sixteen
//! or thirty-two at a time ([`scan`]) where serde_json checks eight. Skipped
//! values (unknown fields, raw values) are most of a transcript's bytes, and
//! serde_json's per-byte walk of them was most of a census's time.
//!
//! It reads only what Claude Code writes and declines the rest: a number
//! where the record model asks for a value (never in a record Claude Code
//! writes; serde_json's float reading is its own), a lone surrogate escape, a
//! struct written as an array, a value nested deeper than 128 containers, and
//! any line serde_json would refuse. A declined line is read by serde_json
//! whole, so what is read or refused, and every error message, is serde's
//! ([`super::parse`]). The grammar it checks is serde_json 1.0.154's
//! ([`scan`]); a test compares both readers on every line of the sample and
//! public homes and on generated and mutated lines.

mod scan;

use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, MapDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::Record;
use scan::{literal_end, string_end, value_end, ws};

/// The fast reader declines a line; serde_json reads it.
#[derive(Debug)]
pub(crate) struct Decline;

impl fmt::Display for Decline {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("declined by the fast reader")
    }
}

impl std::error::Error for Decline {}

impl de::Error for Decline {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Decline
    }
}

/// serde_json's private token for its raw value: a newtype struct of this
/// name is read as one map entry under this key whose value is the raw text
/// (serde_json's raw.rs; [`super::echo`] hands raw values over the same way).
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// Containers nested deeper than this are declined (serde_json's own
/// recursion limit is 128).
const MAX_DEPTH: u32 = 120;

/// The record on a line whose text is `text`, or `None` when the fast reader
/// declines it.
pub(crate) fn record(text: &str) -> Option<Box<Record<'_>>> {
    seed(text, std::marker::PhantomData::<Record<'_>>).map(Box::new)
}

/// `seed` run over `text` as `serde_json::from_str` runs a value over it
/// (the value, then blanks only), or `None` when the fast reader declines.
/// A seed that fills a place may have filled part of it before a decline.
pub(crate) fn seed<'de, S: DeserializeSeed<'de>>(text: &'de str, seed: S) -> Option<S::Value> {
    let mut de = De::new(text);
    let v = seed.deserialize(&mut de).ok()?;
    (ws(de.b, de.i) == de.b.len()).then_some(v)
}

/// Whether `text` is one JSON value with blanks around it, by the grammar
/// serde_json checks; `false` also for a value nested deeper than 128
/// containers, which serde_json may still accept: ask it then.
pub(crate) fn valid(text: &str) -> bool {
    let b = text.as_bytes();
    value_end(b, 0).is_ok_and(|end| ws(b, end) == b.len())
}

/// The fast reader against serde_json on `text`, for the fuzz target and
/// its regressions (fuzz/checks.rs): where it reads a record, the record is
/// serde_json's (its `Debug` form, with `toolUseResult` read plain and
/// fused); where serde_json refuses the text, it declines; its grammar check
/// accepts what serde_json's skip accepts, declining only past 128
/// containers. `Err` says what differed.
#[doc(hidden)]
pub fn agrees_with_serde(text: &str) -> Result<(), String> {
    for fused in [false, true] {
        let run = || {
            let fast = record(text).map(|r| format!("{r:?}"));
            let serde = serde_json::from_str::<Record<'_>>(text).ok();
            (fast, serde.map(|r| format!("{r:?}")))
        };
        let (fast, serde) = if fused {
            super::echo::fused(run)
        } else {
            run()
        };
        match (fast, serde) {
            (Some(f), Some(s)) if f != s => return Err(format!("fused {fused}: {f} != {s}")),
            (Some(_), None) => return Err(format!("fused {fused}: read what serde refuses")),
            _ => {}
        }
    }
    let serde_valid = serde_json::from_str::<de::IgnoredAny>(text).is_ok();
    let deep = max_depth(text.as_bytes()) > 128;
    match (valid(text), serde_valid) {
        (true, false) => Err("valid where serde refuses".into()),
        (false, true) if !deep => Err("refused where serde accepts".into()),
        _ => Ok(()),
    }
}

/// The deepest nesting of containers in `b`, brackets inside strings not
/// counted (for [`agrees_with_serde`]).
fn max_depth(b: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0, false, false);
    for &c in b {
        match (in_str, esc, c) {
            (true, true, _) => esc = false,
            (true, false, b'\\') => esc = true,
            (true, false, b'"') => in_str = false,
            (true, ..) => {}
            (false, _, b'"') => in_str = true,
            (false, _, b'[' | b'{') => {
                depth += 1;
                max = max.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

struct De<'de> {
    s: &'de str,
    b: &'de [u8],
    i: usize,
    depth: u32,
    scratch: String,
}

impl<'de> De<'de> {
    fn new(s: &'de str) -> Self {
        De {
            s,
            b: s.as_bytes(),
            i: 0,
            depth: 0,
            scratch: String::new(),
        }
    }

    /// The next byte after blanks, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.i = ws(self.b, self.i);
        self.b.get(self.i).copied()
    }

    /// The string whose opening quote is at `self.i`, to `visitor`: borrowed
    /// from the text when it holds no escape, else decoded.
    fn string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Decline> {
        let from = self.i + 1;
        let (end, escaped) = string_end(self.b, from)?;
        self.i = end + 1;
        let body = self.s.get(from..end).ok_or(Decline)?;
        if !escaped {
            return visitor.visit_borrowed_str(body);
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let v = unescape(body, &mut out).and_then(|()| visitor.visit_str(&out));
        self.scratch = out;
        v
    }

    fn enter(&mut self) -> Result<(), Decline> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Decline);
        }
        self.i += 1;
        Ok(())
    }

    /// Past the `close` that must end the container just read.
    fn leave(&mut self, close: u8) -> Result<(), Decline> {
        if self.peek() != Some(close) {
            return Err(Decline);
        }
        self.i += 1;
        self.depth -= 1;
        Ok(())
    }

    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Decline> {
        self.enter()?;
        let v = visitor.visit_map(Access {
            de: self,
            first: true,
        })?;
        self.leave(b'}')?;
        Ok(v)
    }

    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Decline> {
        self.enter()?;
        let v = visitor.visit_seq(Access {
            de: self,
            first: true,
        })?;
        self.leave(b']')?;
        Ok(v)
    }
}

/// Decode the escapes of a string body that [`string_end`] accepted; a
/// surrogate escape outside a well-formed pair is declined (serde_json
/// refuses it in a string it decodes).
fn unescape(body: &str, out: &mut String) -> Result<(), Decline> {
    let mut rest = body;
    while let Some(at) = rest.find('\\') {
        out.push_str(rest.get(..at).ok_or(Decline)?);
        let esc = rest.get(at + 1..).ok_or(Decline)?;
        let (c, used) = match esc.as_bytes().first() {
            Some(b'"') => ('"', 1),
            Some(b'\\') => ('\\', 1),
            Some(b'/') => ('/', 1),
            Some(b'b') => ('\u{8}', 1),
            Some(b'f') => ('\u{c}', 1),
            Some(b'n') => ('\n', 1),
            Some(b'r') => ('\r', 1),
            Some(b't') => ('\t', 1),
            Some(b'u') => unicode(esc)?,
            _ => return Err(Decline),
        };
        out.push(c);
        rest = esc.get(used..).ok_or(Decline)?;
    }
    out.push_str(rest);
    Ok(())
}

/// The character of a `uXXXX` escape (`esc` starts at the `u`), or of a
/// `uXXXX\uXXXX` surrogate pair, and the bytes it took.
fn unicode(esc: &str) -> Result<(char, usize), Decline> {
    let hex = |s: Option<&str>| {
        s.and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or(Decline)
    };
    let n = hex(esc.get(1..5))?;
    if !(0xD800..=0xDFFF).contains(&n) {
        return char::from_u32(n).map(|c| (c, 5)).ok_or(Decline);
    }
    if n > 0xDBFF || esc.get(5..7) != Some("\\u") {
        return Err(Decline);
    }
    let lo = hex(esc.get(7..11))?;
    if !(0xDC00..=0xDFFF).contains(&lo) {
        return Err(Decline);
    }
    let c = 0x1_0000 + ((n - 0xD800) << 10) + (lo - 0xDC00);
    char::from_u32(c).map(|c| (c, 11)).ok_or(Decline)
}

/// `deserialize_*` methods of the plain shape that decline.
macro_rules! decline {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
            Err(Decline)
        })*
    };
}

/// The `deserialize_*` methods with a name, a length or variants, declined;
/// with `newtype_struct struct`, those two as well (an object key's).
macro_rules! decline_shaped {
    (newtype_struct struct) => {
        decline_shaped!();

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: V,
        ) -> Result<V::Value, Decline> {
            Err(Decline)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Decline> {
            Err(Decline)
        }
    };
    () => {
        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: V,
        ) -> Result<V::Value, Decline> {
            Err(Decline)
        }

        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Decline> {
            Err(Decline)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            _: V,
        ) -> Result<V::Value, Decline> {
            Err(Decline)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Decline> {
            Err(Decline)
        }
    };
}

impl<'de> Deserializer<'de> for &mut De<'de> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.peek() {
            Some(b'"') => self.string(visitor),
            Some(b'{') => self.map(visitor),
            Some(b'[') => self.seq(visitor),
            Some(b'n') => {
                self.i = literal_end(self.b, self.i, b"null")?;
                visitor.visit_unit()
            }
            Some(b't' | b'f') => self.deserialize_bool(visitor),
            // A number: serde_json's own reading decides its type and value.
            _ => Err(Decline),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.peek() {
            Some(b't') => {
                self.i = literal_end(self.b, self.i, b"true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.i = literal_end(self.b, self.i, b"false")?;
                visitor.visit_bool(false)
            }
            _ => Err(Decline),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.peek() {
            Some(b'"') => self.string(visitor),
            _ => Err(Decline),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.peek() {
            Some(b'n') => {
                self.i = literal_end(self.b, self.i, b"null")?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        if name != RAW_TOKEN {
            return visitor.visit_newtype_struct(self);
        }
        let from = ws(self.b, self.i);
        self.i = value_end(self.b, from)?;
        let raw = self.s.get(from..self.i).ok_or(Decline)?;
        let entry = (
            BorrowedStrDeserializer::<Decline>::new(RAW_TOKEN),
            BorrowedStrDeserializer::<Decline>::new(raw),
        );
        visitor.visit_map(MapDeserializer::new(std::iter::once(entry)))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Decline> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.peek() {
            Some(b'{') => self.map(visitor),
            _ => Err(Decline),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.peek() {
            Some(b'[') => self.seq(visitor),
            _ => Err(Decline),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.i = value_end(self.b, self.i)?;
        visitor.visit_unit()
    }

    // Nothing the readers of a line ask for these: declined, so no visitor
    // that would take more than its type can be handed what serde_json refuses.
    decline! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes
        deserialize_byte_buf deserialize_unit
    }
    decline_shaped!();
}

/// The entries of an object or the elements of an array being read.
struct Access<'a, 'de> {
    de: &'a mut De<'de>,
    first: bool,
}

impl Access<'_, '_> {
    /// Whether another entry (`close` ends the container) follows: past its
    /// comma if it does.
    fn more(&mut self, close: u8) -> Result<bool, Decline> {
        let c = self.de.peek();
        if c == Some(close) {
            return Ok(false);
        }
        if !std::mem::replace(&mut self.first, false) {
            if c != Some(b',') {
                return Err(Decline);
            }
            self.de.i += 1;
        }
        Ok(true)
    }
}

impl<'de> MapAccess<'de> for Access<'_, 'de> {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Decline> {
        if !self.more(b'}')? {
            return Ok(None);
        }
        if self.de.peek() != Some(b'"') {
            return Err(Decline);
        }
        seed.deserialize(Key(&mut *self.de)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Decline> {
        if self.de.peek() != Some(b':') {
            return Err(Decline);
        }
        self.de.i += 1;
        seed.deserialize(&mut *self.de)
    }
}

impl<'de> SeqAccess<'de> for Access<'_, 'de> {
    type Error = Decline;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Decline> {
        if !self.more(b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// An object key (its opening quote next): read as a string whatever is asked.
struct Key<'a, 'de>(&'a mut De<'de>);

impl<'de> Deserializer<'de> for Key<'_, 'de> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.0.string(visitor)
    }

    /// As serde_json's key reader skips a key: by decoding it, so a lone
    /// surrogate escape in a skipped key is refused (serde_json refuses it;
    /// its skip of a string value does not look at surrogates).
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_any(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_any(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_any(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_any(visitor)
    }

    // serde_json reads a key asked as anything but a string by rules of its
    // own: declined.
    decline! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes
        deserialize_byte_buf deserialize_unit deserialize_option deserialize_seq
        deserialize_map
    }
    decline_shaped!(newtype_struct struct);
}

#[cfg(test)]
mod tests;
