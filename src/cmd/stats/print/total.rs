//! The human form of a stats report's total: its head (files, bytes, time
//! span), record and block counts, labels, unknown shapes, malformed lines,
//! the token table and the tool table.

use std::io::{self, Write};

use super::super::census::{Census, Counts};
use super::super::Report;
use super::{counts_line, n, sum_tokens, tail};
use crate::classify::Label;
use crate::cmd::human_bytes;
use crate::output::sanitize::one_line;
use crate::output::Out;
use crate::timefmt;
use crate::tokens::Row;

pub(super) fn total(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
    let c = &r.total.census;
    total_head(out, r)?;
    total_counts(out, c)?;
    total_labels(out, c)?;
    tokens(out, r)?;
    tools(out, c)?;
    total_unknown(out, c)?;
    total_malformed(out, c)
}

/// The total's first line, its time span and what a window left out.
fn total_head(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
    let st = out.style;
    let t = &r.total;
    let c = &t.census;
    let lanes = c.lanes;
    writeln!(
        out,
        "{}TOTAL{} {} transcripts ({} lanes) · {} lines · {} · {} malformed · {} turns ({} genuine-user) · {} compactions · {} images",
        st.head, st.reset, t.transcripts, lanes, n(c.lines), human_bytes(c.bytes), c.malformed_lines,
        n(c.turns), n(c.genuine_user_turns), c.compactions, c.images
    )?;
    if let (Some(a), Some(b)) = (c.first_ts, c.last_ts) {
        writeln!(
            out,
            "  time        {} → {} · turn_duration {} × Σ {}",
            timefmt::local(a),
            timefmt::local(b),
            c.turn_durations,
            timefmt::duration((c.turn_duration_ms / 1000) as i64)
        )?;
    }
    if c.outside_window > 0 {
        writeln!(
            out,
            "  window      {} records outside --since/--until not counted",
            n(c.outside_window)
        )?;
    }
    Ok(())
}

/// One line per census map (the rare ones only when not empty).
fn total_counts(out: &mut Out, c: &Census) -> io::Result<()> {
    let lines: [(&str, &Counts); 10] = [
        ("records", &c.record_types),
        ("system", &c.system_subtypes),
        ("attachments", &c.attachment_types),
        ("blocks", &c.block_types),
        ("content", &c.content_shapes),
        ("parts", &c.result_part_types),
        ("results", &c.result_shapes),
        ("versions", &c.versions),
        ("models", &c.models),
        ("glued", &c.glued_records),
    ];
    for (name, m) in lines {
        if matches!(name, "glued" | "content" | "parts") && m.is_empty() {
            continue;
        }
        writeln!(out, "  {name:<11} {}", counts_line(m, 12))?;
    }
    if !c.nested_record_types.is_empty() {
        writeln!(
            out,
            "  nested      {}; blocks {}",
            counts_line(&c.nested_record_types, 12),
            counts_line(&c.nested_block_types, 12)
        )?;
    }
    Ok(())
}

/// Units by label, and narration blocks per model.
fn total_labels(out: &mut Out, c: &Census) -> io::Result<()> {
    let labels: Counts = Label::ALL
        .iter()
        .zip(&c.labels)
        .filter(|(_, &v)| v > 0)
        .map(|(l, &v)| (l.name().to_string(), v))
        .collect();
    let embedded = match c.units_embedded {
        0 => String::new(),
        e => format!(
            " ({} from subagent records in agent_progress records)",
            n(e)
        ),
    };
    writeln!(
        out,
        "  labels      {} units{embedded}: {}",
        n(c.units),
        counts_line(&labels, 40)
    )?;
    if !c.narration_blocks.is_empty() {
        // Usage covers a message's reasoning and narration blocks together.
        writeln!(
            out,
            "  narration   {} blocks (tokens are per message, not split between a narration and its reasoning)",
            counts_line(&c.narration_blocks, 12)
        )?;
    }
    Ok(())
}

/// The names csift does not model, by kind.
fn total_unknown(out: &mut Out, c: &Census) -> io::Result<()> {
    let st = out.style;
    let unknown = c.unknown();
    let any = unknown.values().any(|m| !m.is_empty());
    if any {
        writeln!(out, "  {}unknown{}", st.warn, st.reset)?;
        for (kind, m) in unknown.iter().filter(|(_, m)| !m.is_empty()) {
            writeln!(out, "    {kind:<22} {}", counts_line(m, 20))?;
        }
    } else {
        writeln!(out, "  unknown     none (every name seen is modelled)")?;
    }
    Ok(())
}

/// The first malformed lines, how many more, and repaired lines.
fn total_malformed(out: &mut Out, c: &Census) -> io::Result<()> {
    let st = out.style;
    for m in &c.malformed {
        writeln!(
            out,
            "  {}malformed{}   {}:{} {}: {}",
            st.warn,
            st.reset,
            one_line(&m.file),
            m.line,
            m.kind,
            one_line(&m.detail)
        )?;
    }
    if c.malformed_lines as usize > c.malformed.len() {
        writeln!(
            out,
            "  (+{} more malformed lines)",
            c.malformed_lines as usize - c.malformed.len()
        )?;
    }
    if c.repaired_surrogates > 0 {
        writeln!(
            out,
            "  repaired    {} lines read by taking a lone surrogate escape (a string cut inside an emoji) as U+FFFD",
            n(c.repaired_surrogates)
        )?;
    }
    Ok(())
}

fn tokens(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
    let t = &r.total;
    let c = &t.census;
    writeln!(
        out,
        "  tokens      one API message counts once (rule: csift stats --help)"
    )?;
    writeln!(
        out,
        "    {:<30} {:>6} {:>7} {:>11} {:>11} {:>13} {:>13} {:>11} {:>11} {:>9}",
        "MODEL",
        "MSGS",
        "RECORDS",
        "INPUT",
        "OUTPUT",
        "CACHE_READ",
        "CACHE_WRITE",
        "CW_5M",
        "CW_1H",
        "THINKING"
    )?;
    let mut all = Row::default();
    let rows: Vec<(&String, &Row)> = c.tokens.iter().chain(&c.tokens_apart).collect();
    for (m, row) in rows {
        let apart = c.tokens_apart.contains_key(m);
        if !apart {
            all.add(row);
        }
        let name = if apart {
            format!("{} (apart)", m)
        } else {
            m.clone()
        };
        token_row(out, &name, row)?;
    }
    token_row(out, "(all real models)", &all)?;
    // Like with like: the total beside it is the real models' (`<synthetic>`
    // is counted apart).
    let mut real_rows = t.tokens_sum_of_rows.clone();
    real_rows.remove(crate::tokens::SYNTHETIC);
    let sum = sum_tokens(&real_rows);
    let notes = &c.token_notes;
    writeln!(
        out,
        "    shared across files: {} ids (Σ rows output {} vs total {}) · differing copies {} · zeroed copies recovered {} · id-less {} · assistant without usage {}",
        t.shared_ids,
        n(sum.vals.output),
        n(all.vals.output),
        n(notes.ids_with_differing_copies),
        notes.zeroed_copies_recovered,
        notes.idless_usage_records,
        notes.assistant_without_usage
    )?;
    if notes.progress_embedded_ids > 0 {
        writeln!(
            out,
            "    agent_progress-embedded messages: {} ids, {} never top-level (not counted)",
            notes.progress_embedded_ids, t.progress_only_ids
        )?;
    }
    Ok(())
}

fn token_row(out: &mut Out, name: &str, r: &Row) -> io::Result<()> {
    let v = &r.vals;
    writeln!(
        out,
        "    {:<30} {:>6} {:>7} {:>11} {:>11} {:>13} {:>13} {:>11} {:>11} {:>9}",
        tail(&one_line(name), 30),
        n(r.messages),
        n(r.records),
        n(v.input),
        n(v.output),
        n(v.cache_read),
        n(v.cache_creation),
        n(v.cc_5m),
        n(v.cc_1h),
        n(v.thinking)
    )
}

fn tools(out: &mut Out, c: &Census) -> io::Result<()> {
    let mut v: Vec<_> = c.tools.iter().collect();
    v.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then_with(|| a.0.cmp(b.0)));
    let parts: Vec<String> = v
        .iter()
        .take(30)
        .map(|(name, t)| {
            let mut s = format!("{}={}", one_line(name), t.calls);
            if t.errors > 0 || t.unanswered > 0 {
                s.push_str(&format!("({}err", t.errors));
                if t.unanswered > 0 {
                    s.push_str(&format!(
                        ",{}unanswered/{}tail",
                        t.unanswered, t.unanswered_at_tail
                    ));
                }
                s.push(')');
            }
            s
        })
        .collect();
    let more = v.len().saturating_sub(30);
    writeln!(
        out,
        "  tools       {}{}{}",
        if parts.is_empty() {
            "-".into()
        } else {
            parts.join(" ")
        },
        if more > 0 {
            format!(" (+{more} more)")
        } else {
            String::new()
        },
        if c.orphan_results > 0 {
            format!(" · {} results with no call in their file", c.orphan_results)
        } else {
            String::new()
        }
    )
}
