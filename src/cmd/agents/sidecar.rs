//! The non-transcript files beside lanes, all read tolerantly (missing, malformed
//! or key-absent means "not known", never an error that stops the tree):
//! `agent-<id>.meta.json` (SUB-006, SUB-007), a workflow run's `journal.jsonl`
//! event log (SUB-008, TAIL-008) and its run manifest
//! `<session>/workflows/wf_<run>.json` (SUB-009, SUB-010).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::scan::{Lines, Source};

/// `agent-<id>.meta.json`. It has no status: `stoppedByUser` is its only outcome
/// field, and liveness is never derived from it (SUB-007).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Meta {
    #[serde(default)]
    pub(crate) agent_type: Option<String>,
    #[serde(default)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) tool_use_id: Option<String>,
    #[serde(default)]
    pub(crate) parent_agent_id: Option<String>,
    #[serde(default)]
    pub(crate) task_kind: Option<String>,
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) team_name: Option<String>,
    #[serde(default)]
    pub(crate) is_fork: Option<bool>,
    #[serde(default)]
    pub(crate) stopped_by_user: Option<bool>,
    #[serde(skip)]
    pub(crate) present: bool,
}

impl Meta {
    pub(crate) fn is_teammate(&self) -> bool {
        self.task_kind.as_deref() == Some("in_process_teammate")
    }

    pub(crate) fn is_fork(&self) -> bool {
        self.is_fork == Some(true) || self.agent_type.as_deref() == Some("fork")
    }
}

/// Most of a sidecar JSON file read (they are a few hundred bytes): only a
/// regular file is read, so a FIFO or device named like one cannot hang.
const SIDECAR_MAX: u64 = 16 << 20;

/// The meta beside a lane transcript: `.jsonl` replaced by `.meta.json`.
pub(crate) fn meta_for(lane: &Path) -> Meta {
    let p = lane.with_extension("meta.json");
    match crate::scan::source::small(&p, SIDECAR_MAX) {
        Ok(bytes) => match serde_json::from_slice::<Meta>(&bytes) {
            Ok(mut m) => {
                m.present = true;
                m
            }
            Err(_) => Meta::default(),
        },
        Err(_) => Meta::default(),
    }
}

/// One agent's events in a run journal; the first event of each type wins.
#[derive(Debug, Clone, Default)]
pub(crate) struct JournalEntry {
    pub(crate) started: bool,
    pub(crate) result: Option<String>,
    pub(crate) failed: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Journal {
    pub(crate) present: bool,
    pub(crate) agents: HashMap<String, JournalEntry>,
    pub(crate) started: usize,
    pub(crate) results: usize,
    pub(crate) failed: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    result: Option<serde_json::Value>,
}

/// `subagents/workflows/wf_<run>/journal.jsonl` (SUB-008). A `result` that is not
/// a string is kept as compact JSON.
pub(crate) fn journal(dir: &Path) -> Journal {
    let mut j = Journal::default();
    let Ok(src) = Source::open(&dir.join("journal.jsonl")) else {
        return j;
    };
    j.present = true;
    let j = journal_of(&src, j);
    // Cut while mapped: what was read past the cut was zeros, so nothing is known.
    match src.check() {
        Ok(()) => j,
        Err(_) => Journal {
            present: true,
            ..Journal::default()
        },
    }
}

/// The events of a journal's bytes, added to `j`.
fn journal_of(src: &[u8], mut j: Journal) -> Journal {
    for line in Lines::new(src) {
        let Ok(ev) = serde_json::from_slice::<Event>(line.bytes) else {
            continue;
        };
        let (Some(kind), Some(agent)) = (ev.kind, ev.agent_id) else {
            continue;
        };
        let e = j.agents.entry(agent).or_default();
        match kind.as_str() {
            "started" if !e.started => {
                e.started = true;
                j.started += 1;
            }
            "result" if e.result.is_none() => {
                e.result = Some(match ev.result {
                    Some(serde_json::Value::String(s)) => s,
                    Some(v) => v.to_string(),
                    None => String::new(),
                });
                j.results += 1;
            }
            "failed" if !e.failed => {
                e.failed = true;
                j.failed += 1;
            }
            _ => {}
        }
    }
    j
}

/// A run manifest, written only at run end (SUB-009). `status` is an open set,
/// printed verbatim (SUB-010).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Manifest {
    #[serde(default)]
    pub(crate) task_id: Option<String>,
    #[serde(default)]
    pub(crate) workflow_name: Option<String>,
    #[serde(default)]
    pub(crate) status: Option<serde_json::Value>,
    #[serde(default)]
    pub(crate) agent_count: Option<u64>,
}

/// `<session dir>/workflows/<run>.json`, None when absent or unreadable.
pub(crate) fn manifest(session_dir: &Path, run: &str) -> Option<Manifest> {
    let p: PathBuf = session_dir.join("workflows").join(format!("{run}.json"));
    let bytes = crate::scan::source::small(&p, SIDECAR_MAX).ok()?;
    serde_json::from_slice(&bytes).ok()
}

impl Manifest {
    pub(crate) fn status_text(&self) -> Option<String> {
        match &self.status {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Null) | None => None,
            Some(v) => Some(v.to_string()),
        }
    }
}
