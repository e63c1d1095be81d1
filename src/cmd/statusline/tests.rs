//! Unit tests of `statusline`.

use super::*;

fn t(s: &str) -> Timestamp {
    s.parse().unwrap()
}

#[test]
fn the_anchor_needs_a_gap_before_it_and_distance_from_the_cutoff() {
    let cutoff = t("2026-01-20T00:00:00Z");
    let at = |s: &str| (t(s), 1);
    // 03:00 is within 5h of the cutoff: an unread message could chain into it.
    let v = [at("2026-01-20T03:00:00Z"), at("2026-01-20T12:00:00Z")];
    assert_eq!(anchor(&v, cutoff), Some(1));
    let v = [at("2026-01-20T03:00:00Z"), at("2026-01-20T07:00:00Z")];
    assert_eq!(anchor(&v, cutoff), None);
    let v = [at("2026-01-20T06:00:00Z")];
    assert_eq!(anchor(&v, cutoff), Some(0));
}

#[test]
fn compact_numbers_and_the_minimal_line() {
    assert_eq!(compact(812), "812");
    assert_eq!(compact(45_600), "45.6k");
    assert_eq!(compact(12_300_000), "12.3M");
    let p: Value =
        serde_json::json!({"model":{"display_name":"Opus"},"cost":{"total_cost_usd":1.5}});
    assert_eq!(
        minimal(&p),
        "Opus · usage n/a · session $1.50 (Claude Code's)"
    );
    assert_eq!(minimal(&Value::Null), "Claude · usage n/a");
}
