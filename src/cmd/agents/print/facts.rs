//! The facts a lane's row prints beside its title: how it joined its spawn and
//! parent, its counts and tokens, a teammate's traffic, the files it wrote, and
//! a workflow footer.

use std::collections::HashSet;
use std::io::{self, Write};

use super::super::carriers::Footer;
use super::super::row::{LaneRow, Teammate};
use super::human_tokens;
use crate::output::sanitize::one_line;
use crate::output::Style;

/// How the lane joined its spawn and parent: the spawning call, the join
/// rule and the rules that agree, a parent without a lane file, why it is
/// unresolved, where an inline sidechain starts.
pub(super) fn join_facts(r: &LaneRow, keys: &HashSet<&str>) -> Vec<String> {
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
    facts
}

/// What the lane's records add up to and their span: from its file, or
/// from its records nested in agent_progress records; malformed lines.
pub(super) fn count_facts(r: &LaneRow) -> Vec<String> {
    let mut facts = Vec::new();
    let span = || {
        format!(
            "{} → {}",
            one_line(r.started_utc.as_deref().unwrap_or("?")),
            one_line(r.last_utc.as_deref().unwrap_or("?"))
        )
    };
    if r.nested_records {
        facts.push(format!(
            "{} records · {} tool calls (nested in agent_progress records; tokens: the footer's)",
            r.records, r.tool_calls
        ));
        facts.push(span());
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
        facts.push(span());
    }
    if r.malformed_lines > 0 {
        facts.push(format!("{} malformed lines skipped", r.malformed_lines));
    }
    facts
}

/// A teammate's name and team, its traffic both ways with control signals
/// by type, and whether it was shut down.
pub(super) fn teammate<W: Write>(w: &mut W, st: Style, tm: &Teammate, pad: &str) -> io::Result<()> {
    let sigs = |v: &[(String, usize)]| {
        v.iter()
            .map(|(k, n)| format!("{k}×{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    writeln!(
        w,
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
    )
}

/// The continuation footer's facts (SUB-019).
pub(super) fn footer_facts(f: &Footer) -> String {
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
    parts.join(" · ")
}

/// Paths listed on a lane's `wrote` line before the rest are counted.
const WRITTEN_SHOWN: usize = 8;

/// `--with-files`: the lane's `wrote` line (nothing without the flag).
pub(super) fn written<W: Write>(w: &mut W, st: Style, r: &LaneRow, pad: &str) -> io::Result<()> {
    let Some(files) = &r.files_written else {
        return Ok(());
    };
    let Some(files) = files else {
        return writeln!(
            w,
            "{pad}wrote: unknown (its records are not on disk apart){}",
            st.reset
        );
    };
    let mut parts: Vec<String> = files
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
    if files.len() > WRITTEN_SHOWN {
        parts.push(format!("… and {} more", files.len() - WRITTEN_SHOWN));
    }
    let opaque = match r.files_opaque.unwrap_or(0) {
        0 => String::new(),
        n => format!(" · {n} commands that change files they do not name"),
    };
    let count = match files.len() {
        0 => "no file".to_string(),
        1 => "1 file: ".to_string(),
        n => format!("{n} files: "),
    };
    writeln!(
        w,
        "{pad}wrote {count}{}{opaque}{}",
        parts.join(", "),
        st.reset
    )
}
