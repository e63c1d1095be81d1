//! Small borrowed serde views of the parts of a record audit and guard read:
//! a message's id and the `type` (plus ids) of each content block. Bodies of
//! text, thinking and tool output are skipped, never decoded or copied. Every
//! field is a `RawValue` or lenient, so an odd value type never fails the parse
//! (the survey script compares values, it does not type-check them).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

type Raw<'a> = Option<&'a RawValue>;

/// A JSON string value decoded (borrowed when it has no escapes); `None` for
/// any other type. (serde's `Cow<str>` is always owned: a string without a
/// backslash is its own bytes, a valid raw value holding no control byte.)
pub(crate) fn raw_str<'a>(raw: Raw<'a>) -> Option<Cow<'a, str>> {
    let g = raw?.get();
    if !g.starts_with('"') {
        return None;
    }
    if g.len() >= 2 && g.ends_with('"') && !g.as_bytes().contains(&b'\\') {
        return Some(Cow::Borrowed(&g[1..g.len() - 1]));
    }
    serde_json::from_str::<Cow<'a, str>>(g).ok()
}

/// Whether a raw value is exactly the JSON string `s` (no escapes needed).
pub(crate) fn raw_is(raw: Raw<'_>, s: &str) -> bool {
    raw.is_some_and(|r| {
        let g = r.get();
        g.len() == s.len() + 2 && g.starts_with('"') && &g[1..g.len() - 1] == s
    })
}

#[derive(Debug, Default, Deserialize)]
pub struct LiteMessage<'a> {
    #[serde(borrow, default)]
    pub(crate) id: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) content: Option<LiteContent<'a>>,
}

impl<'a> LiteMessage<'a> {
    pub fn parse(bytes: &'a [u8]) -> Option<LiteMessage<'a>> {
        serde_json::from_slice(bytes).ok()
    }

    /// `message.id` when it is a non-empty string (the script's `if not mid`).
    pub fn id(&self) -> Option<Cow<'a, str>> {
        raw_str(self.id).filter(|s| !s.is_empty())
    }

    /// The guard's turn boundary (the report's `is_genuine_user`, applied to a
    /// user record that is neither sidechain nor meta): string content, or a
    /// list without a tool_result block.
    pub(crate) fn is_typed_prompt(&self) -> bool {
        match &self.content {
            Some(LiteContent::Text) => true,
            Some(LiteContent::Blocks(b)) => !b.iter().any(|b| b.is("tool_result")),
            _ => false,
        }
    }

    /// The dict blocks when `content` is a list (`None` otherwise).
    pub fn blocks(&self) -> Option<&[LiteBlock<'a>]> {
        match &self.content {
            Some(LiteContent::Blocks(b)) => Some(b),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct LiteBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(crate) kind: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) id: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) name: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) input: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) tool_use_id: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) is_error: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) content: Raw<'a>,
}

impl LiteBlock<'_> {
    pub(crate) fn is(&self, kind: &str) -> bool {
        raw_is(self.kind, kind)
    }

    pub(crate) fn is_error(&self) -> bool {
        self.is_error.is_some_and(|r| r.get() == "true")
    }
}

/// `message.content`: the list's dict elements, or anything else.
#[derive(Debug)]
pub(crate) enum LiteContent<'a> {
    Blocks(Vec<LiteBlock<'a>>),
    /// A plain string (a typed user prompt, REC-002).
    Text,
    Other,
}

struct Elem<'a>(Option<LiteBlock<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Elem<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Elem<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let b = LiteBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Elem(Some(b)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Elem(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Elem(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Elem(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Elem(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Elem(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Elem(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Elem(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LiteContent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LiteContent<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(Elem(b)) = seq.next_element::<Elem<'a>>()? {
                    out.extend(b);
                }
                Ok(LiteContent::Blocks(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LiteContent::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LiteContent::Text)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LiteContent::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LiteContent::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LiteContent::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LiteContent::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LiteContent::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// What the eaten-text rule needs from one assistant record: kinds present
/// among its dict blocks (the script's `kinds = {b.type for b in blocks}`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Kinds {
    pub(crate) thinking: bool,
    pub(crate) text: bool,
    /// `content[0].type == "thinking"` (the adjacency form's test).
    pub(crate) first_thinking: bool,
    pub(crate) dict_blocks: usize,
}

pub fn kinds(blocks: &[LiteBlock<'_>]) -> Kinds {
    Kinds {
        thinking: blocks.iter().any(|b| b.is("thinking")),
        text: blocks.iter().any(|b| b.is("text")),
        first_thinking: blocks.first().is_some_and(|b| b.is("thinking")),
        dict_blocks: blocks.len(),
    }
}

/// What the eaten-text rule reads of an assistant `message` — its id (as
/// [`LiteMessage::id`]) and its block [`Kinds`] (`None` when `content` is not a
/// list) — found by a skim, without serde walking the text and thinking bodies.
/// `None` when the skim cannot answer exactly as the serde view would (a flaw,
/// a repeated key): the caller falls back to [`LiteMessage`]. The skim checks
/// structure, not string contents: a message serde rejects only for a raw
/// control character or a bad escape inside a string is still read. Audit reads
/// the same view inside its line skim ([`eaten_walk`] via `skim_at`) when the
/// malformed-line check is off; with it on, serde reads every message and
/// reports such a line. This message-alone form is what the tests and the fuzz
/// checks hold that line-skim reading to.
pub fn skim_eaten(msg: &[u8]) -> Option<(Option<Cow<'_, str>>, Option<Kinds>)> {
    let ((id, kinds), _) = eaten_walk(msg, 0)?;
    Some((eaten_id(id)?, kinds))
}

/// A message's raw id value (a JSON string, quotes kept) and block kinds.
pub(crate) type EatenRaw<'a> = (Option<&'a [u8]>, Option<Kinds>);

/// The raw id value and the kinds of the message object at `b[start]`, and the
/// index just past it: one walk, so a line skim can read the message while
/// finding where it ends. `None` where [`skim_eaten`] declines.
pub(crate) fn eaten_walk(b: &[u8], start: usize) -> Option<(EatenRaw<'_>, usize)> {
    use crate::scan::json::{value_end, Fields};
    let (mut id, mut list) = (None, None);
    let mut seen_content = false;
    let mut fields = Fields::new(b, start);
    while let Some(kv) = fields.next_with(|key, i| {
        if key == b"content" && b.get(i) == Some(&b'[') {
            let (k, end) = kinds_walk(b, i).ok_or(crate::scan::json::Flaw::Invalid)?;
            list = Some(k);
            Ok(end)
        } else {
            value_end(b, i)
        }
    }) {
        let (k, v) = kv.ok()?;
        match k {
            b"id" if id.replace(v).is_some() => return None,
            b"content" if std::mem::replace(&mut seen_content, true) => return None,
            _ => {}
        }
    }
    let id = id.filter(|v| v.starts_with(b"\""));
    Some(((id, list), fields.end()))
}

/// `message.id` decoded as [`LiteMessage::id`] gives it; `None` when it does not
/// decode (the caller falls back to serde).
pub fn eaten_id(raw: Option<&[u8]>) -> Option<Option<Cow<'_, str>>> {
    match raw {
        Some(v) => Some(Some(crate::scan::json::string(v)?).filter(|s| !s.is_empty())),
        None => Some(None),
    }
}

/// The [`Kinds`] of the content list at `list[i]` and the index just past it.
fn kinds_walk(list: &[u8], i: usize) -> Option<(Kinds, usize)> {
    use crate::scan::json::{self, Fields};
    let mut k = Kinds::default();
    let mut i = json::ws(list, i + 1);
    if list.get(i) == Some(&b']') {
        return Some((k, i + 1));
    }
    loop {
        let end = if list.get(i) == Some(&b'{') {
            // One walk finds the block's type and its end.
            let mut kind = None;
            let mut fields = Fields::new(list, i);
            for kv in fields.by_ref() {
                let (key, v) = kv.ok()?;
                if key == b"type" && kind.replace(v).is_some() {
                    return None;
                }
            }
            let is = |want: &[u8]| {
                kind.is_some_and(|v| {
                    v.len() == want.len() + 2 && &v[1..v.len() - 1] == want && v[0] == b'"'
                })
            };
            k.thinking |= is(b"thinking");
            k.text |= is(b"text");
            if k.dict_blocks == 0 {
                k.first_thinking = is(b"thinking");
            }
            k.dict_blocks += 1;
            fields.end()
        } else {
            json::value_end(list, i).ok()?
        };
        i = json::ws(list, end);
        match list.get(i) {
            Some(b',') => i = json::ws(list, i + 1),
            Some(b']') => return Some((k, i + 1)),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skim answers exactly as the serde view, or declines.
    #[test]
    fn eaten_skim_agrees_with_the_serde_view() {
        let cases: [&[u8]; 9] = [
            br#"{"id":"msg_1","content":[{"type":"thinking","thinking":"x\"y","signature":"s"},"stray",{"type":"text","text":"]}"}]}"#,
            br#"{"id":"msg_2","content":[{"type":"tool_use","id":"t","name":"B","input":{"a":[1,{"type":"text"}]}}]}"#,
            br#"{"id":"","content":[]}"#,
            br#"{"content":"a string","id":"m"}"#,
            br#"{"id":5,"content":[{"type":"text"}, {"type":"thinking"} ]}"#,
            br#"{"id":"m\u0031","content":[{"type":"te\u0078t"}]}"#,
            br#"{"id":"m","content":[[1],{"text":"no type"},{"type":"text","type":"x"}]}"#,
            br#"{"id":"m","id":"n","content":[]}"#,
            br#"{"role":"assistant"}"#,
        ];
        for c in cases {
            let Some((id, k)) = skim_eaten(c) else {
                // Declined: only where serde itself rejects the view.
                assert!(
                    LiteMessage::parse(c).is_none(),
                    "{}",
                    String::from_utf8_lossy(c)
                );
                continue;
            };
            let m = LiteMessage::parse(c).unwrap();
            assert_eq!(id, m.id(), "{}", String::from_utf8_lossy(c));
            // The walk that read it also found where the message ends.
            let (_, end) = eaten_walk(c, 0).unwrap();
            assert_eq!(Ok(end), crate::scan::json::value_end(c, 0));
            let want = m.blocks().map(kinds);
            assert_eq!(
                format!("{k:?}"),
                format!("{want:?}"),
                "{}",
                String::from_utf8_lossy(c)
            );
        }
    }

    #[test]
    fn reads_ids_and_kinds_without_bodies() {
        let m = br#"{"id":"msg_1","content":[{"type":"thinking","thinking":"x\ny","signature":"s"},"stray",{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}"#;
        let m = LiteMessage::parse(m).unwrap();
        assert_eq!(m.id().as_deref(), Some("msg_1"));
        let b = m.blocks().unwrap();
        assert_eq!(b.len(), 2);
        let k = kinds(b);
        assert!(k.thinking && !k.text && k.first_thinking);
        assert_eq!(raw_str(b[1].name).as_deref(), Some("Bash"));
    }

    #[test]
    fn odd_types_never_fail() {
        let m = LiteMessage::parse(br#"{"id":7,"content":"plain"}"#).unwrap();
        assert!(m.id().is_none());
        assert!(m.blocks().is_none());
        let m = LiteMessage::parse(br#"{"id":"","content":[{"type":3}]}"#).unwrap();
        assert!(m.id().is_none());
        assert!(!kinds(m.blocks().unwrap()).thinking);
    }
}
