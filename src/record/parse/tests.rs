//! Unit tests of `parse`.

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
    assert!(detail(bom).contains("byte-order mark (EF BB BF) precedes an otherwise valid record"));
    assert!(
        detail("\u{feff}{\"type\":").contains("byte-order mark (EF BB BF) starts the line; then:")
    );
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

/// `MalformedKind::ALL` lists each kind once, names distinct (cache entries
/// store kinds as its indexes and names). The match is exhaustive: a new kind
/// stops this test compiling until it is weighed here and listed.
#[test]
fn every_malformed_kind_is_in_all_once() {
    use MalformedKind::*;
    let once = |k: MalformedKind| match k {
        Glued | Torn | NotObject | Blank | Invalid | UnexpectedValue => {
            MalformedKind::ALL.iter().filter(|x| **x == k).count() == 1
        }
    };
    assert!(MalformedKind::ALL.into_iter().all(once));
    let mut names: Vec<&str> = MalformedKind::ALL.map(MalformedKind::name).to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), MalformedKind::ALL.len());
}
