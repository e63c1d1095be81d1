//! Parsing one physical line into a [`Record`], and naming what is wrong with a
//! line that is not a record: two records glued on one line (a real Claude Code
//! write race), a torn final line, valid JSON that is not an object, a blank line,
//! or anything else. A malformed line is counted and reported, never hidden.

use super::Record;
use crate::scan::Line;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MalformedKind {
    /// Two or more JSON objects on one line with no newline between.
    Glued,
    /// The last line of the file, unterminated and not complete JSON.
    Torn,
    /// Valid JSON, but an array, string, number, boolean or null.
    NotObject,
    /// Empty or whitespace-only.
    Blank,
    /// Not JSON (bad syntax, invalid UTF-8, nesting too deep, NUL bytes …).
    Invalid,
    /// Valid JSON and an object, but a field holds a value the record model
    /// cannot read (a number where Claude Code writes a string): no line
    /// Claude Code writes, so it is reported rather than read by guesswork.
    /// (An unpaired surrogate escape is read, as U+FFFD: [`super::surrogate`].)
    UnexpectedValue,
}

impl MalformedKind {
    /// Every kind, in declaration order: what a cache entry's codes index
    /// and its names are checked against.
    pub const ALL: [MalformedKind; 6] = [
        MalformedKind::Glued,
        MalformedKind::Torn,
        MalformedKind::NotObject,
        MalformedKind::Blank,
        MalformedKind::Invalid,
        MalformedKind::UnexpectedValue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MalformedKind::Glued => "glued-records",
            MalformedKind::Torn => "torn-final-line",
            MalformedKind::NotObject => "not-an-object",
            MalformedKind::Blank => "blank",
            MalformedKind::Invalid => "invalid-json",
            MalformedKind::UnexpectedValue => "unexpected-value",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Malformed {
    pub line: usize,
    pub kind: MalformedKind,
    /// serde_json's message, with the column where parsing stopped.
    pub(crate) detail: String,
    /// Byte column (1-based) where parsing failed, when known.
    pub(crate) column: usize,
}

pub enum Parsed<'a> {
    Record(Box<Record<'a>>),
    Malformed(Malformed),
}

/// The whole objects of a glued line (records written on one line by a write
/// race), each as a line of its own: the same number, its own offset and
/// bytes. A torn or invalid tail ends the list.
pub fn glued_records<'a>(line: &Line<'a>) -> Vec<Line<'a>> {
    use crate::scan::json::{value_end, ws};
    let b = line.bytes;
    let mut out = Vec::new();
    let mut i = ws(b, 0);
    while b.get(i) == Some(&b'{') {
        let Ok(end) = value_end(b, i) else { break };
        out.push(Line {
            no: line.no,
            offset: line.offset + i,
            bytes: &b[i..end],
            terminated: line.terminated,
        });
        i = ws(b, end);
    }
    out
}

/// The records of a glued line that parse, each with its own framing.
pub fn glued_parsed<'a>(line: &Line<'a>) -> Vec<(Line<'a>, Box<Record<'a>>)> {
    glued_records(line)
        .into_iter()
        .filter_map(|sub| match parse_line(&sub) {
            Parsed::Record(r) => Some((sub, r)),
            Parsed::Malformed(_) => None,
        })
        .collect()
}

/// The records on a physical line, for a reader that needs no report of a bad
/// line: the one it holds, or each record of a glued line; none otherwise.
pub fn line_records<'a>(line: &Line<'a>) -> Vec<(Line<'a>, Box<Record<'a>>)> {
    match parse_line(line) {
        Parsed::Record(r) => vec![(*line, r)],
        Parsed::Malformed(m) if m.kind == MalformedKind::Glued => glued_parsed(line),
        Parsed::Malformed(_) => Vec::new(),
    }
}

/// Parse `line` as a record, or say why it is not one.
pub fn parse_line<'a>(line: &Line<'a>) -> Parsed<'a> {
    // serde reads a struct from a JSON array too; a record must be an object.
    if line.bytes.trim_ascii_start().first() != Some(&b'{') {
        // The line's own error (an empty input's EOF for a blank line), so the
        // detail says what is wrong with it.
        let trimmed = line.bytes.trim_ascii();
        let err = serde_json::from_slice::<serde::de::IgnoredAny>(trimmed)
            .err()
            .or_else(|| serde_json::from_slice::<serde::de::IgnoredAny>(b"").err());
        return Parsed::Malformed(match err {
            Some(e) => diagnose(line, &e),
            None => Malformed {
                line: line.no,
                kind: MalformedKind::Invalid,
                detail: "not an object".into(),
                column: 1,
            },
        });
    }
    // One UTF-8 check of the whole line (SIMD: it was 7% of a census), then a
    // `str` parse: serde's slice reader would validate every borrowed string and
    // raw value again on its own. Invalid UTF-8 goes to that reader, which says
    // where.
    match parse_bytes(line.bytes) {
        Ok(r) => Parsed::Record(r),
        Err(e) => match repaired(line.bytes) {
            Some(r) => Parsed::Record(r),
            None => Parsed::Malformed(diagnose(line, &e)),
        },
    }
}

/// The record of a line, boxed as soon as serde returns it: each move of a
/// `Record` (640 bytes) after that is a pointer's.
fn parse_bytes(bytes: &[u8]) -> serde_json::Result<Box<Record<'_>>> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => fused(text).or_else(|_| plain(text)),
        Err(_) => serde_json::from_slice::<Record<'_>>(bytes).map(Box::new),
    }
}

fn plain(text: &str) -> serde_json::Result<Box<Record<'_>>> {
    serde_json::from_str::<Record<'_>>(text).map(Box::new)
}

/// The record of `text` with its `toolUseResult`'s keys read in the same walk
/// ([`super::echo`]), by the fast reader ([`super::fast`]) or, for a line it
/// declines, by serde_json; an echo that cannot be placed in `text`, or a
/// walk that fails (its stricter reading of a string or number can), leaves
/// the line to the plain parse, so what is read or refused is the plain
/// parse's.
fn fused(text: &str) -> serde_json::Result<Box<Record<'_>>> {
    let mut r = super::echo::fused(|| match super::fast::record(text) {
        Some(r) => Ok(r),
        None => plain(text),
    })?;
    if r.echo.as_mut().is_some_and(|e| !e.place(text)) {
        return plain(text);
    }
    Ok(r)
}

/// The record of a line that failed only for a lone surrogate escape (`\ud83c`,
/// a string cut inside an emoji) in a text the record model decodes: read from
/// the line's repaired copy, the half as U+FFFD ([`super::surrogate`]). Only a
/// line that failed is looked at, so reading every other line costs nothing
/// more. (One in a raw value, such as a tool result's text, does not fail the
/// parse: it is repaired when that text is decoded.)
fn repaired(bytes: &[u8]) -> Option<Box<Record<'_>>> {
    let (fixed, repaired) = super::surrogate::readable(bytes);
    if !repaired {
        return None;
    }
    let mut r = parse_bytes(fixed).ok()?;
    r.repaired = true;
    Some(r)
}

fn diagnose(line: &Line<'_>, err: &serde_json::Error) -> Malformed {
    let bytes = line.bytes;
    let trimmed = bytes.trim_ascii();
    let mut out = Malformed {
        line: line.no,
        kind: MalformedKind::Invalid,
        detail: err.to_string(),
        column: err.column(),
    };
    if trimmed.is_empty() {
        out.kind = MalformedKind::Blank;
        out.detail = "blank line".into();
        return out;
    }
    if let Some(rest) = trimmed.strip_prefix(b"\xEF\xBB\xBF") {
        // An editor's byte-order mark (Claude Code never writes one): say so, and
        // whether a record follows it.
        out.detail = if serde_json::from_slice::<serde::de::IgnoredAny>(rest).is_ok() {
            "a UTF-8 byte-order mark (EF BB BF) precedes an otherwise valid record".into()
        } else {
            format!("a UTF-8 byte-order mark (EF BB BF) starts the line; then: {err}")
        };
        out.column = 1;
        return out;
    }
    if trimmed[0] != b'{' {
        if serde_json::from_slice::<serde::de::IgnoredAny>(trimmed).is_ok() {
            out.kind = MalformedKind::NotObject;
            out.detail = "valid JSON but not an object".into();
            return out;
        }
    } else {
        // Glued: the first value parses and an object follows it directly.
        let mut stream =
            serde_json::Deserializer::from_slice(trimmed).into_iter::<serde::de::IgnoredAny>();
        if let Some(Ok(_)) = stream.next() {
            let at = stream.byte_offset();
            if trimmed[at..].trim_ascii_start().first() == Some(&b'{') {
                out.kind = MalformedKind::Glued;
                out.column = at + 1;
                out.detail = format!(
                    "a second JSON object starts at byte {} with no newline before it",
                    at + 1
                );
                return out;
            }
        }
    }
    // serde's slice reader skips a string without checking its UTF-8, so the
    // grammar check alone would call a line with invalid UTF-8 valid JSON.
    if let Err(e) = simdutf8::compat::from_utf8(bytes) {
        out.detail = format!("invalid UTF-8 at byte {}", e.valid_up_to() + 1);
        out.column = e.valid_up_to() + 1;
        return out;
    }
    if trimmed[0] == b'{' && serde_json::from_slice::<serde::de::IgnoredAny>(trimmed).is_ok() {
        out.kind = MalformedKind::UnexpectedValue;
        out.detail = format!("valid JSON, but not a record csift can read: {err}");
        return out;
    }
    if !line.terminated && err.is_eof() {
        out.kind = MalformedKind::Torn;
        out.detail = format!(
            "unterminated final line of {} bytes ends mid-record",
            bytes.len()
        );
    }
    out
}

#[cfg(test)]
mod tests;
