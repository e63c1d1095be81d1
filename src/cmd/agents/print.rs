//! Printing a session tree: the human tree (ids printed as `@<id>` so they paste
//! straight into `show`, `search`, `stats`) and JSON Lines (exact text, one object
//! per lane and per workflow run). All transcript text in human form goes through
//! `sanitize`; a shortened return says how many characters were left out.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use super::row::{LaneRow, LaneState, RunRow};
use super::session::Tree;
use crate::cli::agents::{AgentsArgs, ReturnsArg};
use crate::output::sanitize::one_line;
use crate::output::{json_line, Style};
use facts::{count_facts, footer_facts, join_facts, teammate, written};

mod facts;

/// Rows to show: the kept ones plus their ancestors as context.
fn shown(t: &Tree, keep: &[bool]) -> Vec<Option<bool>> {
    let by_key: HashMap<&str, usize> = t
        .lanes
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.key().map(|k| (k, i)))
        .collect();
    let mut out: Vec<Option<bool>> = keep.iter().map(|k| k.then_some(true)).collect();
    for (i, k) in keep.iter().enumerate() {
        if !k {
            continue;
        }
        let mut seen = HashSet::new();
        let mut cur = t.lanes[i].parent_id.as_deref();
        while let Some(&p) = cur.and_then(|c| by_key.get(c)) {
            if !seen.insert(p) {
                break;
            }
            out[p].get_or_insert(false);
            cur = t.lanes[p].parent_id.as_deref();
        }
    }
    out
}

pub(crate) fn json<W: Write>(w: &mut W, t: &Tree, keep: &[bool]) -> io::Result<()> {
    let mut runs_kept = HashSet::new();
    for (r, k) in t.lanes.iter().zip(keep) {
        if *k {
            json_line(w, r)?;
            if let Some(w) = &r.workflow_id {
                runs_kept.insert(w.as_str());
            }
        }
    }
    for run in t
        .runs
        .iter()
        .filter(|r| runs_kept.contains(r.workflow_id.as_str()))
    {
        json_line(w, run)?;
    }
    Ok(())
}

fn short_text(s: &str, width: usize) -> String {
    let flat = one_line(s);
    let n = flat.chars().count();
    if width == 0 || n <= width {
        return flat;
    }
    let cut: String = flat.chars().take(width).collect();
    format!("{cut}… (+{} chars)", n - width)
}

fn human_tokens(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}K", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

pub(crate) fn tree<W: Write>(
    w: &mut W,
    st: Style,
    t: &Tree,
    keep: &[bool],
    args: &AgentsArgs,
) -> io::Result<()> {
    let show = shown(t, keep);
    if !show.iter().any(Option::is_some) {
        return Ok(());
    }
    let main = match (&t.main_path, &t.main) {
        (Some(_), Some(m)) => format!("main: {} records, {} tool calls", m.records, m.tool_calls),
        _ => "main transcript MISSING".to_string(),
    };
    writeln!(
        w,
        "{}session @{}{}  {}  ({main})",
        st.head,
        one_line(&t.session_id),
        st.reset,
        one_line(&t.project)
    )?;
    let draw = Draw {
        st,
        keys: t.lanes.iter().filter_map(LaneRow::key).collect(),
        width: args.width,
        returns: args.returns,
    };
    let mut runs_done: HashSet<&str> = HashSet::new();
    let mut orphans_head = false;
    for (r, s) in t.lanes.iter().zip(&show) {
        let Some(full) = *s else { continue };
        if r.parent_id.is_none() && !orphans_head {
            orphans_head = true;
            writeln!(w, "{}orphans (no parent found):{}", st.warn, st.reset)?;
        }
        let indent = "   ".repeat(r.depth.saturating_sub(1));
        if let Some(wf) = r.workflow_id.as_deref().filter(|wf| runs_done.insert(wf)) {
            if let Some(run) = t.runs.iter().find(|x| x.workflow_id == wf) {
                run_line(w, st, run, &indent)?;
            }
        }
        draw.lane(w, r, &indent, full)?;
    }
    Ok(())
}

/// A workflow run's line, above its first lane.
fn run_line<W: Write>(w: &mut W, st: Style, run: &RunRow, indent: &str) -> io::Result<()> {
    writeln!(
        w,
        "{indent}{}└─ run {}{}  status {} · journal {} started / {} results{} · {} lanes",
        st.label,
        one_line(&run.workflow_id),
        st.reset,
        run.status
            .as_deref()
            .map_or("(no manifest)".to_string(), one_line),
        run.journal_started,
        run.journal_results,
        if run.journal_failed > 0 {
            format!(" / {} failed", run.journal_failed)
        } else {
            String::new()
        },
        run.lanes
    )
}

/// What drawing a lane needs besides its row: the colours, the ids of the
/// lanes in the tree (a parent outside them has no lane file), and the
/// return options.
struct Draw<'a> {
    st: Style,
    keys: HashSet<&'a str>,
    width: usize,
    returns: ReturnsArg,
}

impl Draw<'_> {
    /// One lane: its title line and, when shown in full (not only as an
    /// ancestor of a lane shown), its facts, what it waits on, its teammate
    /// and fork facts, the files it wrote and its returns.
    fn lane<W: Write>(&self, w: &mut W, r: &LaneRow, indent: &str, full: bool) -> io::Result<()> {
        self.title(w, r, indent, full)?;
        if !full {
            return Ok(());
        }
        let st = self.st;
        let pad = format!("{indent}     {}", st.dim);
        let mut facts = join_facts(r, &self.keys);
        facts.extend(count_facts(r));
        writeln!(w, "{pad}{}{}", facts.join(" · "), st.reset)?;
        self.waits(w, r, &pad)?;
        if let Some(tm) = &r.teammate {
            teammate(w, st, tm, &pad)?;
        }
        if let Some(f) = &r.fork_parent_last_uuid {
            writeln!(
                w,
                "{pad}forked at {f} ({} messages of context){}",
                r.fork_context_length.unwrap_or(0),
                st.reset
            )?;
        }
        written(w, st, r, &pad)?;
        self.returns(w, r, indent, &pad)
    }

    /// The lane's line in the tree: id, kind, agent type, state and its
    /// carrier, description; dimmed for an ancestor shown as context.
    fn title<W: Write>(&self, w: &mut W, r: &LaneRow, indent: &str, full: bool) -> io::Result<()> {
        let st = self.st;
        // Agent ids come from file names; every printed id, time and tool is cleaned.
        let id = match &r.agent_id {
            Some(a) if r.path.is_some() && !a.starts_with("inline:") => format!("@{}", one_line(a)),
            Some(a) => one_line(a),
            None => one_line(&r.label()),
        };
        let (dim, reset) = if full {
            ("", st.reset)
        } else {
            (st.dim, st.reset)
        };
        let mut head = format!(
            "{indent}{dim}└─ {}{id}{reset}{dim}  {}",
            st.hit,
            r.kind.name()
        );
        if let Some(a) = &r.agent_type {
            head.push_str(&format!(" [{}]", one_line(a)));
        }
        head.push_str(&format!("  {}{}{}", st.label, r.state.name(), reset));
        if let Some(c) = r.carrier {
            head.push_str(&format!("{dim} via {c}"));
        }
        if let Some(d) = &r.description {
            head.push_str(&format!("  \"{}\"", short_text(d, 80)));
        }
        if r.path.is_none() && r.line.is_none() {
            head.push_str(match r.nested_records {
                true => "  (no lane file; its records are in agent_progress records)",
                false => "  (no lane file)",
            });
        }
        writeln!(w, "{head}{reset}")
    }

    /// What a pending lane waits on, and whether its tail still moves.
    fn waits<W: Write>(&self, w: &mut W, r: &LaneRow, pad: &str) -> io::Result<()> {
        let st = self.st;
        if r.state == LaneState::Pending {
            let tool = one_line(r.pending_tool_name.as_deref().unwrap_or("?"));
            let since = r.pending_since_utc.as_deref().unwrap_or("?");
            match &r.pending_reason {
                Some(reason) => writeln!(
                    w,
                    "{pad}escalation-blocked: {tool} since {since}: Claude Code asks a human before it runs ({}){}",
                    one_line(reason),
                    st.reset
                )?,
                None => writeln!(
                    w,
                    "{pad}awaiting-execution: {tool} since {since} (slow, wedged and abandoned look the same on disk){}",
                    st.reset
                )?,
            }
        }
        if r.generating {
            writeln!(
                w,
                "{pad}tail is under 5 minutes old and the turn has not ended{}",
                st.reset
            )?;
        }
        Ok(())
    }

    /// What the parent received (an error text for a failed lane), the
    /// footer split off it, and the child's own last words where they differ
    /// or the parent's text is not shown.
    fn returns<W: Write>(&self, w: &mut W, r: &LaneRow, indent: &str, pad: &str) -> io::Result<()> {
        let parent_text = r.returned_message.as_ref().and_then(Option::as_deref);
        if let Some(p) = parent_text {
            let verb = if r.state == LaneState::Failed {
                "error"
            } else {
                "returned"
            };
            writeln!(
                w,
                "{indent}     ↳ {verb} ({}): {}",
                r.returned_message_source.unwrap_or("?"),
                short_text(p, self.width)
            )?;
        }
        if let Some(f) = &r.footer {
            writeln!(w, "{pad}{}{}", footer_facts(f), self.st.reset)?;
        }
        let child = r.child_final_text.as_ref().and_then(Option::as_deref);
        let differs = parent_text.is_none()
            || r.returns_differ == Some(true)
            || !self.returns.eq(&ReturnsArg::Both);
        if let Some(c) = child.filter(|_| differs) {
            writeln!(
                w,
                "{indent}     ↳ child's last words: {}",
                short_text(c, self.width)
            )?;
        }
        Ok(())
    }
}
