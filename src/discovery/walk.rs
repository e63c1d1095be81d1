//! Walking a Claude home's `projects/` tree into [`Transcript`]s, in every on-disk
//! lane shape (SUB-001…003). Symlinked directories are not followed below the
//! project level, so a symlink loop cannot trap the walk; a project directory
//! linked in under a second name is walked once, under its real name, so no
//! transcript is counted twice; anything unreadable is
//! recorded as a [`WalkIssue`] and the walk goes on. Output order is by path, so
//! every command is deterministic.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};

use super::names::{flat_lane_session, lane_shape, named_session, stem};
use super::pick::Pick;
use super::{Shape, Transcript, WalkIssue};

#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) transcripts: Vec<Transcript>,
    pub(crate) issues: Vec<WalkIssue>,
    /// Which files become transcripts ([`Pick::All`] unless a caller that
    /// wants few of them says otherwise): every entry is still looked at,
    /// and its problems reported, whatever is picked.
    pub(crate) pick: Pick,
}

impl Walk {
    fn issue(&mut self, path: &Path, message: impl Into<String>) {
        self.issues.push(WalkIssue {
            path: path.to_path_buf(),
            message: message.into(),
        });
    }

    pub(crate) fn sort(&mut self) {
        super::order::sort_dedup_by_path(&mut self.transcripts, |t| &t.path);
    }
}

/// Every project directory under `projects`, each walked with [`walk_project`].
/// A missing `projects/` is not an error here: the caller decides what to say.
pub(crate) fn walk_projects(projects: &Path, walk: &mut Walk) {
    let entries = match fs::read_dir(projects) {
        Ok(e) => e,
        Err(e) => {
            walk.issue(projects, format!("cannot list directory: {e}"));
            return;
        }
    };
    // (is a symlink, path, the directory's identity)
    let mut dirs: Vec<(bool, PathBuf, Option<DirId>)> = Vec::new();
    for entry in entries.flatten() {
        let kind = entry.file_type();
        // A regular file here is no project: the listing says so, no stat.
        if kind.as_ref().is_ok_and(fs::FileType::is_file) {
            continue;
        }
        let linked = kind.is_ok_and(|t| t.is_symlink());
        let path = entry.path();
        // Follow a symlink at this level only (a project dir may be linked in).
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => dirs.push((linked, path, identity(&m))),
            Ok(_) => {}
            Err(e) => walk.issue(&path, format!("cannot stat: {e}")),
        }
    }
    // Real directories first, so a linked-in copy is the one skipped.
    dirs.sort();
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|(_, _, id)| id.is_none_or(|id| seen.insert(id)));
    // Projects are walked in parallel, each into its own walk, and joined in
    // the order a serial walk visits them: the same transcripts and issues,
    // in the same order.
    let pick = &walk.pick;
    let walks = crate::scan::par_map(&dirs, |(_, dir, _)| {
        let mut w = Walk {
            pick: pick.clone(),
            ..Walk::default()
        };
        walk_project(dir, &mut w);
        w
    });
    for w in walks {
        walk.transcripts.extend(w.transcripts);
        walk.issues.extend(w.issues);
    }
}

/// A directory's (device, inode).
type DirId = (u64, u64);

/// A directory's identity, where the platform has one.
fn identity(m: &fs::Metadata) -> Option<DirId> {
    crate::scan::source::file_id(m)
}

/// A FIFO, socket or device found by the walk: reading one could block for ever
/// (a FIFO with no writer), and Claude Code writes only regular files. A file
/// named on the command line is still read, whatever it is (`<(cat x.jsonl)`).
const NOT_A_FILE: &str =
    "named like a transcript but is not a regular file (a FIFO, socket or device); skipped";

/// One `projects/<encoded>` directory: its session files, their lane folders, and
/// old flat `agent-*.jsonl` lanes. A directory holding no transcript is fine (PATH-010).
pub(crate) fn walk_project(dir: &Path, walk: &mut Walk) {
    for Entry { path, name, kind } in entries(dir, None, walk) {
        let descend = |w: &mut Walk| walk_session_dir(dir, &path, &name, w);
        let Some(meta) = file_or_descend(&path, &name, kind, walk, descend) else {
            continue;
        };
        let (shape, agent_id, session_id) = match named_session(&name) {
            Some(s) => (Shape::Main, None, s.to_string()),
            None => {
                let id = stem(&name).strip_prefix("agent-").unwrap_or_default();
                (Shape::Flat, Some(id.to_string()), flat_lane_session(&path))
            }
        };
        walk.transcripts.push(Transcript {
            path,
            project_dir: dir.to_path_buf(),
            session_id,
            agent_id,
            shape,
            size: meta.len(),
            mtime: meta.modified().ok(),
        });
    }
}

/// One directory entry the walk acts on.
struct Entry {
    path: PathBuf,
    name: String,
    kind: Kind,
}

/// What an entry is, symlinks followed.
enum Kind {
    /// A directory; `linked` when reached through a symlink, which is never
    /// descended below the project level (a loop cannot trap the walk).
    Dir { linked: bool },
    /// A regular file named `*.jsonl`, with its metadata.
    File(fs::Metadata),
    /// Anything else named `*.jsonl`: a FIFO, socket or device ([`NOT_A_FILE`]).
    Other,
}

/// A transcript file's metadata, or `None` once the entry is dealt with: a
/// directory is descended by `descend` (unless reached through a symlink, or
/// named like a transcript, which is an issue), anything else named
/// `*.jsonl` is an issue ([`NOT_A_FILE`]).
fn file_or_descend(
    path: &Path,
    name: &str,
    kind: Kind,
    walk: &mut Walk,
    descend: impl FnOnce(&mut Walk),
) -> Option<fs::Metadata> {
    match kind {
        Kind::File(meta) => return Some(meta),
        Kind::Dir { .. } if name.ends_with(".jsonl") => {
            walk.issue(path, "named like a transcript but is a directory; skipped")
        }
        Kind::Dir { linked: false } => descend(walk),
        Kind::Dir { linked: true } => {}
        Kind::Other => walk.issue(path, NOT_A_FILE),
    }
    None
}

const CANNOT_STAT: &str = "cannot stat (dangling symlink or loop?)";

/// A directory's entries the walk acts on ([`kind_of`]), sorted by name.
/// `session` is the lane folder's session (`None` in a project directory). A
/// file the walk's [`Pick`] passes over costs no allocation beyond the
/// listing's own: its name and path are made only for what is kept.
fn entries(dir: &Path, session: Option<&str>, walk: &mut Walk) -> Vec<Entry> {
    let rd = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            walk.issue(dir, format!("cannot list directory: {e}"));
            return Vec::new();
        }
    };
    // Sorted by name: the same order as by path, all of one parent.
    let mut listed: Vec<(OsString, fs::DirEntry)> = rd
        .flatten()
        .map(|e| (e.file_name(), e))
        .filter(|(name, _)| walk.pick.names(session.is_none(), name))
        .collect();
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    for (os, entry) in listed {
        let kind = match kind_of(&entry, &os) {
            Ok(Some(Kind::File(m))) if !walk.pick.keeps(&os, session, &m) => continue,
            Ok(Some(kind)) => kind,
            Ok(None) => continue,
            Err(issue) => {
                walk.issues.push(issue);
                continue;
            }
        };
        out.push(Entry {
            path: entry.path(),
            name: os.to_string_lossy().into_owned(),
            kind,
        });
    }
    out
}

/// What one listed entry is (`None`: nothing the walk acts on), or the
/// problem that stops it being known: directories, and whatever is named
/// `*.jsonl`. The listing's own type says it where it can: a directory costs
/// no syscall, a `*.jsonl` regular file one stat relative to the open
/// directory (for its size and time). A symlink, or an entry of a type the
/// listing does not give, is stat'ed by path, followed, whatever its name:
/// one that cannot be (dangling, a loop) is an issue.
fn kind_of(entry: &fs::DirEntry, name: &OsStr) -> Result<Option<Kind>, WalkIssue> {
    let jsonl = name.as_encoded_bytes().ends_with(b".jsonl");
    let cannot = |path: PathBuf, e: std::io::Error| WalkIssue {
        path,
        message: format!("{CANNOT_STAT}: {e}"),
    };
    Ok(Some(match entry.file_type() {
        Ok(t) if t.is_dir() => Kind::Dir { linked: false },
        Ok(t) if t.is_file() && !jsonl => return Ok(None),
        Ok(t) if t.is_file() => match entry.metadata() {
            Ok(m) => Kind::File(m),
            Err(e) => return Err(cannot(entry.path(), e)),
        },
        // A symlink (followed), another type, or no type known.
        t => {
            let path = entry.path();
            match fs::metadata(&path) {
                Ok(m) if m.is_dir() => Kind::Dir {
                    linked: t.map_or_else(|_| path.is_symlink(), |t| t.is_symlink()),
                },
                Ok(_) if !jsonl => return Ok(None),
                Ok(m) if m.is_file() => Kind::File(m),
                Ok(_) => Kind::Other,
                Err(e) => return Err(cannot(path, e)),
            }
        }
    }))
}

/// `<project>/<session>/`: lanes live under `subagents/`; `tool-results/` and other
/// sidecars are not transcripts.
pub(crate) fn walk_session_dir(project: &Path, dir: &Path, session: &str, walk: &mut Walk) {
    let sub = dir.join("subagents");
    // One lstat: a real directory, not one reached through a symlink.
    if fs::symlink_metadata(&sub).is_ok_and(|m| m.is_dir()) {
        walk_lanes(project, &sub, session, 0, walk);
    }
}

fn walk_lanes(project: &Path, dir: &Path, session: &str, depth: usize, walk: &mut Walk) {
    if depth > 6 {
        walk.issue(
            dir,
            "lane folders nested deeper than 6 levels; not descended",
        );
        return;
    }
    for Entry { path, name, kind } in entries(dir, Some(session), walk) {
        let descend = |w: &mut Walk| walk_lanes(project, &path, session, depth + 1, w);
        let Some(meta) = file_or_descend(&path, &name, kind, walk, descend) else {
            continue;
        };
        let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
        let id = stem.strip_prefix("agent-").unwrap_or(stem).to_string();
        walk.transcripts.push(Transcript {
            shape: lane_shape(&path, &id),
            path,
            project_dir: project.to_path_buf(),
            session_id: session.to_string(),
            agent_id: Some(id),
            size: meta.len(),
            mtime: meta.modified().ok(),
        });
    }
}

/// The agent ids of session `session`'s lane files under `project`, as the
/// walk names them (what a problem stops it reading is left out, as the walk
/// leaves it out).
pub(crate) fn lane_ids(project: &Path, session: &str) -> std::collections::HashSet<String> {
    let mut walk = Walk::default();
    walk_session_dir(project, &project.join(session), session, &mut walk);
    walk.transcripts
        .into_iter()
        .filter_map(|t| t.agent_id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The on-disk identities: a main file's basename is its session id
    /// (PATH-012), a lane's is its folder's session whatever it is named
    /// (REC-100), its agent id the stem less `agent-` (SUB-002); a project
    /// directory holding only `memory/` (PATH-010) or only a session folder is
    /// walked without a word.
    #[test]
    fn files_name_their_session_and_agent_path_012_rec_100_sub_002() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path();
        let s = "0a1b2c3d-0000-4000-8000-000000000001";
        let write = |rel: &str| {
            let f = p.join(rel);
            fs::create_dir_all(f.parent().unwrap()).unwrap();
            fs::write(&f, format!("{{\"type\":\"user\",\"sessionId\":\"{s}\"}}\n")).unwrap();
        };
        write(&format!("-w-app/{s}.jsonl"));
        write(&format!(
            "-w-app/{s}/subagents/agent-a0f3e9c2b1d4e5f6.jsonl"
        ));
        write(&format!(
            "-w-app/{s}/subagents/agent-aRev-Bob-0123456789abcdef.jsonl"
        ));
        write("-w-mem/memory/MEMORY.md");
        write(&format!("-w-side/{s}/subagents/agent-a77.jsonl"));
        let mut w = Walk::default();
        walk_projects(p, &mut w);
        w.sort();
        assert!(w.issues.is_empty(), "{:?}", w.issues); // PATH-010
        let got: Vec<(String, Option<String>, &str)> = w
            .transcripts
            .iter()
            .map(|t| {
                let dir = super::super::file_name(&t.project_dir);
                (
                    format!("{dir} {}", t.session_id),
                    t.agent_id.clone(),
                    t.shape.name(),
                )
            })
            .collect();
        let main = format!("-w-app {s}");
        assert_eq!(
            got,
            [
                (main.clone(), Some("a0f3e9c2b1d4e5f6".into()), "subagent"), // SUB-002, REC-100
                (
                    main.clone(),
                    Some("aRev-Bob-0123456789abcdef".into()),
                    "subagent"
                ), // SUB-002
                (main, None, "main"),                                        // PATH-012
                (format!("-w-side {s}"), Some("a77".into()), "subagent"),    // PATH-010
            ]
        );
    }
}
