//! Printing a session tree: the human tree (ids printed as `@<id>` so they paste
//! straight into `show`, `search`, `stats`) and JSON Lines (exact text, one object
//! per lane and per workflow run). All transcript text in human form goes through
//! `sanitize`; a shortened return says how many characters were left out.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::time::Instant;

use super::row::{LaneKind, LaneRow, LaneState};
use super::session::Tree;
use crate::cli::agents::AgentsArgs;
use crate::output::sanitize::one_line;
use crate::output::Out;

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

pub(crate) fn json(
    out: &mut Out,
    t: &Tree,
    keep: &[bool],
    _args: &AgentsArgs,
) -> std::io::Result<()> {
    let mut runs_kept = HashSet::new();
    for (r, k) in t.lanes.iter().zip(keep) {
        if *k {
            out.json(r)?;
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
        out.json(run)?;
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

pub(crate) fn tree(
    out: &mut Out,
    t: &Tree,
    keep: &[bool],
    args: &AgentsArgs,
) -> std::io::Result<()> {
    let st = out.style;
    let show = shown(t, keep);
    if !show.iter().any(Option::is_some) {
        return Ok(());
    }
    let main = match (&t.main_path, &t.main) {
        (Some(_), Some(m)) => format!("main: {} records, {} tool calls", m.records, m.tool_calls),
        _ => "main transcript MISSING".to_string(),
    };
    writeln!(
        out,
        "{}session @{}{}  {}  ({main})",
        st.head,
        one_line(&t.session_id),
        st.reset,
        one_line(&t.project)
    )?;
    let keys: HashSet<&str> = t.lanes.iter().filter_map(LaneRow::key).collect();
    let mut runs_done: HashSet<&str> = HashSet::new();
    let mut orphans_head = false;
    for (r, s) in t.lanes.iter().zip(&show) {
        let Some(full) = *s else { continue };
        if r.parent_id.is_none() && !orphans_head {
            orphans_head = true;
            writeln!(out, "{}orphans (no parent found):{}", st.warn, st.reset)?;
        }
        let indent = "   ".repeat(r.depth.saturating_sub(1));
        if let Some(w) = r.workflow_id.as_deref().filter(|w| runs_done.insert(w)) {
            if let Some(run) = t.runs.iter().find(|x| x.workflow_id == w) {
                writeln!(
                    out,
                    "{indent}{}└─ run {}{}  status {} · journal {} started / {} results{} · {} lanes",
                    st.label,
                    one_line(w),
                    st.reset,
                    run.status.as_deref().map_or("(no manifest)".to_string(), one_line),
                    run.journal_started,
                    run.journal_results,
                    if run.journal_failed > 0 { format!(" / {} failed", run.journal_failed) } else { String::new() },
                    run.lanes
                )?;
            }
        }
        lane(out, r, &indent, full, &keys, args)?;
    }
    Ok(())
}

fn lane(
    out: &mut Out,
    r: &LaneRow,
    indent: &str,
    full: bool,
    keys: &HashSet<&str>,
    args: &AgentsArgs,
) -> std::io::Result<()> {
    let st = out.style;
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
    writeln!(out, "{head}{reset}")?;
    if !full {
        return Ok(());
    }
    let pad = format!("{indent}     {}", st.dim);
    let mut facts = Vec::new();
    match (&r.spawn_tool_use_id, &r.spawn_tool) {
        (Some(s), Some(tool)) => facts.push(format!(
            "spawned by {} {} at {}",
            one_line(tool),
            one_line(s),
            one_line(r.spawn_utc.as_deref().unwrap_or("?"))
        )),
        (Some(s), None) => facts.push(format!("spawn {} (not in any transcript)", one_line(s))),
        _ => {}
    }
    if let Some(rule) = r.join_rule {
        let agree = if r.join_agree.len() > 1 {
            format!(" (agree {})", r.join_agree.join(","))
        } else {
            String::new()
        };
        facts.push(format!("join {rule}{agree}"));
    }
    if let Some(p) = r
        .parent_id
        .as_deref()
        .filter(|p| *p != "main" && !keys.contains(p))
    {
        facts.push(format!("parent @{} has no lane file", one_line(p)));
    }
    if let Some(why) = r.unresolved_reason {
        facts.push(format!("unresolved: {why}"));
    }
    if let Some(n) = r.line {
        // An inline sidechain has no file of its own: where it starts in the main one.
        facts.push(format!("in the main file from line {n}"));
    }
    if r.nested_records {
        facts.push(format!(
            "{} records · {} tool calls (nested in agent_progress records; tokens: the footer's)",
            r.records, r.tool_calls
        ));
        facts.push(format!(
            "{} → {}",
            one_line(r.started_utc.as_deref().unwrap_or("?")),
            one_line(r.last_utc.as_deref().unwrap_or("?"))
        ));
    }
    if r.path.is_some() {
        facts.push(format!(
            "{} records · {} tool calls · tokens in {} out {} cache r {} w {}",
            r.records,
            r.tool_calls,
            human_tokens(r.tokens.input),
            human_tokens(r.tokens.output),
            human_tokens(r.tokens.cache_read),
            human_tokens(r.tokens.cache_creation)
        ));
        facts.push(format!(
            "{} → {}",
            one_line(r.started_utc.as_deref().unwrap_or("?")),
            one_line(r.last_utc.as_deref().unwrap_or("?"))
        ));
    }
    if r.malformed_lines > 0 {
        facts.push(format!("{} malformed lines skipped", r.malformed_lines));
    }
    writeln!(out, "{pad}{}{}", facts.join(" · "), st.reset)?;
    if r.state == LaneState::Pending {
        let tool = one_line(r.pending_tool_name.as_deref().unwrap_or("?"));
        let since = r.pending_since_utc.as_deref().unwrap_or("?");
        match &r.pending_reason {
            Some(reason) => writeln!(
                out,
                "{pad}escalation-blocked: {tool} since {since}: Claude Code asks a human before it runs ({}){}",
                one_line(reason),
                st.reset
            )?,
            None => writeln!(
                out,
                "{pad}awaiting-execution: {tool} since {since} (slow, wedged and abandoned look the same on disk){}",
                st.reset
            )?,
        }
    }
    if r.generating {
        writeln!(
            out,
            "{pad}tail is under 5 minutes old and the turn has not ended{}",
            st.reset
        )?;
    }
    if let Some(tm) = &r.teammate {
        let sigs = |v: &[(String, usize)]| {
            v.iter()
                .map(|(k, n)| format!("{k}×{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        writeln!(
            out,
            "{pad}teammate {}{} · to it {} [{}] · from it {} [{}]{}{}",
            one_line(tm.name.as_deref().unwrap_or("?")),
            tm.team_name
                .as_deref()
                .map(|t| format!("@{}", one_line(t)))
                .unwrap_or_default(),
            tm.messages_in,
            sigs(&tm.signals_in),
            tm.messages_out,
            sigs(&tm.signals_out),
            if tm.terminated { " · terminated" } else { "" },
            st.reset
        )?;
    }
    if let Some(f) = &r.fork_parent_last_uuid {
        writeln!(
            out,
            "{pad}forked at {f} ({} messages of context){}",
            r.fork_context_length.unwrap_or(0),
            st.reset
        )?;
    }
    written(out, r, &pad)?;
    let parent_text = r.returned_message.as_ref().and_then(Option::as_deref);
    if let Some(p) = parent_text {
        // What the parent received: an error text for a failed lane, not a return.
        let verb = if r.state == LaneState::Failed {
            "error"
        } else {
            "returned"
        };
        writeln!(
            out,
            "{indent}     ↳ {verb} ({}): {}",
            r.returned_message_source.unwrap_or("?"),
            short_text(p, args.width)
        )?;
    }
    if let Some(f) = &r.footer {
        let mut parts = vec![format!("footer agentId {}", f.agent_id)];
        if let Some(n) = f.total_tokens {
            parts.push(format!("{n} tokens"));
        }
        if let Some(n) = f.tool_uses {
            parts.push(format!("{n} tool uses"));
        }
        if let Some(n) = f.duration_ms {
            parts.push(format!("{n} ms"));
        }
        writeln!(out, "{pad}{}{}", parts.join(" · "), st.reset)?;
    }
    let child = r.child_final_text.as_ref().and_then(Option::as_deref);
    let differs = parent_text.is_none()
        || r.returns_differ == Some(true)
        || !args.returns.eq(&crate::cli::agents::ReturnsArg::Both);
    if let Some(c) = child.filter(|_| differs) {
        writeln!(
            out,
            "{indent}     ↳ child's last words: {}",
            short_text(c, args.width)
        )?;
    }
    Ok(())
}

/// Paths listed on a lane's `wrote` line before the rest are counted.
const WRITTEN_SHOWN: usize = 8;

/// `--with-files`: the lane's `wrote` line (nothing without the flag).
fn written(out: &mut Out, r: &LaneRow, pad: &str) -> std::io::Result<()> {
    let st = out.style;
    let Some(w) = &r.files_written else {
        return Ok(());
    };
    let Some(w) = w else {
        return writeln!(
            out,
            "{pad}wrote: unknown (its records are not on disk apart){}",
            st.reset
        );
    };
    let mut parts: Vec<String> = w
        .iter()
        .take(WRITTEN_SHOWN)
        .map(|f| {
            let n = match f.touches {
                1 => String::new(),
                n => format!("×{n}"),
            };
            format!("{} ({}{n})", one_line(&f.path), f.kinds.join(","))
        })
        .collect();
    if w.len() > WRITTEN_SHOWN {
        parts.push(format!("… and {} more", w.len() - WRITTEN_SHOWN));
    }
    let opaque = match r.files_opaque.unwrap_or(0) {
        0 => String::new(),
        n => format!(" · {n} commands that change files they do not name"),
    };
    let files = match w.len() {
        0 => "no file".to_string(),
        1 => "1 file: ".to_string(),
        n => format!("{n} files: "),
    };
    writeln!(
        out,
        "{pad}wrote {files}{}{opaque}{}",
        parts.join(", "),
        st.reset
    )
}

/// What the footer and the JSON summary count over the lanes shown.
struct Tally {
    all: usize,
    shown: usize,
    sessions: usize,
    orphans: usize,
    laneless: usize,
    teammates: bool,
}

fn tally(trees: &[Tree], keeps: &[Vec<bool>]) -> Tally {
    let lanes = trees
        .iter()
        .zip(keeps)
        .flat_map(|(t, k)| t.lanes.iter().zip(k).filter(|(_, k)| **k).map(|(r, _)| r));
    Tally {
        all: trees.iter().map(|t| t.lanes.len()).sum::<usize>(),
        shown: lanes.clone().count(),
        sessions: keeps.iter().filter(|k| k.iter().any(|k| *k)).count(),
        orphans: lanes.clone().filter(|r| r.parent_id.is_none()).count(),
        laneless: lanes.clone().filter(|r| r.path.is_none()).count(),
        teammates: lanes.clone().any(|r| r.kind == LaneKind::Teammate),
    }
}

/// The JSON summary line, as the other commands end theirs.
pub(crate) fn json_summary(
    out: &mut Out,
    trees: &[Tree],
    keeps: &[Vec<bool>],
    errors: usize,
    started: Instant,
) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Summary {
        #[serde(rename = "type")]
        kind: &'static str,
        sessions: usize,
        lanes: usize,
        shown: usize,
        dropped: usize,
        orphans: usize,
        lane_less_spawns: usize,
        errors: usize,
        elapsed_ms: u128,
    }
    let t = tally(trees, keeps);
    out.json(&Summary {
        kind: "summary",
        sessions: t.sessions,
        lanes: t.all,
        shown: t.shown,
        dropped: t.all - t.shown,
        orphans: t.orphans,
        lane_less_spawns: t.laneless,
        errors,
        elapsed_ms: started.elapsed().as_millis(),
    })
}

/// The counts of what was shown (the lanes `keeps` kept), and how many lanes
/// the filters left out.
pub(crate) fn footer(
    out: &mut Out,
    trees: &[Tree],
    keeps: &[Vec<bool>],
    started: Instant,
) -> std::io::Result<()> {
    let st = out.style;
    let Tally {
        all,
        shown,
        sessions,
        orphans,
        laneless,
        teammates,
    } = tally(trees, keeps);
    if teammates {
        writeln!(
            out,
            "{}teammates: {}{}",
            st.dim,
            super::row::TEAMMATE_HINT,
            st.reset
        )?;
    }
    let left_out = match all - shown {
        0 => String::new(),
        n => format!(" ({n} left out by --kind/--depth/--since/--until)"),
    };
    writeln!(
        out,
        "{}{shown} lanes shown in {sessions} sessions{left_out} · {orphans} orphans · {laneless} spawns without a lane file · {} ms{}",
        st.dim,
        started.elapsed().as_millis(),
        st.reset
    )
}
