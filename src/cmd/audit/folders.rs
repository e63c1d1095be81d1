//! `missing-transcript` from directory listings alone: a session sidecar folder
//! (`<project>/<uuid>/subagents/…`) whose `<project>/<uuid>.jsonl` does not
//! exist (the folder is created lazily, ELI-018, and transcripts are deleted by
//! age cleanup, MISC-011), and a lane's `agent-<id>.meta.json` without its
//! `agent-<id>.jsonl` (SUB-006). A missing session transcript is a loss of the
//! main conversation, so it counts as main, placed in time by the earliest
//! first timestamp of its lanes (the only transcript bytes read here: a head
//! of each lane).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::finding::{At, FileCtx, Finding};
use crate::cli::audit::Kind;
use crate::discovery::Transcript;

/// Session folders to check: those of the selected transcripts, plus (for an
/// untargeted audit) every folder with a `subagents/` under each project.
pub(crate) fn session_dirs(selected: &[Transcript], projects: Option<&Path>) -> BTreeSet<PathBuf> {
    let mut out: BTreeSet<PathBuf> = selected
        .iter()
        .filter(|t| !matches!(t.shape, crate::discovery::Shape::Flat))
        .map(|t| t.project_dir.join(&t.session_id))
        .collect();
    if let Some(projects) = projects {
        for p in read_dirs(projects) {
            for s in read_dirs(&p) {
                if s.join("subagents").is_dir() {
                    out.insert(s);
                }
            }
        }
    }
    out.retain(|d| d.join("subagents").is_dir());
    out
}

/// The findings of every session folder to check ([`session_dirs`], each
/// by [`check`]), in the folders' order.
pub(crate) fn findings(selected: &[Transcript], projects: Option<&Path>) -> Vec<Finding> {
    let mut out = Vec::new();
    for dir in session_dirs(selected, projects) {
        check(&dir, &mut out);
    }
    out
}

fn read_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_type().is_ok_and(|f| f.is_dir()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Check one session folder.
pub(crate) fn check(dir: &Path, out: &mut Vec<Finding>) {
    let session = crate::discovery::file_name(dir);
    let ctx = |f: &Path| FileCtx {
        file: f.display().to_string(),
        session_id: session.clone(),
        is_lane: true,
    };
    let mut lanes = Vec::new();
    let mut metas = Vec::new();
    let mut stack = vec![(dir.join("subagents"), 0)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_ok_and(|f| f.is_dir()) {
                if depth < 6 {
                    stack.push((p, depth + 1));
                }
            } else if name.ends_with(".meta.json") {
                metas.push(p);
            } else if name.ends_with(".jsonl") {
                lanes.push(p);
            }
        }
    }
    let main = dir.with_file_name(format!("{session}.jsonl"));
    let at = At {
        sidechain: true,
        ..At::default()
    };
    if !lanes.is_empty() && !main.exists() {
        let first = lanes.iter().filter_map(|l| first_ts(l)).min();
        let main_at = At::with(0, false, first.as_deref(), None);
        let main_ctx = FileCtx {
            is_lane: false,
            ..ctx(dir)
        };
        out.push(main_ctx.finding(
            Kind::MissingTranscript,
            &main_at,
            None,
            format!(
                "session folder holds {} subagent lane(s) but {} does not exist",
                lanes.len(),
                main.display()
            ),
        ));
    }
    metas.sort();
    for m in metas {
        let name = crate::discovery::file_name(&m);
        let stem = name.trim_end_matches(".meta.json");
        let lane = m.with_file_name(format!("{stem}.jsonl"));
        if !lane.exists() {
            out.push(ctx(&m).finding(
                Kind::MissingTranscript,
                &at,
                None,
                format!("lane metadata without its transcript {}", lane.display()),
            ));
        }
    }
}

/// The first `"timestamp"` in the first 64 KB of a transcript.
fn first_ts(path: &Path) -> Option<String> {
    let head = crate::scan::source::head(path, 64 * 1024);
    let ts = crate::scan::pair::first_plain_str(&head, crate::scan::lit!(b"\"timestamp\""))?;
    Some(String::from_utf8_lossy(ts).into_owned()).filter(|t| t.len() <= 40)
}
