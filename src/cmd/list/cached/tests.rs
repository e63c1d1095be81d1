//! Unit tests of `cached`: an entry's answer decodes to the summary that was
//! encoded, every field of it, and a cut or corrupt answer to none.

use super::*;
use crate::cache::{Census, Dec, Enc};

/// Every field, through `Debug` (the summary has no `PartialEq`).
fn round_trip(s: &Summary) -> Option<String> {
    let mut e = Enc::default();
    Row(s.clone()).encode(&mut e);
    let mut d = Dec::new(&e.buf);
    let back = Row::decode(&mut d)?;
    d.done().then(|| format!("{:?}", back.0))
}

/// Every sample and public transcript, main file and lane, read whole: its
/// summary comes back from the cache's bytes field for field.
#[test]
fn every_real_summary_round_trips() {
    let mut seen = 0;
    for t in crate::discovery::sample_and_public() {
        let buf = std::fs::read(&t.path).unwrap();
        let s = facts::of_whole(&buf, t.is_lane());
        assert_eq!(
            round_trip(&s).as_deref(),
            Some(format!("{s:?}").as_str()),
            "{}",
            t.path.display()
        );
        seen += 1;
    }
    assert!(seen > 50, "{seen}");
}

/// A summary with every optional field set and every malformed kind: each
/// kind keeps its identity, and the decoder reads no more than was written.
#[test]
fn every_field_and_kind_round_trips() {
    let mut s = Summary {
        cwd: Some("/w".into()),
        git_branch: Some("main".into()),
        started: Some(jiff::Timestamp::new(1_700_000_000, 5).unwrap()),
        last_activity: Some(jiff::Timestamp::new(1_700_000_900, 0).unwrap()),
        turns: Some(7),
        inline_lanes: Some(2),
        read: ReadMode::HeadTail,
        bytes: 4242,
        custom_title: Some("c".into()),
        ai_title: Some("a".into()),
        summary: Some("s".into()),
        summaries: vec![("t".into(), "leaf".into())],
        first_prompt: Some("p\u{1b}[31m".into()),
        first_command: Some("/x".into()),
        clone_boundary: Some("u".into()),
        continued_in: vec!["n1".into(), "n2".into()],
        ..Summary::default()
    };
    s.versions.extend(["1.0.17".to_owned(), "2.1.0".to_owned()]);
    s.models.insert("claude-x".into());
    for (i, kind) in MalformedKind::ALL.into_iter().enumerate() {
        s.malformed.push(Bad {
            line: (i % 2 == 0).then_some(i + 1),
            offset: i as u64 * 10,
            kind,
        });
    }
    assert_eq!(round_trip(&s), Some(format!("{s:?}")));
    assert_eq!(kind_of(u8::MAX), None);
}

/// Every cut of an answer decodes to nothing, or leaves bytes unread: never
/// to a shorter summary taken as whole.
#[test]
fn a_cut_answer_is_never_a_summary() {
    let t = crate::discovery::sample_and_public()
        .into_iter()
        .max_by_key(|t| t.size)
        .unwrap();
    let buf = std::fs::read(&t.path).unwrap();
    let mut e = Enc::default();
    Row(facts::of_whole(&buf, t.is_lane())).encode(&mut e);
    for n in 0..e.buf.len() {
        let mut d = Dec::new(&e.buf[..n]);
        assert!(Row::decode(&mut d).is_none_or(|_| !d.done()), "cut at {n}");
    }
}
