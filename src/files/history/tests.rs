//! Sightings, squeezes, jumps and intervals on built file-history lines.

use super::*;

/// FH-001, FH-002, FH-003, FH-004, QT-025: the snapshot's instant is
/// nested; a relative key with a realParentDir resolves against it, one
/// without waits for the cwd; a null backupFileName is kept as none; a
/// delta names one path and carries its own timestamp.
#[test]
fn snapshot_and_delta_lines() {
    let snap = br#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{"src/a.rs":{"backupFileName":"0123456789abcdef@v2","version":2,"backupTime":"2026-01-01T00:00:05.000Z","realParentDir":"/p/src"},"README.md":{"backupFileName":null,"version":1,"backupTime":"2026-01-01T00:00:05.000Z"}},"timestamp":"2026-01-01T00:00:04.000Z"},"isSnapshotUpdate":false}"#;
    let mut s = sightings(snap, 7).unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s[1].path, "/p/src/a.rs");
    assert_eq!(s[1].ts.as_deref(), Some("2026-01-01T00:00:04.000Z"));
    assert!(s[0].pending && s[0].backup.is_none());
    resolve_pending(&mut s, Some("/p"));
    assert_eq!(s[0].path, "/p/README.md");
    let delta = br#"{"type":"file-history-delta","messageId":"m","snapshotMessageId":"s","trackingPath":"/p/b.rs","backup":{"backupFileName":null,"version":1,"backupTime":"2026-01-01T00:00:09.000Z"},"timestamp":"2026-01-01T00:00:09.100Z"}"#;
    let d = sightings(delta, 9).unwrap();
    assert_eq!((d[0].path.as_str(), d[0].version), ("/p/b.rs", 1));
}

/// FH-015, FH-016: increases within a generation are jumps; a decrease is a reset.
#[test]
fn jumps_within_a_generation() {
    let mk = |v, line| Sighting {
        path: "/p/a".into(),
        class: Class::Absolute,
        version: v,
        backup: None,
        backup_time: None,
        line,
        turn: None,
        ts: None,
        pending: false,
    };
    let s = vec![mk(1, 1), mk(1, 2), mk(2, 3), mk(1, 4), mk(3, 5)];
    let j: Vec<(usize, usize)> = jumps(&s).iter().map(|(a, b)| (a.line, b.line)).collect();
    assert_eq!(j, vec![(2, 3), (4, 5)]);
}

/// FH-002: a path listed again on every snapshot at one version keeps
/// the first and last sighting of each run; the jumps are the same.
#[test]
fn squeezed_runs_keep_their_jumps() {
    let mk = |p: &str, v, line| Sighting {
        path: p.into(),
        class: Class::Absolute,
        version: v,
        backup: Some(format!("h@v{v}")),
        backup_time: Some(format!("2026-01-01T00:00:0{v}.000Z")),
        line,
        turn: None,
        ts: Some(format!("2026-01-01T00:01:{line:02}.000Z")),
        pending: false,
    };
    let all = vec![
        mk("/a", 1, 1),
        mk("/b", 1, 1),
        mk("/a", 1, 2),
        mk("/b", 1, 2),
        mk("/a", 1, 3),
        mk("/b", 2, 3),
        mk("/a", 1, 4),
        mk("/a", 2, 5),
        mk("/a", 2, 6),
        mk("/a", 1, 7),
        mk("/a", 1, 8),
    ];
    let pairs = |s: &[Sighting]| -> Vec<(String, usize, usize)> {
        jumps(s)
            .iter()
            .map(|(a, b)| (a.path.clone(), a.line, b.line))
            .collect()
    };
    let mut squeezed = all.clone();
    squeeze(&mut squeezed);
    assert_eq!(pairs(&squeezed), pairs(&all));
    let lines: Vec<(&str, usize)> = squeezed.iter().map(|s| (s.path.as_str(), s.line)).collect();
    assert_eq!(
        lines,
        [
            ("/a", 1),
            ("/b", 1),
            ("/b", 2),
            ("/b", 3),
            ("/a", 4),
            ("/a", 5),
            ("/a", 6),
            ("/a", 7),
            ("/a", 8)
        ]
    );
}

/// FH-021: `files` keeps the sightings of the settings family only; a
/// relative one waiting for its directory is judged by its last part.
#[test]
fn settings_family_candidates_fh_021() {
    let mk = |p: &str, pending| Sighting {
        path: p.into(),
        class: Class::Absolute,
        version: 1,
        backup: None,
        backup_time: None,
        line: 1,
        turn: None,
        ts: None,
        pending,
    };
    assert!(may_be_settings(&mk("/p/.claude/settings.json", false)));
    assert!(!may_be_settings(&mk("/p/settings.json", false)));
    assert!(!may_be_settings(&mk("/p/src/a.rs", false)));
    assert!(may_be_settings(&mk("settings.json", true)));
    assert!(may_be_settings(&mk("a/..", true)));
    assert!(!may_be_settings(&mk("src/a.rs", true)));
}

/// FH-019: a first backup is copied just before the edit that follows
/// it, so a jump's interval opens at the earlier version's backupTime, not
/// at the line that recorded it.
#[test]
fn the_interval_opens_at_the_backup_time() {
    let at = |line, ts: &str, bt: Option<&str>| Sighting {
        path: "/p/a".into(),
        class: Class::Absolute,
        version: 1,
        backup: None,
        backup_time: bt.map(str::to_string),
        line,
        turn: None,
        ts: Some(ts.into()),
        pending: false,
    };
    let prev = at(
        10,
        "2026-01-01T00:00:00.000Z",
        Some("2026-01-01T00:00:30.000Z"),
    );
    let cur = at(50, "2026-01-01T00:10:00.000Z", None);
    // An edit recorded before the v1 line but landing after its backup.
    assert!(in_interval(
        8,
        Some("2026-01-01T00:00:31.000Z"),
        true,
        &prev,
        &cur
    ));
    assert!(!in_interval(
        8,
        Some("2026-01-01T00:00:29.000Z"),
        true,
        &prev,
        &cur
    ));
    assert!(!in_interval(
        51,
        Some("2026-01-01T00:09:00.000Z"),
        true,
        &prev,
        &cur
    ));
    // Another transcript: by time alone.
    assert!(in_interval(
        0,
        Some("2026-01-01T00:05:00.000Z"),
        false,
        &prev,
        &cur
    ));
    assert!(!in_interval(
        0,
        Some("2026-01-01T00:11:00.000Z"),
        false,
        &prev,
        &cur
    ));
}
