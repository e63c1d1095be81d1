//! Keeping csift's cache directory to what a run can still read. A census
//! kind's directory (`<state>/cache/<kind><variant>-v<version>/`) collects
//! files no run will read again:
//! - the directories of the kind's older versions (a version bump leaves
//!   them whole);
//! - `.bin` files, the per-transcript entries of the store before packs;
//! - temporary files of a write that never finished (a run killed mid-write),
//!   once they are an hour old;
//! - packs whose group (a project directory, or a transcript for `usage`)
//!   no longer exists.
//!
//! After a run writes a pack, its kind's directory is swept: at most once per
//! process and once a day (a `.swept` mark's time), so a warm run that writes
//! nothing pays nothing and a writing one a stat. Only csift's own state is
//! ever removed: the sweep never follows a link out of the directory, and a
//! group is judged gone only when its path is not found (any other error
//! keeps the pack). A newer version's directory is left alone, so an older
//! csift run beside a newer one never deletes the newer one's cache.

use std::fs::DirEntry;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::ident::path_of;

/// How often a kind's directory is swept.
const EVERY: Duration = Duration::from_secs(24 * 3600);
/// How old a temporary file must be before it counts as abandoned.
const TMP_AGE: Duration = Duration::from_secs(3600);
/// The mark whose time says when a directory was last swept.
const MARK: &str = ".swept";
/// How much of a pack is read to find its group (the tag: magic, build,
/// kind, version and the group's path).
const HEAD: u64 = 16 * 1024;

/// The kind directories this process has swept (or judged not due).
static SEEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What one sweep removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Swept {
    /// Directories of older versions of the kind.
    pub(super) versions: usize,
    /// Files: old entries, abandoned temporary files, packs of gone groups.
    pub(super) files: usize,
}

/// After a pack of `kind` at `version` was written at `at`
/// (`<kind dir>/<xx>/<name>.pack`): sweep the kind's directory when due.
pub(super) fn after_write(at: &Path, kind: &str, version: u32) {
    let Some(dir) = at.parent().and_then(Path::parent) else {
        return;
    };
    let now = SystemTime::now();
    if first_in_process(dir) && due(dir, now) {
        sweep(dir, kind, version, now);
    }
}

fn first_in_process(dir: &Path) -> bool {
    let Ok(mut seen) = SEEN.lock() else {
        return false;
    };
    if seen.iter().any(|d| d == dir) {
        return false;
    }
    seen.push(dir.to_path_buf());
    true
}

/// Let this process sweep `dir` again, as a new process would (its mark
/// removed: never swept).
#[cfg(test)]
pub(super) fn forget_for_tests(dir: &Path) {
    if let Ok(mut seen) = SEEN.lock() {
        seen.retain(|d| d != dir);
    }
    let _ = std::fs::remove_file(dir.join(MARK));
}

/// Whether `dir` was last swept a day or more before `now` (or never, or at
/// a time after `now`: a clock set back must not stop the sweeps).
fn due(dir: &Path, now: SystemTime) -> bool {
    match std::fs::metadata(dir.join(MARK)).and_then(|m| m.modified()) {
        Ok(t) => now.duration_since(t).map_or(true, |age| age >= EVERY),
        Err(_) => true,
    }
}

/// Sweep the directory `dir` of census kind `kind` (with its variant) at
/// `version`, and mark it swept.
pub(super) fn sweep(dir: &Path, kind: &str, version: u32, now: SystemTime) -> Swept {
    let mut swept = Swept::default();
    if let Some(root) = dir.parent() {
        swept.versions = old_versions(root, kind, version);
    }
    if let Ok(subs) = std::fs::read_dir(dir) {
        for sub in subs.flatten() {
            if sub.file_type().is_ok_and(|t| t.is_dir()) {
                swept.files += sweep_sub(&sub.path(), now);
            }
        }
    }
    let _ = std::fs::write(dir.join(MARK), b"");
    swept
}

/// Remove `root`'s directories `<kind>-v<M>` with `M < version`, and the
/// side directories a kind keeps beside them (`<kind>-v<M>-<side>`, the
/// ledger's quiet sets) of those versions.
fn old_versions(root: &Path, kind: &str, version: u32) -> usize {
    let Ok(entries) = std::fs::read_dir(root) else {
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let old = name
            .to_str()
            .and_then(|s| s.strip_prefix(kind)?.strip_prefix("-v"))
            .map(|v| v.split_once('-').map_or(v, |(n, _)| n))
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|v| v.parse::<u32>().ok())
            .is_some_and(|v| v < version);
        // `file_type` does not follow links: a link is never swept through.
        if old
            && e.file_type().is_ok_and(|t| t.is_dir())
            && std::fs::remove_dir_all(e.path()).is_ok()
        {
            n += 1;
        }
    }
    n
}

fn sweep_sub(sub: &Path, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(sub) else {
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        if e.file_type().is_ok_and(|t| t.is_file()) && stale(&e, now) {
            n += usize::from(std::fs::remove_file(e.path()).is_ok());
        }
    }
    n
}

fn stale(e: &DirEntry, now: SystemTime) -> bool {
    let path = e.path();
    match path.extension().and_then(|x| x.to_str()) {
        Some("bin") => true,
        Some("tmp") => e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age >= TMP_AGE)),
        Some("pack") => orphan(&path),
        _ => false,
    }
}

/// Whether the pack at `path` names a group whose path is not found.
fn orphan(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    let Some(group) = read.ok().and_then(|_| super::pack::group_of(&head)) else {
        return false;
    };
    matches!(std::fs::symlink_metadata(path_of(group)), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

#[cfg(test)]
mod tests;
