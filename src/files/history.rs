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
mod tests;
