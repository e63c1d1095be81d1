//! `csift image` rows: one per distinct image with its copies, human or JSON
//! Lines, then a summary; and the errors an `--id` miss or ambiguity prints.

use std::io::{self, Write};

use serde::Serialize;

use super::Scanned;
use crate::cli::image::ImageId;
use crate::images::{payload, Image};
use crate::output::sanitize::{clean, path as shown_path};
use crate::output::{json_line, Style};

/// A later occurrence of the same bytes (IMG-008).
#[derive(Debug, Serialize)]
pub(crate) struct CopyRow {
    pub(crate) id: String,
    pub(crate) line: usize,
    pub(crate) block: usize,
    pub(crate) handle: Option<u32>,
    pub(crate) turn: Option<usize>,
    pub(crate) timestamp: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Row {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) session_id: String,
    pub(crate) agent_id: Option<String>,
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) block: usize,
    pub(crate) id: String,
    pub(crate) handle: Option<u32>,
    pub(crate) turn: Option<usize>,
    pub(crate) prompt_line: Option<usize>,
    pub(crate) carrier: &'static str,
    pub(crate) media_type: String,
    pub(crate) bytes: u64,
    pub(crate) sha256: Option<String>,
    pub(crate) uuid: Option<String>,
    pub(crate) timestamp: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) copies: Vec<CopyRow>,
    pub(crate) written: Option<String>,
    /// Which file of the scan and which occurrence this row is (not printed).
    #[serde(skip)]
    pub(crate) at: (usize, usize),
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) files: usize,
    pub(crate) images: usize,
    pub(crate) distinct: usize,
    pub(crate) copies: usize,
    pub(crate) documents: usize,
    pub(crate) unlisted_lines: usize,
    pub(crate) bad_payloads: usize,
    pub(crate) written: usize,
    pub(crate) errors: usize,
    pub(crate) elapsed_ms: u128,
}

impl Summary {
    pub(crate) fn of(files: &[Scanned], rows: &[Row]) -> Summary {
        Summary {
            kind: "summary",
            files: files.iter().filter(|s| !s.groups.is_empty()).count(),
            images: rows.iter().map(|r| 1 + r.copies.len()).sum(),
            distinct: rows.len(),
            copies: rows.iter().map(|r| r.copies.len()).sum(),
            documents: files.iter().map(|s| s.found.documents).sum(),
            unlisted_lines: files.iter().map(|s| s.found.unlisted_lines).sum(),
            bad_payloads: rows.iter().filter(|r| r.error.is_some()).count(),
            ..Summary::default()
        }
    }
}

/// The rows of one scanned file (`f`: its index in the scan), in order of
/// first appearance.
pub(crate) fn rows_at(f: usize, s: &Scanned) -> Vec<Row> {
    s.groups
        .iter()
        .map(|g| {
            let im = &s.found.images[g.first];
            Row {
                kind: "image",
                session_id: s.t.session_id.clone(),
                agent_id: s.t.agent_id.clone(),
                file: s.t.path.display().to_string(),
                line: im.line,
                block: im.block,
                id: im.id(),
                handle: im.handle,
                turn: im.turn,
                prompt_line: im.prompt_line,
                carrier: im.carrier.name(),
                media_type: im.media_type.clone(),
                bytes: im.bytes,
                sha256: im.sha256.as_ref().map(payload::hex),
                uuid: im.uuid.clone(),
                timestamp: im.timestamp.clone(),
                error: im.error.clone(),
                copies: g
                    .copies
                    .iter()
                    .map(|&i| copy_row(&s.found.images[i]))
                    .collect(),
                written: None,
                at: (f, g.first),
            }
        })
        .collect()
}

fn copy_row(im: &Image) -> CopyRow {
    CopyRow {
        id: im.id(),
        line: im.line,
        block: im.block,
        handle: im.handle,
        turn: im.turn,
        timestamp: im.timestamp.clone(),
    }
}

pub(crate) fn json<W: Write>(w: &mut W, rows: &[Row], summary: &Summary) -> io::Result<()> {
    for r in rows {
        json_line(w, r)?;
    }
    json_line(w, summary)
}

pub(crate) fn human<W: Write>(
    w: &mut W,
    st: Style,
    files: &[Scanned],
    rows: &[Row],
    summary: &Summary,
) -> io::Result<()> {
    let mut last = usize::MAX;
    for r in rows {
        if r.at.0 != last {
            last = r.at.0;
            let t = &files[r.at.0].t;
            writeln!(
                w,
                "{}{}{}{}",
                st.head,
                t.at(),
                st.reset,
                format_args!("  {}", shown_path(&t.path))
            )?;
        }
        row(w, st, r)?;
    }
    footer(w, st, summary)
}

fn row<W: Write>(w: &mut W, st: Style, r: &Row) -> io::Result<()> {
    let handle = r
        .handle
        .map_or_else(|| "-".to_string(), |n| format!("#{n}"));
    let turn = r.turn.map_or_else(|| "-".to_string(), |t| format!("t{t}"));
    let what = match (&r.error, &r.sha256) {
        (Some(e), _) => format!("{}{}{}", st.warn, clean(e), st.reset),
        (None, Some(h)) => format!(
            "{}  sha256:{}",
            super::super::human_bytes(r.bytes),
            &h[..12]
        ),
        (None, None) => "-".into(),
    };
    let mut line = format!(
        "  {:<10} {:>5} {:>5}  {:<10}  {what}",
        r.id,
        handle,
        turn,
        clean(&r.media_type)
    );
    if r.carrier != "block" {
        line.push_str(&format!("  {}({}){}", st.dim, r.carrier, st.reset));
    }
    if !r.copies.is_empty() {
        let ids: Vec<&str> = r.copies.iter().map(|c| c.id.as_str()).collect();
        line.push_str(&format!(
            "  {}copies: {}{}",
            st.dim,
            ids.join(" "),
            st.reset
        ));
    }
    if let Some(p) = &r.written {
        line.push_str(&format!("  → {}", clean(p)));
    }
    writeln!(w, "{line}")
}

fn footer<W: Write>(w: &mut W, st: Style, s: &Summary) -> io::Result<()> {
    let mut parts = vec![format!(
        "{} ({} distinct, {}) in {}",
        count(s.images, "image", "images"),
        s.distinct,
        count(s.copies, "copy", "copies"),
        count(s.files, "file", "files")
    )];
    if s.written > 0 {
        parts.push(format!("{} written", s.written));
    }
    if s.bad_payloads > 0 {
        parts.push(format!(
            "{} not decoding",
            count(s.bad_payloads, "payload", "payloads")
        ));
    }
    if s.documents > 0 {
        parts.push(format!(
            "{} (not images)",
            count(s.documents, "document block", "document blocks")
        ));
    }
    if s.unlisted_lines > 0 {
        parts.push(format!(
            "{} with media csift does not read (a subagent record inside agent_progress: see its lane)",
            count(s.unlisted_lines, "line", "lines")
        ));
    }
    writeln!(w, "{}{}{}", st.dim, parts.join(" · "), st.reset)
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `--id` found nothing: name what does exist (IMG-007: handles carry holes).
pub(crate) fn no_such(files: &[Scanned], id: ImageId) -> String {
    let mut handles: Vec<u32> = files
        .iter()
        .flat_map(|s| s.found.images.iter().filter_map(|i| i.handle))
        .collect();
    handles.sort_unstable();
    handles.dedup();
    let unnumbered = files
        .iter()
        .flat_map(|s| &s.found.images)
        .filter(|i| i.handle.is_none())
        .count();
    let shown: Vec<String> = handles.iter().take(25).map(|n| format!("#{n}")).collect();
    let more = handles.len().saturating_sub(25);
    let inventory = if handles.is_empty() && unnumbered == 0 {
        "no image at all in these targets".to_string()
    } else {
        format!(
            "present here: {}{} and {unnumbered} image(s) without a handle (address them by L<line>i<n>)",
            if shown.is_empty() { "no handle".to_string() } else { shown.join(" ") },
            if more > 0 { format!(" (+{more} more)") } else { String::new() },
        )
    };
    format!(
        "--id {id} matched no image: {inventory}. [Image #N] handles are Claude Code's own, \
         per prompt and with holes, not a dense 1..N index; a missing number never landed in \
         this transcript. `csift image` on the same target lists every id"
    )
}

/// `--id` named several different images (a handle reused across prompts,
/// IMG-006, or a locator in several files): list them, pick none.
pub(crate) fn ambiguous(files: &[Scanned], hits: &[(usize, usize)], id: ImageId) -> String {
    let mut msg = format!(
        "--id {id} is ambiguous: it names {} different images (Claude Code reuses [Image #N] \
         across prompts); pick one by its L<line>i<n> with a single target:",
        hits.len()
    );
    for &(f, g) in hits {
        let s = &files[f];
        let im = &s.found.images[s.groups[g].first];
        msg.push_str(&format!(
            "\n  {} --id {}  turn {}  {}  {}",
            s.t.at(),
            im.id(),
            im.turn.map_or("-".to_string(), |t| t.to_string()),
            im.timestamp.as_deref().unwrap_or("-"),
            im.sha256
                .as_ref()
                .map_or("-".to_string(), |h| payload::hex(h)[..12].to_string()),
        ));
    }
    msg
}
