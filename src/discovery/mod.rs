//! Discovery: where the Claude home is, which transcripts it holds, and what a
//! user's target names. Everything here reads directory listings and, for the old
//! flat lane layout, a file head; nothing here parses whole transcripts, and
//! nothing here ever writes.

pub mod encode;
pub mod home;
pub(crate) mod names;
pub(crate) mod order;
pub(crate) mod pick;
pub(crate) mod selfref;
pub(crate) mod session;
pub mod target;
pub(crate) mod walk;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// How a transcript sits on disk (SUB-001…003). The shape says where the file is,
/// never who spawned it: nesting comes from the records (SUB-003).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Shape {
    /// `<project>/<session>.jsonl`, the top-level transcript.
    Main,
    /// `<project>/<session>/subagents/agent-<id>.jsonl`.
    Subagent,
    /// `<project>/<session>/subagents/agent-acompact-<id>.jsonl`, a compaction lane.
    Compact,
    /// `<project>/<session>/subagents/workflows/<run>/agent-<id>.jsonl`.
    Workflow { run: String },
    /// `<project>/agent-<hex>.jsonl` beside the session (2.0.x); the owning session
    /// comes from the records' `sessionId`.
    Flat,
    /// Any other `.jsonl` found under a session's `subagents/` tree.
    OtherLane,
}

impl Shape {
    pub(crate) fn is_lane(&self) -> bool {
        !matches!(self, Shape::Main)
    }

    pub(crate) fn name(&self) -> &'static str {
        match self {
            Shape::Main => "main",
            Shape::Subagent => "subagent",
            Shape::Compact => "compact",
            Shape::Workflow { .. } => "workflow",
            Shape::Flat => "flat",
            Shape::OtherLane => "lane",
        }
    }
}

/// One transcript file: a session's main file or one of its lanes.
#[derive(Debug, Clone)]
pub struct Transcript {
    pub path: PathBuf,
    /// The `projects/<encoded>` directory holding it (or its parent dir when the
    /// file was named directly and sits outside any projects tree).
    pub(crate) project_dir: PathBuf,
    /// The top-level session this file belongs to (PATH-012: a main file's basename
    /// is its session id; a lane belongs to its folder's session).
    pub(crate) session_id: String,
    /// The lane's own agent id, `None` for a main transcript.
    pub(crate) agent_id: Option<String>,
    pub(crate) shape: Shape,
    pub size: u64,
    pub(crate) mtime: Option<SystemTime>,
}

impl Transcript {
    /// The target that selects this transcript alone: `@session`, or
    /// `@session@agent` for a lane; pointers printed for a user to run use it.
    pub(crate) fn at(&self) -> String {
        match &self.agent_id {
            Some(a) => format!("@{}@{a}", self.session_id),
            None => format!("@{}", self.session_id),
        }
    }

    /// The arguments that select this transcript alone in a command printed
    /// for the user to run, shell-quoted: [`Transcript::at`] when the file
    /// sits where `home`'s walk finds it, followed by `--claude-home DIR` when the
    /// home came from that flag (a bare `@id` would be looked up in the
    /// default home and fail); else the file's path, since a file named
    /// outside the home is no `@id` at all.
    pub(crate) fn target_args(&self, home: &home::ClaudeHome) -> String {
        use crate::output::sanitize::shell_word;
        // Only where the walk finds it is `@id` this file: projects/<encoded>/
        // <id>.jsonl, or a lane in projects/<encoded>/<id>/.
        let projects = home.projects();
        let walked = self.project_dir.parent() == Some(projects.as_path())
            && if self.is_lane() {
                self.path
                    .starts_with(self.project_dir.join(&self.session_id))
            } else {
                self.path.parent() == Some(self.project_dir.as_path())
            };
        if !walked {
            return shell_word(&self.path.to_string_lossy()).into_owned();
        }
        format!("{}{}", shell_word(&self.at()), home.flag_args())
    }

    pub(crate) fn is_lane(&self) -> bool {
        self.shape.is_lane()
    }

    /// First 8 characters of the session id, as shown in headers.
    pub(crate) fn short_id(&self) -> &str {
        short(&self.session_id)
    }

    /// The project directory's encoded name.
    pub(crate) fn project_name(&self) -> String {
        file_name(&self.project_dir)
    }

    /// This session's lane files, listed when first asked: a subagent whose
    /// lane file exists is searched there, not in its parent's
    /// `agent_progress` copies.
    pub(crate) fn lane_files(&self) -> LaneFiles {
        LaneFiles {
            project: self.project_dir.clone(),
            session: self.session_id.clone(),
            ids: std::sync::OnceLock::new(),
        }
    }

    /// Where a persisted tool output (MISC-002) sits in this home when the
    /// absolute path the record names does not exist: the pointer is absolute
    /// on the machine that wrote it, and a home that was copied, moved or
    /// reached through `CLAUDE_CONFIG_DIR` keeps the file in the session's own
    /// `tool-results/` folder.
    /// The session folder the pointer names comes first: a clone copies its
    /// origin's records, pointers included (REC-091), so they name the
    /// origin's folder; then this transcript's own.
    pub(crate) fn local_persisted(&self, named: &Path) -> Option<PathBuf> {
        if named.exists() {
            return None;
        }
        let name = named.file_name()?;
        let mut sessions = Vec::new();
        let parent = named.parent();
        if parent.and_then(Path::file_name) == Some(std::ffi::OsStr::new("tool-results")) {
            sessions.extend(parent.and_then(Path::parent).and_then(Path::file_name));
        }
        sessions.push(std::ffi::OsStr::new(&self.session_id));
        sessions
            .into_iter()
            .map(|s| self.project_dir.join(s).join("tool-results").join(name))
            .find(|p| p.exists())
    }
}

/// The agent ids of one session's lane files, read from disk on first use
/// (most files never ask: only an `agent_progress` record does).
#[derive(Debug)]
pub(crate) struct LaneFiles {
    project: PathBuf,
    session: String,
    ids: std::sync::OnceLock<std::collections::HashSet<String>>,
}

impl LaneFiles {
    /// Whether agent `id` has a lane file in the session.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.ids
            .get_or_init(|| walk::lane_ids(&self.project, &self.session))
            .contains(id)
    }
}

pub(crate) fn short(id: &str) -> &str {
    match id.char_indices().nth(8) {
        Some((i, _)) => &id[..i],
        None => id,
    }
}

pub(crate) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A problem met while walking: reported on stderr, makes the run exit 2, never
/// stops the walk.
#[derive(Debug, Clone)]
pub(crate) struct WalkIssue {
    pub(crate) path: PathBuf,
    pub(crate) message: String,
}

/// Every transcript of the bundled sample home and the public corpus, lanes
/// included, as the walk finds them: the real bytes the tests that compare a
/// fast path with the read it replaces run over.
#[cfg(test)]
pub(crate) fn sample_and_public() -> Vec<Transcript> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for h in ["sample/claude-home", "../shared/corpus/claude-home"] {
        let home = home::from_env(Some(root.join(h))).unwrap();
        files.extend(target::resolve(&home, &[], true).unwrap().transcripts);
    }
    assert!(files.len() > 10, "no transcripts under {root:?}");
    files
}
