//! Claude Code's own checkpoint store: `<home>/file-history/<session>/
//! <sha256(absolute path)[:16]>@v<N>`, each file the plain bytes of a backup
//! (FH-023). Read only; never written.
//!
//! Facts that bound what a blob may be trusted for: the store holds
//! structured writes only (FH-020, FH-024), so absence proves nothing; it is
//! pruned (FH-024); the `@vN` name is no ordering key and COLLIDES across a
//! version reset in one directory, the later generation overwriting the
//! earlier blob (FH-016, FH-025). So a blob is trusted only when a transcript
//! sighting names it and its mtime agrees with that sighting's `backupTime`
//! within 120 s (FH-019, FH-025); then it is the file as of `backupTime`.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use jiff::Timestamp;

use crate::files::history::Sighting;

/// FH-025: 86.8% of surviving blobs agree within 1 s, 154 more within 120 s.
pub(crate) const TOLERANCE_SECS: i64 = 120;

/// The store key of an absolute path (FH-023).
pub(crate) fn path_hash(abs: &str) -> String {
    let mut h = super::sha256::hex(abs.as_bytes());
    h.truncate(16);
    h
}

/// One backup file of the store.
#[derive(Debug, Clone)]
pub(crate) struct Blob {
    pub(crate) session: String,
    /// `<hash>@v<N>`.
    pub(crate) name: String,
    pub(crate) version: Option<u64>,
    pub(crate) path: PathBuf,
    pub(crate) mtime: Option<Timestamp>,
    pub(crate) size: u64,
}

/// Whether a blob may be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Its mtime agrees with a sighting's backupTime.
    Trusted {
        backup_time: String,
        delta_s: i64,
        line: usize,
    },
    /// Named by sightings, but its mtime matches none of their backupTimes: a
    /// later generation overwrote it, or it was touched since (FH-025).
    WrongMtime { nearest_s: i64 },
    /// No sighting in the selected transcripts names it.
    NoRecord,
    /// Its modification time could not be read.
    NoMtime,
}

impl Verdict {
    pub(crate) fn trusted(&self) -> bool {
        matches!(self, Verdict::Trusted { .. })
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            Verdict::Trusted { delta_s, line, .. } => {
                format!("trusted: mtime within {delta_s}s of the backupTime recorded at L{line}")
            }
            Verdict::WrongMtime { nearest_s } => format!(
                "untrusted: mtime is {nearest_s}s from every recorded backupTime (over {TOLERANCE_SECS}s; a later generation may have overwritten it)"
            ),
            Verdict::NoRecord => "untrusted: no transcript record names this backup".to_string(),
            Verdict::NoMtime => "untrusted: its modification time cannot be read".to_string(),
        }
    }
}

/// The store listed once: every backup file by its path key.
#[derive(Debug, Default)]
pub(crate) struct Store {
    by_key: std::collections::HashMap<String, Vec<Blob>>,
}

impl Store {
    /// Every `<hash>@vN` file under `<home>/file-history/*/` (none when absent).
    pub(crate) fn read(home: &Path) -> Store {
        let mut by_key: std::collections::HashMap<String, Vec<Blob>> = Default::default();
        let Ok(sessions) = std::fs::read_dir(home.join("file-history")) else {
            return Store::default();
        };
        for s in sessions.flatten() {
            let Ok(files) = std::fs::read_dir(s.path()) else {
                continue;
            };
            let session = s.file_name().to_string_lossy().into_owned();
            for f in files.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let Some((key, v)) = name.split_once("@v") else {
                    continue;
                };
                if key.len() != 16 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
                    continue;
                }
                let meta = f.metadata().ok();
                by_key.entry(key.to_string()).or_default().push(Blob {
                    session: session.clone(),
                    version: v.parse().ok(),
                    path: f.path(),
                    mtime: meta
                        .as_ref()
                        .and_then(|m| m.modified().ok())
                        .and_then(to_ts),
                    size: meta.map_or(0, |m| m.len()),
                    name,
                });
            }
        }
        for v in by_key.values_mut() {
            v.sort_by(|a, b| {
                (&a.session, a.version, &a.name).cmp(&(&b.session, b.version, &b.name))
            });
        }
        Store { by_key }
    }

    /// The backups of the absolute path `abs`, by session then version.
    pub(crate) fn blobs(&self, abs: &str) -> Vec<Blob> {
        self.by_key
            .get(&path_hash(abs))
            .cloned()
            .unwrap_or_default()
    }
}

fn to_ts(t: SystemTime) -> Option<Timestamp> {
    Timestamp::try_from(t).ok()
}

/// The verdict on `blob` given the sightings of its session that name it.
pub(crate) fn verdict(blob: &Blob, named: &[&Sighting]) -> Verdict {
    let Some(mtime) = blob.mtime else {
        return Verdict::NoMtime;
    };
    let mut nearest: Option<(i64, &Sighting)> = None;
    for s in named {
        let Some(bt) = s.backup_time.as_deref().and_then(crate::timefmt::parse_ts) else {
            continue;
        };
        let d = (mtime.as_second() - bt.as_second()).abs();
        if nearest.is_none_or(|(n, _)| d < n) {
            nearest = Some((d, s));
        }
    }
    match nearest {
        None => Verdict::NoRecord,
        Some((d, s)) if d <= TOLERANCE_SECS => Verdict::Trusted {
            backup_time: s.backup_time.clone().unwrap_or_default(),
            delta_s: d,
            line: s.line,
        },
        Some((d, _)) => Verdict::WrongMtime { nearest_s: d },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FH-023: the key is the first 16 hex digits of sha256(absolute path).
    #[test]
    fn store_key() {
        assert_eq!(
            path_hash("/tmp/a.txt"),
            super::super::sha256::hex(b"/tmp/a.txt")[..16].to_string()
        );
        assert_eq!(path_hash("/tmp/a.txt").len(), 16);
    }
}
