//! Unit tests of `tail`.

use super::*;

fn file(lines: &[&str], torn: Option<&str>) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for l in lines {
        std::io::Write::write_all(&mut f, l.as_bytes()).unwrap();
        std::io::Write::write_all(&mut f, b"\n").unwrap();
    }
    if let Some(t) = torn {
        std::io::Write::write_all(&mut f, t.as_bytes()).unwrap();
    }
    f
}

const USE: &str = r#"{"type":"assistant","timestamp":"2026-09-01T10:00:00.000Z","message":{"id":"m1","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"sleep 5","timeout":60000}}]}}"#;
const RES: &str = r#"{"type":"user","timestamp":"2026-09-01T10:00:05.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}"#;
const END: &str = r#"{"type":"assistant","timestamp":"2026-09-01T10:00:07.000Z","message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}}"#;
const META: &str = r#"{"type":"system","subtype":"turn_duration","timestamp":"2026-09-01T10:00:08.000Z","durationMs":8000}"#;

/// TAIL-001, TAIL-012, TAIL-014: the pairing walk, the newest record of any
/// type, and a torn final line held without a malformed count.
#[test]
fn tail_reads_pairing_stop_reason_and_holds_a_torn_line_tail_001_012_014() {
    let f = file(&[USE], Some(r#"{"type":"user","timest"#));
    let t = read(f.path(), true).unwrap();
    assert!(t.torn);
    assert_eq!(t.malformed, 0);
    assert_eq!(t.records, 1);
    let c = t.newest_pending().unwrap();
    assert_eq!((c.name.as_str(), c.id.as_str()), ("Bash", "toolu_1"));
    assert_eq!(t.stop_reason.as_deref(), Some("tool_use"));

    let f = file(&[USE, RES, END, META, "garbage"], None);
    let t = read(f.path(), true).unwrap();
    assert!(t.pending.is_empty());
    // REC-019: stop_reason is persisted per record (trustworthy on a main lane).
    assert_eq!(t.stop_reason.as_deref(), Some("end_turn"));
    let last = t.last.clone().unwrap();
    assert_eq!(last.record, "system:turn_duration", "TAIL-014: any type");
    assert_eq!(t.malformed, 1);
    assert_eq!(lines_at(f.path(), &[0, last.offset]), Some(vec![1, 4]));
    let mut t = t;
    t.number();
    assert_eq!(t.last.as_ref().and_then(|a| a.line), Some(4));
}

/// TAIL-001: the 512 KB window grows past a tail of records with no
/// assistant one (progress records can bury the call, BG-030).
#[test]
fn the_window_grows_until_it_holds_an_assistant_record() {
    let filler = format!(
        r#"{{"type":"progress","timestamp":"2026-09-01T10:00:09.000Z","data":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    );
    let mut lines = vec![USE];
    let many: Vec<String> = (0..200).map(|_| filler.clone()).collect();
    lines.extend(many.iter().map(String::as_str));
    let f = file(&lines, None);
    let t = read(f.path(), true).unwrap();
    assert!(t.len > WINDOW as u64);
    assert_eq!(t.window_start, 0, "grew to the start");
    assert_eq!(t.newest_pending().map(|c| c.name.as_str()), Some("Bash"));
}

/// BG-023: an orphan notice is enqueued asking for no reply, yet lands as
/// a user record: a tail ending on one stands where the record before it
/// stood, while an ordinary notification is owed a reply, and is named as
/// one: the newest opener may be a machine trigger, not a prompt (TAIL-013).
#[test]
fn an_orphan_notice_owes_no_reply_bg_023() {
    let orphan = r#"{"type":"user","timestamp":"2026-09-01T10:00:09.000Z","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>b1</task-id><task-id>__orphan_summary__:shell</task-id>\n<status>stopped</status>\n<summary>Background command \"sleep 9\" was stopped</summary>\n</task-notification>"}}"#;
    let f = file(&[USE, RES, END, orphan], None);
    let t = read(f.path(), true).unwrap();
    assert!(matches!(t.turn, Some(Turn::Replied)), "{:?}", t.turn);
    let plain = orphan.replace("<task-id>__orphan_summary__:shell</task-id>", "");
    let f = file(&[USE, RES, END, &plain], None);
    let t = read(f.path(), true).unwrap();
    assert!(
        matches!(
            t.turn,
            Some(Turn::Owed {
                what: "a task notification",
                ..
            })
        ),
        "{:?}",
        t.turn
    );
}
