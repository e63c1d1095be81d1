//! The guard's per-session state and event log, kept OUTSIDE the Claude home
//! (`$XDG_STATE_HOME/csift/guard/`, else `~/.local/state/csift/guard/`, or
//! `--state-dir`). csift never writes under the Claude home, so a state dir
//! inside it is refused. Writes are atomic (temp file + rename) because parallel
//! PostToolUse fires race on the same session file; a lost update is tolerated
//! (surfaced ids are de-duplicated on read), a torn file is not possible.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Failure;

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
/// Most of a state file read (they hold capped lists: a few KB).
const STATE_MAX: u64 = 16 << 20;
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
        let mut s: State = crate::scan::source::small(path, STATE_MAX)
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

    /// Write the state to `path` atomically, in a folder [`prepare`] made.
    pub(crate) fn save(&self, path: &Path) -> Result<(), Failure> {
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        let bytes = serde_json::to_vec(self).map_err(Failure::Encode)?;
        write_new(&tmp, &bytes).map_err(|e| Failure::io("write", &tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Failure::io("rename to", path, e))
    }
}

/// Where state lives: `--state-dir`, `$XDG_STATE_HOME/csift/guard`, or
/// `$HOME/.local/state/csift/guard`; absolute and lexically normalised
/// ([`lexical`]), so the folder checked is the folder written.
pub(crate) fn state_dir(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    let dir = if let Some(d) = flag {
        d.to_path_buf()
    } else if let Some(x) =
        std::env::var_os("XDG_STATE_HOME").filter(|x| Path::new(x).is_absolute())
    {
        PathBuf::from(x).join("csift/guard")
    } else {
        match std::env::var_os("HOME") {
            Some(h) => PathBuf::from(h).join(".local/state/csift/guard"),
            None => return Err(Failure::NoStateDir),
        }
    };
    Ok(lexical(&dir))
}

/// `p` made absolute with `.` and `..` resolved by name. A `..` after a
/// folder that does not exist yet is left alone by the file system's own
/// resolution (`canonicalize` fails on it) but honoured by `create_dir_all`,
/// which creates the folder and then climbs out of it: `--state-dir
/// /tmp/x/missing/../HOME/guard` passed the inside-the-home check and wrote
/// under HOME. Resolved here, the path checked and the path created are one.
pub(crate) fn lexical(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Refuse a state dir inside any of `homes` (the Claude home, and the home a
/// transcript path sits in).
pub(crate) fn check_outside(dir: &Path, homes: &[PathBuf]) -> Result<(), Failure> {
    let d = crate::outpath::resolve(dir);
    for h in homes {
        let h = crate::outpath::resolve(h);
        if d.starts_with(&h) {
            return Err(Failure::Inside { dir: d, home: h });
        }
    }
    Ok(())
}

/// Create the state dir (checked by [`check_outside`] first) and check it
/// again by its canonical path, now that it exists: a symlink swapped in
/// between the check and the creation is caught before anything is written
/// in the folder. Returns the canonical folder, where every write then goes.
pub(crate) fn prepare(dir: &Path, homes: &[PathBuf]) -> Result<PathBuf, Failure> {
    check_outside(dir, homes)?;
    std::fs::create_dir_all(dir).map_err(|e| Failure::io("create", dir, e))?;
    let canon = std::fs::canonicalize(dir).map_err(|e| Failure::io("create", dir, e))?;
    check_outside(&canon, homes)?;
    Ok(canon)
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

/// `opts` opening without blocking: a FIFO planted where a state file goes
/// fails to open instead of waiting for a reader that never comes.
fn nonblocking(opts: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    opts
}

/// Write `bytes` to `path`, created or truncated, as `std::fs::write` does
/// but without blocking on a FIFO.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    nonblocking(&mut opts).open(path)?.write_all(bytes)
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
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    if let Ok(mut f) = nonblocking(&mut opts).open(dir.join("events.jsonl")) {
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

    /// A `..` past a folder that does not exist is resolved before the check,
    /// so the folder checked is the one `create_dir_all` would make.
    #[test]
    fn a_dotdot_past_a_missing_folder_cannot_reach_the_home() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("HOME");
        std::fs::create_dir_all(&home).unwrap();
        let sneaky = t.path().join("missing/../HOME/guard-state");
        assert_eq!(lexical(&sneaky), home.join("guard-state"));
        let homes = std::slice::from_ref(&home);
        assert!(check_outside(&lexical(&sneaky), homes).is_err());
        assert!(prepare(&lexical(&sneaky), homes).is_err());
        assert!(!home.join("guard-state").exists());
        assert!(!t.path().join("missing").exists());
    }

    #[test]
    fn keeps_newest() {
        let mut v = vec![1, 2, 3, 4];
        assert_eq!(keep_last(&mut v, 2), vec![1, 2]);
        assert_eq!(v, vec![3, 4]);
    }
}
