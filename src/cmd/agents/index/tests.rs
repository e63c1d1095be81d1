//! Unit tests of `index`.

use super::super::facts::SpawnInput;
use super::*;

fn spawn(id: &str, ts: Option<&str>, line: usize) -> Spawn {
    Spawn {
        id: id.into(),
        tool: "Agent".into(),
        input: SpawnInput::default(),
        ts: ts.map(str::to_string),
        line,
        lane: "main".into(),
    }
}

/// SUB-023: a lane's first record lags its spawn by ~0.2 s (p99 3.4 s), so
/// among name-joined candidates the latest spawn at or before the lane's
/// start is its own; with none before it (skew), the earliest; a fan-out's
/// siblings at one instant fall to file order, never to the lag.
#[test]
fn the_latest_spawn_before_the_lane_wins_sub_023() {
    let a = spawn("toolu_a", Some("2026-07-01T10:00:00.000Z"), 10);
    let b = spawn("toolu_b", Some("2026-07-01T10:00:05.000Z"), 20);
    let c = spawn("toolu_c", Some("2026-07-01T10:00:09.000Z"), 30);
    let cands = [&a, &b, &c];
    let pick = |st: &str| pick_by_lag(&cands, Some(st)).map(|s| s.id.as_str());
    assert_eq!(pick("2026-07-01T10:00:05.200Z"), Some("toolu_b"));
    assert_eq!(pick("2026-07-01T10:00:08.350Z"), Some("toolu_b"));
    assert_eq!(pick("2026-07-01T09:59:59.000Z"), Some("toolu_a"));
    let d = spawn("toolu_d", Some("2026-07-01T10:00:05.000Z"), 21);
    let fan = [&d, &b];
    let got = pick_by_lag(&fan, Some("2026-07-01T10:00:05.100Z"));
    assert_eq!(
        got.map(|s| s.line),
        Some(21),
        "same instant: the later line"
    );
}
