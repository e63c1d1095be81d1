//! Targets by which an agent names itself: `@main` and `@trap:MARKER`.
//!
//! - `@main`: the session whose id is in `CLAUDE_CODE_SESSION_ID`, exactly
//!   (whoami's source, never a prefix and never the newest file). Claude Code
//!   sets it to the TOP-LEVEL session in every lane, a subagent's included
//!   (MISC-009, SUB-021): from a subagent `@main` is its parent.
//! - `@trap:MARKER`: the transcript holding a `Bash` or `PowerShell` call
//!   (WIN-003) whose `command` contains both MARKER and the word `csift` - the
//!   call that launched this very run (`echo MARKER; csift list @trap:MARKER`).
//!   A subagent's lane is written per block, so its trap is on disk at once; the
//!   main lane writes its message up to ~3 s late (MISC-018, SUB-022), so a miss
//!   says to run the same command again, or to use `@main`.

use super::walk::Walk;
use super::Transcript;
use crate::error::{Error, Result};

/// The environment variable whoami and `@main` read.
pub(crate) const SESSION_ENV: &str = "CLAUDE_CODE_SESSION_ID";

/// The session id `@main` names.
pub(crate) fn main_id() -> Result<String> {
    match std::env::var(SESSION_ENV) {
        Ok(v) if !v.trim().is_empty() => Ok(v.trim().to_string()),
        _ => Err(Error::Target(format!(
            "@main: {SESSION_ENV} is not set (not run from a Claude Code tool, or an old \
             Claude Code): name the session as @<id>, or from inside a session run \
             `echo MARKER` and then the command with @trap:MARKER"
        ))),
    }
}

/// The transcripts whose shell call carries `marker` and `csift`; a lane wins
/// over a main file that only nests the lane's record.
pub(crate) fn trap(all: &Walk, marker: &str) -> Result<Vec<Transcript>> {
    if marker.trim().len() < 4 || marker.trim() == "csift" {
        return Err(Error::Target(format!(
            "@trap:{marker}: a marker needs 4 or more characters and must be unique, e.g. \
             @trap:BlueHeronLamp4821"
        )));
    }
    let hits: Vec<Transcript> = crate::scan::par_map(&all.transcripts, |t| {
        carries(&t.path, marker).then(|| t.clone())
    })
    .into_iter()
    .flatten()
    .collect();
    let lanes: Vec<Transcript> = hits.iter().filter(|t| t.is_lane()).cloned().collect();
    match (lanes.is_empty(), hits.is_empty()) {
        (false, _) => Ok(lanes),
        (true, false) => Ok(hits),
        (true, true) => Err(Error::Target(format!(
            "@trap:{marker}: no transcript holds a Bash or PowerShell call with both \
             `{marker}` and `csift` yet. A main session writes its call 0.1 to 3 s after it \
             starts: run the same command again (a second, separate call), or use @main \
             (CLAUDE_CODE_SESSION_ID). Check that the marker is in the command itself."
        ))),
    }
}

/// Whether `path` holds a shell call whose command carries `marker` and `csift`.
fn carries(path: &std::path::Path, marker: &str) -> bool {
    let Ok(src) = crate::scan::Source::open(path) else {
        return false;
    };
    let buf: &[u8] = &src;
    let mut last = usize::MAX;
    for at in memchr::memmem::find_iter(buf, marker.as_bytes()) {
        let start = crate::scan::lines::line_start(buf, at);
        if start == last {
            continue;
        }
        last = start;
        let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i);
        let line = crate::scan::Line {
            no: 0,
            offset: start,
            bytes: &buf[start..end],
            terminated: end < buf.len(),
        };
        for (_, r) in crate::record::line_records(&line) {
            let own = r.embedded().map(|e| &e.record);
            for rec in std::iter::once(&*r).chain(own) {
                if shell_call_carries(rec, marker) {
                    return true;
                }
            }
        }
    }
    false
}

fn shell_call_carries(r: &crate::record::Record<'_>, marker: &str) -> bool {
    r.blocks().iter().any(|b| {
        b.kind() == "tool_use"
            && matches!(b.name.as_deref(), Some("Bash" | "PowerShell"))
            && serde_json::from_str::<serde_json::Value>(b.input_json())
                .ok()
                .and_then(|v| v.get("command")?.as_str().map(str::to_string))
                .is_some_and(|c| c.contains(marker) && c.contains("csift"))
    })
}
