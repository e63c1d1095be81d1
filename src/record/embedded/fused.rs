//! A progress record's `data`, read in the record's own serde walk when the
//! line is read by [`parse_line`](crate::record::parse_line): the fields an
//! `agent_progress` is read for (`type`, `message`, `agentId`, `prompt`)
//! as [`super::read`] reads them, every other value taken as a raw slice.
//! `data`'s own raw text is then placed in the line as the echo's is
//! ([`crate::record::echo`]), so neither it nor the nested record is walked
//! a second time. The nested record reads plainly (its echo and `data` are
//! serde's raw values), as [`super::read`] reads it.
//!
//! The walk may only agree with [`super::read`] or fail: a failed walk
//! gives the line to the plain parse, which reads `data` as a raw value and
//! the nested record lazily. So a field the plain read would refuse (a
//! repeated one, a number for a string, a `message` that is no object) fails
//! the walk, and a `type` spelled with escapes leaves the nested record to
//! the lazy read (its prefilter looks for the literal).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Embedded, Nested};
use crate::record::echo::{self, KeySeed, KeyStr, Span};
use crate::record::{Record, Str};

/// A record's `data` value.
#[derive(Debug, Default)]
pub(crate) struct Payload<'a> {
    /// The value as written; `None` only between a fused walk and its
    /// placement (never in a record `parse_line` returns).
    raw: Option<&'a RawValue>,
    /// Where the walk saw the object in its input, to place `raw`.
    span: Option<Span>,
    /// What the walk read, for [`Record::embedded`]; `None` when it was not
    /// (a plain read, a value that is no object, an escaped `type`).
    pub(crate) nested: Option<Nested<'a>>,
}

impl<'a> Payload<'a> {
    pub(crate) fn raw(&self) -> Option<&'a RawValue> {
        self.raw
    }

    /// Place a fused walk's value in `text`, the line it was read from;
    /// `false` when it cannot be (the line is then read the plain way).
    pub(crate) fn place(&mut self, text: &'a str) -> bool {
        if self.raw.is_some() {
            return true;
        }
        let placed = self
            .span
            .and_then(|s| echo::place(text, s))
            .or_else(|| echo::by_key(text, b"data"));
        let Some(raw) = placed.and_then(echo::borrowed_raw) else {
            return false;
        };
        self.raw = Some(raw);
        true
    }
}

/// Deserialise a record's `data`: fused inside `echo::fused`, plain
/// (serde's raw value) elsewhere.
pub(crate) fn read<'de: 'a, 'a, D>(d: D) -> Result<Option<Payload<'a>>, D::Error>
where
    D: Deserializer<'de>,
{
    if !echo::is_fused() {
        let raw = Option::<&'a RawValue>::deserialize(d)?;
        return Ok(raw.map(|raw| Payload {
            raw: Some(raw),
            ..Payload::default()
        }));
    }
    Option::<Walked<'a>>::deserialize(d).map(|w| w.map(|w| w.0))
}

struct Walked<'a>(Payload<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for Walked<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Walk(std::marker::PhantomData))
            .map(Walked)
    }
}

struct Walk<'a>(std::marker::PhantomData<&'a ()>);

/// The fields of `data` the walk reads, each at most once.
#[derive(Default)]
struct Fields<'a> {
    kind: Option<Str<'a>>,
    message: Option<Option<Record<'a>>>,
    agent_id: Option<Str<'a>>,
    prompt: Option<Str<'a>>,
}

/// Just past a string read borrowed from the input (its closing quote);
/// `None` for a decoded one or a null, whose end the walk does not see.
fn str_end(s: &Str<'_>) -> Option<usize> {
    match s {
        Some(Cow::Borrowed(b)) => Some(b.as_ptr() as usize + b.len() + 1),
        _ => None,
    }
}

/// Read `slot` once; a repeated field fails the walk, as serde's derive does.
fn once<'de, T, M: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut M,
    name: &'static str,
    seed: impl DeserializeSeed<'de, Value = T>,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    Ok(())
}

impl<'de: 'a, 'a> Visitor<'de> for Walk<'a> {
    type Value = Payload<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut f = Fields::<'a>::default();
        let (mut from, mut to) = (None, None);
        let mut first = true;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if std::mem::take(&mut first) {
                from = match &k {
                    KeyStr::Borrowed(s) => (s.as_ptr() as usize).checked_sub(1),
                    KeyStr::Owned(_) => None,
                };
            }
            to = match k.as_str() {
                "type" => once(&mut f.kind, &mut map, "type", StrSeed(PhantomData))
                    .map(|()| f.kind.as_ref().and_then(str_end))?,
                "agentId" => once(&mut f.agent_id, &mut map, "agentId", StrSeed(PhantomData))
                    .map(|()| f.agent_id.as_ref().and_then(str_end))?,
                "prompt" => once(&mut f.prompt, &mut map, "prompt", StrSeed(PhantomData))
                    .map(|()| f.prompt.as_ref().and_then(str_end))?,
                "message" => once(
                    &mut f.message,
                    &mut map,
                    "message",
                    MessageSeed(PhantomData),
                )
                .map(|()| None)?,
                _ => {
                    let v: &'de RawValue = map.next_value()?;
                    Some(v.get().as_ptr() as usize + v.get().len())
                }
            };
        }
        let span = from.zip(to).map(|(from, to)| Span {
            open: b'{',
            from,
            to,
        });
        Ok(Payload {
            raw: None,
            span,
            nested: nested(f),
        })
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(Payload::default())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Payload::default())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Payload::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Payload::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Payload::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Payload::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Payload::default())
    }
}

/// What [`super::read`] makes of the fields: an `agent_progress` (its
/// literal in the input, as the prefilter asks) nests the record or is
/// unreadable; any other `type` nests nothing. A decoded `type` is left to
/// the lazy read.
fn nested(f: Fields<'_>) -> Option<Nested<'_>> {
    match f.kind.flatten() {
        Some(Cow::Borrowed("agent_progress")) => Some(match f.message.flatten() {
            Some(record) => Nested::Record(Box::new(Embedded {
                agent_id: f.agent_id.flatten(),
                prompt: f.prompt.flatten(),
                record,
            })),
            None => Nested::Unreadable,
        }),
        Some(Cow::Owned(_)) => None,
        _ => Some(Nested::None),
    }
}

struct StrSeed<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for StrSeed<'a> {
    type Value = Str<'a>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        crate::record::opt_str(d)
    }
}

/// `data.message` as [`super::read`] reads it, with fused walks off.
struct MessageSeed<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for MessageSeed<'a> {
    type Value = Option<Record<'a>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        echo::unfused(|| super::object(d))
    }
}

#[cfg(test)]
mod tests;
