//! `csift plan` rows, human or JSON Lines, and the summary.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::Found;
use crate::output::sanitize::{clean, one_line};
use crate::output::{json_line, Style};

#[derive(Debug, Serialize)]
pub(crate) struct ApprovalRow {
    pub(crate) line: usize,
    pub(crate) variant: &'static str,
}

#[derive(Debug, Serialize)]
pub(crate) struct RejectionRow {
    pub(crate) line: usize,
    pub(crate) plan_file: Option<String>,
    pub(crate) message: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ReinjectionRow {
    pub(crate) line: usize,
    pub(crate) plan_file: Option<String>,
    /// Whether it names this session's bound plan (a fork's first one names
    /// its origin's, PLAN-013/016).
    pub(crate) bound: bool,
}

#[derive(Debug, Serialize)]
pub(crate) struct PlanRow {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) session_id: String,
    pub(crate) agent_id: Option<String>,
    pub(crate) file: String,
    pub(crate) plan_file: Option<String>,
    pub(crate) binding_source: Option<&'static str>,
    pub(crate) line: Option<usize>,
    pub(crate) slug: Option<String>,
    pub(crate) exists: bool,
    pub(crate) plan_exists_at_binding: Option<bool>,
    pub(crate) minted_at_compaction: bool,
    pub(crate) approvals: Vec<ApprovalRow>,
    pub(crate) rejections: Vec<RejectionRow>,
    pub(crate) reinjections: Vec<ReinjectionRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) plan_content: Option<String>,
    /// The target that selects this transcript (not printed in JSON).
    #[serde(skip)]
    pub(crate) at: String,
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) sessions: usize,
    pub(crate) bound: usize,
    pub(crate) plan_mode: usize,
    pub(crate) slug_only: usize,
    pub(crate) missing: usize,
    pub(crate) errors: usize,
    pub(crate) elapsed_ms: u128,
}

impl Summary {
    pub(crate) fn of(rows: &[PlanRow]) -> Summary {
        let by = |s: &str| rows.iter().filter(|r| r.binding_source == Some(s)).count();
        Summary {
            kind: "summary",
            sessions: rows.len(),
            bound: rows.iter().filter(|r| r.plan_file.is_some()).count(),
            plan_mode: by("plan_mode"),
            slug_only: by("slug-only"),
            missing: rows
                .iter()
                .filter(|r| r.plan_file.is_some() && !r.exists)
                .count(),
            ..Summary::default()
        }
    }
}

pub(crate) fn row(f: &Found, show: bool) -> PlanRow {
    let b = f.binding.as_ref();
    let bound = b.map(|b| b.plan_file.as_str());
    let exists = b.is_some_and(|b| b.exists());
    let ev = &f.events;
    PlanRow {
        kind: "plan",
        session_id: f.t.session_id.clone(),
        agent_id: f.t.agent_id.clone(),
        file: f.t.path.display().to_string(),
        plan_file: bound.map(str::to_string),
        binding_source: b.map(|b| b.source.name()),
        line: b.map(|b| b.line),
        slug: b.and_then(|b| b.slug.clone()),
        exists,
        plan_exists_at_binding: b.and_then(|b| b.plan_exists_flag),
        minted_at_compaction: b.is_some_and(|b| b.minted_at_compaction),
        approvals: ev
            .approvals
            .iter()
            .map(|a| ApprovalRow {
                line: a.line,
                variant: a.variant,
            })
            .collect(),
        rejections: ev
            .rejections
            .iter()
            .map(|r| RejectionRow {
                line: r.line,
                plan_file: r.plan_file.clone(),
                message: r.message.clone(),
            })
            .collect(),
        reinjections: ev
            .reinjections
            .iter()
            .map(|r| ReinjectionRow {
                line: r.line,
                plan_file: r.plan_file.clone(),
                bound: r.plan_file.is_some() && r.plan_file.as_deref() == bound,
            })
            .collect(),
        plan_content: (show && exists)
            .then(|| content(Path::new(bound.unwrap_or_default())))
            .flatten(),
        at: f.t.at(),
    }
}

/// The plan file's text, for `--show`: only a `.md` file (a transcript's path
/// never makes csift print an arbitrary file).
fn content(p: &Path) -> Option<String> {
    if p.extension().and_then(|e| e.to_str()) != Some("md") {
        return None;
    }
    // Only a regular file, read without blocking (a FIFO named like a plan
    // file would hang the read).
    crate::scan::source::small(p, u64::MAX)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

pub(crate) fn json<W: Write>(w: &mut W, rows: &[PlanRow], s: &Summary) -> io::Result<()> {
    for r in rows {
        json_line(w, r)?;
    }
    json_line(w, s)
}

pub(crate) fn human<W: Write>(
    w: &mut W,
    st: Style,
    rows: &[PlanRow],
    s: &Summary,
) -> io::Result<()> {
    for r in rows {
        one(w, st, r)?;
    }
    writeln!(
        w,
        "{}{} sessions with a plan or plan events · {} bound ({} plan_mode, {} slug-only) · {} missing{}",
        st.dim, s.sessions, s.bound, s.plan_mode, s.slug_only, s.missing, st.reset
    )
}

fn one<W: Write>(w: &mut W, st: Style, r: &PlanRow) -> io::Result<()> {
    let plan = match &r.plan_file {
        Some(p) if r.exists => clean(p).into_owned(),
        Some(p) => format!("{} {}[missing]{}", clean(p), st.warn, st.reset),
        None => format!("{}no binding{}", st.dim, st.reset),
    };
    writeln!(w, "{}{}{}  {plan}", st.head, clean(&r.at), st.reset)?;
    if let (Some(src), Some(line)) = (r.binding_source, r.line) {
        let mut facts = vec![format!("bound by {src} at L{line}")];
        if let Some(s) = &r.slug {
            facts.push(format!("slug {}", clean(s)));
        }
        if r.minted_at_compaction {
            facts.push("slug minted at a compaction".into());
        }
        writeln!(w, "  {}{}{}", st.dim, facts.join(" · "), st.reset)?;
    }
    let mut ev = Vec::new();
    if !r.approvals.is_empty() {
        let l: Vec<String> = r.approvals.iter().map(|a| format!("L{}", a.line)).collect();
        ev.push(format!("approved {}", l.join(" ")));
    }
    for x in &r.rejections {
        let msg = x
            .message
            .as_deref()
            .map(|m| format!(": \"{}\"", one_line(m)))
            .unwrap_or_default();
        ev.push(format!("rejected L{}{msg}", x.line));
    }
    if !r.reinjections.is_empty() {
        let l: Vec<String> = r
            .reinjections
            .iter()
            .map(|x| match (x.bound, &x.plan_file) {
                (false, Some(p)) => format!("L{} ({})", x.line, clean(p)),
                _ => format!("L{}", x.line),
            })
            .collect();
        ev.push(format!("re-injected {}", l.join(" ")));
    }
    if !ev.is_empty() {
        writeln!(w, "  {}", ev.join(" · "))?;
    }
    if let Some(text) = &r.plan_content {
        for l in text.lines() {
            writeln!(w, "  │ {}", clean(l))?;
        }
    }
    Ok(())
}
