//! Turning the user's TARGET arguments into the set of transcripts a command reads.
//! Forms (every command accepts all of them): nothing (every project), `@<id>` (a
//! session id, a lane's agent id, or a unique prefix of either: [`id`]), a `.jsonl`
//! file, a `projects/<encoded>` directory (or its bare encoded name), a session
//! folder, or a real filesystem path, encoded the way Claude Code encodes a cwd
//! (PATH-001…005: [`path`]). This module runs each target and settles what the
//! failures and the whole-home walk's problems mean for the answer.

mod id;
mod path;
mod spawned;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::home::ClaudeHome;
use super::walk::{self, Walk};
use super::{Transcript, WalkIssue};
use crate::error::{Error, Result};

pub(crate) use path::transcript_from_file;

/// What the targets selected, plus every problem met on the way.
#[derive(Debug, Default)]
pub struct Selection {
    /// Each once, sorted by path (as `Path` orders them): `list` breaks its
    /// ties by this order instead of comparing paths again.
    pub transcripts: Vec<Transcript>,
    /// Problems with what the targets selected (or may have missed): they
    /// make the command's exit status 2.
    pub(crate) issues: Vec<WalkIssue>,
    /// Problems met walking the rest of the home to find an `@id`, with
    /// files that are not the selected ones nor could be: said, but they do
    /// not turn a complete answer into exit 2.
    pub(crate) asides: Vec<WalkIssue>,
}

/// Resolve `targets` against `home`. `lanes` = false drops subagent lanes unless a
/// lane was addressed directly by its own id or file.
pub fn resolve(home: &ClaudeHome, targets: &[String], lanes: bool) -> Result<Selection> {
    if targets.iter().any(String::is_empty) {
        // What `csift list "$SESSION"` passes when the variable is unset: not
        // every session (that is no target at all), not nothing found.
        return Err(Error::Usage(
            "an empty target names nothing (an unset shell variable?); give a session `@id`, \
             a path or a project name, or no target to read every session"
                .into(),
        ));
    }
    let mut r = Resolver::new(home);
    if targets.is_empty() {
        walk::walk_projects(projects_of(home)?.as_path(), &mut r.walk);
    }
    // A target that names nothing is reported and the others still run, as
    // ripgrep does with a missing path; only when none names anything is it
    // the command's error.
    let failed: Vec<(&String, Error)> = targets
        .iter()
        .filter_map(|t| r.target(t).err().map(|e| (t, e)))
        .collect();
    r.finish(targets, failed, lanes)
}

/// The whole home's `projects/`, or the error that there is none.
fn projects_of(home: &ClaudeHome) -> Result<PathBuf> {
    let projects = home.projects();
    if !projects.is_dir() {
        return Err(Error::Target(format!(
            "no Claude Code transcripts: {} does not exist (pass --claude-home DIR, or a .jsonl file)",
            projects.display()
        )));
    }
    Ok(projects)
}

/// What no target selects, cut to the sessions with a file `active` passes
/// (every file of each, lanes included), without a transcript built for any
/// other file: see [`super::pick::active_sessions`] for what `since` and
/// `named` must promise.
pub(crate) fn resolve_active(
    home: &ClaudeHome,
    since: std::time::SystemTime,
    named: crate::scan::hash::FxSet<String>,
    active: impl Fn(&Transcript) -> bool,
) -> Result<Selection> {
    let walk = super::pick::active_sessions(&projects_of(home)?, since, named, active);
    Ok(Selection {
        transcripts: walk.transcripts,
        issues: walk.issues,
        asides: Vec::new(),
    })
}

/// The selection being built, one target at a time.
struct Resolver {
    projects: PathBuf,
    /// ` --claude-home DIR` when the home came from the flag, for the
    /// commands an error suggests.
    home_args: String,
    /// What the targets selected so far, and the problems met.
    walk: Walk,
    /// Lane files named directly (by their file or their own id): kept when
    /// lanes are left out.
    explicit: BTreeSet<PathBuf>,
    /// The whole home, walked once for the first `@id`.
    everything: Option<Walk>,
}

impl Resolver {
    fn new(home: &ClaudeHome) -> Resolver {
        Resolver {
            projects: home.projects(),
            home_args: home.flag_args(),
            walk: Walk::default(),
            explicit: BTreeSet::new(),
            everything: None,
        }
    }

    /// Add what one target names.
    fn target(&mut self, t: &str) -> Result<()> {
        if let Some(id) = t.strip_prefix('@') {
            // `@<encoded>`: a projects/ folder by its name in any shape, the one
            // form a UNC cwd's `--server-share-…` folder has besides `-- NAME`
            // (WIN-001); an id never looks encoded.
            let dir = self.projects.join(id);
            if path::looks_encoded(id) && !id.contains(['/', '\\']) && dir.is_dir() {
                walk::walk_project(&dir, &mut self.walk);
                return Ok(());
            }
            return self.id(id);
        }
        match path::resolve(&self.projects, t, &mut self.walk, &mut self.explicit) {
            // An id as headers and rows print it (`6c2214d7@afc096d`,
            // `99677899`), with no path of that name: read as `@id`. If no
            // id matches either, the path's error stands.
            Err(_) if id::looks_like_id(t) && fs::symlink_metadata(t).is_err() => {
                self.id(t).map_err(|e| {
                    Error::Target(format!(
                        "{t}: no file or folder of that name; as an id, {e}"
                    ))
                })
            }
            done => done,
        }
    }

    /// Add what `@id` names, found in the whole home (walked on first use).
    fn id(&mut self, id: &str) -> Result<()> {
        let projects = &self.projects;
        let everything = self.everything.get_or_insert_with(|| {
            let mut w = Walk::default();
            walk::walk_projects(projects, &mut w);
            w.sort();
            w
        });
        let picked = id::named(everything, id, &self.home_args)?;
        if let [one] = picked.as_slice() {
            if one.is_lane() {
                self.explicit.insert(one.path.clone());
            }
        }
        self.walk.transcripts.extend(picked);
        Ok(())
    }

    /// The selection: the targets that failed become its issues (or, when
    /// every target failed, the first failure is the error), the whole-home
    /// walk's problems are sorted into issues and asides, and lanes are left
    /// out unless wanted or named.
    fn finish(
        mut self,
        targets: &[String],
        failed: Vec<(&String, Error)>,
        lanes: bool,
    ) -> Result<Selection> {
        let failed_any = !failed.is_empty();
        if failed_any && failed.len() == targets.len() {
            if let Some((_, e)) = failed.into_iter().next() {
                return Err(e);
            }
        } else {
            for (t, e) in failed {
                let msg = e.to_string();
                let msg = msg
                    .strip_prefix(&format!("{t}: "))
                    .unwrap_or(&msg)
                    .to_string();
                self.walk.issues.push(WalkIssue {
                    path: PathBuf::from(t),
                    message: msg,
                });
            }
        }
        let asides = match self.everything.take() {
            Some(everything) => self.home_issues(everything, targets, failed_any),
            None => Vec::new(),
        };
        self.walk.sort();
        let explicit = self.explicit;
        let transcripts = self
            .walk
            .transcripts
            .into_iter()
            .filter(|t| lanes || !t.is_lane() || explicit.contains(&t.path))
            .collect();
        Ok(Selection {
            transcripts,
            issues: self.walk.issues,
            asides,
        })
    }

    /// The whole home was walked to find @ids: a broken file elsewhere is not
    /// this command's problem (it made `show @x` exit 2 over a stranger's
    /// dangling link). Kept as issues: what could be or hold a named id, and
    /// every directory that could not be read (it might hold one). Returned as
    /// asides: the rest of those, when every target was found.
    fn home_issues(
        &mut self,
        everything: Walk,
        targets: &[String],
        failed_any: bool,
    ) -> Vec<WalkIssue> {
        let ids = named_ids(targets);
        let (mut kept, near): (Vec<_>, Vec<_>) = everything
            .issues
            .into_iter()
            .filter(|i| could_hold(&i.path, &ids))
            .partition(|_| failed_any);
        // Every id was found: a folder that could not be read (or was too
        // deep to walk) outside the sessions selected is said, and leaves the
        // exit status to the answer. A file that could be one of the ids, or a
        // folder inside a selected session, still counts: the answer may lack it.
        let mut asides = Vec::new();
        for i in near {
            let related = i.path.extension().is_some_and(|e| e == "jsonl")
                || self
                    .walk
                    .transcripts
                    .iter()
                    .any(|t| i.path.starts_with(t.project_dir.join(&t.session_id)));
            match related {
                true => kept.push(i),
                false => asides.push(i),
            }
        }
        self.walk.issues.extend(kept);
        asides
    }
}

/// The ids the targets name (`@a@b` names both), without an `agent-` prefix.
fn named_ids(targets: &[String]) -> Vec<&str> {
    targets
        .iter()
        .filter_map(|t| {
            t.strip_prefix('@')
                .or(id::looks_like_id(t).then_some(t.as_str()))
        })
        .flat_map(|t| t.split('@'))
        .map(|p| p.strip_prefix("agent-").unwrap_or(p))
        .filter(|p| !p.is_empty())
        .collect()
}

/// Whether a walk problem at `path` can matter to a command naming `ids`: a
/// folder that exists but could not be read (it may hold one; a dangling or
/// looping link holds nothing), or a path with a component that starts with a
/// named id (the file, or a session folder).
pub(crate) fn could_hold(path: &Path, ids: &[&str]) -> bool {
    let name = super::file_name(path);
    if !name.ends_with(".jsonl") {
        return fs::metadata(path).is_ok();
    }
    path.components().any(|c| {
        let c = c.as_os_str().to_string_lossy();
        let c = c.strip_suffix(".jsonl").unwrap_or(&c);
        let c = c.strip_prefix("agent-").unwrap_or(c);
        ids.iter().any(|id| c.starts_with(id))
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    /// The selection's order is its contract: by path, each once, however
    /// the targets named the files (list breaks its ties by it). The sample
    /// home holds a project whose name is another's with `--…` added, where
    /// a byte order and a path order differ, and a session with lanes.
    #[test]
    fn a_selection_is_sorted_by_path_and_each_once() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
        let home = crate::discovery::home::from_env(Some(root)).unwrap();
        let named = [
            "-Users-mara-code-tidepool--worktrees-docs-site".to_string(),
            "-Users-mara-code-tidepool".to_string(),
            "-Users-mara-code-ledgerline".to_string(),
            "-Users-mara-code-ledgerline".to_string(),
        ];
        for targets in [&[][..], &named[..]] {
            for lanes in [false, true] {
                let sel = super::resolve(&home, targets, lanes).unwrap();
                let paths: Vec<_> = sel.transcripts.iter().map(|t| &t.path).collect();
                assert!(paths.len() > 3, "{targets:?}");
                assert!(
                    paths.windows(2).all(|w| w[0] < w[1]),
                    "{targets:?} {lanes}: {paths:#?}"
                );
            }
        }
    }
}
