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

mod access;
mod agree;
mod escape;
mod scan;

use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, MapDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

use super::Record;
use access::Access;
#[doc(hidden)]
pub use agree::agrees_with_serde;
use escape::unescape;
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
        let v = visitor.visit_map(Access::new(self))?;
        self.leave(b'}')?;
        Ok(v)
    }

    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Decline> {
        self.enter()?;
        let v = visitor.visit_seq(Access::new(self))?;
        self.leave(b']')?;
        Ok(v)
    }
}

/// `deserialize_*` methods of the plain shape that decline.
macro_rules! decline {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
            Err(Decline)
        })*
    };
}

/// `deserialize_*` methods that take a name, declined.
macro_rules! decline_named {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, _: &'static str, _: V) -> Result<V::Value, Decline> {
            Err(Decline)
        })*
    };
}

/// `deserialize_*` methods that take a name and a list (fields or
/// variants), declined.
macro_rules! decline_listed {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Decline> {
            Err(Decline)
        })*
    };
}

/// The `deserialize_*` methods with a name, a length or variants, declined,
/// with any further named (`$named`) and listed (`$listed`) ones: an object
/// key's `newtype_struct` and `struct`.
macro_rules! decline_shaped {
    ($($named:ident)*; $($listed:ident)*) => {
        decline_named!(deserialize_unit_struct $($named)*);
        decline_listed!(deserialize_enum $($listed)*);

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
    decline_shaped!(;);
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
    decline_shaped!(deserialize_newtype_struct; deserialize_struct);
}

#[cfg(test)]
mod tests;
