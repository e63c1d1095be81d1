//! One session's files read for the lane tree: every transcript scanned (in
//! parallel) into its [`FileFacts`], and the lanes they hold as the joins see
//! them ([`LaneIn`]): each lane file, and each inline 1.0.x sidechain chain of
//! the main file (L5). [`super::index`] joins these lanes; [`super::session`]
//! turns them into rows.

use std::path::PathBuf;

use super::acc::LaneStats;
use super::facts::{self, FileFacts, ForkRef};
use super::row::LaneShape;
use super::sidecar::{self, Meta};
use crate::discovery::session::SessionFiles;
use crate::discovery::{Shape, Transcript};

/// One lane as the joins see it.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneIn {
    pub(crate) id: String,
    pub(crate) path: Option<String>,
    /// An inline sidechain's first line in the main file.
    pub(crate) line: Option<usize>,
    pub(crate) dir: Option<PathBuf>,
    pub(crate) shape: LaneShape,
    pub(crate) run: Option<String>,
    pub(crate) meta: Meta,
    pub(crate) stats: LaneStats,
    pub(crate) fork: Option<ForkRef>,
    pub(crate) is_compact: bool,
    pub(crate) inline: bool,
    pub(crate) parent_uuids: Vec<String>,
    pub(crate) malformed: usize,
}

impl LaneIn {
    /// An inline sidechain chain of the main file `main`.
    fn inline(main: &Transcript, st: &LaneStats) -> LaneIn {
        LaneIn {
            id: st.id.clone(),
            path: Some(main.path.display().to_string()),
            line: Some(st.root_line),
            shape: LaneShape::InlineSidechain,
            stats: st.clone(),
            inline: true,
            ..LaneIn::default()
        }
    }

    /// A lane file, taking what the joins need from its facts `f`.
    fn file(job: &Job<'_>, f: &mut FileFacts) -> LaneIn {
        let t = job.t;
        let run = match &t.shape {
            Shape::Workflow { run } => Some(run.clone()),
            _ => None,
        };
        LaneIn {
            id: job.id.clone(),
            path: Some(t.path.display().to_string()),
            line: None,
            dir: t.path.parent().map(PathBuf::from),
            shape: LaneShape::from(&t.shape),
            run,
            meta: sidecar::meta_for(&t.path),
            stats: f.lanes.first().cloned().unwrap_or_default(),
            fork: f.fork.take(),
            is_compact: job.compact,
            inline: false,
            parent_uuids: std::mem::take(&mut f.parent_uuids),
            malformed: f.malformed,
        }
    }
}

/// What reading one session's files gave: the facts of each readable file
/// (main first), its lanes, and the files that could not be read.
#[derive(Debug, Default)]
pub(crate) struct Input {
    pub(crate) files: Vec<FileFacts>,
    pub(crate) lanes: Vec<LaneIn>,
    /// The main file's own lane stats; `None` without a readable main file.
    pub(crate) main: Option<LaneStats>,
    pub(crate) problems: Vec<(PathBuf, String)>,
}

/// One file to scan: its lane id (`main` or the agent id), and whether it is
/// the main file or a compaction lane.
struct Job<'a> {
    t: &'a Transcript,
    id: String,
    main: bool,
    compact: bool,
}

/// Scan every file of `s` (main first, then lanes in discovery order).
pub(crate) fn read(s: &SessionFiles) -> Input {
    let main = s.main.iter().map(|m| Job {
        t: m,
        id: "main".into(),
        main: true,
        compact: false,
    });
    let lanes = s.lanes.iter().map(|l| {
        let id = l.agent_id.clone().unwrap_or_default();
        Job {
            t: l,
            compact: id.starts_with("acompact"),
            id,
            main: false,
        }
    });
    let jobs: Vec<Job<'_>> = main.chain(lanes).collect();
    let scanned = crate::scan::par_map(&jobs, |j| facts::scan(&j.t.path, &j.id, j.main, j.compact));
    let mut input = Input::default();
    for (job, res) in jobs.iter().zip(scanned) {
        match res {
            Ok(f) => input.add(job, f),
            Err(e) => input.problems.push((job.t.path.clone(), e.to_string())),
        }
    }
    input
}

impl Input {
    fn add(&mut self, job: &Job<'_>, mut f: FileFacts) {
        if job.main {
            self.main = f.lanes.first().cloned();
            let inline = f.lanes.iter().skip(1).map(|st| LaneIn::inline(job.t, st));
            self.lanes.extend(inline);
        } else {
            self.lanes.push(LaneIn::file(job, &mut f));
        }
        self.files.push(f);
    }
}
