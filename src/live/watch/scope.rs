//! What a wait watches: the sessions its targets name, each with its main
//! transcript, its lanes, its workflow journals and its elicitation sidecars,
//! and the folders whose notifications matter. The set is not fixed at the
//! start: a lane is born mid-turn (MISC-021, TAIL-016), a session's sidecar
//! folder is created lazily (ELI-018) and the sidecar file at the first ask
//! (TAIL-017), so every step rediscovers; a file found after the start joins
//! at offset 0, since every byte of it was written after the start.

use std::path::{Path, PathBuf};

use super::cursor::{Cursor, Role};
use crate::discovery::session::SessionFiles;
use crate::discovery::{walk, Shape, Transcript};

/// One watched session.
pub(crate) struct Watched {
    pub(crate) files: SessionFiles,
    /// Follow lanes born after the start (off for `--no-subagents`, and for a
    /// target that named lanes only).
    pub(crate) follow_lanes: bool,
    /// Sidecar paths this session's asks can land in.
    pub(crate) sidecars: Vec<PathBuf>,
}

impl Watched {
    pub(crate) fn new(
        mut files: SessionFiles,
        follow_lanes: bool,
        state: Option<&Path>,
    ) -> Watched {
        // Notifications name absolute paths: so does everything compared with them.
        let abs = |p: &mut PathBuf| {
            if let Ok(a) = std::path::absolute(&*p) {
                *p = a;
            }
        };
        abs(&mut files.project_dir);
        for t in files
            .main
            .iter_mut()
            .chain(&mut files.lanes)
            .chain(&mut files.journals)
        {
            abs(&mut t.path);
            abs(&mut t.project_dir);
        }
        let sid = &files.session_id;
        // ELI-014: the sidecar is keyed by the top-level session.
        let sidecars = match files.main.is_some() {
            true => state
                .map(|s| crate::elicitation::state_path(s, sid))
                .into_iter()
                .chain(std::iter::once(crate::elicitation::beside_path(
                    &files.project_dir,
                    sid,
                )))
                .collect(),
            false => Vec::new(),
        };
        Watched {
            files,
            follow_lanes,
            sidecars,
        }
    }

    /// The session's own folder `<project>/<session>/` (lanes, the 0.10.1 sidecar).
    pub(crate) fn dir(&self) -> PathBuf {
        self.files.project_dir.join(&self.files.session_id)
    }

    /// The folders whose events concern this session: (folder, recursive).
    pub(crate) fn folders(&self) -> Vec<(PathBuf, bool)> {
        let mut out = vec![(self.files.project_dir.clone(), false)];
        if self.follow_lanes || !self.sidecars.is_empty() {
            out.push((self.dir(), true));
        }
        // csift's own sidecar folder may not exist yet: its nearest existing
        // ancestor tells when it is made.
        for s in &self.sidecars {
            let Some(parent) = s.parent().filter(|p| !p.starts_with(self.dir())) else {
                continue;
            };
            let near = parent.ancestors().take(4).find(|a| a.is_dir());
            out.extend(near.map(|a| (a.to_path_buf(), false)));
        }
        out
    }

    /// Whether an event on `path` concerns this session.
    pub(crate) fn concerns(&self, path: &Path) -> bool {
        let main_hit = self.files.main.as_ref().is_some_and(|m| m.path == path)
            || self.files.lanes.iter().any(|l| l.path == path);
        main_hit
            || path.starts_with(self.dir())
            || path == self.dir()
            || self
                .sidecars
                .iter()
                .any(|s| s == path || s.ancestors().skip(1).take(4).any(|a| a == path))
    }

    /// Lanes (and journals) on disk now that are not yet in `files`: added
    /// to `files` and returned.
    pub(crate) fn new_lanes(&mut self) -> Vec<Transcript> {
        if !self.follow_lanes || !self.dir().is_dir() {
            return Vec::new();
        }
        let mut w = walk::Walk::default();
        walk::walk_session_dir(
            &self.files.project_dir,
            &self.dir(),
            &self.files.session_id,
            &mut w,
        );
        w.sort();
        let mut fresh = Vec::new();
        for t in w.transcripts {
            let known = self.files.lanes.iter().chain(&self.files.journals);
            if known.clone().any(|k| k.path == t.path) {
                continue;
            }
            let journal = matches!(t.shape, Shape::Workflow { .. })
                && crate::discovery::file_name(&t.path) == "journal.jsonl";
            if journal {
                self.files.journals.push(t);
            } else if crate::discovery::file_name(&t.path).starts_with("agent-") {
                self.files.lanes.push(t.clone());
                fresh.push(t);
            }
        }
        fresh
    }
}

/// The cursors of a session at the start: every file at its length.
pub(crate) fn baseline(w: &Watched, index: usize, only: Option<&[PathBuf]>) -> Vec<Cursor> {
    let mut out = Vec::new();
    let keep = |p: &Path| only.is_none_or(|o| o.iter().any(|x| x == p));
    if let Some(m) = w.files.main.as_ref().filter(|m| keep(&m.path)) {
        out.push(Cursor::new(&m.path, Role::Main, index, None, false));
    }
    for l in w.files.lanes.iter().filter(|l| keep(&l.path)) {
        out.push(Cursor::new(
            &l.path,
            Role::Lane,
            index,
            l.agent_id.clone(),
            false,
        ));
    }
    for s in w.sidecars.iter().filter(|s| s.is_file()) {
        out.push(Cursor::new(s, Role::Sidecar, index, None, false));
    }
    out
}
