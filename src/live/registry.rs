//! The harness session registry: `<claude-home>/sessions/<pid>.json`, one row per
//! live top-level session (REG-001), read point-in-time.
//!
//! - A row is matched on its `sessionId` field, never on its file name; only
//!   `*.json` entries are candidates: the `<pid>.<hex>.key` companions parse as
//!   JSON too but are not rows (REG-016), and a `.json` without a `sessionId` is
//!   said and skipped on content.
//! - Claude Code writes a row in place with a plain `writeFile` (REG-017), so a
//!   read can catch one half-written: an unparseable row is read once more, then
//!   skipped and said; its session, when the bytes still name one, is marked so
//!   its verdict says why it is `unknown`.
//! - `status` is the harness's open set `busy | shell | idle | waiting`
//!   (REG-002; `shell` = idle with a background shell open, REG-003; `waiting`
//!   carries the `waitingFor` reason, ELI-013); `statusUpdatedAt` is a
//!   transition stamp, shown as an age, never read as a heartbeat (REG-004).
//! - Only top-level sessions have rows (REG-006), and a row can outlive its
//!   process (REG-013): the pid probe in [`super::procs`] decides.
//! - `procStartFt ?? procStart` is the process's start (REG-010, WIN-007).
//!
//! This module reads; it never writes under the Claude home.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// One registry row, as csift reads it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    /// The row's own file.
    pub(crate) file: PathBuf,
    /// `pid` as a number; `None` with [`Row::pid_raw`] set when it is not one.
    pub(crate) pid: Option<u32>,
    /// The `pid` value as written, when it is not a usable number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pid_raw: Option<String>,
    pub(crate) session_id: String,
    /// Verbatim: an open set (REG-002); `None` when absent or null (a print-mode
    /// session writes `null` and never transitions).
    pub(crate) status: Option<String>,
    /// The dialog a `waiting` row is blocked on (ELI-013, TAIL-010).
    pub(crate) waiting_for: Option<String>,
    /// Milliseconds since the epoch of the last status transition (REG-004).
    pub(crate) status_updated_at_ms: Option<i64>,
    pub(crate) updated_at_ms: Option<i64>,
    pub(crate) started_at_ms: Option<i64>,
    /// `procStartFt ?? procStart` (WIN-007), verbatim.
    pub(crate) proc_start: Option<String>,
    pub(crate) pid_domain: Option<String>,
    pub(crate) kind: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) cwd: Option<String>,
}

/// The registry directory as read once for a run.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    /// `<home>/sessions` exists (older Claude Code writes none).
    pub(crate) present: bool,
    pub(crate) dir: PathBuf,
    rows: HashMap<String, Vec<Row>>,
    /// Sessions named by a row that could not be parsed (id → the row's file).
    unreadable: HashMap<String, PathBuf>,
    /// Rows skipped, each said once (file, why).
    pub(crate) skipped: Vec<(PathBuf, String)>,
}

/// What the registry says of one session.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Leg<'a> {
    /// No `sessions/` folder: verdicts come from the transcripts alone.
    NoRegistry,
    /// The folder exists but holds no row for the session: not running under
    /// this home now, a print-mode or older session, or another machine's.
    NoRow,
    /// A row names the session but could not be parsed (REG-017).
    Unreadable(&'a Path),
    Row(&'a Row),
}

impl Registry {
    /// Read every row of `<home>/sessions` once.
    pub(crate) fn read(home: &Path) -> Registry {
        let dir = home.join("sessions");
        let mut reg = Registry {
            present: dir.is_dir(),
            dir: dir.clone(),
            ..Registry::default()
        };
        if !reg.present {
            return reg;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                reg.skipped
                    .push((dir, format!("cannot list the session registry: {e}")));
                return reg;
            }
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            reg.add(&p);
        }
        reg
    }

    fn add(&mut self, p: &Path) {
        let bytes = match read_row(p) {
            Ok(b) => b,
            Err(e) => {
                // A row removed between the listing and the read is a session that
                // just exited (the sweep, REG-013): nothing to say.
                if e.kind() != std::io::ErrorKind::NotFound {
                    self.skipped
                        .push((p.to_path_buf(), format!("unreadable: {e}")));
                }
                return;
            }
        };
        let parsed = parse_row(p, &bytes).or_else(|| {
            // Caught mid-write (REG-017): read it once more.
            std::thread::sleep(std::time::Duration::from_millis(20));
            read_row(p).ok().and_then(|b| parse_row(p, &b))
        });
        match parsed {
            Some(Ok(row)) => self
                .rows
                .entry(row.session_id.clone())
                .or_default()
                .push(row),
            Some(Err(why)) => self.skipped.push((p.to_path_buf(), why)),
            None => {
                self.skipped.push((
                    p.to_path_buf(),
                    // REG-017: a plain in-place write can be caught half-done.
                    "not valid JSON (skipped; Claude Code writes rows in place, so a read can \
                     catch one mid-write)"
                        .to_string(),
                ));
                if let Some(id) = salvage_session_id(&bytes) {
                    self.unreadable.insert(id, p.to_path_buf());
                }
            }
        }
    }

    /// The registry's word on `session_id`: its row (the most recently started
    /// one when a session was registered twice), or why there is none.
    pub(crate) fn leg(&self, session_id: &str) -> Leg<'_> {
        if !self.present {
            return Leg::NoRegistry;
        }
        if let Some(rows) = self.rows.get(session_id) {
            if let Some(r) = rows.iter().max_by_key(|r| r.started_at_ms.unwrap_or(0)) {
                return Leg::Row(r);
            }
        }
        match self.unreadable.get(session_id) {
            Some(p) => Leg::Unreadable(p),
            None => Leg::NoRow,
        }
    }

    /// Every session id some row names (readable or not).
    pub(crate) fn session_ids(&self) -> impl Iterator<Item = &str> {
        self.rows
            .keys()
            .chain(self.unreadable.keys())
            .map(String::as_str)
    }
}

/// A row file's bytes, bounded: a real row is under 2 KB.
fn read_row(p: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let f = std::fs::File::open(p)?;
    let mut buf = Vec::new();
    f.take(1 << 20).read_to_end(&mut buf)?;
    Ok(buf)
}

/// `None` when the bytes are not a JSON object; `Some(Err)` when they are one
/// but not a row (no `sessionId`: a companion or another sidecar, REG-016).
fn parse_row(p: &Path, bytes: &[u8]) -> Option<Result<Row, String>> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let obj = v.as_object()?;
    let s = |k: &str| {
        obj.get(k)
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    };
    let n = |k: &str| obj.get(k).and_then(serde_json::Value::as_i64);
    let Some(session_id) = s("sessionId").filter(|id| !id.is_empty()) else {
        return Some(Err(
            "a JSON object with no sessionId: not a registry row (skipped)".into(),
        ));
    };
    let (pid, pid_raw) = match obj.get("pid") {
        Some(serde_json::Value::Number(num)) => {
            match num.as_u64().and_then(|u| u32::try_from(u).ok()) {
                Some(u) if u > 0 => (Some(u), None),
                _ => (None, Some(num.to_string())),
            }
        }
        Some(serde_json::Value::String(t)) => match t.trim().parse::<u32>() {
            Ok(u) if u > 0 => (Some(u), None),
            _ => (None, Some(format!("{t:?}"))),
        },
        Some(other) => (None, Some(other.to_string())),
        None => (None, Some("(absent)".to_string())),
    };
    Some(Ok(Row {
        file: p.to_path_buf(),
        pid,
        pid_raw,
        session_id,
        status: s("status"),
        waiting_for: s("waitingFor"),
        status_updated_at_ms: n("statusUpdatedAt"),
        updated_at_ms: n("updatedAt"),
        started_at_ms: n("startedAt"),
        // WIN-007: every reader in the binary resolves `procStartFt ?? procStart`.
        proc_start: s("procStartFt").or_else(|| s("procStart")),
        pid_domain: s("pidDomain"),
        kind: s("kind"),
        version: s("version"),
        cwd: s("cwd"),
    }))
}

/// The `sessionId` a torn row still names, read from its bytes.
fn salvage_session_id(bytes: &[u8]) -> Option<String> {
    let v = crate::scan::pair::first_plain_str(bytes, crate::scan::lit!(b"\"sessionId\""))?;
    let id = std::str::from_utf8(v).ok()?;
    (!id.is_empty()).then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home_with(rows: &[(&str, &[u8])]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("sessions")).unwrap();
        for (name, bytes) in rows {
            std::fs::write(d.path().join("sessions").join(name), bytes).unwrap();
        }
        d
    }

    /// REG-001, REG-016, REG-017, MISC-026: rows matched on sessionId (the row
    /// file is named by pid), `.key` companions never read, a `.json` with no
    /// sessionId and a torn row skipped and said.
    #[test]
    fn rows_match_on_session_id_and_bad_rows_are_said_reg_001_016_017() {
        let row = br#"{"pid":4123,"sessionId":"s-1","cwd":"/w","startedAt":1,"procStart":"Sun Aug 16 09:04:23 2026","version":"2.1.258","kind":"interactive","entrypoint":"cli","status":"busy","updatedAt":5,"statusUpdatedAt":4}"#;
        let d = home_with(&[
            ("999.json", row),
            ("999.0123abcd.key", br#"{"peerToken":"x","procStart":"y"}"#),
            ("7.json", br#"{"peerToken":"x","procStart":"y"}"#),
            ("8.json", br#"{"pid":8,"sessionId":"s-torn","stat"#),
        ]);
        let reg = Registry::read(d.path());
        assert!(reg.present);
        let Leg::Row(r) = reg.leg("s-1") else {
            panic!("no row")
        };
        assert_eq!(r.pid, Some(4123));
        assert_eq!(r.status.as_deref(), Some("busy"));
        assert_eq!(r.status_updated_at_ms, Some(4));
        assert!(matches!(reg.leg("s-torn"), Leg::Unreadable(_)));
        assert!(matches!(reg.leg("nobody"), Leg::NoRow));
        assert_eq!(reg.skipped.len(), 2, "{:?}", reg.skipped);
        assert!(reg
            .skipped
            .iter()
            .any(|(p, why)| p.ends_with("7.json") && why.contains("no sessionId")));
    }

    /// WIN-007: `procStartFt` wins over `procStart`; a pid that is no number is kept raw.
    #[test]
    fn filetime_key_wins_and_a_bad_pid_is_kept_raw_win_007() {
        let d = home_with(&[(
            "1.json",
            br#"{"pid":"abc","sessionId":"s","procStart":"Sun Aug 16 09:04:23 2026","procStartFt":"134328101803820142"}"#,
        )]);
        let reg = Registry::read(d.path());
        let Leg::Row(r) = reg.leg("s") else { panic!() };
        assert_eq!(r.proc_start.as_deref(), Some("134328101803820142"));
        assert_eq!(r.pid, None);
        assert_eq!(r.pid_raw.as_deref(), Some("\"abc\""));
    }

    /// An older Claude Code writes no registry: a leg of its own, not "no row".
    #[test]
    fn no_sessions_folder_is_no_registry() {
        let d = tempfile::tempdir().unwrap();
        let reg = Registry::read(d.path());
        assert!(!reg.present);
        assert!(matches!(reg.leg("x"), Leg::NoRegistry));
    }
}
