//! The fused walk against the plain read: the same raw text and the same
//! answers on every echo shape, and the lines it cannot place read plainly.

use super::*;
use crate::record::{parse_line, Parsed, Record};
use crate::scan::Line;

fn parsed(text: &str) -> Box<Record<'_>> {
    let line = Line {
        no: 1,
        offset: 0,
        bytes: text.as_bytes(),
        terminated: true,
    };
    match parse_line(&line) {
        Parsed::Record(r) => r,
        Parsed::Malformed(m) => panic!("{text}: {}", m.detail),
    }
}

const ECHOES: &[&str] = &[
    r#"{"type":"text","file":{"filePath":"a","content":"x \" y"}}"#,
    r#"{ "stdout" : "a\nb" , "stderr":"" }"#,
    r#"{"t\u0061sk":{"id":"1"}}"#,
    r#"{"task":{"id":"1"},"x":2}"#,
    r#"{}"#,
    r#"{ }"#,
    r#""Error: boom""#,
    r#""Error: \"boom\"\n""#,
    r#""""#,
    r#"[{"type":"text","text":"x"}]"#,
    r#"[ 1 , 2 ]"#,
    r#"[]"#,
    "42",
    "1e999",
    "true",
    r#"{"questions":[],"answers":{"q":"a"},"type":"create","type":7}"#,
    r#"{"status":"async_launched","status":"done"}"#,
];

/// Every shape reads the same raw text as the plain read, and a placed
/// object carries its keys.
#[test]
fn fused_echo_reads_what_the_plain_read_reads() {
    for e in ECHOES {
        let text = format!(r#"{{"type":"user","toolUseResult": {e} ,"uuid":"u"}}"#);
        let plain: Record<'_> = serde_json::from_str(&text).unwrap();
        let fused = parsed(&text);
        assert_eq!(
            fused.tool_use_result().map(RawValue::get),
            plain.tool_use_result().map(RawValue::get),
            "{e}"
        );
        assert_eq!(fused.uuid, plain.uuid);
        assert!(plain.echo_keys().is_none());
        // Every object's keys are read, placed by the walk or by the skim.
        assert_eq!(fused.echo_keys().is_some(), e.starts_with('{'), "{e}");
    }
    let last = r#"{"type":"user","toolUseResult":{"answers":{},"type":"text"}}"#;
    let k = parsed(last).echo_keys().unwrap();
    assert!(k.has(Key::Answers) && k.has(Key::Type) && !k.has(Key::Task));
    assert_eq!(k.ty(), Ty::Text);
    // The last `type` counts, as a map keeps it; a number is no type.
    let line = format!(r#"{{"type":"user","toolUseResult":{}}}"#, ECHOES[15]);
    let k = parsed(&line).echo_keys().unwrap();
    assert!(k.has(Key::Questions) && k.has(Key::Answers));
    assert_eq!(k.ty(), Ty::Other);
}

/// A line whose `toolUseResult` key is itself escaped reads the same: what
/// the walk cannot place is then read the plain way.
#[test]
fn an_escaped_echo_key_is_read_plainly() {
    for e in [r#""a\nb""#, r#"{"stdout":"x","stderr":""}"#, "{}"] {
        let text = format!(r#"{{"type":"user","toolUse\u0052esult":{e}}}"#);
        let r = parsed(&text);
        assert_eq!(r.tool_use_result().map(RawValue::get), Some(e));
        // The walk still places an object with keys; the rest are reread.
        assert_eq!(r.echo_keys().is_some(), e.starts_with(r#"{""#), "{e}");
    }
}

/// A null echo is none; a record without one has none.
#[test]
fn null_and_absent_echoes_are_none() {
    assert!(parsed(r#"{"type":"user","toolUseResult":null}"#)
        .tool_use_result()
        .is_none());
    assert!(parsed(r#"{"type":"user"}"#).tool_use_result().is_none());
}

/// serde_json still takes its raw value from the map form with its token:
/// if it ever stops, every echo would be read twice (never wrongly).
#[test]
fn serde_json_accepts_the_borrowed_raw_value() {
    let raw = borrowed_raw(r#"{"a":1}"#).unwrap();
    assert_eq!(raw.get(), r#"{"a":1}"#);
}
