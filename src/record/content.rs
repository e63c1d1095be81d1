//! `message.content`: a plain string or an array of blocks (REC-002). A block is
//! one flat struct rather than a tagged enum, so an unknown block type still
//! deserialises and keeps its `type` name for the census.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{opt_str, Raw, Str};
pub(crate) use types::{BLOCK_TYPES, RECORD_TYPES, RESULT_PART_TYPES};

mod types;

#[derive(Debug)]
pub(crate) enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    /// Neither a string nor an array: the JSON type it was (`number`,
    /// `boolean`, `object`, `null`), counted by stats as an unknown shape.
    Other(&'static str),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    out.push(b);
                }
                Ok(Content::Blocks(out))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Content::Other("object"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Other("null"))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other("boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other("number"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other("number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other("number"))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// One content block. `kind` is `text`, `thinking`, `redacted_thinking`,
/// `tool_use`, `tool_result`, `image`, `document`, or anything newer.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Block<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    pub(crate) kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) text: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) thinking: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) signature: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) id: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) name: Str<'a>,
    #[serde(borrow, default)]
    pub(crate) input: Raw<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) tool_use_id: Str<'a>,
    /// tool_result content: a string or an array of text/image parts.
    #[serde(borrow, default)]
    pub(crate) content: Raw<'a>,
    #[serde(default)]
    pub(crate) is_error: Option<bool>,
    /// An image (or document) block's `source`: `{type: "base64", media_type,
    /// data}` (IMG-001, IMG-003), read only when an image is described.
    #[serde(borrow, default)]
    pub(crate) source: Raw<'a>,
}

impl<'a> Block<'a> {
    pub(crate) fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    pub(crate) fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The decoded text of a tool_result's content: the string itself, or its text
    /// parts joined by newlines (image parts become `[image]`).
    pub(crate) fn result_text(&self) -> Cow<'a, str> {
        match self.content {
            Some(raw) => raw_text(raw),
            None => Cow::Borrowed(""),
        }
    }

    /// Whether the decoded result text, leading whitespace trimmed, starts with one
    /// of `prefixes` (the answer, rejection and async-ack markers open the text:
    /// TURN-009, TURN-013, CLS-009). Decodes only the first few hundred bytes of a string
    /// content, so a marker check on a 50 KB file body costs no full decode.
    pub(crate) fn result_starts_with(&self, prefixes: &[&str]) -> bool {
        const HEAD: usize = 512;
        let Some(raw) = self.content else {
            return prefixes.iter().any(|p| p.is_empty());
        };
        let longest = prefixes.iter().map(|p| p.len()).max().unwrap_or(0);
        if let Some(yes) = raw_starts_with(raw.get().as_bytes(), prefixes) {
            return yes;
        }
        let head = raw_text_head(raw, HEAD);
        let t = head.trim_start();
        if t.len() < longest && raw.get().len() > HEAD {
            // Leading whitespace ate the head: decide on the whole text.
            let full = self.result_text();
            return prefixes.iter().any(|p| full.trim_start().starts_with(p));
        }
        prefixes.iter().any(|p| t.starts_with(p))
    }

    /// An image block's media type and the size of its bytes (decoded from
    /// the base64 length, IMG-001), when its `source` says; `None` for a
    /// source of another kind (a `url`, IMG-003) or none.
    pub(crate) fn image_source(&self) -> Option<(Cow<'a, str>, u64)> {
        #[derive(Deserialize)]
        struct Source<'a> {
            #[serde(borrow, default, deserialize_with = "opt_str")]
            media_type: Str<'a>,
            #[serde(borrow, default)]
            data: Raw<'a>,
        }
        let raw = self.source.filter(|r| r.get().starts_with('{'))?;
        let s: Source<'a> = serde_json::from_str(raw.get()).ok()?;
        let data = s.data?.get().as_bytes();
        let b64 = data.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        let pad = b64.iter().rev().take_while(|&&c| c == b'=').count();
        let bytes = (b64.len() / 4 * 3).saturating_sub(pad) + (b64.len() % 4 * 3 / 4);
        Some((s.media_type.unwrap_or(Cow::Borrowed("?")), bytes as u64))
    }

    /// A tool_use's input exactly as written, `{}` when absent: for parsing.
    pub(crate) fn input_json(&self) -> &'a str {
        self.input.map_or("{}", RawValue::get)
    }

    /// A tool_use's input as text to match and print: compact JSON however the
    /// line was spaced (REC-037, REC-038), borrowed when written compact.
    pub(crate) fn input_text(&self) -> std::borrow::Cow<'a, str> {
        crate::scan::json::compact(self.input_json())
    }

    /// Call `f` with the type of each part of a tool_result's content array
    /// (`text`, `image`, `tool_reference`, REC-011; `""` when a part names
    /// none). A string content has no parts and costs nothing to rule out.
    pub(crate) fn result_part_kinds(&self, mut f: impl FnMut(&str)) {
        #[derive(Deserialize)]
        struct Kind<'a> {
            #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
            kind: Str<'a>,
        }
        let parts = self
            .content
            .filter(|r| r.get().starts_with('['))
            .map(|r| serde_json::from_str::<Vec<Kind<'_>>>(r.get()));
        if let Some(Ok(parts)) = parts {
            for p in &parts {
                f(p.kind.as_deref().unwrap_or(""));
            }
        }
    }
}

/// [`Block::result_starts_with`] decided on a string content's raw bytes,
/// when they decide it: `None` sends the caller to the decode. Leading
/// whitespace written as spaces or as `\n`, `\t`, `\r` escapes is skipped (a
/// Read result opens with spaces, a command's output often with a newline;
/// each decodes to whitespace `trim_start` drops); the first character
/// after it must be a plain ASCII non-space, where `trim_start` stops. From
/// there up to the first escape the raw bytes are the decoded text, so a
/// marker (no quote, backslash or control character) that differs from them
/// before that escape is not a prefix, and one they hold whole is. Only a
/// marker that runs into an escape still matching is left to the decode.
fn raw_starts_with(rb: &[u8], prefixes: &[&str]) -> Option<bool> {
    let simple = |p: &[u8]| !p.iter().any(|&c| c == b'"' || c == b'\\' || c < 0x20);
    let body = rb.strip_prefix(b"\"")?;
    let mut i = 0;
    loop {
        match body.get(i..i + 2) {
            Some([b' ', _]) => i += 1,
            Some([b'\\', b'n' | b't' | b'r']) => i += 2,
            _ => break,
        }
    }
    let text = &body[i..];
    let first = *text.first()?;
    if !first.is_ascii() || first.is_ascii_whitespace() || first == b'\\' {
        return None;
    }
    let mut undecided = false;
    for p in prefixes {
        let p = p.as_bytes();
        // The text opens with `first` as written (no escape): a marker that
        // opens with another byte is no prefix, whatever else it holds. Only
        // a marker that could be one is checked for escapes (checking every
        // marker on every result was 1% of stats' instructions).
        match p.first() {
            None => return Some(true),
            Some(&c) if c != first => continue,
            Some(_) if !simple(p) => return None,
            Some(_) => {}
        }
        let n = p.len().min(text.len());
        let upto = memchr::memchr(b'\\', &text[..n]).unwrap_or(n);
        if text[..upto] != p[..upto] {
            continue;
        }
        if upto == p.len() {
            return Some(true);
        }
        // A shorter body ends in its closing quote, which no marker holds;
        // an escape at `upto` may decode to the marker's next character.
        undecided |= upto < n;
    }
    (!undecided).then_some(false)
}

#[derive(Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    text: Str<'a>,
}

/// Decode a string-or-parts JSON value into text (REC-002, REC-036: the text a
/// user means, with JSON escapes undone).
/// The start of [`raw_text`]: for a string longer than `max` raw bytes, the
/// decode of its first `max` bytes or so (never splitting an escape); other
/// shapes are decoded whole.
pub(crate) fn raw_text_head(raw: &RawValue, max: usize) -> Cow<'_, str> {
    let s = raw.get();
    if !s.starts_with('"') || s.len() <= max + 2 {
        return raw_text(raw);
    }
    // Walk escapes whole so the cut never splits one.
    let b = s.as_bytes();
    let mut cut = 1;
    while cut < max {
        let step = match b[cut] {
            b'\\' if b.get(cut + 1) == Some(&b'u') => 6,
            b'\\' => 2,
            _ => 1,
        };
        if cut + step > max {
            break;
        }
        cut += step;
    }
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut head = String::with_capacity(cut + 1);
    head.push_str(&s[..cut]);
    head.push('"');
    match serde_json::from_str::<String>(&head) {
        Ok(t) => Cow::Owned(t),
        // A split surrogate pair or other oddity: decode it all.
        Err(_) => raw_text(raw),
    }
}

pub(crate) fn raw_text<'a>(raw: &'a RawValue) -> Cow<'a, str> {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => {
            // Borrow when no escapes, else one owned decode.
            #[derive(Deserialize)]
            struct W<'b>(#[serde(borrow)] Cow<'b, str>);
            match serde_json::from_str::<W<'a>>(s) {
                Ok(W(c)) => c,
                // A lone surrogate escape reads as U+FFFD (a line parse
                // repairs it first; a raw value from elsewhere here).
                Err(_) => super::surrogate::repaired_str(s)
                    .and_then(|f| serde_json::from_str::<String>(&f).ok())
                    .map_or(Cow::Borrowed(""), Cow::Owned),
            }
        }
        Some(b'[') => match serde_json::from_str::<Vec<Part<'a>>>(s) {
            Ok(parts) => {
                if parts.len() == 1 && parts[0].kind.as_deref() == Some("text") {
                    if let Some(t) = &parts[0].text {
                        return t.clone();
                    }
                }
                let mut out = String::new();
                for p in &parts {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    match (p.kind.as_deref(), &p.text) {
                        (_, Some(t)) => out.push_str(t),
                        (Some("image"), None) => out.push_str("[image]"),
                        (Some(k), None) => {
                            out.push('[');
                            out.push_str(k);
                            out.push(']');
                        }
                        (None, None) => {}
                    }
                }
                Cow::Owned(out)
            }
            Err(_) => match super::surrogate::repaired_str(s) {
                Some(f) => raw_text_owned(&f).map_or(Cow::Borrowed(s), Cow::Owned),
                None => Cow::Borrowed(s),
            },
        },
        Some(b'n') => Cow::Borrowed(""),
        _ => Cow::Borrowed(s),
    }
}

/// [`raw_text`] of a repaired copy of a raw value (owned, since the copy is).
fn raw_text_owned(fixed: &str) -> Option<String> {
    let raw: &RawValue = serde_json::from_str(fixed).ok()?;
    Some(raw_text(raw).into_owned())
}

#[cfg(test)]
mod tests;
