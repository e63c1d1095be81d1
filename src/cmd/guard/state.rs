//! The guard's per-session state and event log, kept OUTSIDE the Claude home
//! (`$XDG_STATE_HOME/csift/guard/`, else `~/.local/state/csift/guard/`, or
//! `--state-dir`). csift never writes under the Claude home, so a state dir
//! inside it is refused. Writes are atomic (temp file + rename) because parallel
//! PostToolUse fires race on the same session file; a lost update is tolerated
//! (surfaced ids are de-duplicated on read), a torn file is not possible.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

/// An id surfaced to the model mid-turn, awaiting its `[recovered: N]` footer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Surfaced {
    /// `"<message.id>@HH:MM:SS"`.
    pub(crate) id: String,
    /// The hook payload's `prompt_id` of the turn that surfaced it.
    #[serde(default)]
    pub(crate) prompt: String,
}

/// Carried counts of a message.id whose records may straddle scan windows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Carried {
    pub(crate) mid: String,
    pub(crate) thinking: u32,
    pub(crate) text: u32,
    /// Keys of the uuids counted (`loss::fnv1a`), so a record a
    /// resume replays under its own uuid (REC-091) is not counted again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) uuids: Vec<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct State {
    pub(crate) transcript: String,
    /// FNV-1a of the transcript's first line: a rewritten file changes it.
    pub(crate) anchor: String,
    /// Byte offset of the next unscanned line; `None` before the first fire.
    pub(crate) offset: Option<u64>,
    /// Oldest first, at most [`CARRY_CAP`].
    pub(crate) carry: Vec<Carried>,
    /// Never flagged again while retained; newest [`FLAGGED_CAP`].
    pub(crate) flagged_mids: Vec<String>,
    /// Scanning runs (the liveness heartbeat, with the file's mtime).
    pub(crate) fires: u64,
    pub(crate) consec_blocks: u32,
    /// Ids collected by the Stop arm, delivered by the next post fire.
    pub(crate) carryover: Vec<String>,
    pub(crate) surfaced: Vec<Surfaced>,
}

pub(crate) const CARRY_CAP: usize = 200;
pub(crate) const FLAGGED_CAP: usize = 50;
pub(crate) const PENDING_CAP: usize = 20;

/// Keep the last `n` items.
pub(crate) fn keep_last<T>(v: &mut Vec<T>, n: usize) -> Vec<T> {
    let cut = v.len().saturating_sub(n);
    v.drain(..cut).collect()
}

/// De-duplicate, keeping first occurrences in order.
pub(crate) fn dedupe(v: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.into_iter().filter(|s| seen.insert(s.clone())).collect()
}

impl State {
    /// Read the state; a missing or unreadable file is a fresh state (first fire).
    pub(crate) fn load(path: &Path) -> State {
        let mut s: State = std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        // Parallel post fires race their read-modify-write: one id surfaced twice
        // would demand a footer count no honest message gives.
        let mut seen = std::collections::HashSet::new();
        s.surfaced
            .retain(|e| !e.id.is_empty() && seen.insert(e.id.clone()));
        s
    }

    pub(crate) fn save(&self, path: &Path) -> anyhow::Result<()> {
        let dir = path.parent().context("state path has no parent")?;
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        let bytes = serde_json::to_vec(self)?;
        std::fs::write(&tmp, bytes).with_context(|| format!("write {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("rename to {}", path.display()))
    }
}

/// Where state lives: `--state-dir`, `$XDG_STATE_HOME/csift/guard`, or
/// `$HOME/.local/state/csift/guard`.
pub(crate) fn state_dir(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(d) = flag {
        return Ok(d.to_path_buf());
    }
    if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Ok(PathBuf::from(x).join("csift/guard"));
    }
    match std::env::var_os("HOME") {
        Some(h) => Ok(PathBuf::from(h).join(".local/state/csift/guard")),
        None => bail!("neither XDG_STATE_HOME nor HOME is set; pass --state-dir"),
    }
}

/// A path made absolute and canonical as far as it exists.
fn resolved(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut tail = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(c) = std::fs::canonicalize(cur) {
            return tail.iter().rev().fold(c, |acc: PathBuf, t| acc.join(t));
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                cur = parent;
            }
            _ => return abs,
        }
    }
}

/// Refuse a state dir inside any of `homes` (the Claude home, and the home a
/// transcript path sits in).
pub(crate) fn check_outside(dir: &Path, homes: &[PathBuf]) -> anyhow::Result<()> {
    let d = resolved(dir);
    for h in homes {
        let h = resolved(h);
        if d.starts_with(&h) {
            bail!(
                "state dir {} is inside the Claude home {}; csift never writes there (use --state-dir)",
                d.display(),
                h.display()
            );
        }
    }
    Ok(())
}

/// A session id as a file name: anything but `[A-Za-z0-9._-]` becomes `_`.
pub(crate) fn file_stem(session: &str) -> String {
    let s: String = session
        .chars()
        .take(128)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "unknown".into()
    } else {
        s
    }
}

/// Append one telemetry event to `events.jsonl`; failures are ignored.
pub(crate) fn log_event(dir: &Path, session: &str, kind: &str, fields: serde_json::Value) {
    let mut ev = serde_json::json!({
        "ts": jiff::Timestamp::now().to_string(),
        "session": session,
        "kind": kind,
    });
    if let (Some(o), serde_json::Value::Object(f)) = (ev.as_object_mut(), fields) {
        o.extend(f);
    }
    let Ok(line) = serde_json::to_string(&ev) else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("events.jsonl"))
    {
        let _ = writeln!(f, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_cannot_escape_the_dir() {
        assert_eq!(file_stem("../../etc/passwd"), "______etc_passwd");
        assert_eq!(file_stem(""), "unknown");
        assert_eq!(file_stem("3f2a-b1"), "3f2a-b1");
    }

    #[test]
    fn refuses_a_dir_inside_the_home() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join(".claude");
        std::fs::create_dir_all(&home).unwrap();
        assert!(check_outside(&home.join("scratch/guard"), std::slice::from_ref(&home)).is_err());
        assert!(check_outside(&t.path().join("state"), &[home]).is_ok());
    }

    #[test]
    fn keeps_newest() {
        let mut v = vec![1, 2, 3, 4];
        assert_eq!(keep_last(&mut v, 2), vec![1, 2]);
        assert_eq!(v, vec![3, 4]);
    }
}
