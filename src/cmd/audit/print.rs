//! Printing an audit: the summary table (kind, main, sidechain, transcripts,
//! earliest, latest), an optional `--by` breakdown, then the findings newest
//! first; or the same as JSON Lines. Human text from transcripts (paths, ids,
//! details) goes through `sanitize::one_line`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::time::Instant;

use serde::Serialize;

use super::finding::Finding;
use super::Report;
use crate::cli::audit::{AuditArgs, By, Kind};
use crate::output::sanitize::one_line;
use crate::output::{json_line, Format, Style};

#[derive(Debug, Default, Serialize)]
pub(crate) struct Count {
    pub(crate) main: usize,
    pub(crate) sidechain: usize,
    pub(crate) transcripts: usize,
    pub(crate) earliest: Option<String>,
    pub(crate) latest: Option<String>,
}

/// Per-kind counts over the findings (transcripts = distinct files).
pub(crate) fn counts(kinds: &[Kind], findings: &[Finding]) -> BTreeMap<Kind, Count> {
    let mut files: BTreeMap<Kind, BTreeSet<&str>> = BTreeMap::new();
    let mut out: BTreeMap<Kind, Count> = kinds.iter().map(|k| (*k, Count::default())).collect();
    for f in findings {
        let c = out.entry(f.kind).or_default();
        if f.sidechain {
            c.sidechain += 1;
        } else {
            c.main += 1;
        }
        files.entry(f.kind).or_default().insert(&f.file);
        if let Some(ts) = &f.timestamp {
            if c.earliest.as_ref().is_none_or(|e| ts < e) {
                c.earliest = Some(ts.clone());
            }
            if c.latest.as_ref().is_none_or(|l| ts > l) {
                c.latest = Some(ts.clone());
            }
        }
    }
    for (k, set) in files {
        if let Some(c) = out.get_mut(&k) {
            c.transcripts = set.len();
        }
    }
    out
}

fn by_key(by: By, f: &Finding) -> String {
    match by {
        // The survey script's `timestamp[:7]` (UTC, REC-005).
        By::Month => f
            .timestamp
            .as_deref()
            .map(|t| t.chars().take(7).collect())
            .unwrap_or_else(|| "-".into()),
        By::Version => f.version.clone().unwrap_or_else(|| "-".into()),
        By::Transcript => f.file.clone(),
    }
}

fn by_name(by: By) -> &'static str {
    match by {
        By::Month => "month",
        By::Version => "version",
        By::Transcript => "transcript",
    }
}

/// `(kind, key) → (main, sidechain)`.
pub(crate) fn breakdown(by: By, findings: &[Finding]) -> BTreeMap<(Kind, String), (usize, usize)> {
    let mut m: BTreeMap<(Kind, String), (usize, usize)> = BTreeMap::new();
    for f in findings {
        let e = m.entry((f.kind, by_key(by, f))).or_default();
        if f.sidechain {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    m
}

#[derive(Serialize)]
struct CountRow<'a> {
    #[serde(rename = "type")]
    record: &'static str,
    kind: &'static str,
    by: &'static str,
    key: &'a str,
    main: usize,
    sidechain: usize,
}

#[derive(Serialize)]
struct Summary {
    #[serde(rename = "type")]
    record: &'static str,
    counts: BTreeMap<&'static str, Count>,
    files: usize,
    bytes: u64,
    multi_block_assistant_records: usize,
    /// Findings with no time that `--since/--until` left out.
    untimed_left_out: usize,
    /// Files or targets that could not be read (said on stderr; exit 2).
    errors: usize,
    elapsed_ms: u128,
}

/// What the printer shows, resolved once from the arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    pub(crate) format: Format,
    pub(crate) by: Option<By>,
    /// Findings listed in human form (the table counts them all).
    pub(crate) max_count: usize,
}

impl View {
    pub(crate) fn from_args(args: &AuditArgs) -> View {
        View {
            format: args.common.format,
            by: args.by,
            max_count: args.max_count.unwrap_or(usize::MAX),
        }
    }
}

pub(crate) fn print<W: Write>(
    w: &mut W,
    st: Style,
    r: &Report,
    view: View,
    started: Instant,
    errors: usize,
) -> io::Result<()> {
    match view.format {
        Format::Json => json(w, r, view.by, started, errors),
        Format::Human => {
            counts_table(w, st, &counts(&r.kinds, &r.findings))?;
            if let Some(by) = view.by {
                breakdown_table(w, st, by, &r.findings)?;
            }
            findings(w, st, r, view.max_count)?;
            footer(w, st, r, started)
        }
    }
}

/// Every finding, then the `--by` rows, then the summary, as JSON Lines.
fn json<W: Write>(
    w: &mut W,
    r: &Report,
    by: Option<By>,
    started: Instant,
    errors: usize,
) -> io::Result<()> {
    for f in &r.findings {
        json_line(w, f)?;
    }
    if let Some(by) = by {
        for ((kind, key), (main, sidechain)) in breakdown(by, &r.findings) {
            json_line(
                w,
                &CountRow {
                    record: "count",
                    kind: kind.name(),
                    by: by_name(by),
                    key: &key,
                    main,
                    sidechain,
                },
            )?;
        }
    }
    let counts = counts(&r.kinds, &r.findings);
    json_line(
        w,
        &Summary {
            record: "summary",
            counts: counts.into_iter().map(|(k, c)| (k.name(), c)).collect(),
            files: r.files,
            bytes: r.bytes,
            multi_block_assistant_records: r.multi_block,
            untimed_left_out: r.untimed_left_out,
            errors,
            elapsed_ms: started.elapsed().as_millis(),
        },
    )
}

/// The per-kind table: main, sidechain, transcripts, earliest, latest.
fn counts_table<W: Write>(w: &mut W, st: Style, counts: &BTreeMap<Kind, Count>) -> io::Result<()> {
    writeln!(
        w,
        "{}{:<26} {:>7} {:>9} {:>11}  {:<24} {:<24}{}",
        st.head, "KIND", "MAIN", "SIDECHAIN", "TRANSCRIPTS", "EARLIEST", "LATEST", st.reset
    )?;
    for (k, c) in counts {
        writeln!(
            w,
            "{:<26} {:>7} {:>9} {:>11}  {:<24} {:<24}",
            k.name(),
            c.main,
            c.sidechain,
            c.transcripts,
            c.earliest.as_deref().map_or("-".into(), one_line),
            c.latest.as_deref().map_or("-".into(), one_line),
        )?;
    }
    Ok(())
}

/// The `--by` table: one row per kind and key.
fn breakdown_table<W: Write>(w: &mut W, st: Style, by: By, findings: &[Finding]) -> io::Result<()> {
    writeln!(w)?;
    writeln!(
        w,
        "{}{:<26} {:<40} {:>7} {:>9}{}",
        st.head,
        "KIND",
        by_name(by).to_uppercase(),
        "MAIN",
        "SIDECHAIN",
        st.reset
    )?;
    for ((kind, key), (main, side)) in breakdown(by, findings) {
        writeln!(
            w,
            "{:<26} {:<40} {main:>7} {side:>9}",
            kind.name(),
            one_line(&key)
        )?;
    }
    Ok(())
}

/// The findings newest first, up to `max_count`, with a count of the rest.
fn findings<W: Write>(w: &mut W, st: Style, r: &Report, max_count: usize) -> io::Result<()> {
    let shown = max_count.min(r.findings.len());
    if shown > 0 {
        writeln!(w)?;
    }
    for f in &r.findings[..shown] {
        finding(w, st, f)?;
    }
    if shown < r.findings.len() {
        writeln!(
            w,
            "{}[… {} more findings not shown; raise --max-count]{}",
            st.warn,
            r.findings.len() - shown,
            st.reset
        )?;
    }
    Ok(())
}

/// One finding: time, kind, place, session, message id; its detail below.
fn finding<W: Write>(w: &mut W, st: Style, f: &Finding) -> io::Result<()> {
    let mid = f
        .message_id
        .as_deref()
        .map(|m| format!(" {}", one_line(m)))
        .unwrap_or_default();
    // A finding on a folder (a lost session transcript) has no line: print
    // the path alone, not `path:0`, which no command takes.
    let place = match f.line {
        0 => one_line(&f.file),
        n => format!("{}:{n}", one_line(&f.file)),
    };
    writeln!(
        w,
        "{}{} {}{}{} {} [{}{}]{}{}",
        st.dim,
        f.timestamp.as_deref().map_or("-".into(), one_line),
        st.reset,
        st.label,
        f.kind.name(),
        place,
        crate::discovery::short(&f.session_id),
        if f.sidechain { " sidechain" } else { "" },
        st.reset,
        mid,
    )?;
    writeln!(w, "    {}", one_line(&f.detail))
}

/// What a window left out, then the totals line.
fn footer<W: Write>(w: &mut W, st: Style, r: &Report, started: Instant) -> io::Result<()> {
    if r.untimed_left_out > 0 {
        writeln!(
            w,
            "{}[{} findings with no time left out by --since/--until]{}",
            st.warn, r.untimed_left_out, st.reset
        )?;
    }
    writeln!(
        w,
        "{}{} findings in {} files, {} in {} ms{}",
        st.dim,
        r.findings.len(),
        r.files,
        super::super::human_bytes(r.bytes),
        started.elapsed().as_millis(),
        st.reset
    )
}

#[cfg(test)]
mod tests;
