//! Printing a stats report: JSON Lines (one `transcript` or `group` object per
//! row, then one `total`), or a compact human table followed by the total's
//! census. File names and every name read from transcripts go through
//! `sanitize::one_line` in human form; JSON is exact.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::census::{Census, Counts};
use super::{Body, Report, RowOut};
use crate::classify::Label;
use crate::cmd::human_bytes;
use crate::discovery::Transcript;
use crate::output::sanitize::one_line;
use crate::output::Out;
use crate::timefmt;
use crate::tokens::Row;

fn labels_map(v: &[u64]) -> Map<String, Value> {
    Label::ALL
        .iter()
        .zip(v)
        .filter(|(_, &n)| n > 0)
        .map(|(l, &n)| (l.name().to_string(), json!(n)))
        .collect()
}

fn ts(t: Option<jiff::Timestamp>) -> Value {
    t.map_or(Value::Null, |t| json!(crate::timefmt::utc_exact(t)))
}

/// The fields every row and the total share.
fn fields(c: &Census) -> Map<String, Value> {
    let mut m = Map::new();
    let records: u64 = c.record_types.values().sum();
    let pairs: Vec<(&str, Value)> = vec![
        ("lines", json!(c.lines)),
        ("bytes", json!(c.bytes)),
        ("malformed_lines", json!(c.malformed_lines)),
        ("repaired_surrogates", json!(c.repaired_surrogates)),
        ("malformed", json!(c.malformed)),
        // The list holds the first MALFORMED_SHOWN; the rest are counted here.
        (
            "malformed_omitted",
            json!((c.malformed_lines as usize).saturating_sub(c.malformed.len())),
        ),
        ("glued_records", json!(c.glued_records)),
        ("records", json!(records)),
        ("outside_window", json!(c.outside_window)),
        ("record_types", json!(c.record_types)),
        ("system_subtypes", json!(c.system_subtypes)),
        ("attachment_types", json!(c.attachment_types)),
        ("block_types", json!(c.block_types)),
        ("content_shapes", json!(c.content_shapes)),
        ("result_part_types", json!(c.result_part_types)),
        ("tool_use_result_shapes", json!(c.result_shapes)),
        ("nested_record_types", json!(c.nested_record_types)),
        ("nested_block_types", json!(c.nested_block_types)),
        ("units", json!(c.units)),
        ("units_embedded", json!(c.units_embedded)),
        ("labels", Value::Object(labels_map(&c.labels))),
        (
            "labels_secondary",
            Value::Object(labels_map(&c.labels_secondary)),
        ),
        ("turns", json!(c.turns)),
        ("genuine_user_turns", json!(c.genuine_user_turns)),
        ("compactions", json!(c.compactions)),
        ("first_timestamp", ts(c.first_ts)),
        ("last_timestamp", ts(c.last_ts)),
        ("turn_durations", json!(c.turn_durations)),
        ("turn_duration_ms", json!(c.turn_duration_ms)),
        ("lanes", json!(c.lanes)),
        ("inline_lanes", json!(c.inline_lanes)),
        ("spawns", json!(c.spawns)),
        ("images", json!(c.images)),
        ("versions", json!(c.versions)),
        ("models", json!(c.models)),
        ("narration_blocks", json!(c.narration_blocks)),
        ("unknown", json!(c.unknown())),
        ("tokens", json!(c.tokens)),
        ("tokens_apart", json!(c.tokens_apart)),
        ("token_notes", json!(c.token_notes)),
        ("tools", json!(c.tools)),
        ("orphan_results", json!(c.orphan_results)),
    ];
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    m
}

/// A transcript's JSON row, rendered as [`json`] prints it.
pub(crate) fn transcript_json(t: &Transcript, c: &Census) -> io::Result<Vec<u8>> {
    let mut m = Map::new();
    m.insert("type".into(), json!("transcript"));
    m.insert("file".into(), json!(t.path.display().to_string()));
    m.insert("session_id".into(), json!(t.session_id));
    m.insert("agent_id".into(), json!(t.agent_id));
    m.insert("shape".into(), json!(t.shape.name()));
    m.insert("project".into(), json!(t.project_name()));
    m.extend(fields(c));
    let mut v = Vec::new();
    crate::output::json_line(&mut v, &Value::Object(m))?;
    Ok(v)
}

pub(crate) fn json(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
    for row in &r.rows {
        let c = match (&row.body, row.transcript) {
            (Body::Json(line), _) => {
                out.write_all(line)?;
                continue;
            }
            (Body::Census(c), Some(t)) => {
                out.write_all(&transcript_json(t, c)?)?;
                continue;
            }
            (Body::Census(c), None) => c,
            (Body::Line(_), _) => continue,
        };
        let mut m = Map::new();
        m.insert("type".into(), json!("group"));
        m.insert("by".into(), json!(r.by.map(by_name)));
        m.insert("key".into(), json!(row.key));
        m.insert("transcripts".into(), json!(row.transcripts));
        m.extend(fields(c));
        out.json(&Value::Object(m))?;
    }
    let t = &r.total;
    let mut m = Map::new();
    m.insert("type".into(), json!("total"));
    m.insert("transcripts".into(), json!(t.transcripts));
    // As list's summary: rows in all, those shown, those --max-count dropped.
    m.insert("rows".into(), json!(r.rows.len() + r.rows_left_out));
    m.insert("shown".into(), json!(r.rows.len()));
    m.insert("dropped".into(), json!(r.rows_left_out));
    m.insert("shared_ids_across_files".into(), json!(t.shared_ids));
    m.insert("progress_only_ids".into(), json!(t.progress_only_ids));
    m.insert("tokens_sum_of_rows".into(), json!(t.tokens_sum_of_rows));
    m.extend(fields(&t.census));
    m.insert("errors".into(), json!(r.errors));
    m.insert("elapsed_ms".into(), json!(r.elapsed_ms));
    out.json(&Value::Object(m))
}

fn by_name(b: crate::cli::stats::GroupBy) -> &'static str {
    use crate::cli::stats::GroupBy::*;
    match b {
        Project => "project",
        Day => "day",
        Month => "month",
        Model => "model",
        Version => "version",
    }
}

/// `1,234,567`.
fn n(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `12.3M` for big counts in the row table.
fn short(v: u64) -> String {
    match v {
        0..=9_999 => v.to_string(),
        10_000..=999_999 => format!("{:.1}K", v as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", v as f64 / 1e6),
        _ => format!("{:.1}G", v as f64 / 1e9),
    }
}

fn sum_tokens(rows: &BTreeMap<String, Row>) -> Row {
    let mut t = Row::default();
    for r in rows.values() {
        t.add(r);
    }
    t
}

/// A row's name. A lane is drawn `└` only right under its own session's row
/// (`above`, the session of the last main row); any other lane row (its main
/// transcript missing, or not selected) is named `SESSION@AGENT`, as list names
/// it: drawn `└` it read as a lane of the unrelated row above it.
fn row_name(row: &RowOut<'_>, above: Option<&str>) -> String {
    match (row.transcript, &row.key) {
        (Some(t), _) => match &t.agent_id {
            Some(a) if above == Some(t.session_id.as_str()) => {
                format!("  └ {} {}", t.shape.name(), one_line(a))
            }
            Some(a) => format!(
                "{}@{} {}",
                one_line(t.short_id()),
                one_line(a),
                t.shape.name()
            ),
            // Clean before cutting: a cut could split an escape sequence.
            None => format!(
                "{}/{}",
                tail(&one_line(&t.project_name()), 24),
                one_line(t.short_id())
            ),
        },
        (None, Some(k)) => format!("{} ({} files)", one_line(k), row.transcripts),
        (None, None) => format!("(none) ({} files)", row.transcripts),
    }
}

fn tail(s: &str, max: usize) -> String {
    let count = s.chars().count();
    if count <= max {
        return s.to_string();
    }
    let skip = count - (max - 1);
    format!("…{}", s.chars().skip(skip).collect::<String>())
}

/// What a row's human line shows of its census.
#[derive(Clone, Copy)]
pub(crate) struct Brief {
    lines: u64,
    bytes: u64,
    malformed_lines: u64,
    turns: u64,
    units: u64,
    tools: super::census::ToolRow,
    tok: crate::tokens::Vals,
    first_ts: Option<jiff::Timestamp>,
}

impl Brief {
    pub(crate) fn of(c: &Census) -> Brief {
        let tools =
            c.tools
                .values()
                .fold(Default::default(), |mut a: super::census::ToolRow, t| {
                    a.add(t);
                    a
                });
        Brief {
            lines: c.lines,
            bytes: c.bytes,
            malformed_lines: c.malformed_lines,
            turns: c.turns,
            units: c.units,
            tools,
            tok: sum_tokens(&c.tokens).vals,
            first_ts: c.first_ts,
        }
    }
}

pub(crate) fn human(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
    let st = out.style;
    if !r.rows.is_empty() {
        writeln!(
            out,
            "{}{:<36} {:>7} {:>6} {:>3} {:>5} {:>6} {:>5} {:>3} {:>3} {:>7} {:>7} {:>7} {:>7}  FIRST{}",
            st.head, if r.by.is_some() { "GROUP" } else { "TRANSCRIPT" }, "LINES", "SIZE", "BAD", "TURNS", "UNITS", "CALLS", "ERR", "UNA",
            "INPUT", "OUTPUT", "CACHE_R", "CACHE_W", st.reset
        )?;
    }
    let mut above: Option<&str> = None;
    for row in &r.rows {
        let name = row_name(row, above);
        if let Some(t) = row.transcript.filter(|t| t.agent_id.is_none()) {
            above = Some(&t.session_id);
        }
        let b = match &row.body {
            Body::Line(b) => *b,
            Body::Census(c) => Brief::of(c),
            Body::Json(_) => continue,
        };
        writeln!(
            out,
            "{:<36} {:>7} {:>6} {:>3} {:>5} {:>6} {:>5} {:>3} {:>3} {:>7} {:>7} {:>7} {:>7}  {}",
            tail(&name, 36),
            b.lines,
            human_bytes(b.bytes),
            b.malformed_lines,
            b.turns,
            b.units,
            b.tools.calls,
            b.tools.errors,
            b.tools.unanswered,
            short(b.tok.input),
            short(b.tok.output),
            short(b.tok.cache_read),
            short(b.tok.cache_creation),
            b.first_ts.map_or_else(|| "-".into(), timefmt::local),
        )?;
    }
    if r.rows_left_out > 0 {
        writeln!(
            out,
            "{}[… {} more rows not shown; raise --max-count. The total covers them.]{}",
            st.warn, r.rows_left_out, st.reset
        )?;
    }
    if r.by == Some(crate::cli::stats::GroupBy::Model) && !r.rows.is_empty() {
        writeln!(
            out,
            "{}(tokens are each model's own messages; a transcript that used several models counts in each of their rows){}",
            st.dim, st.reset
        )?;
    }
    total(out, r)
}

fn counts_line(c: &Counts, limit: usize) -> String {
    let mut v: Vec<(&String, &u64)> = c.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    let mut s: Vec<String> = v
        .iter()
        .take(limit)
        .map(|(k, n)| format!("{}={}", one_line(k), n))
        .collect();
    if v.len() > limit {
        s.push(format!("(+{} more)", v.len() - limit));
    }
    if s.is_empty() {
        "-".into()
    } else {
        s.join(" ")
    }
}

fn total(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
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
