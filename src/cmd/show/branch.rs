//! `show --branch-points`: a fork, rewind, retry or parallel lane leaves one plain
//! DAG fact, a record with MORE THAN ONE conversation child (MISC-006, REC-033). A
//! conversation child is a user or assistant record that is not a tool_result
//! carrier, not isMeta and not a compaction summary: parallel tool results share a
//! parent by construction and would otherwise read as forks. Which side is live is
//! not computable from the jsonl, so none is named; rows are ranked by the widest
//! time gap between consecutive children. Children are counted by distinct uuid,
//! so a resume replay's second copy of a record is not a second child (REC-091).

use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;

use crate::cmd::{Exit, Problems};
use crate::discovery::Transcript;
use crate::output::{sanitize, Format, Out};
use crate::record::{parse_line, Parsed, Record};
use crate::scan::{Lines, Source};
use crate::timefmt;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Child {
    pub(crate) uuid: String,
    pub(crate) line: usize,
    pub(crate) record_type: String,
    pub(crate) timestamp: Option<String>,
    /// A one-line preview, cut at [`PREVIEW_CHARS`] with `…`.
    pub(crate) text: String,
    /// Characters of the whole one-line text the preview was cut from.
    pub(crate) text_chars: usize,
}

/// Characters of a child's text the preview keeps.
const PREVIEW_CHARS: usize = 120;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct BranchPoint {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) session_id: String,
    pub(crate) agent_id: Option<String>,
    pub(crate) file: String,
    pub(crate) uuid: String,
    /// The parent's first line in this file; `null` when the parent is not in it.
    pub(crate) line: Option<usize>,
    pub(crate) widest_gap_seconds: i64,
    pub(crate) children: Vec<Child>,
}

/// The last JSON line of `--branch-points`.
#[derive(Serialize)]
struct Summary {
    #[serde(rename = "type")]
    kind: &'static str,
    files: usize,
    branch_points: usize,
    /// Files that could not be read (said on stderr; exit 2).
    errors: usize,
    elapsed_ms: u128,
}

fn is_conversation_child(r: &Record<'_>) -> bool {
    matches!(r.kind(), "user" | "assistant")
        && r.has_message()
        && !r.is_meta()
        && !r.is_compact_summary()
        && !r.blocks().iter().any(|b| b.kind() == "tool_result")
}

/// A child's one-line preview and the length of the whole line.
fn preview(r: &Record<'_>) -> (String, usize) {
    let text = if r.kind() == "user" {
        r.user_text().map(|s| s.into_owned())
    } else {
        r.text_content().map(str::to_string).or_else(|| {
            r.blocks().iter().find_map(|b| match b.kind() {
                "text" => b.text.as_deref().map(str::to_string),
                "thinking" => b.thinking.as_deref().map(|t| format!("(thinking) {t}")),
                "tool_use" => Some(crate::render::tool_line(
                    b.name.as_deref().unwrap_or(""),
                    &b.input_text(),
                )),
                _ => None,
            })
        })
    };
    let line = sanitize::one_line(&text.unwrap_or_default());
    let chars = line.chars().count();
    (crate::render::cut_chars(&line, PREVIEW_CHARS), chars)
}

/// Branch points of one transcript, widest gap first.
pub(crate) fn find(t: &Transcript, buf: &[u8]) -> Vec<BranchPoint> {
    let mut first_line: HashMap<String, usize> = HashMap::new();
    let mut children: HashMap<String, Vec<Child>> = HashMap::new();
    for line in Lines::new(buf) {
        if memchr::memmem::find(line.bytes, b"\"uuid\"").is_none() {
            continue;
        }
        let Parsed::Record(r) = parse_line(&line) else {
            continue;
        };
        let Some(uuid) = r.uuid.as_deref() else {
            continue;
        };
        first_line.entry(uuid.to_string()).or_insert(line.no);
        let Some(parent) = r.parent_uuid.as_deref() else {
            continue;
        };
        if !is_conversation_child(&r) {
            continue;
        }
        let kids = children.entry(parent.to_string()).or_default();
        if kids.iter().any(|k| k.uuid == uuid) {
            continue;
        }
        let (text, text_chars) = preview(&r);
        kids.push(Child {
            uuid: uuid.to_string(),
            line: line.no,
            record_type: r.kind().to_string(),
            timestamp: r.timestamp.as_deref().map(str::to_string),
            text,
            text_chars,
        });
    }
    let mut out: Vec<BranchPoint> = children
        .into_iter()
        .filter(|(_, k)| k.len() > 1)
        .map(|(parent, kids)| {
            let mut times: Vec<i64> = kids
                .iter()
                .filter_map(|k| k.timestamp.as_deref().and_then(timefmt::parse_ts))
                .map(|t| t.as_second())
                .collect();
            times.sort_unstable();
            let widest = times.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
            BranchPoint {
                kind: "branch-point",
                session_id: t.session_id.clone(),
                agent_id: t.agent_id.clone(),
                file: t.path.display().to_string(),
                line: first_line.get(&parent).copied(),
                uuid: parent,
                widest_gap_seconds: widest,
                children: kids,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.widest_gap_seconds
            .cmp(&a.widest_gap_seconds)
            .then(a.line.cmp(&b.line))
            .then(a.uuid.cmp(&b.uuid))
    });
    out
}

pub(crate) fn run(
    ts: &[Transcript],
    out: &mut Out,
    format: Format,
    problems: &Problems,
    started: std::time::Instant,
) -> crate::error::Result<Exit> {
    let found: Vec<Result<Vec<BranchPoint>, String>> = crate::scan::par_map(ts, |t| {
        let src = Source::open(&t.path).map_err(|e| e.to_string())?;
        let points = find(t, &src);
        src.check().map_err(|e| e.to_string())?;
        Ok(points)
    });
    let mut total = 0;
    for (t, f) in ts.iter().zip(found) {
        let points = match f {
            Ok(p) => p,
            Err(e) => {
                problems.report(&t.path, e);
                continue;
            }
        };
        total += points.len();
        for p in &points {
            match format {
                Format::Json => out.json(p)?,
                Format::Human => human(out, p)?,
            }
        }
    }
    match format {
        Format::Human if total == 0 => {
            problems.note("no branch points (no record has two conversation children)")
        }
        Format::Human => {}
        // As every JSON output ends: a summary, so an empty answer is not
        // an empty stdout.
        Format::Json => out.json(&Summary {
            kind: "summary",
            files: ts.len(),
            branch_points: total,
            errors: problems.count(),
            elapsed_ms: started.elapsed().as_millis(),
        })?,
    }
    Ok(Exit::from(total > 0, problems.count()))
}

fn human(out: &mut Out, p: &BranchPoint) -> std::io::Result<()> {
    let st = out.style;
    let line = p.line.map_or("?".to_string(), |l| l.to_string());
    writeln!(
        out,
        "{}── branch point {} {}:{line} · {} children · widest gap {}{}",
        st.head,
        super::print::who(&p.session_id, p.agent_id.as_deref()),
        crate::output::sanitize::one_line(&p.file),
        p.children.len(),
        timefmt::duration(p.widest_gap_seconds),
        st.reset
    )?;
    for k in &p.children {
        let more = match k.text_chars.saturating_sub(PREVIEW_CHARS) {
            0 => String::new(),
            n => format!(" [+{n} chars]"),
        };
        writeln!(
            out,
            "  ↳ L{} {} {} {}{more}",
            k.line,
            crate::output::sanitize::one_line(&k.record_type),
            super::print::when(k.timestamp.as_deref()),
            k.text
        )?;
    }
    Ok(())
}
