//! `verbatim` as a SessionStart hook: the payload Claude Code writes on stdin
//! (which transcript, and what started the session) and the barrier that
//! keeps a fleet of slice hooks in order.
//!
//! Claude Code runs the hooks of one event at the same time and joins their
//! outputs in the order they FINISH, not the order they are registered
//! (MISC-013), so N slice hooks would inject the reconstruction shuffled.
//! With `--ordered` each slice is rebuilt at once, then waits until the slice
//! before it has printed and left a done-flag, prints, and leaves its own.
//! The flags live in csift's state directory, in a folder named after the
//! payload (every hook of one event reads the same one); a flag records when
//! it was written and counts only while younger than the wait, so one left by
//! an earlier compaction of the same session never releases a later one. A
//! slice whose predecessor never finishes prints when the wait runs out,
//! rather than not at all. The last slice clears the folder.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use crate::error::Error;

#[derive(Deserialize)]
struct HookPayload {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    transcript_path: Option<String>,
    /// What started the session: startup, resume, clear, compact or fork
    /// (MISC-027).
    #[serde(default)]
    source: Option<String>,
}

/// The payload read on stdin, and the TARGET it names: its transcript_path,
/// else `@session_id`; no target when `sources` is given and the payload's
/// `source` is not among them (the hook does not apply).
pub(crate) fn payload(sources: &[String]) -> Result<(String, Option<String>), Error> {
    let mut s = String::new();
    std::io::stdin()
        .take(1 << 20)
        .read_to_string(&mut s)
        .map_err(|e| Error::Usage(format!("reading the hook payload on stdin: {e}")))?;
    let p: HookPayload = serde_json::from_str(&s).map_err(|e| {
        Error::Usage(format!(
            "the hook payload on stdin is not JSON with transcript_path: {e}"
        ))
    })?;
    if !sources.is_empty() && !p.source.as_ref().is_some_and(|x| sources.contains(x)) {
        return Ok((s, None));
    }
    // `~/` as guard reads it: a payload may name the home that way.
    let path = p.transcript_path.filter(|t| !t.is_empty()).map(|t| {
        crate::discovery::home::expand_tilde(&t)
            .to_string_lossy()
            .into_owned()
    });
    let target = match (path, p.session_id) {
        (Some(t), _) if std::path::Path::new(&t).is_file() => t,
        (_, Some(id)) if !id.is_empty() => format!("@{id}"),
        (Some(t), _) => t,
        _ => {
            return Err(Error::Usage(
                "the hook payload has neither transcript_path nor session_id".into(),
            ))
        }
    };
    Ok((s, Some(target)))
}

/// Polling interval while a slice waits for the one before it.
const POLL: Duration = Duration::from_millis(100);
/// After the flag: time for the previous hook to exit, which the flag
/// precedes by microseconds, so its output is joined first.
const SETTLE: Duration = Duration::from_millis(200);

/// The done-flags of one hook event's slices.
pub(crate) struct Barrier {
    dir: PathBuf,
    slice: usize,
    slices: usize,
    wait: Duration,
}

impl Barrier {
    /// The barrier of slice `slice` of `slices` for the event whose payload
    /// is `payload`; `None` without a state directory (nothing to order by).
    pub(crate) fn new(
        payload: &str,
        slice: usize,
        slices: usize,
        wait: Duration,
    ) -> Option<Barrier> {
        let key = crate::loss::fnv1a(payload.as_bytes());
        let dir = crate::cache::state_root()?
            .join("verbatim-order")
            .join(format!("{key:016x}"));
        Some(Barrier {
            dir,
            slice,
            slices,
            wait,
        })
    }

    fn flag(&self, i: usize) -> PathBuf {
        self.dir.join(i.to_string())
    }

    /// Wait until slice `slice - 1` has printed (its flag is fresh), or the
    /// wait runs out. Returns whether it was released by the flag.
    pub(crate) fn wait(&self) -> bool {
        if self.slice <= 1 || self.slice > self.slices {
            return true;
        }
        let prev = self.flag(self.slice - 1);
        let until = Instant::now() + self.wait;
        loop {
            if fresh(&prev, self.wait) {
                std::thread::sleep(SETTLE);
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Leave this slice's flag (after its output is flushed); the last slice
    /// clears the event's folder. A flag that cannot be written only leaves
    /// the next slice to its wait.
    pub(crate) fn done(&self) {
        if self.slice > self.slices {
            return;
        }
        if self.slice == self.slices {
            let _ = std::fs::remove_dir_all(&self.dir);
            return;
        }
        let _ = std::fs::create_dir_all(&self.dir);
        let tmp = self.dir.join(format!("{}.tmp", self.slice));
        if std::fs::write(&tmp, now_secs().to_string()).is_ok() {
            let _ = std::fs::rename(&tmp, self.flag(self.slice));
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Whether the flag at `p` was written within `wait` (it holds the time).
fn fresh(p: &std::path::Path, wait: Duration) -> bool {
    let Ok(s) = std::fs::read_to_string(p) else {
        return false;
    };
    s.trim()
        .parse::<u64>()
        .is_ok_and(|t| now_secs().saturating_sub(t) <= wait.as_secs())
}
