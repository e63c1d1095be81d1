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

use crate::scan::json::{self, Fields, Flaw};

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

fn text(v: &[u8]) -> Option<String> {
    json::string(v).map(std::borrow::Cow::into_owned)
}

/// Skim the record `line`, which starts at byte `base` of its file. Each value
/// is walked once: the message is read while the top-level walk passes it,
/// so a payload costs one quote search (then one hash).
pub(crate) fn record(line: &[u8], base: usize) -> RecordImages {
    let mut out = RecordImages::default();
    let mut echo = None;
    let mut top = Fields::new(line, 0);
    loop {
        let kv = top.next_with(|k, i| match k {
            b"message" => message(line, i, base, &mut out),
            _ => json::value_end(line, i),
        });
        match kv {
            None => break,
            Some(Err(_)) => {
                out.malformed = true;
                break;
            }
            Some(Ok((k, v))) => match k {
                b"uuid" => out.uuid = text(v),
                b"timestamp" => out.timestamp = text(v),
                b"toolUseResult" => echo = read_echo(v, line, base),
                _ => {}
            },
        }
    }
    if out.images.is_empty() {
        out.images.extend(echo);
    }
    out
}

/// `message` at `b[i]`: its `content` array read in passing; returns its end.
fn message(b: &[u8], i: usize, base: usize, out: &mut RecordImages) -> Result<usize, Flaw> {
    if b.get(i) != Some(&b'{') {
        return json::value_end(b, i);
    }
    let mut f = Fields::new(b, i);
    while let Some(kv) = f.next_with(|k, j| match (k, b.get(j)) {
        (b"content", Some(b'[')) => array(b, j, base, out, true),
        _ => json::value_end(b, j),
    }) {
        kv?;
    }
    Ok(f.end())
}

/// A content array at `b[i]`; `top`: the message's own (a tool_result's
/// array is read one level down). Returns its end.
fn array(
    b: &[u8],
    i: usize,
    base: usize,
    out: &mut RecordImages,
    top: bool,
) -> Result<usize, Flaw> {
    let mut j = json::ws(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Ok(j + 1);
    }
    loop {
        j = json::ws(b, block(b, j, base, out, top)?);
        match b.get(j) {
            Some(b',') => j = json::ws(b, j + 1),
            Some(b']') => return Ok(j + 1),
            None | Some(b'\n') => return Err(Flaw::Unterminated),
            Some(_) => return Err(Flaw::Invalid),
        }
    }
}

/// One content element at `b[i]`, its fields in any order. Returns its end.
fn block(
    b: &[u8],
    i: usize,
    base: usize,
    out: &mut RecordImages,
    top: bool,
) -> Result<usize, Flaw> {
    if b.get(i) != Some(&b'{') {
        return json::value_end(b, i);
    }
    let (mut kind, mut src, mut text_raw) = (None, None, None);
    let mut inner = RecordImages::default();
    let mut f = Fields::new(b, i);
    while let Some(kv) = f.next_with(|k, j| match (k, b.get(j)) {
        (b"source", Some(b'{')) => {
            let (found, end) = source(b, j, base)?;
            src = Some(found);
            Ok(end)
        }
        (b"content", Some(b'[')) if top => array(b, j, base, &mut inner, false),
        _ => json::value_end(b, j),
    }) {
        let (k, v) = kv?;
        match k {
            b"type" => kind = json::plain_str(v),
            b"text" => text_raw = Some(v),
            _ => {}
        }
    }
    let carrier = if top {
        Carrier::Block
    } else {
        Carrier::ToolResult
    };
    match kind {
        Some("image") => out.images.extend(src.map(|mut s| {
            s.carrier = carrier;
            s
        })),
        Some("document") => out.documents += 1,
        Some("text") if top => markers(text_raw.unwrap_or_default(), &mut out.markers),
        Some("tool_result") => {
            out.images.append(&mut inner.images);
            out.documents += inner.documents;
        }
        _ => {}
    }
    Ok(f.end())
}

/// An image `source` at `b[i]`: kind, media type (never guessed when absent:
/// a url source has none) and the payload's range; and where it ends.
fn source(b: &[u8], i: usize, base: usize) -> Result<(Found, usize), Flaw> {
    let mut found = Found {
        carrier: Carrier::Block,
        source_kind: String::new(),
        media_type: String::new(),
        data: None,
    };
    let mut f = Fields::new(b, i);
    for kv in f.by_ref() {
        let (k, v) = kv?;
        match k {
            b"type" => found.source_kind = text(v).unwrap_or_default(),
            b"media_type" => found.media_type = text(v).unwrap_or_default(),
            b"data" if v.starts_with(b"\"") => found.data = Some(range(v, b, base)),
            _ => {}
        }
    }
    Ok((found, f.end()))
}

/// The absolute file range of `sub`, a slice of `line`.
fn range(sub: &[u8], line: &[u8], base: usize) -> (usize, usize) {
    let start = base + (sub.as_ptr() as usize - line.as_ptr() as usize);
    (start, start + sub.len())
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
