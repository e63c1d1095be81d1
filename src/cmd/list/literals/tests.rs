//! Unit tests of `literals`.

use super::*;

/// The static pattern compiles and finds each fact it is for.
#[test]
fn static_pattern_compiles() {
    for sidechains in [false, true] {
        let re = interesting(sidechains);
        for hay in [&br#""type": "summary""#[..], br#""model":"x""#, b"}{\""] {
            assert!(re.is_match(hay), "{}", String::from_utf8_lossy(hay));
        }
        let flag = br#""isSidechain":true"#;
        assert_eq!(re.is_match(flag), sidechains);
    }
}

/// Every line read as [`interesting`]'s hit lines were before the
/// literal set: [`read_line`] on each line.
fn every_line(buf: &[u8], inline: bool) -> (Summary, usize) {
    let mut s = Summary::default();
    let mut lanes = inline.then(InlineLanes::default);
    for l in crate::scan::Lines::new(buf) {
        read_line(&l, || l.no, 0, true, &mut s, lanes.as_mut());
    }
    (s, lanes.map_or(0, |l| l.len()))
}

fn facts(buf: &[u8], inline: bool) -> (Summary, usize) {
    let mut s = Summary::default();
    let mut lanes = inline.then(InlineLanes::default);
    literal_pass(buf, 0, true, &mut s, lanes.as_mut());
    (s, lanes.map_or(0, |l| l.len()))
}

fn same(buf: &[u8], what: &str) {
    for inline in [false, true] {
        let (a, la) = facts(buf, inline);
        let (b, lb) = every_line(buf, inline);
        let key = |s: &Summary, l: usize| {
            let bad: Vec<_> = s.malformed.iter().map(|b| (b.line, b.offset)).collect();
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {bad:?} {l}",
                s.models, s.custom_title, s.ai_title, s.summaries, s.continued_in, s.first_prompt
            )
        };
        assert_eq!(key(&a, la), key(&b, lb), "{what} (inline {inline})");
    }
}

/// The literal set reads a line only for its model when its first match
/// of [`interesting`] can be no other: the same facts as reading every
/// line, on lines built to trip it (a title after a model, literals
/// hiding one another, glue, nested and spaced keys, REC-038) and on the
/// public transcripts.
#[test]
fn the_literal_set_reads_what_every_line_would() {
    let lines: &[&str] = &[
        r#"{"type":"assistant","message":{"model":"m-1","content":[]}}"#,
        r#"{"type":"summary","summary":"S1","leafUuid":"u1"}"#,
        r#"{"type": "summary", "summary": "S2", "leafUuid": "u2"}"#,
        r#"{"type":"assistant","message":{"model":"m-2"},"x":{"type":"ai-title","aiTitle":"hidden"}}"#,
        r#"{"type":"ai-title","aiTitle":"T1","model":"m-3"}"#,
        r#"{"type":"custom-title","customTitle":"C1"}"#,
        r#"{"type":"user","message":{"content":"see summary"},"model":"m-4"}"#,
        r#"{"type":"assistant","message":{"model":"m-5"}}{"type":"assistant","message":{"model":"m-6"}}"#,
        r#"{"type":"assistant"}{"model":"m-7","type":"assistant"}"#,
        r#"{"type":"assistant","message":{"model":"summary"summary","x":1}}"#,
        r#"{"type":"assistant","message":{"model"model":"m-8"}}"#,
        r#"{"type":"assistant","message":{"model":"m-9"isSidechain":true}}"#,
        r#"{"isSidechain":true,"type":"assistant","uuid":"a","parentUuid":null,"message":{"model":"m-10"}}"#,
        r#"{"isSidechain": true,"type":"user","uuid":"b","parentUuid":"a","message":{"content":"x"}}"#,
        r#"{"isSidechain":false,"type":"assistant","message":{"model":"m-11"}}"#,
        r#"{"type":"continued-in","continuedInSessionId":"s2"}"#,
        r#"{"type":"assistant","message":{"model": "m-12","content":[{"type":"text","text":"x }{\"a"}]}}"#,
        r#"{"type":"assistant","message":{"model":null,"content":[]}}"#,
        r#"{"type":"assistant","message":{"model":"m\u002d13"}}"#,
        r#"{"type":"assistant","message":{"model"#,
    ];
    let all = lines.join("\n");
    same(all.as_bytes(), "built lines");
    same(format!("{all}\n").as_bytes(), "built lines, terminated");
    same(all.replace('\n', "\r\n").as_bytes(), "CRLF");
    for (i, l) in lines.iter().enumerate() {
        same(l.as_bytes(), &format!("line {i}"));
    }
    for t in crate::discovery::sample_and_public() {
        same(
            &std::fs::read(&t.path).unwrap(),
            &t.path.display().to_string(),
        );
    }
}
