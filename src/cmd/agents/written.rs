//! `agents --with-files`: the paths each lane wrote, read by the touch engine
//! under `csift files` ([`crate::files`]) over the session's transcripts, its
//! subagent records nested in `agent_progress` records included. A touch
//! belongs to the lane whose records hold it (the lane file's, or the nested
//! record's agent id); the main session's own touches belong to no lane.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::row::LaneRow;
use super::session::Tree;
use crate::discovery::session::SessionFiles;
use crate::files::{self, Class, Kind, Touch};

/// One path a lane wrote.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Written {
    pub(crate) path: String,
    /// How the path was resolved, as `csift files` says it (a Bash path can
    /// be cwd-joined or unresolved).
    pub(crate) class: &'static str,
    /// What the writes were, as `csift files` names them, in first-seen order.
    pub(crate) kinds: Vec<&'static str>,
    pub(crate) touches: usize,
}

/// A write that landed: a structured write whose result is no error (a
/// failed one is `Kind::Failed`), or a Bash command's write, move, copy,
/// delete or touch.
fn is_write(k: Kind) -> bool {
    k.is_structured_write() || k.is_bash_write() || k == Kind::BashTouch
}

/// What one lane wrote: its paths in order, and its commands that change
/// files they never name.
#[derive(Debug, Default)]
struct Lane {
    paths: BTreeMap<String, Written>,
    opaque: usize,
}

impl Lane {
    fn take(&mut self, t: &Touch) {
        if t.kind == Kind::Opaque || t.class == Class::Marker {
            self.opaque += 1;
            return;
        }
        if !is_write(t.kind) {
            return;
        }
        let w = self
            .paths
            .entry(t.path.to_string())
            .or_insert_with(|| Written {
                path: t.path.to_string(),
                class: t.class.name(),
                kinds: Vec::new(),
                touches: 0,
            });
        w.touches += 1;
        if !w.kinds.contains(&t.kind.name()) {
            w.kinds.push(t.kind.name());
        }
    }
}

/// Fill `files_written` and `files_opaque` on every lane row of `tree`. A
/// lane whose records csift reads (a lane file, or records nested in the
/// parent) gets its list, empty when it wrote nothing; one whose records are
/// not on disk apart (an inline sidechain, a spawn with neither) or whose
/// file could not be read gets null.
pub(crate) fn attach(tree: &mut Tree, s: &SessionFiles) {
    let transcripts: Vec<crate::discovery::Transcript> =
        s.main.iter().chain(&s.lanes).cloned().collect();
    let opts = files::Options {
        recover: false,
        want: None,
        nested: true,
    };
    let scanned = files::scan_all(&transcripts, &opts);
    let mut failed: BTreeSet<String> = BTreeSet::new();
    let mut lanes: HashMap<String, Lane> = HashMap::new();
    for (t, ft) in transcripts.iter().zip(&scanned) {
        if ft.error.is_some() {
            // Said once already, by the scan that built the tree.
            failed.extend(t.agent_id.clone());
            continue;
        }
        for touch in &ft.touches {
            if let Some(a) = &touch.agent_id {
                lanes.entry(a.to_string()).or_default().take(touch);
            }
        }
    }
    for row in &mut tree.lanes {
        let known = readable(row) && !row.agent_id.as_ref().is_some_and(|a| failed.contains(a));
        if !known {
            row.files_written = Some(None);
            continue;
        }
        let lane = row
            .agent_id
            .as_ref()
            .and_then(|a| lanes.remove(a))
            .unwrap_or_default();
        row.files_opaque = Some(lane.opaque);
        row.files_written = Some(Some(lane.paths.into_values().collect()));
    }
}

/// Whether the lane's own records are read apart: a lane file of its own, or
/// records nested in the parent's agent_progress records.
fn readable(r: &LaneRow) -> bool {
    let own_file = r.path.is_some() && r.line.is_none();
    r.agent_id.is_some() && (own_file || r.nested_records)
}
