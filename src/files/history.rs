//! Claude Code's file-history lines as version sightings, and the external
//! writes they reveal.
//!
//! A `file-history-snapshot` has no top-level timestamp (FH-001): its instant
//! is `snapshot.timestamp`; its `trackedFileBackups` maps each tracked path,
//! absolute or relative, to `{backupFileName, version, backupTime,
//! realParentDir?}` (FH-002, FH-003). A `file-history-delta` names one path in
//! `trackingPath` with a `backup` object and a top-level timestamp (FH-004,
//! QT-025). The version bumps only when the bytes changed (FH-015); it resets
//! mid-session, so a decrease starts a new generation and only increases
//! within one are jumps (FH-016). `isSnapshotUpdate` is never read (FH-017).
//! A jump with no tool write of the path in its interval is an external write
//! (FH-014, FH-015, FH-022) — reported for the settings family only (FH-021,
//! FH-039); a tool write and a silent write in one interval make one bump, so
//! this form is the cheap, incomplete one (FH-018).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::path::{base_name, is_absolute, join, normalize};
use super::Class;
use crate::record::{opt_str, Str};

/// One tracked path seen at one version on one file-history line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sighting {
    /// Absolute when it could be resolved; as written otherwise.
    pub(crate) path: String,
    pub(crate) class: Class,
    pub(crate) version: u64,
    /// The store file name (`<hash>@vN`), when not null (FH-003).
    pub(crate) backup: Option<String>,
    pub(crate) backup_time: Option<String>,
    pub(crate) line: usize,
    /// The turn of the line, filled in by the pass.
    pub(crate) turn: Option<usize>,
    /// The line's instant: `snapshot.timestamp`, or a delta's `timestamp`.
    pub(crate) ts: Option<String>,
    /// A relative path waiting for the session's directory (resolved at the
    /// end of the pass, when the file's first `cwd` is known).
    pub(crate) pending: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    timestamp: Str<'a>,
    #[serde(borrow, default)]
    snapshot: Option<Body<'a>>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    tracking_path: Str<'a>,
    #[serde(borrow, default)]
    backup: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    timestamp: Str<'a>,
    #[serde(borrow, default)]
    tracked_file_backups: Option<HashMap<Cow<'a, str>, &'a RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    backup_file_name: Str<'a>,
    #[serde(default)]
    version: Option<u64>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    backup_time: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    real_parent_dir: Str<'a>,
}

/// The sightings on one file-history line (`bytes`), or `None` when the line
/// is not one csift can read (counted by the caller).
pub(crate) fn sightings(bytes: &[u8], line: usize) -> Option<Vec<Sighting>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let l: Line<'_> = serde_json::from_str(text).ok()?;
    let mut out = Vec::new();
    if let Some(body) = &l.snapshot {
        let ts = body.timestamp.as_deref().or(l.timestamp.as_deref());
        let mut entries: Vec<_> = body.tracked_file_backups.iter().flatten().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        for (path, raw) in entries {
            if let Some(s) = sighting(path, raw, line, ts) {
                out.push(s);
            }
        }
    } else if let (Some(path), Some(raw)) = (&l.tracking_path, l.backup) {
        out.extend(sighting(path, raw, line, l.timestamp.as_deref()));
    }
    Some(out)
}

fn sighting(path: &str, raw: &RawValue, line: usize, ts: Option<&str>) -> Option<Sighting> {
    let e: Entry<'_> = serde_json::from_str(raw.get()).ok()?;
    let (path, class, pending) = if is_absolute(path) {
        (normalize(path), Class::Absolute, false)
    } else if let Some(dir) = e.real_parent_dir.as_deref().filter(|d| is_absolute(d)) {
        // realParentDir is the file's own directory (FH-023's probe).
        (join(dir, base_name(path)), Class::CwdJoined, false)
    } else {
        (path.to_string(), Class::Unresolved, true)
    };
    Some(Sighting {
        path,
        class,
        version: e.version?,
        backup: e.backup_file_name.map(Cow::into_owned),
        backup_time: e.backup_time.map(Cow::into_owned),
        line,
        turn: None,
        ts: ts.map(str::to_string),
        pending,
    })
}

/// Resolve the relative sightings of a file against the session's directory.
pub(crate) fn resolve_pending(sightings: &mut [Sighting], cwd: Option<&str>) {
    let Some(dir) = cwd.filter(|d| is_absolute(d)) else {
        return;
    };
    for s in sightings.iter_mut().filter(|s| s.pending) {
        s.path = join(dir, &s.path);
        s.class = Class::CwdJoined;
        s.pending = false;
    }
}

/// Whether a sighting may be of the settings family
/// ([`super::path::is_settings_family`], FH-021): exactly for a resolved path;
/// for one waiting for the session's directory, by its last component, which
/// joining it onto a directory keeps (unless it is `.` or `..`).
pub(crate) fn may_be_settings(s: &Sighting) -> bool {
    if !s.pending {
        return super::path::is_settings_family(&s.path);
    }
    let base = s.path.rsplit(['/', '\\']).next().unwrap_or_default();
    matches!(
        base,
        "settings.json"
            | "settings.local.json"
            | "managed-settings.json"
            | ".claude.json"
            | "."
            | ".."
            | ""
    )
}

/// Drop the sightings no reader can tell apart from their neighbours: a
/// snapshot lists every tracked path again on each turn (FH-002), so a path
/// kept at one version is seen on line after line with the same backup. Of
/// each run of a path's consecutive sightings that agree on version, backup,
/// backup time and class, the first and the last are kept: a jump pairs the
/// last sighting before it with the first after it ([`jumps`], whose
/// interval [`in_interval`] reads), and a backup's verdict takes the first
/// sighting naming its time. Call it once the paths are resolved.
pub(crate) fn squeeze(sightings: &mut Vec<Sighting>) {
    let same = |a: &Sighting, b: &Sighting| {
        a.version == b.version
            && a.class == b.class
            && a.backup == b.backup
            && a.backup_time == b.backup_time
    };
    // Per path: (first of its current run, last of it).
    let mut runs: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut drop = vec![false; sightings.len()];
    for (i, s) in sightings.iter().enumerate() {
        match runs.get_mut(s.path.as_str()) {
            Some((first, last)) if same(&sightings[*last], s) => {
                if *last != *first {
                    drop[*last] = true;
                }
                *last = i;
            }
            Some(run) => *run = (i, i),
            None => {
                runs.insert(&s.path, (i, i));
            }
        }
    }
    if !drop.contains(&true) {
        return;
    }
    let mut i = 0;
    sightings.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
    sightings.shrink_to_fit();
}

/// A version jump of one path: `(earlier sighting, this sighting)`, within
/// one generation (FH-016), in line order.
pub(crate) fn jumps(sightings: &[Sighting]) -> Vec<(&Sighting, &Sighting)> {
    let mut last: HashMap<&str, &Sighting> = HashMap::new();
    let mut out = Vec::new();
    for s in sightings {
        if let Some(prev) = last.get(s.path.as_str()) {
            if s.version > prev.version {
                out.push((*prev, s));
            }
        }
        last.insert(&s.path, s);
    }
    out
}

/// Whether a write (in transcript `same_file` or another, at `line`, landing
/// at `ts`) falls in the interval a jump `prev -> cur` covers. The interval
/// opens when `prev`'s bytes were copied (its `backupTime`: a first backup is
/// taken just before the edit that follows it, FH-019), else at `prev`'s
/// line; it closes at `cur`.
pub(crate) fn in_interval(
    line: usize,
    ts: Option<&str>,
    same_file: bool,
    prev: &Sighting,
    cur: &Sighting,
) -> bool {
    use crate::timefmt::parse_ts;
    let t = ts.and_then(parse_ts);
    let upper = if same_file {
        line <= cur.line
    } else {
        matches!((t, cur.ts.as_deref().and_then(parse_ts)), (Some(t), Some(c)) if t <= c)
    };
    let lower = match (t, prev.backup_time.as_deref().and_then(parse_ts)) {
        (Some(t), Some(b)) => t > b,
        _ if same_file => line > prev.line,
        _ => matches!((t, prev.ts.as_deref().and_then(parse_ts)), (Some(t), Some(p)) if t > p),
    };
    upper && lower
}

#[cfg(test)]
mod tests {
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
        let lines: Vec<(&str, usize)> =
            squeezed.iter().map(|s| (s.path.as_str(), s.line)).collect();
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
}
