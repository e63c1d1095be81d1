//! Unit tests of `file`.

use super::*;

const LINES: &[&str] = &[
    r#"{"type":"user","uuid":"u0","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"the assistant said"}}"#,
    r#"{"type":"assistant","uuid":"a1","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"thinking","thinking":""}],"usage":{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":100}}}"#,
    r#"{"type":"assistant","uuid":"a2","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"thinking","thinking":""}],"usage":{"input_tokens":3,"output_tokens":1404,"cache_read_input_tokens":100}}}"#,
    r#"{"type":"progress","timestamp":"2026-01-01T00:00:05Z","data":{"type":"agent_progress","agentId":"a9","message":{"type":"assistant","timestamp":"2026-01-01T00:00:04Z","message":{"id":"m2","model":"y","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}],"usage":{"input_tokens":2,"output_tokens":9}}}}}"#,
    r#"{"type":"assistant","timestamp":"2026-01-01T00:00:06Z","message":{"model":"x","role":"assistant","content":[],"usage":{"output_tokens":5}}}{"type":"assistant","timestamp":"2026-01-02T00:00:00Z","message":{"id":"m3","model":"x","role":"assistant","content":[],"usage":{"output_tokens":7}}}"#,
    r#"{"type":"assistant","message":{"id":"m4","model":"x","role":"assistant","content":[]}}"#,
    r#"{"type":"assistant", broken"#,
];

fn whole() -> FileBook {
    FileBook::scan(LINES.join("\n").as_bytes(), Pos { offset: 0, line: 1 }, &())
}

#[test]
fn copies_merge_nested_copies_count_and_glued_records_are_read() {
    let b = whole();
    let keyed: HashMap<u64, Msg> = b.clone().take_keyed().into_iter().collect();
    assert_eq!(keyed.len(), 3, "m1, m2 (nested), m3 (glued)");
    let m1 = keyed[&super::super::key_hash("x\0m1")];
    assert_eq!((m1.vals.output, m1.records, m1.seen), (1404, 2, TOP));
    // REC-022: the per-block copies of one id carry different timestamps
    // (one model): the message is timed by its earliest copy.
    assert_eq!(
        m1.first,
        "2026-01-01T00:00:01Z".parse().ok(),
        "earliest copy"
    );
    let m2 = keyed[&super::super::key_hash("y\0m2")];
    assert_eq!(m2.seen, NESTED);
    assert_eq!(
        m2.first,
        "2026-01-01T00:00:04Z".parse().ok(),
        "its own time"
    );
    assert_eq!(b.idless.len(), 1);
    assert_eq!(b.notes.without_usage, 1);
    assert_eq!(b.notes.unreadable_lines, 1);
    assert_eq!((b.notes.copies, b.notes.nested_copies), (5, 1));
    assert_eq!(b.eaten.eaten(), 1, "m1: two thinking records, no text");
}

/// REC-021: only assistant records carry usage; a user record holding a
/// usage object (and the bytes `"assistant"` in its text) books nothing.
#[test]
fn a_user_record_books_no_usage_rec_021() {
    let line = r#"{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"id":"mu","model":"x","role":"user","content":"as the \"assistant\" said","usage":{"output_tokens":50}}}"#;
    let b = FileBook::scan(line.as_bytes(), Pos { offset: 0, line: 1 }, &());
    assert_eq!(b.clone().take_keyed().len(), 0);
    assert!(b.idless.is_empty());
    let a = line.replacen(r#""type":"user""#, r#""type":"assistant""#, 1);
    let mut b = FileBook::scan(a.as_bytes(), Pos { offset: 0, line: 1 }, &());
    assert_eq!(
        b.take_keyed().len(),
        1,
        "the same record as assistant books"
    );
}

/// A census of a prefix extended with the census of the rest equals the
/// census of the whole, at every line boundary (what the cache relies on),
/// and survives an encode/decode round trip.
#[test]
fn extend_at_any_line_equals_one_pass_and_round_trips() {
    let want = whole();
    let enc = |b: &FileBook| {
        let mut e = Enc::default();
        b.encode(&mut e);
        e.buf
    };
    let text = LINES.join("\n");
    let buf = text.as_bytes();
    let mut cut = 0;
    loop {
        let mut b = FileBook::scan(&buf[..cut], Pos { offset: 0, line: 1 }, &());
        b.extend(FileBook::scan(&buf[cut..], Pos { offset: 0, line: 1 }, &()));
        let d = FileBook::decode(&mut Dec::new(&enc(&b))).unwrap();
        for got in [&b, &d] {
            let canon = |x: &FileBook| {
                let mut v: Vec<_> = x
                    .messages()
                    .map(|(k, m)| (k, x.models[m.model as usize].clone(), format!("{m:?}")))
                    .map(|(k, name, m)| (k, name, m.split_once(',').map(|p| p.1.to_string())))
                    .collect();
                v.sort();
                v
            };
            assert_eq!(canon(got), canon(&want), "cut at {cut}");
            assert_eq!(got.notes, want.notes);
            assert_eq!(got.eaten, want.eaten);
        }
        match memchr::memchr(b'\n', &buf[cut..]) {
            Some(i) => cut += i + 1,
            None => break,
        }
    }
}

#[test]
fn a_corrupt_encoding_is_none() {
    let mut e = Enc::default();
    whole().encode(&mut e);
    for cut in 0..e.buf.len() {
        let mut d = Dec::new(&e.buf[..cut]);
        let r = FileBook::decode(&mut d);
        assert!(r.is_none() || !d.done(), "cut at {cut}");
    }
}
