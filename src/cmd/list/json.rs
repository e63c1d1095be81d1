//! Printing `csift list` rows as JSON Lines: one object per row (session or
//! lane), then a summary object with the counts the human footer states.

use std::io::{self, Write};

use serde::Serialize;

use super::print::read_counts;
use super::rows::{Listing, Row};
use super::summary::{ReadMode, TitleSource};
use crate::output::json_line;
use crate::timefmt;

#[derive(Serialize)]
struct JsonRow<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    agent_id: Option<&'a str>,
    shape: &'static str,
    file: String,
    project: String,
    cwd: Option<&'a str>,
    started: Option<String>,
    last_activity: Option<String>,
    duration_s: Option<i64>,
    turns: Option<usize>,
    lanes: usize,
    /// Of `lanes`, those inline in the main file (1.0.x sidechains); `null`
    /// when the file was not read whole.
    inline_lanes: Option<usize>,
    parent_missing: bool,
    bytes: u64,
    models: Vec<&'a str>,
    versions: Vec<&'a str>,
    git_branch: Option<&'a str>,
    title: Option<&'a str>,
    title_source: Option<TitleSource>,
    read: ReadMode,
    malformed_lines: usize,
    malformed: Vec<MalformedJson>,
    /// Minted by copying another session at a compaction: its first
    /// timestamped record is a compact_boundary.
    is_clone: bool,
    /// The session it was copied from, when found beside it.
    clone_of: Option<&'a str>,
    clone_boundary_uuid: Option<&'a str>,
    /// The session whose `continued-in` record names this one (a fork).
    forked_from: Option<&'a str>,
    /// Sessions this one's `continued-in` records name, among the lines read.
    continued_in: &'a [String],
}

#[derive(Serialize)]
struct MalformedJson {
    line: Option<usize>,
    offset: u64,
    kind: &'static str,
}

#[derive(Serialize)]
struct JsonSummary {
    #[serde(rename = "type")]
    kind: &'static str,
    rows: usize,
    shown: usize,
    dropped: usize,
    untimed_left_out: usize,
    bytes: u64,
    read_whole: usize,
    read_head_tail: usize,
    /// Files or targets that could not be read (said on stderr; exit 2).
    errors: usize,
    elapsed_ms: u128,
}

fn duration(r: &Row) -> Option<i64> {
    let (a, b) = (r.summary.started?, r.summary.last_activity?);
    Some(b.duration_since(a).as_secs())
}

pub(crate) fn json<W: Write>(
    w: &mut W,
    l: &Listing,
    errors: usize,
    elapsed_ms: u128,
) -> io::Result<()> {
    for r in &l.rows {
        let s = &r.summary;
        let title = s.title();
        json_line(
            w,
            &JsonRow {
                kind: if r.transcript.is_lane() {
                    "lane"
                } else {
                    "session"
                },
                session_id: &r.transcript.session_id,
                agent_id: r.transcript.agent_id.as_deref(),
                shape: r.transcript.shape.name(),
                file: r.transcript.path.display().to_string(),
                project: r.transcript.project_name(),
                cwd: s.cwd.as_deref(),
                started: s.started.map(timefmt::utc_exact),
                last_activity: s.last_activity.map(timefmt::utc_exact),
                duration_s: duration(r),
                turns: s.turns,
                lanes: r.lanes,
                inline_lanes: s.inline_lanes.filter(|_| !r.transcript.is_lane()),
                parent_missing: r.orphan,
                bytes: r.transcript.size,
                models: s.models.iter().map(String::as_str).collect(),
                versions: s.versions.iter().map(String::as_str).collect(),
                git_branch: s.git_branch.as_deref(),
                title: title.map(|t| t.0),
                title_source: title.map(|t| t.1),
                read: s.read,
                malformed_lines: s.malformed.len(),
                malformed: s
                    .malformed
                    .iter()
                    .map(|b| MalformedJson {
                        line: b.line,
                        offset: b.offset,
                        kind: b.kind.name(),
                    })
                    .collect(),
                is_clone: s.clone_boundary.is_some(),
                clone_of: r.clone_of.as_deref(),
                clone_boundary_uuid: s.clone_boundary.as_deref(),
                forked_from: r.forked_from.as_deref(),
                continued_in: &s.continued_in,
            },
        )?;
    }
    let (read_whole, read_head_tail) = read_counts(l);
    json_line(
        w,
        &JsonSummary {
            kind: "summary",
            rows: l.rows.len() + l.dropped,
            shown: l.rows.len(),
            dropped: l.dropped,
            untimed_left_out: l.untimed_left_out,
            bytes: l.bytes,
            read_whole,
            read_head_tail,
            errors,
            elapsed_ms,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::print::tests::listing;

    #[test]
    fn json_rows_and_summary() {
        let mut w = Vec::new();
        super::json(&mut w, &listing(), 0, 5).unwrap();
        let rows: Vec<serde_json::Value> = String::from_utf8(w)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let kinds: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["session", "lane", "lane", "summary"]);
        assert_eq!(rows[2]["parent_missing"], true);
        assert_eq!(rows[2]["read"], "head-tail");
        assert_eq!(rows[2]["turns"], serde_json::Value::Null);
        assert_eq!(rows[3]["rows"], 5);
        assert_eq!(rows[3]["shown"], 3);
        assert_eq!(rows[3]["read_head_tail"], 1);
    }
}
