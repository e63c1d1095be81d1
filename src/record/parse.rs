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
        Ok(r) => Parsed::Record(Box::new(r)),
        Err(e) => match repaired(line.bytes) {
            Some(r) => Parsed::Record(Box::new(r)),
            None => Parsed::Malformed(diagnose(line, &e)),
        },
    }
}

fn parse_bytes(bytes: &[u8]) -> serde_json::Result<Record<'_>> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => serde_json::from_str::<Record<'_>>(text),
        Err(_) => serde_json::from_slice::<Record<'_>>(bytes),
    }
}

/// The record of a line that failed only for a lone surrogate escape (`\ud83c`,
/// a string cut inside an emoji) in a text the record model decodes: read from
/// the line's repaired copy, the half as U+FFFD ([`super::surrogate`]). Only a
/// line that failed is looked at, so reading every other line costs nothing
/// more. (One in a raw value, such as a tool result's text, does not fail the
/// parse: it is repaired when that text is decoded.)
fn repaired(bytes: &[u8]) -> Option<Record<'_>> {
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
mod tests {
    use super::*;
    use crate::record::Content;

    fn line(s: &str, terminated: bool) -> Line<'_> {
        Line {
            no: 7,
            offset: 0,
            bytes: s.as_bytes(),
            terminated,
        }
    }

    fn kind(s: &str, terminated: bool) -> Option<MalformedKind> {
        match parse_line(&line(s, terminated)) {
            Parsed::Record(_) => None,
            Parsed::Malformed(m) => Some(m.kind),
        }
    }

    fn detail(s: &str) -> String {
        match parse_line(&line(s, true)) {
            Parsed::Record(_) => String::new(),
            Parsed::Malformed(m) => m.detail,
        }
    }

    /// A line that does not open an object says what is wrong with it, not
    /// "EOF while parsing" (the error of an empty input it used to report).
    #[test]
    fn a_bom_or_garbage_line_says_what_it_is() {
        let bom = "\u{feff}{\"type\":\"user\",\"uuid\":\"u1\"}";
        assert_eq!(kind(bom, true), Some(MalformedKind::Invalid));
        assert!(
            detail(bom).contains("byte-order mark (EF BB BF) precedes an otherwise valid record")
        );
        assert!(detail("\u{feff}{\"type\":")
            .contains("byte-order mark (EF BB BF) starts the line; then:"));
        let d = detail("hello world");
        assert!(d.starts_with("expected value at line 1 column 1"), "{d}");
        assert_eq!(kind("[1,2]", true), Some(MalformedKind::NotObject));
        assert_eq!(kind("  ", true), Some(MalformedKind::Blank));
    }

    /// Valid JSON that the record model cannot read is said to be valid JSON,
    /// never "invalid-json": a wrong type.
    #[test]
    fn valid_json_with_an_unreadable_value_is_named_so() {
        for s in [
            r#"{"type":"user","timestamp":123}"#,
            r#"{"type":"user","isSidechain":"yes"}"#,
        ] {
            assert_eq!(kind(s, true), Some(MalformedKind::UnexpectedValue), "{s}");
            assert!(detail(s).starts_with("valid JSON, but not a record csift can read: "));
        }
        assert_eq!(
            kind(r#"{"type":"user","timestamp":}"#, true),
            Some(MalformedKind::Invalid)
        );
    }

    /// Invalid UTF-8 in a field the record model reads is not JSON (RFC 8259
    /// section 8.1), though serde's slice reader skips such a string when it
    /// checks the grammar: the line is invalid-json, at its byte, never "valid
    /// JSON" (audit reports invalid-json; unexpected-value it would not).
    #[test]
    fn invalid_utf8_in_a_string_is_invalid_json_not_an_unexpected_value() {
        let b: &[u8] = b"{\"type\":\"user\",\"timestamp\":\"a\xff\xfe\"}";
        let l = Line {
            no: 3,
            offset: 0,
            bytes: b,
            terminated: true,
        };
        let Parsed::Malformed(m) = parse_line(&l) else {
            panic!("read as a record")
        };
        assert_eq!(m.kind, MalformedKind::Invalid);
        assert_eq!(m.detail, "invalid UTF-8 at byte 30");
        assert_eq!(m.column, 30);
    }

    /// Node writes a string cut inside an emoji with its lone half escaped
    /// (`\ud83d`): the record is read, the half as U+FFFD, and says it was
    /// repaired; a paired escape is read as its character.
    #[test]
    fn a_lone_surrogate_escape_is_read_as_a_replacement_character() {
        let s = r#"{"type":"user","message":{"role":"user","content":"a \ud83d b \ud83d\ude00"}}"#;
        let Parsed::Record(r) = parse_line(&line(s, true)) else {
            panic!("not parsed")
        };
        assert_eq!(r.text_content(), Some("a \u{FFFD} b \u{1F600}"));
        assert!(r.repaired);
        let Parsed::Record(r) = parse_line(&line(r#"{"type":"user"}"#, true)) else {
            panic!("not parsed")
        };
        assert!(!r.repaired);
    }

    #[test]
    fn parses_a_user_record_with_string_content() {
        let s = r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"hi \"there\""},"extra":{"x":[1,2]}}"#;
        let Parsed::Record(r) = parse_line(&line(s, true)) else {
            panic!("not parsed")
        };
        assert_eq!(r.kind(), "user");
        assert_eq!(r.text_content(), Some("hi \"there\""));
    }

    #[test]
    fn unknown_block_types_and_fields_are_tolerated() {
        let s = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"hologram","z":1},{"type":"text","text":"ok"}]}}"#;
        let Parsed::Record(r) = parse_line(&line(s, true)) else {
            panic!("not parsed")
        };
        assert_eq!(r.blocks().len(), 2);
        assert_eq!(r.blocks()[0].kind(), "hologram");
        assert!(matches!(r.content(), Some(Content::Blocks(_))));
    }

    #[test]
    fn names_malformed_shapes() {
        assert_eq!(
            kind(r#"{"type":"user"}{"type":"assistant"}"#, true),
            Some(MalformedKind::Glued)
        );
        assert_eq!(
            kind(r#"{"type":"user","mess"#, false),
            Some(MalformedKind::Torn)
        );
        assert_eq!(
            kind(r#"{"type":"user","mess"#, true),
            Some(MalformedKind::Invalid)
        );
        assert_eq!(kind("[1,2]", true), Some(MalformedKind::NotObject));
        assert_eq!(kind("42", true), Some(MalformedKind::NotObject));
        assert_eq!(
            kind(r#"["user","x"]"#, true),
            Some(MalformedKind::NotObject)
        );
        assert_eq!(kind("   ", true), Some(MalformedKind::Blank));
        assert_eq!(kind("\u{0}\u{1}binary", true), Some(MalformedKind::Invalid));
        assert_eq!(kind(r#"{"type":"user"}"#, false), None);
    }

    #[test]
    fn deep_nesting_never_crashes() {
        // In a skipped field serde_json skips without recursing: the record is fine.
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(kind(&deep, true), None);
        // In a field csift reads, the recursion limit turns it into a malformed line.
        let deep = format!(
            "{{\"message\":{{\"content\":[{{\"input\":{}{}}}]}}}}",
            "{\"a\":".repeat(10_000),
            "}".repeat(10_000)
        );
        assert_eq!(
            kind(&deep, true),
            Some(MalformedKind::Invalid),
            "RawValue capture hits the recursion limit"
        );
        let deep = format!(
            "{{\"message\":{{\"content\":{}{}}}}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        // Valid JSON (serde skims arrays without a depth limit) that the record
        // model cannot read: its content blocks hit the recursion limit.
        assert_eq!(
            kind(&deep, true),
            Some(MalformedKind::UnexpectedValue),
            "content blocks recurse: limit hit"
        );
    }

    #[test]
    fn invalid_utf8_in_a_string_is_malformed() {
        let bytes = b"{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}";
        let l = Line {
            no: 1,
            offset: 0,
            bytes,
            terminated: true,
        };
        assert!(matches!(parse_line(&l), Parsed::Malformed(_)));
    }
}
