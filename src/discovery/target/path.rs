//! Targets that are paths: a `.jsonl` file, a `projects/` directory, a
//! `projects/<encoded>` folder (or its bare encoded name), a session folder,
//! or a real directory looked up as the cwd Claude Code encoded (PATH-001…005).
//! Everything here reads directory entries and metadata; no transcript is opened.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::discovery::names;
use crate::discovery::walk::{self, Walk};
use crate::discovery::{encode, file_name, Shape, Transcript};
use crate::error::{Error, Result};

/// Whether a folder name is a cwd as Claude Code encodes it (PATH-001, WIN-001):
/// `-home-ana-app`, or `C--Users-x` on Windows. A real project directory that
/// sits in a folder named `projects` (`~/projects/app`) is not one, and is
/// looked up by its encoded path instead.
pub(super) fn looks_encoded(name: &str) -> bool {
    let b = name.as_bytes();
    b.first() == Some(&b'-') || (b.len() >= 3 && b[0].is_ascii_alphabetic() && &b[1..3] == b"--")
}

/// Add what the path `t` names to `walk`; a file named directly goes into
/// `explicit` too (it is read even when it is a lane and lanes are left out).
pub(super) fn resolve(
    projects: &Path,
    t: &str,
    walk: &mut Walk,
    explicit: &mut BTreeSet<PathBuf>,
) -> Result<()> {
    let path = PathBuf::from(t);
    let meta = match fs::metadata(&path) {
        Ok(m) => m,
        Err(e) => {
            // A bare encoded name, as `ls ~/.claude/projects` shows it.
            let under = projects.join(t);
            if !t.contains('/') && under.is_dir() {
                walk::walk_project(&under, walk);
                return Ok(());
            }
            return Err(Error::Target(format!(
                "{t}: {e}; not a file, directory, `@id` or project name under {}",
                projects.display()
            )));
        }
    };
    if meta.is_file() {
        let t = transcript_from_file(&path, meta.len(), meta.modified().ok());
        explicit.insert(t.path.clone());
        walk.transcripts.push(t);
        return Ok(());
    }
    let canon = fs::canonicalize(&path).map_err(|e| Error::io(&path, e))?;
    let canon_projects = fs::canonicalize(projects).unwrap_or_else(|_| projects.to_path_buf());
    let parent_name = canon.parent().map(file_name).unwrap_or_default();
    if file_name(&canon) == "projects" || canon == canon_projects {
        walk::walk_projects(&canon, walk);
    } else if canon.parent() == Some(canon_projects.as_path())
        || (parent_name == "projects" && looks_encoded(&file_name(&canon)))
    {
        walk::walk_project(&canon, walk);
    } else if let Some(root) = projects_above(&canon, &canon_projects) {
        session_folder(root, &canon, walk);
    } else {
        resolve_cwd(projects, &canon, t, walk)?;
    }
    Ok(())
}

/// The `projects` folder a directory sits inside, two or more levels down
/// (a session folder or deeper): this home's, or another's (a copied home,
/// named without --claude-home).
fn projects_above<'p>(canon: &'p Path, canon_projects: &'p Path) -> Option<&'p Path> {
    std::iter::once(canon_projects)
        .filter(|p| canon.starts_with(p))
        .chain(canon.ancestors().skip(2).filter(|a| {
            // Another home's projects/<encoded>/<session folder>: not a real
            // project directory that sits under a folder named `projects`.
            file_name(a) == "projects"
                && canon
                    .strip_prefix(a)
                    .ok()
                    .and_then(|r| r.components().next())
                    .is_some_and(|c| looks_encoded(&c.as_os_str().to_string_lossy()))
        }))
        .next()
}

/// A session folder (or deeper) under `root`: its project's walk, kept to this
/// folder's session.
fn session_folder(root: &Path, canon: &Path, walk: &mut Walk) {
    let rel = canon
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut comps = rel.components();
    let project = comps.next().map(|c| root.join(c)).unwrap_or_default();
    let session = comps
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let mut w = Walk::default();
    walk::walk_project(&project, &mut w);
    walk.issues.extend(w.issues);
    walk.transcripts.extend(
        w.transcripts
            .into_iter()
            .filter(|t| session.as_deref().is_none_or(|s| t.session_id == s)),
    );
}

/// A real directory: the project Claude Code would have recorded for it as cwd.
/// Canonical (symlinks resolved) then encoded (PATH-002); past 200 encoded
/// characters, found by prefix scan as Claude Code does (PATH-005).
fn resolve_cwd(projects: &Path, canon: &Path, shown: &str, walk: &mut Walk) -> Result<()> {
    let cwd = canon.to_string_lossy();
    let exact = projects.join(encode::encode(&cwd));
    if exact.is_dir() {
        walk::walk_project(&exact, walk);
        return Ok(());
    }
    if let Some(prefix) = encode::capped_prefix(&cwd) {
        let mut found: Vec<PathBuf> = fs::read_dir(projects)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| file_name(p).starts_with(&prefix) && p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        if !found.is_empty() {
            for dir in found {
                walk::walk_project(&dir, walk);
            }
            return Ok(());
        }
    }
    Err(Error::Target(format!(
        "{shown}: no Claude Code sessions recorded for this directory (looked for {})",
        exact.display()
    )))
}

/// A `.jsonl` named directly: its shape and session come from where it sits.
pub(crate) fn transcript_from_file(
    path: &Path,
    size: u64,
    mtime: Option<std::time::SystemTime>,
) -> Transcript {
    let name = file_name(path);
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name).to_string();
    let ancestors: Vec<String> = path.ancestors().skip(1).take(5).map(file_name).collect();
    let in_subagents = ancestors.iter().position(|a| a == "subagents");
    let (shape, session_id, agent_id, project_dir) = if let Some(i) = in_subagents {
        let id = stem.strip_prefix("agent-").unwrap_or(&stem).to_string();
        let session = ancestors.get(i + 1).cloned().unwrap_or_default();
        let project = path
            .ancestors()
            .nth(i + 3)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        (names::lane_shape(path, &id), session, Some(id), project)
    } else if let Some(id) = stem.strip_prefix("agent-") {
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (
            Shape::Flat,
            names::flat_lane_session(path),
            Some(id.to_string()),
            parent,
        )
    } else {
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (Shape::Main, stem.clone(), None, parent)
    };
    Transcript {
        path: path.to_path_buf(),
        project_dir,
        session_id,
        agent_id,
        shape,
        size,
        mtime,
    }
}
