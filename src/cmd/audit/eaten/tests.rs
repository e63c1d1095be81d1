//! Unit tests of `eaten`.

use super::*;

fn k(thinking: bool, text: bool, first: bool) -> Kinds {
    Kinds {
        thinking,
        text,
        first_thinking: first,
        dict_blocks: 1,
    }
}

fn run(e: Eaten) -> Vec<Finding> {
    let ctx = FileCtx {
        file: "f".into(),
        session_id: "s".into(),
        is_lane: false,
    };
    let mut out = Vec::new();
    e.findings(&ctx, (true, true), None, &mut out);
    out
}

#[test]
fn thinking_thinking_tool_use_is_eaten_and_adjacent() {
    let mut e = Eaten::default();
    e.record("m", None, k(true, false, true), false, &At::default);
    e.record("m", None, k(true, false, true), false, &At::default);
    e.record("m", None, k(false, false, false), false, &At::default);
    let f = run(e);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, Kind::EatenText);
    assert!(f[0].detail.contains("agrees"));
}

/// REC-091: a resume replays `[thinking][tool_use]` under the same uuids;
/// the copy is the same record, so the response keeps one thinking record
/// and is not eaten. Two distinct thinking records still are.
#[test]
fn a_replayed_copy_is_not_a_second_thinking_record_rec_091() {
    let mut e = Eaten::default();
    e.record(
        "m",
        Some(b"\"u1\""),
        k(true, false, true),
        false,
        &At::default,
    );
    e.record(
        "m",
        Some(b"\"u2\""),
        k(false, false, false),
        false,
        &At::default,
    );
    e.other_message(false);
    e.record(
        "m",
        Some(b"\"u1\""),
        k(true, false, true),
        false,
        &At::default,
    );
    e.record(
        "m",
        Some(b"\"u2\""),
        k(false, false, false),
        false,
        &At::default,
    );
    assert!(run(e).is_empty());
    let mut e = Eaten::default();
    e.record(
        "m",
        Some(b"\"u1\""),
        k(true, false, true),
        false,
        &At::default,
    );
    e.record(
        "m",
        Some(b"\"u3\""),
        k(true, false, true),
        false,
        &At::default,
    );
    e.record(
        "m",
        Some(b"\"u1\""),
        k(true, false, true),
        false,
        &At::default,
    );
    let f = run(e);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].detail.contains("2 thinking record(s)"),
        "{}",
        f[0].detail
    );
    // A copy right after its original is not a second adjacent record.
    let mut e = Eaten::default();
    e.record(
        "m",
        Some(b"\"u1\""),
        k(true, false, true),
        false,
        &At::default,
    );
    e.record(
        "m",
        Some(b"\"u1\""),
        k(true, false, true),
        false,
        &At::default,
    );
    assert!(run(e).is_empty());
    assert!(f[0].detail.contains("1 replayed"), "{}", f[0].detail);
}

#[test]
fn kept_text_is_not_eaten_and_user_breaks_adjacency() {
    let mut e = Eaten::default();
    e.record("m", None, k(true, false, true), false, &At::default);
    e.record("m", None, k(false, true, false), false, &At::default);
    e.record("m", None, k(true, false, true), false, &At::default);
    assert!(run(e).is_empty());
    let mut e = Eaten::default();
    e.record("m", None, k(true, false, true), false, &At::default);
    e.other_message(false);
    e.record("m", None, k(true, false, true), false, &At::default);
    let f = run(e);
    assert_eq!(f.len(), 1);
    assert!(f[0].detail.contains("disagrees"));
}

#[test]
fn sidechain_groups_apart() {
    let mut e = Eaten::default();
    e.record("m", None, k(true, false, true), false, &At::default);
    let side = At {
        sidechain: true,
        ..At::default()
    };
    e.record("m", None, k(true, false, true), true, &|| side.clone());
    assert!(run(e).is_empty());
}
