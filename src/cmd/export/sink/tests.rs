//! Unit tests of `sink`: the header's facts both formats print, and the
//! `--highlight` count and jump index.

use super::{Head, Hits, INDEX_MAX};

fn head() -> Head {
    Head {
        session: "ff668493-8325-49cc-976f-689b779b85a2".into(),
        file: "/h/p/ff668493.jsonl".into(),
        bytes: 2048,
        turns: 3,
        ..Head::default()
    }
}

#[test]
fn a_version_only_the_tail_wrote_is_still_said() {
    // Markdown used to drop it when the head held no `version` (html said it).
    let h = Head {
        versions: (None, Some("2.1.3".into())),
        ..head()
    };
    let rows = h.rows("x");
    assert!(rows.contains(&("versions", "2.1.3".into())), "{rows:?}");
}

#[test]
fn a_version_is_one_value_unless_it_changed_and_a_span_always_has_both_ends() {
    let t = "2026-02-26T14:08:09.958Z".to_string();
    let h = Head {
        versions: (Some("2.1.3".into()), Some("2.1.3".into())),
        span: (Some(t.clone()), Some(t)),
        highlight: Some("err".into()),
        ..head()
    };
    let rows = h.rows("matches are listed at the end");
    let get = |k: &str| rows.iter().find(|r| r.0 == k).map(|r| r.1.clone());
    assert_eq!(get("versions").as_deref(), Some("2.1.3"));
    assert_eq!(
        get("span").as_deref(),
        Some("2026-02-26 14:08:09Z → 2026-02-26 14:08:09Z")
    );
    assert_eq!(
        get("highlight").as_deref(),
        Some("/err/ — matches are listed at the end")
    );
    assert_eq!(get("agent"), None, "an empty fact is left out");
    let keys: Vec<&str> = rows.iter().map(|r| r.0).collect();
    // No models were read, so that row is left out too.
    assert_eq!(
        keys,
        ["session", "versions", "span", "turns", "file", "highlight"]
    );
}

#[test]
fn hits_count_every_match_and_keep_the_first_five_thousand() {
    let mut h = Hits::new(Some(regex::Regex::new("ab|x*").unwrap()));
    let s = "ab-".repeat(INDEX_MAX + 3);
    let found = h.find(&s, "turn 4", 17);
    // `x*` matches empty between the `ab`s: never counted or marked.
    assert_eq!(found.len(), INDEX_MAX + 3);
    assert_eq!(found[1], (3..5, 2));
    assert_eq!(h.count(), INDEX_MAX + 3);
    assert_eq!(h.unlisted(), 3);
    let kept = h.take();
    assert_eq!(kept.len(), INDEX_MAX);
    assert_eq!(
        (kept[9].n, kept[9].line, kept[9].turn.as_str()),
        (10, 17, "turn 4")
    );
    assert_eq!(kept[9].snippet, "ab");
    assert!(h.take().is_empty(), "the index is written once");
}

#[test]
fn no_pattern_finds_nothing() {
    let mut h = Hits::new(None);
    assert!(h.find("anything", "turn 1", 1).is_empty());
    assert!(!h.any("anything"));
    assert_eq!((h.count(), h.unlisted()), (0, 0));
}
