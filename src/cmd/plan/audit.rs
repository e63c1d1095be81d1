//! `csift plan --audit`: the targets' structured edits to plan files, joined
//! against every binding in the home (PLAN-015…017). A session editing a plan
//! it does not bind is warned about: after a compaction only its own bound
//! plan is re-injected in full (PLAN-016).

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::cli::plan::PlanArgs;
use crate::cmd::{Exit, Problems};
use crate::discovery::home::ClaudeHome;
use crate::discovery::{target, Transcript};
use crate::output::sanitize::clean;
use crate::output::{json_line, Format, Out, Style};
use crate::plan::{self, audit::Mutation, slug::normal};
use crate::scan::Source;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoundBy {
    pub(crate) session_id: String,
    pub(crate) line: usize,
    pub(crate) binding_source: &'static str,
}

#[derive(Debug, Serialize)]
pub(crate) struct EditRow {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: String,
    agent_id: Option<String>,
    file: String,
    plan_file: String,
    mutations: usize,
    lines: Vec<usize>,
    bound_by_owner: bool,
    bound_by: Vec<BoundBy>,
    /// `path`: the edited path is a binding's path. `moved-home`: a slug-only
    /// binding in the default `<home>/plans` and an edit of `…/.claude/plans/
    /// <slug>.md` elsewhere: the transcript was written under another home
    /// (a copied or moved one), where the binding named that path.
    join: &'static str,
    #[serde(skip)]
    at: String,
}

#[derive(Debug, Default, Serialize)]
struct Summary {
    #[serde(rename = "type")]
    kind: &'static str,
    bindings: usize,
    plan_files_touched: usize,
    edits: usize,
    warnings: usize,
    errors: usize,
    elapsed_ms: u128,
}

fn key(p: &str) -> PathBuf {
    normal(Path::new(p))
}

pub(crate) fn run(
    args: &PlanArgs,
    home: &ClaudeHome,
    picked: &[Transcript],
    w: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let edits: Vec<(Transcript, Vec<Mutation>)> = crate::scan::par_map(picked, |t| {
        let s = Source::open(&t.path).map_err(|e| (t.path.clone(), e.to_string()))?;
        let m = plan::audit::mutations(&s);
        s.check().map_err(|e| (t.path.clone(), e.to_string()))?;
        Ok((t.clone(), m))
    })
    .into_iter()
    .filter_map(|r| r.map_err(|(p, e)| problems.report(&p, e)).ok())
    .filter(|(_, m)| !m.is_empty())
    .collect();
    // Every binding of the home (only when something was edited at all).
    let (bindings, moved) = if edits.is_empty() {
        (HashMap::new(), HashMap::new())
    } else {
        bindings(home, problems)
    };
    let rows = join(&edits, &bindings, &moved);
    let summary = Summary {
        kind: "summary",
        bindings: bindings.values().map(Vec::len).sum(),
        plan_files_touched: rows
            .iter()
            .map(|r| r.plan_file.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        edits: rows.iter().map(|r| r.mutations).sum(),
        warnings: rows.iter().filter(|r| !r.bound_by_owner).count(),
        errors: problems.count(),
        elapsed_ms: started.elapsed().as_millis(),
    };
    let style = w.style;
    match args.common.format {
        Format::Json => {
            for r in &rows {
                json_line(w, r)?;
            }
            json_line(w, &summary)?;
        }
        Format::Human => human(w, style, &rows, &summary)?,
    }
    Ok(Exit::from(!rows.is_empty(), problems.count()))
}

/// The targets' edits of bound plan files, one row per (transcript, plan file).
fn join(
    edits: &[(Transcript, Vec<Mutation>)],
    bindings: &Bindings,
    moved: &HashMap<String, Vec<BoundBy>>,
) -> Vec<EditRow> {
    let mut rows = Vec::new();
    for (t, muts) in edits {
        let mut by_plan: BTreeMap<PathBuf, (Vec<usize>, &Vec<BoundBy>, &'static str)> =
            BTreeMap::new();
        for m in muts {
            let k = key(&m.path);
            let hit = match bindings.get(&k) {
                Some(b) => Some((b, "path")),
                None => moved_home_name(&k)
                    .and_then(|n| moved.get(&n))
                    .map(|b| (b, "moved-home")),
            };
            if let Some((b, join)) = hit {
                by_plan
                    .entry(k)
                    .or_insert_with(|| (Vec::new(), b, join))
                    .0
                    .push(m.line);
            }
        }
        for (plan_file, (lines, bound_by, join)) in by_plan {
            let bound_by = bound_by.clone();
            rows.push(EditRow {
                join,
                kind: "plan-edit",
                session_id: t.session_id.clone(),
                agent_id: t.agent_id.clone(),
                file: t.path.display().to_string(),
                plan_file: plan_file.display().to_string(),
                mutations: lines.len(),
                bound_by_owner: bound_by.iter().any(|b| b.session_id == t.session_id),
                bound_by,
                lines,
                at: t.at(),
            });
        }
    }
    rows
}

/// `<slug>.md` when `p` is `…/.claude/plans/<slug>.md`.
fn moved_home_name(p: &Path) -> Option<String> {
    let name = p.file_name()?.to_str()?;
    let plans = p.parent()?;
    (plans.file_name()? == "plans" && plans.parent()?.file_name()? == ".claude")
        .then(|| name.to_string())
}

type Bindings = HashMap<PathBuf, Vec<BoundBy>>;

/// Plan file → the sessions binding it, over every transcript of the home;
/// and `<slug>.md` → the slug-only bindings in the default `<home>/plans`.
fn bindings(home: &ClaudeHome, problems: &Problems) -> (Bindings, HashMap<String, Vec<BoundBy>>) {
    let all = match target::resolve(home, &[], true) {
        Ok(sel) => sel.transcripts,
        Err(_) => Vec::new(),
    };
    let found = crate::scan::par_map(&all, |t| {
        let s = Source::open(&t.path).map_err(|e| (t.path.clone(), e.to_string()))?;
        let b = plan::bind(&s, &home.root, t.is_lane()).map(|b| (t.session_id.clone(), b));
        s.check().map_err(|e| (t.path.clone(), e.to_string()))?;
        Ok(b)
    });
    let default = normal(&home.root.join("plans"));
    let mut out: Bindings = HashMap::new();
    let mut moved: HashMap<String, Vec<BoundBy>> = HashMap::new();
    for r in found {
        match r {
            Ok(Some((session_id, b))) => {
                let by = BoundBy {
                    session_id,
                    line: b.line,
                    binding_source: b.source.name(),
                };
                let k = key(&b.plan_file);
                if b.source == plan::Source::SlugOnly && k.parent() == Some(default.as_path()) {
                    if let Some(n) = k.file_name().and_then(|n| n.to_str()) {
                        moved.entry(n.to_string()).or_default().push(by.clone());
                    }
                }
                out.entry(k).or_default().push(by);
            }
            Ok(None) => {}
            Err((p, e)) => problems.report(&p, e),
        }
    }
    (out, moved)
}

fn human<W: Write>(w: &mut W, st: Style, rows: &[EditRow], s: &Summary) -> io::Result<()> {
    for r in rows {
        writeln!(
            w,
            "{}{}{}  {} mutation(s) to {}  ({})",
            st.head,
            clean(&r.at),
            st.reset,
            r.mutations,
            clean(&r.plan_file),
            r.lines
                .iter()
                .map(|l| format!("L{l}"))
                .collect::<Vec<_>>()
                .join(" ")
        )?;
        if !r.bound_by_owner {
            let by: Vec<String> = r
                .bound_by
                .iter()
                .map(|b| format!("{}, L{}", b.session_id, b.line))
                .collect();
            writeln!(
                w,
                "  {}warning: {} mutation(s) to {} by session {}, which does NOT bind it (bound by {}). \
                 Only the BOUND plan is re-injected in full after a compaction.{}",
                st.warn,
                r.mutations,
                clean(&r.plan_file),
                r.session_id,
                by.join("; "),
                st.reset
            )?;
        }
    }
    writeln!(
        w,
        "{}{} bindings in the home · {} plan files edited · {} edits · {} warnings{}",
        st.dim, s.bindings, s.plan_files_touched, s.edits, s.warnings, st.reset
    )
}
