//! Reading one record's images by skimming its bytes ([`crate::scan::json`]):
//! the base64 payloads are located, never deserialised, so a line of half a
//! megabyte of image costs one quote search over it.
//!
//! Carriers, in document order under one running ordinal (IMG-002): a direct
//! `{type:"image"}` content block (a pasted image, IMG-001) and an
//! `{type:"image"}` element of a `tool_result` block's content array (a
//! screenshot, an image `Read`, IMG-013, or a PDF page since 2.1.251, IMG-015).
//! An image `Read` also echoes its payload in `toolUseResult.file.base64`, which
//! can be empty (IMG-014): the echo is read only when the record holds no image
//! block at all, so it never doubles a row (IMG-013).

use crate::scan::json::{self, Fields};

/// Where an image rode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carrier {
    /// A direct content block (IMG-001).
    Block,
    /// An element of a `tool_result` content array (IMG-002).
    ToolResult,
    /// Only the image `Read` echo `toolUseResult.file.base64` (IMG-011).
    ReadEcho,
}

impl Carrier {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Carrier::Block => "block",
            Carrier::ToolResult => "tool_result",
            Carrier::ReadEcho => "read_echo",
        }
    }
}

/// One image as the record holds it.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) carrier: Carrier,
    /// `source.type`: `base64` on every image Claude Code writes (IMG-003).
    pub(crate) source_kind: String,
    pub(crate) media_type: String,
    /// The payload's JSON string, quotes included, as a range of the file.
    pub(crate) data: Option<(usize, usize)>,
}

/// What one candidate line holds.
#[derive(Debug, Default)]
pub(crate) struct RecordImages {
    pub(crate) uuid: Option<String>,
    pub(crate) timestamp: Option<String>,
    pub(crate) images: Vec<Found>,
    /// `[Image #N]` markers in the record's own text blocks, in order (IMG-005).
    pub(crate) markers: Vec<u32>,
    /// `document` blocks (a PDF sent whole): media, but not images.
    pub(crate) documents: usize,
    /// The line did not skim as one JSON object.
    pub(crate) malformed: bool,
}

fn fields(v: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    Fields::new(v, 0).map_while(Result::ok)
}

fn text(v: &[u8]) -> Option<String> {
    json::string(v).map(std::borrow::Cow::into_owned)
}

/// Skim the record `line`, which starts at byte `base` of its file.
pub(crate) fn record(line: &[u8], base: usize) -> RecordImages {
    let mut out = RecordImages::default();
    let mut echo = None;
    for kv in Fields::new(line, 0) {
        let Ok((k, v)) = kv else {
            out.malformed = true;
            break;
        };
        match k {
            b"uuid" => out.uuid = text(v),
            b"timestamp" => out.timestamp = text(v),
            b"message" => {
                if let Some(content) = json::field(v, b"content") {
                    content_images(content, line, base, &mut out);
                }
            }
            b"toolUseResult" => echo = read_echo(v, line, base),
            _ => {}
        }
    }
    if out.images.is_empty() {
        out.images.extend(echo);
    }
    out
}

/// The absolute file range of `sub`, a slice of `line`.
fn range(sub: &[u8], line: &[u8], base: usize) -> (usize, usize) {
    let start = base + (sub.as_ptr() as usize - line.as_ptr() as usize);
    (start, start + sub.len())
}

fn content_images(content: &[u8], line: &[u8], base: usize, out: &mut RecordImages) {
    for el in json::elements(content) {
        let kind = json::field(el, b"type").and_then(json::plain_str);
        match kind {
            Some("image") => out.images.extend(image(el, Carrier::Block, line, base)),
            Some("document") => out.documents += 1,
            Some("text") => {
                if let Some(t) = json::field(el, b"text") {
                    markers(t, &mut out.markers);
                }
            }
            Some("tool_result") => {
                let Some(inner) = json::field(el, b"content").filter(|c| c.starts_with(b"["))
                else {
                    continue;
                };
                for part in json::elements(inner) {
                    match json::field(part, b"type").and_then(json::plain_str) {
                        Some("image") => {
                            out.images
                                .extend(image(part, Carrier::ToolResult, line, base));
                        }
                        Some("document") => out.documents += 1,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// An image element's `source`: kind, media type, payload range.
fn image(el: &[u8], carrier: Carrier, line: &[u8], base: usize) -> Option<Found> {
    let source = json::field(el, b"source")?;
    let mut f = Found {
        carrier,
        source_kind: String::new(),
        // A source without a media type (a url source has none) is never guessed.
        media_type: String::new(),
        data: None,
    };
    for (k, v) in fields(source) {
        match k {
            b"type" => f.source_kind = text(v).unwrap_or_default(),
            b"media_type" => f.media_type = text(v).unwrap_or_default(),
            b"data" if v.starts_with(b"\"") => f.data = Some(range(v, line, base)),
            _ => {}
        }
    }
    Some(f)
}

/// The image `Read` echo (IMG-011): `{type:"image", file:{base64, type}}`,
/// when its payload is not empty (IMG-014).
fn read_echo(tur: &[u8], line: &[u8], base: usize) -> Option<Found> {
    if json::field(tur, b"type").and_then(json::plain_str) != Some("image") {
        return None;
    }
    let file = json::field(tur, b"file")?;
    let data = json::field(file, b"base64").filter(|d| d.len() > 2 && d.starts_with(b"\""))?;
    Some(Found {
        carrier: Carrier::ReadEcho,
        source_kind: "base64".into(),
        media_type: json::field(file, b"type")
            .and_then(text)
            .unwrap_or_default(),
        data: Some(range(data, line, base)),
    })
}

/// Every `[Image #N]` in a raw JSON string value (the marker holds nothing
/// JSON escapes, so the raw bytes read it).
pub(crate) fn markers(raw: &[u8], out: &mut Vec<u32>) {
    const PAT: &[u8] = b"[Image #";
    for at in memchr::memmem::find_iter(raw, PAT) {
        let digits = &raw[at + PAT.len()..];
        let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
        if n > 0 && digits.get(n) == Some(&b']') {
            if let Some(v) = std::str::from_utf8(&digits[..n])
                .ok()
                .and_then(|s| s.parse().ok())
            {
                out.push(v);
            }
        }
    }
}
