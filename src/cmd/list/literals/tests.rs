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

fn facts(buf: &[u8], inline: bool, users: bool) -> (Summary, usize) {
    let mut s = Summary::default();
    let mut lanes = inline.then(InlineLanes::default);
    let mut lines = Vec::new();
    literal_pass(
        buf,
        0,
        true,
        &mut s,
        lanes.as_mut(),
        users.then_some(&mut lines),
    );
    (s, lanes.map_or(0, |l| l.len()))
}

fn same(buf: &[u8], what: &str) {
    for (inline, users) in [(false, false), (true, false), (false, true), (true, true)] {
        let (a, la) = facts(buf, inline, users);
        let (b, lb) = every_line(buf, inline);
        let key = |s: &Summary, l: usize| {
            let bad: Vec<_> = s.malformed.iter().map(|b| (b.line, b.offset)).collect();
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {bad:?} {l}",
                s.models, s.custom_title, s.ai_title, s.summaries, s.continued_in, s.first_prompt
            )
        };
        assert_eq!(
            key(&a, la),
            key(&b, lb),
            "{what} (inline {inline}, users {users})"
        );
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
        r#"{"type":"user","message":{"role":"user"summary":"x","content":"y"}}"#,
        r#"{"type":"user"model":"m-14","message":{"role":"user","content":"y"}}"#,
        r#"{"type":"assistant","message":{"role":"user"model":"m-15","content":[]}}"#,
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

/// The lines the literal pass lists for the turn count are those the
/// index's own `"type":"user"` pass flags, and the count from them is
/// [`FileIndex::count_turns`]: on every sample and public transcript (as a
/// main file and as a lane) and on built lines where another literal ends
/// at a quote before one, a record is glued before one, a mention is
/// escaped, the last line is torn, CRLF, and a `": "` spaced line in the
/// middle (REC-038) or at an end (then no count from the lines).
#[test]
fn the_literal_pass_lists_the_turn_counts_lines_rec_038() {
    use crate::classify::FileIndex;
    let user = |u: &str, p: &str, text: &str| {
        format!(
            r#"{{"parentUuid":"{p}","type":"user","uuid":"{u}","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    let built = [
        user("a", "", "first"),
        r#"{"type":"assistant","uuid":"r","message":{"model":"m","content":[]}}"#.into(),
        user("d", "a", "a draft"),
        user("k", "a", "the kept one"),
        format!(r#"{{"type":"ai-title","aiTitle":"T"}}{}"#, user("g", "k", "glued")),
        format!(r#"{{"a":"x}}{{"}}{}"#, user("h", "g", "after glue")),
        user("e", "h", r#"says \"type\":\"user\" here"#),
        r#"{"type":"user","uuid":"s","parentUuid":"e","message":{"role":"user"summary":"x","content":"hi"}}"#.into(),
        user("p", "s", "spaced").replace("\":\"", "\": \""),
        user("c", "p", "<command-name>/go</command-name>"),
        r#"{"type":"system","userType":"user","message":{"role":"user","content":"x"}}"#.into(),
        r#"{"type":"assistant","uuid":"r2","message":{"model":"m","content":[]}}"#.into(),
        user("t", "c", "torn"),
    ];
    let mut files: Vec<(Vec<u8>, String)> = Vec::new();
    let all = built.join("\n");
    let torn = &all[..all.len() - 8];
    for (buf, what) in [
        (all.clone(), "built"),
        (format!("{all}\n"), "built, terminated"),
        (all.replace('\n', "\r\n"), "CRLF"),
        (torn.to_string(), "torn"),
        (format!("{all}\n{}", built[8]), "spaced end"),
    ] {
        files.push((buf.into_bytes(), what.into()));
    }
    for t in crate::discovery::sample_and_public() {
        files.push((
            std::fs::read(&t.path).unwrap(),
            t.path.display().to_string(),
        ));
    }
    let flag = crate::scan::lit!(b"\"type\":\"user\"");
    let (mut counted, mut turns) = (0, 0);
    for (buf, what) in &files {
        for lane in [false, true] {
            let mut s = Summary::default();
            let mut lines = Vec::new();
            let mut inline = (!lane).then(InlineLanes::default);
            if !literal_pass(buf, 0, true, &mut s, inline.as_mut(), Some(&mut lines)) {
                continue;
            }
            let mut want = Vec::new();
            for at in flag.find_iter(buf) {
                let (start, end, _) = crate::scan::lines::around(buf, 0, at);
                if want.last() != Some(&(start, end)) {
                    want.push((start, end));
                }
            }
            assert_eq!(lines, want, "{what} (lane {lane})");
            let whole = FileIndex::count_turns(buf, lane);
            if let Some(n) = FileIndex::count_turns_of(buf, lane, &lines) {
                assert_eq!(n, whole, "{what} (lane {lane})");
                counted += 1;
                turns += n;
            } else {
                assert!(what == "spaced end" || buf.len() >= 16 << 20, "{what}");
            }
        }
    }
    assert!(counted > 100 && turns > 100, "{counted} {turns}");
}
