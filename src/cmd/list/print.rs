//! Printing `csift list` rows: a compact two-line human form and JSON Lines.

use std::io::{self, Write};

use serde::Serialize;

use super::{Listing, ReadMode, Row, TitleSource};
use crate::output::sanitize::{self, one_line};
use crate::output::Out;
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

/// Shown rows read whole and read as head and tail windows.
fn read_counts(l: &Listing) -> (usize, usize) {
    let whole = l
        .rows
        .iter()
        .filter(|r| r.summary.read == ReadMode::Whole)
        .count();
    (whole, l.rows.len() - whole)
}

fn duration(r: &Row) -> Option<i64> {
    let (a, b) = (r.summary.started?, r.summary.last_activity?);
    Some(b.duration_since(a).as_secs())
}

pub(crate) fn json(out: &mut Out, l: &Listing, errors: usize, elapsed_ms: u128) -> io::Result<()> {
    for r in &l.rows {
        let s = &r.summary;
        let title = s.title();
        out.json(&JsonRow {
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
        })?;
    }
    let (read_whole, read_head_tail) = read_counts(l);
    out.json(&JsonSummary {
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
    })
}

pub(crate) fn human(out: &mut Out, l: &Listing) -> io::Result<()> {
    let st = out.style;
    // The session of the last session row, whose lanes may follow it.
    let mut above: Option<&str> = None;
    for r in &l.rows {
        let s = &r.summary;
        let t = &r.transcript;
        let id = match &t.agent_id {
            Some(a) if above == Some(t.session_id.as_str()) => format!("  └ @{}", one_line(a)),
            // Its session's row is not right above it (a lane named on its own,
            // or one whose session transcript is missing): drawn as `└` it
            // would read as a lane of whatever session came before.
            Some(a) => format!(
                "{}@{}",
                one_line(crate::discovery::short(&t.session_id)),
                one_line(a)
            ),
            None => {
                above = Some(&t.session_id);
                one_line(crate::discovery::short(&t.session_id))
            }
        };
        let when = match (s.started, s.last_activity) {
            (Some(a), Some(b)) => {
                let (from, to) = (timefmt::local(a), timefmt::local(b));
                // Same local day: the end needs only its time.
                let to = match (from.split_once(' '), to.split_once(' ')) {
                    (Some((d1, _)), Some((d2, t2))) if d1 == d2 => t2.to_string(),
                    _ => to,
                };
                format!(
                    "{from} ({}) → {to}  {}",
                    timefmt::utc(a),
                    timefmt::duration(b.duration_since(a).as_secs())
                )
            }
            _ => "no timestamps".to_string(),
        };
        let models: Vec<String> = s
            .models
            .iter()
            .map(|m| one_line(m.strip_prefix("claude-").unwrap_or(m)))
            .collect();
        let versions: Vec<String> = s.versions.iter().map(|v| one_line(v)).collect();
        let turns = s.turns.map_or("?".to_string(), |n| n.to_string());
        let mut line = format!("{}{id}{}  {when}  {turns}t", st.head, st.reset);
        if !t.is_lane() {
            line.push_str(&format!("  {} lanes", r.lanes));
        } else {
            line.push_str(&format!("  {}", t.shape.name()));
            if r.orphan {
                line.push_str(&format!(
                    "  {}parent transcript missing{}",
                    st.warn, st.reset
                ));
            }
        }
        line.push_str(&format!("  {}", crate::cmd::human_bytes(t.size)));
        if !models.is_empty() {
            line.push_str(&format!("  {}", models.join(",")));
        }
        if !versions.is_empty() {
            line.push_str(&format!("  v{}", versions.join(",v")));
        }
        if let Some(b) = &s.git_branch {
            line.push_str(&format!("  [{}]", one_line(b)));
        }
        if let Some(c) = &s.cwd {
            line.push_str(&format!("  {}{}{}", st.dim, one_line(c), st.reset));
        }
        line.push_str(&copies(r));
        if !s.malformed.is_empty() {
            let what: Vec<String> = s
                .malformed
                .iter()
                .map(|b| {
                    let at = b
                        .line
                        .map_or(format!(" byte {}", b.offset), |n| format!(":{n}"));
                    format!("{}{at} {}", sanitize::path(&t.path), b.kind.name())
                })
                .collect();
            line.push_str(&format!(
                "  {}malformed: {}{}",
                st.warn,
                what.join(", "),
                st.reset
            ));
        }
        writeln!(out, "{line}")?;
        if let Some((title, _)) = s.title() {
            writeln!(out, "    {}", cut(&one_line(title), 160))?;
        }
    }
    if l.dropped > 0 {
        writeln!(
            out,
            "[… {} more rows not shown; raise --max-count]",
            l.dropped
        )?;
    }
    if l.untimed_left_out > 0 {
        writeln!(
            out,
            "{}[{} sessions with no timestamp left out by --since/--until]{}",
            st.warn, l.untimed_left_out, st.reset
        )?;
    }
    let (whole, head_tail) = read_counts(l);
    if head_tail > 0 {
        writeln!(
            out,
            "turns counted in {} of {} rows (the rest read head and tail only: ?t); --full counts every line",
            grouped(whole),
            grouped(whole + head_tail)
        )?;
    }
    Ok(())
}

/// `  fork of @…`, `  clone of @…`, `  continued in @…`: how the row's session
/// was copied from another, or into one.
fn copies(r: &Row) -> String {
    let at = |id: &str| format!("@{}", one_line(crate::discovery::short(id)));
    let mut out = String::new();
    match (&r.forked_from, &r.clone_of, &r.summary.clone_boundary) {
        (Some(o), _, _) => out.push_str(&format!("  fork of {}", at(o))),
        (None, Some(o), _) => out.push_str(&format!("  clone of {}", at(o))),
        (None, None, Some(_)) => out.push_str("  clone (origin not found here)"),
        _ => {}
    }
    if !r.summary.continued_in.is_empty() {
        let to: Vec<String> = r.summary.continued_in.iter().map(|s| at(s)).collect();
        out.push_str(&format!("  continued in {}", to.join(",")));
    }
    out
}

/// `1,186`: a count with thousands separators.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Cut to `max` chars with an explicit marker of what was dropped.
pub(crate) fn cut(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let kept: String = s.chars().take(max).collect();
    format!("{kept}… [+{} chars]", n - max)
}

#[cfg(test)]
mod tests {
    #[test]
    fn grouped_counts() {
        assert_eq!(super::grouped(0), "0");
        assert_eq!(super::grouped(925), "925");
        assert_eq!(super::grouped(1186), "1,186");
        assert_eq!(super::grouped(1_234_567), "1,234,567");
    }
}
