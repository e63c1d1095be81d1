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
mod tests {
    use super::*;
    use crate::output::{COLOR, PLAIN};

    /// Findings shaped as the detectors write them on the public corpus.
    fn report() -> Report {
        let finding =
            |kind, line, sidechain, ts: Option<&str>, mid: Option<&str>, detail: &str| Finding {
                record: "finding",
                kind,
                file: "/h/projects/-work-app/5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44.jsonl".into(),
                line,
                session_id: "5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44".into(),
                message_id: mid.map(str::to_string),
                sidechain,
                timestamp: ts.map(str::to_string),
                version: Some("1.0.51".into()),
                detail: detail.into(),
            };
        Report {
            kinds: vec![Kind::EatenText, Kind::MissingTranscript],
            findings: vec![
                finding(
                    Kind::EatenText,
                    412,
                    false,
                    Some("2025-07-14T09:21:07.118Z"),
                    Some("msg_01XkT9"),
                    "2 thinking records, 0 text records (message.id group)",
                ),
                finding(
                    Kind::EatenText,
                    88,
                    true,
                    Some("2025-06-30T17:02:41.502Z"),
                    Some("msg_01Ab\x1b[2J"),
                    "3 thinking records, 0 text records",
                ),
                finding(
                    Kind::MissingTranscript,
                    0,
                    false,
                    None,
                    None,
                    "session folder without its transcript",
                ),
            ],
            files: 3,
            bytes: 123_456,
            multi_block: 1,
            untimed_left_out: 0,
        }
    }

    fn human(view: View, st: Style) -> String {
        let mut w = Vec::new();
        print(&mut w, st, &report(), view, Instant::now(), 0).unwrap();
        String::from_utf8(w).unwrap()
    }

    const HUMAN: View = View {
        format: Format::Human,
        by: None,
        max_count: usize::MAX,
    };

    #[test]
    fn human_table_counts_main_sidechain_and_transcripts() {
        let text = human(HUMAN, PLAIN);
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("KIND "));
        let eaten = lines.next().unwrap();
        let cols: Vec<&str> = eaten.split_whitespace().collect();
        assert_eq!(
            cols,
            [
                "eaten-text",
                "1",
                "1",
                "1",
                "2025-06-30T17:02:41.502Z",
                "2025-07-14T09:21:07.118Z"
            ]
        );
        assert!(lines.next().unwrap().starts_with("missing-transcript "));
    }

    #[test]
    fn human_findings_newest_first_folder_without_line_zero() {
        let text = human(HUMAN, PLAIN);
        assert!(text.contains(
            "2025-07-14T09:21:07.118Z eaten-text /h/projects/-work-app/5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44.jsonl:412 [5e2c7a91] msg_01XkT9\n    2 thinking"
        ));
        assert!(text.contains("[5e2c7a91 sidechain]"));
        // A folder finding names the path alone, never `:0`.
        assert!(text.contains("- missing-transcript /h/projects/-work-app/5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44.jsonl [5e2c7a91]\n"));
        assert!(!text.contains(".jsonl:0"));
        // Transcript text reaches the terminal cleaned.
        assert!(!text.contains('\x1b'));
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("3 findings in 3 files, 120.6K in "),
            "{last}"
        );
    }

    #[test]
    fn human_max_count_says_what_it_left_out() {
        let text = human(
            View {
                max_count: 1,
                ..HUMAN
            },
            PLAIN,
        );
        assert!(text.contains("[… 2 more findings not shown; raise --max-count]"));
        assert!(!text.contains(":88 "));
        let none = human(
            View {
                max_count: 0,
                ..HUMAN
            },
            PLAIN,
        );
        assert!(none.contains("[… 3 more findings not shown"));
    }

    #[test]
    fn human_by_month_breaks_down_per_kind_and_key() {
        let text = human(
            View {
                by: Some(By::Month),
                ..HUMAN
            },
            PLAIN,
        );
        let row = |k: &str, key: &str| {
            text.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>().get(..2) == Some(&[k, key][..]))
        };
        assert!(text.contains("MONTH"));
        assert!(row("eaten-text", "2025-07"));
        assert!(row("eaten-text", "2025-06"));
        assert!(row("missing-transcript", "-"));
    }

    #[test]
    fn colour_only_from_the_style() {
        let text = human(HUMAN, COLOR);
        assert!(text.starts_with(COLOR.head));
        assert!(text.contains(COLOR.label));
    }

    #[test]
    fn json_findings_then_counts_then_summary() {
        let mut w = Vec::new();
        let view = View {
            format: Format::Json,
            by: Some(By::Version),
            max_count: 1,
        };
        print(&mut w, PLAIN, &report(), view, Instant::now(), 2).unwrap();
        let rows: Vec<serde_json::Value> = String::from_utf8(w)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // --max-count narrows the human list only: JSON carries every finding.
        let types: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            ["finding", "finding", "finding", "count", "count", "summary"]
        );
        assert_eq!(rows[0]["kind"], "eaten-text");
        assert_eq!(rows[2]["line"], serde_json::Value::Null);
        assert_eq!(rows[3]["by"], "version");
        assert_eq!(rows[3]["key"], "1.0.51");
        let s = &rows[5];
        assert_eq!(s["counts"]["eaten-text"]["transcripts"], 1);
        assert_eq!(s["counts"]["eaten-text"]["sidechain"], 1);
        assert_eq!(s["errors"], 2);
        assert_eq!(s["multi_block_assistant_records"], 1);
    }
}
