//! Printing a stats report: JSON Lines (one `transcript` or `group` object per
//! row, then one `total`), or a compact human table followed by the total's
//! census. File names and every name read from transcripts go through
//! `sanitize::one_line` in human form; JSON is exact. The JSON form is the
//! `json` module's, the human total the `total` module's; the rows' table is here.

mod json;
mod total;

pub(crate) use json::{json, transcript_json};
use total::total;

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::census::{Census, Counts};
use super::{Body, Report, RowOut};
use crate::cmd::human_bytes;
use crate::output::sanitize::one_line;
use crate::output::Out;
use crate::timefmt;
use crate::tokens::Row;

/// `1,234,567`.
pub(super) fn n(v: u64) -> String {
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
pub(super) fn short(v: u64) -> String {
    match v {
        0..=9_999 => v.to_string(),
        10_000..=999_999 => format!("{:.1}K", v as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", v as f64 / 1e6),
        _ => format!("{:.1}G", v as f64 / 1e9),
    }
}

pub(super) fn sum_tokens(rows: &BTreeMap<String, Row>) -> Row {
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

pub(super) fn tail(s: &str, max: usize) -> String {
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

pub(super) fn counts_line(c: &Counts, limit: usize) -> String {
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
