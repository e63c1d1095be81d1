//! Grouping transcripts into sessions: a session is its main file, its lane files
//! and its workflow journals, whatever the target named (a lane named by `@id`
//! brings its whole session). Only `agent-*.jsonl` files are lanes: a workflow
//! `journal.jsonl` is an event log (SUB-001, TAIL-008/009), kept apart here for
//! the readers that count agents in flight.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::target::could_hold;
use super::{walk, Shape, Transcript, WalkIssue};

/// The files of one session, as discovery found them.
#[derive(Debug, Clone)]
pub(crate) struct SessionFiles {
    pub(crate) project_dir: PathBuf,
    pub(crate) session_id: String,
    pub(crate) main: Option<Transcript>,
    pub(crate) lanes: Vec<Transcript>,
    /// `subagents/workflows/<run>/journal.jsonl` files of the session.
    pub(crate) journals: Vec<Transcript>,
}

/// Group the selected transcripts by session. With `rewalk`, each session's
/// project is walked again so every lane of the session is read even when one
/// lane was named (`@<id>`); the problems that walk meets, where they could
/// hold the session, come back with the groups. Without it the selection is
/// taken as whole (a walk of every project already saw every file).
pub(crate) fn group(picked: &[Transcript], rewalk: bool) -> (Vec<SessionFiles>, Vec<WalkIssue>) {
    let picked: Vec<Transcript> = picked.iter().cloned().map(flat_session).collect();
    let mut keys: BTreeMap<(PathBuf, String), ()> = BTreeMap::new();
    for t in &picked {
        keys.insert((t.project_dir.clone(), t.session_id.clone()), ());
    }
    let mut issues = Vec::new();
    let mut walks: HashMap<PathBuf, Vec<Transcript>> = HashMap::new();
    let mut by_key: HashMap<(PathBuf, String), Vec<&Transcript>> = HashMap::new();
    if !rewalk {
        for t in &picked {
            by_key
                .entry((t.project_dir.clone(), t.session_id.clone()))
                .or_default()
                .push(t);
        }
    }
    let mut out = Vec::new();
    for (project, sid) in keys.into_keys() {
        let mine: Vec<&Transcript> = if rewalk {
            let all = walks.entry(project.clone()).or_insert_with(|| {
                let mut w = walk::Walk::default();
                walk::walk_project(&project, &mut w);
                // The re-walk sees the whole project: only what could hold this
                // session is its problem (the first walk said the rest, if asked).
                issues.extend(
                    w.issues
                        .iter()
                        .filter(|i| could_hold(&i.path, &[&sid]))
                        .cloned(),
                );
                w.sort();
                w.transcripts.into_iter().map(flat_session).collect()
            });
            all.iter().filter(|t| t.session_id == sid).collect()
        } else {
            by_key
                .remove(&(project.clone(), sid.clone()))
                .unwrap_or_default()
        };
        // A file named directly outside any projects tree is not in the walk.
        let from_pick: Vec<&Transcript> = if mine.is_empty() {
            picked
                .iter()
                .filter(|t| t.project_dir == project && t.session_id == sid)
                .collect()
        } else {
            mine
        };
        let main = from_pick
            .iter()
            .find(|t| !t.is_lane())
            .map(|t| (*t).clone());
        let lanes = from_pick
            .iter()
            .filter(|t| t.is_lane() && super::file_name(&t.path).starts_with("agent-"))
            .map(|t| (*t).clone())
            .collect();
        let journals = from_pick
            .iter()
            .filter(|t| {
                matches!(t.shape, Shape::Workflow { .. })
                    && super::file_name(&t.path) == "journal.jsonl"
            })
            .map(|t| (*t).clone())
            .collect();
        out.push(SessionFiles {
            project_dir: project,
            session_id: sid,
            main,
            lanes,
            journals,
        });
    }
    (out, issues)
}

/// An old flat `agent-<hex>.jsonl` belongs to the session its records name
/// (L4). Discovery reads the compact `"sessionId":"` spelling only; a lane it could
/// not place is read again here with the record parser, which accepts any spacing.
fn flat_session(mut t: Transcript) -> Transcript {
    if t.shape != Shape::Flat || t.session_id != "unknown" {
        return t;
    }
    let Ok(src) = crate::scan::Source::open(&t.path) else {
        return t;
    };
    let head = crate::scan::head(&src, 256 * 1024);
    for line in crate::scan::Lines::new(head).take(64) {
        if let crate::record::Parsed::Record(r) = crate::record::parse_line(&line) {
            if let Some(s) = r.session_id.as_deref() {
                t.session_id = s.to_string();
                break;
            }
        }
    }
    t
}
