//! serde's walk of a whole line for audit's malformed-line check, reading the
//! top-level fields the skim reads ([`Top`]) and, in the same walk, what the
//! detectors would otherwise parse a second time: the message's [`LiteMessage`]
//! (eaten text, tool calls, bare carriers, inline persisted output), the
//! `toolUseResult` object's spawn and persisted-output keys ([`SpawnRaw`]),
//! and the same keys of a progress record's `data` (its `agentId`).
//!
//! The message's, the result's and the data's raw bytes are still needed (byte
//! prefilters), and a serde visitor is told no positions: each is found from
//! the borrowed key strings around it (its own key, then the next key or the
//! line's end), which in valid JSON leave only whitespace, `:` and `,` to step
//! over. Where that cannot be done exactly (an escaped key) or the fused read
//! refuses a line serde accepts (a message [`LiteMessage`] will not take), the
//! line is read the plain way ([`RawTop`], raw values only) and the detectors
//! parse what they need themselves, as before.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::refs::SpawnRaw;
use crate::loss::lite::LiteMessage;
use crate::loss::skim::Top;
use crate::scan::pair::{ws_back, ws_fwd};
use plain::RawTop;

mod plain;

/// A line serde accepted: its [`Top`], and what the same walk read of its
/// message and `toolUseResult` (`None` for a line read the plain way).
pub(crate) struct Checked<'a> {
    pub(crate) top: Top<'a>,
    pub(crate) pre: Option<Pre<'a>>,
}

/// What the fused walk read beside [`Top`].
#[derive(Debug, Default)]
pub(crate) struct Pre<'a> {
    /// The message when it is an object.
    pub(crate) message: Option<LiteMessage<'a>>,
    /// The `toolUseResult` keys when it is an object.
    pub(crate) tur: Option<SpawnRaw<'a>>,
    /// The same keys of `data` when it is an object (a progress record's
    /// `agentId`).
    pub(crate) data: Option<SpawnRaw<'a>>,
}

/// The top-level fields [`crate::loss::skim::skim`] reads, read by serde instead,
/// which also judges the grammar of the whole line (escapes, control
/// characters, scalars, punctuation inside nested values; UTF-8 checked first,
/// once): one walk where a skim and then a validation would take two. Each
/// field is what the skim gives for it. `None` when the line is not one valid
/// JSON object, or repeats a key serde will not take twice; the caller then
/// skims the line instead.
pub(crate) fn checked(line: &[u8]) -> Option<Checked<'_>> {
    if line.trim_ascii_start().first() != Some(&b'{') {
        return None; // serde would read a struct from an array too
    }
    let text = simdutf8::basic::from_utf8(line).ok()?;
    // The fast reader first (it drives the same visitor, or declines).
    let mut f = Fused::default();
    let read = crate::record::fast::seed(text, &mut f).is_some() || {
        f = Fused::default();
        let mut de = serde_json::Deserializer::from_str(text);
        // As `serde_json::from_str` reads: the value, then nothing but whitespace.
        (&mut f)
            .deserialize(&mut de)
            .and_then(|()| de.end())
            .is_ok()
    };
    if read {
        if let Some(c) = f.checked(text) {
            return Some(c);
        }
    }
    let r: RawTop<'_> = serde_json::from_str(text).ok()?;
    Some(Checked {
        top: r.top(),
        pre: None,
    })
}

/// An object key as written: borrowed from the line when it holds no escape
/// (so its place in the line is known), decoded otherwise.
struct Key<'a>(Cow<'a, str>);

impl<'a> Key<'a> {
    fn plain(&self) -> Option<&'a str> {
        match self.0 {
            Cow::Borrowed(s) => Some(s),
            Cow::Owned(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A value read only for where it lies ([`Fused`]'s message and result): the
/// plain key before it, and the plain key after it (`Some(None)` when it was
/// the last value; `None` when either key was escaped or is not known yet).
#[derive(Default, Clone, Copy)]
struct Place<'a> {
    key: Option<&'a str>,
    next: Option<Option<&'a str>>,
}

/// The message value: the [`LiteMessage`] of an object, nothing of anything else.
struct Msg<'a>(Option<LiteMessage<'a>>);

/// The `toolUseResult` (or `data`) value: the spawn keys of an object,
/// nothing of anything else.
struct Tur<'a>(Option<SpawnRaw<'a>>);

/// The scalar visits of a value visitor whose value is `None` for anything
/// but an object (an array is read through, as [`IgnoredAny`] reads it).
macro_rules! not_object {
    () => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    };
}

impl<'de> Deserialize<'de> for Msg<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<LiteMessage<'de>>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a message")
            }
            not_object!();
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                LiteMessage::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
            }
        }
        d.deserialize_any(V).map(Msg)
    }
}

impl<'de> Deserialize<'de> for Tur<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<SpawnRaw<'de>>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool result")
            }
            not_object!();
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut s = SpawnRaw::default();
                while let Some(k) = map.next_key::<Key<'de>>()? {
                    match SpawnRaw::slot(&k.0) {
                        Some(i) => s.put(i, map.next_value()?, k.plain().is_none()),
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Some(s))
            }
        }
        d.deserialize_any(V).map(Tur)
    }
}

/// The fused read of a line ([`checked`]): the raw scalars of [`RawTop`], the
/// message and the result read in place, and where those two lie.
#[derive(Default)]
struct Fused<'a> {
    raw: RawTop<'a>,
    message: Option<Msg<'a>>,
    tur: Option<Tur<'a>>,
    data: Option<Tur<'a>>,
    /// The message's, the result's and the data's places.
    places: [Place<'a>; 3],
}

/// Take a known field's value once; a repeated key fails the read, as it
/// fails [`RawTop`]'s derived one.
fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The fused read fills a [`Fused`] in place (the read's value is large,
/// and moving it out of serde's result per line showed as copies).
impl<'de> DeserializeSeed<'de> for &mut Fused<'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct V<'f, 'de>(&'f mut Fused<'de>);
        impl<'de> Visitor<'de> for V<'_, 'de> {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a transcript record")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                let f = self.0;
                // The place whose next key is still to come.
                let mut open: Option<usize> = None;
                while let Some(k) = map.next_key::<Key<'de>>()? {
                    if let Some(i) = open.take() {
                        f.places[i].next = k.plain().map(Some);
                    }
                    let r = &mut f.raw;
                    match &*k.0 {
                        "type" => once(&mut r.kind, &mut map, "type")?,
                        "subtype" => once(&mut r.subtype, &mut map, "subtype")?,
                        "uuid" => once(&mut r.uuid, &mut map, "uuid")?,
                        "timestamp" => once(&mut r.timestamp, &mut map, "timestamp")?,
                        "version" => once(&mut r.version, &mut map, "version")?,
                        "agentId" => once(&mut r.agent_id, &mut map, "agentId")?,
                        "isSidechain" => once(&mut r.is_sidechain, &mut map, "isSidechain")?,
                        "isMeta" => once(&mut r.is_meta, &mut map, "isMeta")?,
                        "data" => {
                            once(&mut f.data, &mut map, "data")?;
                            f.places[2].key = k.plain();
                            open = Some(2);
                        }
                        "message" => {
                            once(&mut f.message, &mut map, "message")?;
                            f.places[0].key = k.plain();
                            open = Some(0);
                        }
                        "toolUseResult" => {
                            once(&mut f.tur, &mut map, "toolUseResult")?;
                            f.places[1].key = k.plain();
                            open = Some(1);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                if let Some(i) = open {
                    f.places[i].next = Some(None);
                }
                Ok(())
            }
        }
        d.deserialize_map(V(self))
    }
}

/// The offset of `part` (borrowed from `text`) in `text`; `None` when it is
/// not borrowed from it (the line is then read the plain way).
fn offset(text: &str, part: &str) -> Option<usize> {
    let at = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    (at + part.len() <= text.len()).then_some(at)
}

/// The raw value after the plain key `key` up to the plain key `next` (or the
/// line's closing brace): `"key" ws : ws VALUE ws , ws "next"`.
fn between<'a>(text: &'a str, key: &str, next: Option<&str>) -> Option<&'a [u8]> {
    let b = text.as_bytes();
    let after = offset(text, key)? + key.len();
    if b.get(after) != Some(&b'"') {
        return None;
    }
    let i = ws_fwd(b, after + 1);
    if b.get(i) != Some(&b':') {
        return None;
    }
    let start = ws_fwd(b, i + 1);
    let end = match next {
        Some(n) => {
            let q = offset(text, n)?.checked_sub(1)?; // its opening quote
            let c = ws_back(b, q).checked_sub(1)?;
            if b[c] != b',' {
                return None;
            }
            ws_back(b, c)
        }
        None => {
            let c = ws_back(b, b.len()).checked_sub(1)?;
            if b[c] != b'}' {
                return None;
            }
            ws_back(b, c)
        }
    };
    b.get(start..end).filter(|_| start < end)
}

impl<'a> Fused<'a> {
    /// The [`Checked`] of this read; `None` when a value's place is not known.
    fn checked(&mut self, text: &'a str) -> Option<Checked<'a>> {
        let place = |p: Place<'a>| between(text, p.key?, p.next?);
        let mut top = self.raw.top();
        let mut pre = Pre::default();
        if let Some(Msg(m)) = self.message.take() {
            let raw = place(self.places[0])?;
            top.message = m.is_some().then_some(raw);
            pre.message = m;
        }
        if let Some(Tur(t)) = self.tur.take() {
            top.tool_use_result = Some(place(self.places[1])?);
            pre.tur = t;
        }
        if let Some(Tur(t)) = self.data.take() {
            let raw = place(self.places[2])?;
            top.data = t.is_some().then_some(raw);
            pre.data = t;
        }
        Some(Checked {
            top,
            pre: Some(pre),
        })
    }
}

#[cfg(test)]
mod tests;
