//! The census against classify and the file index it builds from its own
//! parse: labels, turns and chunked scans equal a single pass.

use super::count::attachment_label;
use super::*;
use crate::classify::Label;

/// The census builds its index from its own parse and revisits the records
/// the index changes; every label and turn must equal what classifying each
/// record against `FileIndex::build` gives, at every chunk size. Covers a
/// lane seed (REC-031), a superseded draft (TURN-022), a spawn's result
/// (CLS-010) and an armed wakeup prompt (CLS-015).
#[test]
fn own_index_census_equals_classifying_against_the_built_index() {
    let lines = [
        r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":true,"message":{"role":"user","content":"do the task"},"timestamp":"2026-07-01T00:00:00Z"}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"child"}},{"type":"tool_use","id":"w1","name":"ScheduleWakeup","input":{"prompt":"wake me up"}}]},"timestamp":"2026-07-01T00:00:01Z"}"#,
        r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"child report"},{"type":"tool_result","tool_use_id":"w1","content":"armed"}]},"timestamp":"2026-07-01T00:00:02Z"}"#,
        r#"{"type":"user","uuid":"u3","parentUuid":"u2","isMeta":true,"message":{"role":"user","content":"wake me up"},"timestamp":"2026-07-01T00:00:03Z"}"#,
        r#"{"type":"user","uuid":"u4","parentUuid":"u3","message":{"role":"user","content":"first try"},"timestamp":"2026-07-01T00:00:04Z"}"#,
        r#"{"type":"user","uuid":"u5","parentUuid":"u3","message":{"role":"user","content":"second try"},"timestamp":"2026-07-01T00:00:05Z"}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"u5","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}]},"timestamp":"2026-07-01T00:00:06Z"}"#,
    ];
    let buf = lines.join("\n") + "\n";
    let idx = FileIndex::build(buf.as_bytes(), true);
    let mut want = Census::new();
    for l in Lines::new(buf.as_bytes()) {
        let Parsed::Record(r) = parse_line(&l) else {
            panic!("line {}", l.no)
        };
        let mut units = Vec::new();
        crate::classify::classify(&r, l.no, &idx, &mut units);
        for u in &units {
            want.units += 1;
            want.labels[u.label as usize] += 1;
            if let Some(x) = u.also {
                want.labels_secondary[x as usize] += 1;
            }
        }
    }
    // The fixture exercises what it names.
    assert!(want.labels[Label::UserUnsent as usize] == 1);
    assert!(want.labels[Label::HarnessScheduleWakeup as usize] == 1);
    assert!(want.labels[Label::AgentCommunicationInbox as usize] >= 2);
    let w = Window::parse(None, None).unwrap();
    for size in 1..buf.len() + 1 {
        let (c, _) = census_buf(buf.as_bytes(), true, &w, size, None);
        assert_eq!(c.labels, want.labels, "chunk size {size}");
        assert_eq!(
            c.labels_secondary, want.labels_secondary,
            "chunk size {size}"
        );
        assert_eq!(c.units, want.units, "chunk size {size}");
        assert_eq!(c.turns, idx.turns() as u64, "chunk size {size}");
    }
}

/// CLS-020: an attachment's payload `type` marks it; the census labels it
/// as classify does, and both give the label the payload calls for (the
/// two agreeing on a wrong label, or on none, used to pass).
#[test]
fn attachment_label_is_what_classify_gives_cls_020() {
    use Label::{HarnessMetaAttachment as Att, HarnessMetaHook as Hook};
    let cases = [
        (
            r#"{"type":"attachment","attachment":{"type":"hook_success","content":"out","hookEvent":"Stop"}}"#,
            Some(Att),
        ),
        (
            r#"{"type":"attachment","attachment":{"type":"hook_additional_context","content":["a","b"]}}"#,
            Some(Hook),
        ),
        (
            r#"{"type":"attachment","attachment":{"type":"brand_new","x":1}}"#,
            Some(Att),
        ),
        (
            r#"{"type":"attachment","attachment":{"content":"no type"}}"#,
            Some(Att),
        ),
        (
            r#"{"type":"attachment","attachment":"a string payload"}"#,
            None,
        ),
        (r#"{"type":"attachment","attachment":null}"#, None),
        (r#"{"type":"attachment"}"#, None),
    ];
    let idx = FileIndex::empty(false);
    for (i, (c, label)) in cases.iter().enumerate() {
        let line = Line {
            no: i + 1,
            offset: 0,
            bytes: c.as_bytes(),
            terminated: true,
        };
        let Parsed::Record(r) = parse_line(&line) else {
            panic!("{c}")
        };
        let mut units = Vec::new();
        crate::classify::classify(&r, line.no, &idx, &mut units);
        let want: Vec<(Label, Option<Label>)> = units.iter().map(|u| (u.label, u.also)).collect();
        let got: Vec<(Label, Option<Label>)> = attachment_label(&r, r.attachment_type().as_deref())
            .map(|l| (l, None))
            .into_iter()
            .collect();
        assert_eq!(got, want, "{c}");
        assert_eq!(
            want,
            label.map(|l| (l, None)).into_iter().collect::<Vec<_>>(),
            "{c}"
        );
    }
}

#[test]
fn chunked_scan_equals_one_pass() {
    let lines = [
        r#"{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"assistant","version":"2.1.1","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"output_tokens":1}}}"#,
        r#"{"type":"assistant","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"output_tokens":50,"cache_read_input_tokens":9}}}"#,
        "{broken",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true}]},"toolUseResult":"Error: x"}"#,
        r#"{"type":"assistant","message":{"id":"m2","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}],"usage":{"output_tokens":3}}}"#,
        r#"{"type":"system","subtype":"turn_duration","durationMs":1200,"timestamp":"2026-01-01T00:01:00Z"}"#,
        r#"{"type":"attachment","attachment":{"type":"hook_success"}}"#,
        // Calls without an id are keyed by their line: a later chunk, numbered
        // from 1 until it is merged, must not fold them into one call.
        r#"{"type":"assistant","message":{"id":"m3","model":"x","role":"assistant","content":[{"type":"tool_use","name":"Edit","input":{}}]}}"#,
        r#"{"type":"assistant","message":{"id":"m4","model":"x","role":"assistant","content":[{"type":"tool_use","name":"Edit","input":{}}]}}"#,
        "{broken again",
    ];
    let buf = lines.join("\n") + "\n";
    let w = Window::default();
    let (one, book) = census_buf(buf.as_bytes(), false, &w, usize::MAX, None);
    assert_eq!(one.lines, 11);
    assert_eq!(one.malformed_lines, 2);
    assert_eq!(one.malformed[1].line, 11);
    assert_eq!(one.tools["Edit"].calls, 2);
    assert_eq!(one.tools["Bash"].errors, 1);
    assert_eq!(one.tools["Read"].unanswered, 1);
    assert_eq!(book.rows()["x"].vals.output, 53);
    for size in 1..buf.len() {
        let (c, b) = census_buf(buf.as_bytes(), false, &w, size, None);
        assert_eq!(format!("{c:?}"), format!("{one:?}"), "chunk size {size}");
        assert_eq!(b.rows(), book.rows(), "chunk size {size}");
        assert_eq!(b.differing(), book.differing());
    }
}
