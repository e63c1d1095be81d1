//! The fused walk of `data` against the plain read: the same raw text and
//! the same nested record on every shape, including those it leaves to the
//! plain parse or the lazy read.

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

const MSG: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"stdout":"x","stderr":""},"uuid":"n-1","data":{"type":"hook_progress"}}"#;

fn datas() -> Vec<String> {
    let mut out: Vec<String> = [
        r#"{"type":"bash_progress","output":"agent_progress"}"#,
        r#"{"type":"hook_progress","message":"agent_progress"}"#,
        r#"{"type":"agent_progress","agentId":"a1","message":"x"}"#,
        r#"{"type":"agent_progress","agentId":"a1"}"#,
        r#"{"type":"agent_progress","agentId":7,"message":{"type":"user"}}"#,
        r#"{"message":{"type":"user","uuid":5},"type":"agent_progress"}"#,
        r#"{"type":"agent_progress","message":["user","x"]}"#,
        r#"{"type":"agent_progress","message":[]}"#,
        r#"{"type":"agent_progress","message":null}"#,
        r#"{"type":"agent_progress","type":"agent_progress","message":null}"#,
        r#"{"type":"agent\u005fprogress","agentId":"a1","message":{"type":"user"}}"#,
        r#"{"typ\u0065":"agent_progress","agentId":"a1","message":{"type":"user"}}"#,
        r#"{"type":null,"message":{"type":"user"}}"#,
        r#"{"type":"agent_progress","agentId":"a\"1","prompt":null}"#,
        r#"{}"#,
        r#"{ }"#,
        r#"[]"#,
        r#"[{"type":"agent_progress"}]"#,
        r#""agent_progress""#,
        "42",
        "1e999",
        "true",
        "null",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for tail in [
        r#","prompt":"go","agentId":"a1""#,
        r#","agentId":"a1","normalizedMessages":[]"#,
        r#","agentId":"a\u0031""#,
        "",
    ] {
        out.push(format!(
            r#"{{ "message" : {MSG} , "type":"agent_progress"{tail} }}"#
        ));
        out.push(format!(
            r#"{{"type":"agent_progress"{tail},"message":{MSG}}}"#
        ));
    }
    // A lone surrogate in the nested record's decoded text.
    out.push(format!(
        r#"{{"type":"agent_progress","agentId":"a1","message":{}}}"#,
        MSG.replace(
            r#""role":"user","#,
            r#""role":"user","content":"cut \udf89","#
        )
        .replace(
            r#""content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]"#,
            r#""id":"m""#
        )
    ));
    out
}

/// What a record's nested read says, as text to compare.
fn nested(r: &Record<'_>) -> String {
    match r.embedded() {
        Some(e) => format!(
            "record {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            e.agent_id,
            e.prompt,
            e.record.kind,
            e.record.uuid,
            e.record.tool_use_result().map(|v| v.get()),
            e.record.data().map(|v| v.get()),
            e.record.blocks().len(),
        ),
        None => format!("unreadable {}", r.nested_unreadable()),
    }
}

/// Every shape reads the same raw `data` and the same nested record as the
/// plain read, as a progress record and as any other.
#[test]
fn fused_data_reads_what_the_plain_read_reads() {
    for d in datas() {
        for kind in ["progress", "user"] {
            let text = format!(r#"{{"type":"{kind}","data": {d} ,"uuid":"u"}}"#);
            let plain: Record<'_> = serde_json::from_str(&text).unwrap();
            let fused = parsed(&text);
            let raw = |r: &Record<'_>| r.data().map(|v| v.get().to_string());
            assert_eq!(raw(&fused), raw(&plain), "{text}");
            assert_eq!(nested(&fused), nested(&plain), "{text}");
            assert_eq!(fused.uuid, plain.uuid, "{text}");
        }
    }
}

/// The walk's read of an agent_progress is the one the record keeps (no
/// second read), and the nested record's echo is its own, not the line's.
#[test]
fn an_agent_progress_is_read_in_the_walk() {
    let text = format!(
        r#"{{"type":"progress","data":{{"message":{MSG},"type":"agent_progress","agentId":"a1"}},"toolUseResult":"outer"}}"#
    );
    let r = parsed(&text);
    assert!(r.data.as_ref().is_some_and(|p| p.nested.is_none()));
    assert!(r.embedded.get().is_some());
    let e = r.embedded().unwrap();
    assert_eq!(
        e.record.tool_use_result().map(|v| v.get()),
        Some(r#"{"stdout":"x","stderr":""}"#)
    );
    assert!(e.record.echo_keys().is_none());
    assert_eq!(r.tool_use_result().map(|v| v.get()), Some(r#""outer""#));
}
