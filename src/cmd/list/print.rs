//! Printing `csift list` rows in the human form: two compact lines a row
//! (its facts, then its title), then what was left out. The JSON Lines form
//! is [`super::json`].

use std::fmt::Write as _;
use std::io::{self, Write};

use jiff::tz::TimeZone;
use rayon::prelude::*;

use super::rows::{Listing, Row};
use super::summary::{ReadMode, Summary};
use crate::output::sanitize::{self, one_line, push_one_line};
use crate::output::Style;
use crate::timefmt;

/// Shown rows read whole and read as head and tail windows.
pub(super) fn read_counts(l: &Listing) -> (usize, usize) {
    let whole = l
        .rows
        .iter()
        .filter(|r| r.summary.read == ReadMode::Whole)
        .count();
    (whole, l.rows.len() - whole)
}

/// Rows formatted at once: in parallel, then written in order, so the
/// output streams and its text is held for one batch at a time.
const BATCH: usize = 1024;

/// Two lines a row: its facts, then its title; then what was left out. The
/// rows' text is made on every core, then written in order (a 5,000-row
/// listing took 13 ms to format on one core).
pub(crate) fn human<W: Write>(w: &mut W, st: Style, l: &Listing) -> io::Result<()> {
    let tz = timefmt::system_zone();
    // The session of the last session row, whose lanes may follow it.
    let mut above: Option<&str> = None;
    for batch in l.rows.chunks(BATCH) {
        let ids: Vec<(&Row, String)> = batch.iter().map(|r| (r, id_cell(r, &mut above))).collect();
        let texts: Vec<String> = ids
            .par_iter()
            .map(|(r, id)| row_text(st, &tz, r, id))
            .collect();
        for t in texts {
            w.write_all(t.as_bytes())?;
        }
    }
    footer(w, st, l)
}

/// A row's two lines: its facts, then its title (when it has one).
fn row_text(st: Style, tz: &TimeZone, r: &Row, id: &str) -> String {
    let mut text = String::with_capacity(256);
    row_line(&mut text, st, tz, r, id);
    text.push('\n');
    if let Some((title, _)) = r.summary.title() {
        text.push_str("    ");
        push_cut_line(&mut text, title, 160);
        text.push('\n');
    }
    text
}

/// A session row's short id (it becomes `above`); a lane's `└ @agent` when
/// its session's row is right above it, else `session@agent`.
fn id_cell<'r>(r: &'r Row, above: &mut Option<&'r str>) -> String {
    let t = &r.transcript;
    match &t.agent_id {
        Some(a) if *above == Some(t.session_id.as_str()) => format!("  └ @{}", one_line(a)),
        // Its session's row is not right above it (a lane named on its own,
        // or one whose session transcript is missing): drawn as `└` it
        // would read as a lane of whatever session came before.
        Some(a) => format!(
            "{}@{}",
            one_line(crate::discovery::short(&t.session_id)),
            one_line(a)
        ),
        None => {
            *above = Some(&t.session_id);
            one_line(crate::discovery::short(&t.session_id))
        }
    }
}

/// `start (start UTC) → end  duration`, local times; the end only as a time
/// on the same local day.
fn span(out: &mut String, tz: &TimeZone, s: &Summary) {
    let (Some(a), Some(b)) = (s.started, s.last_activity) else {
        out.push_str("no timestamps");
        return;
    };
    let start = out.len();
    timefmt::push_local_in(out, a, tz);
    let from = start..out.len();
    out.push_str(" (");
    timefmt::push_utc(out, a);
    out.push_str(") → ");
    let at = out.len();
    timefmt::push_local_in(out, b, tz);
    // Same local day: the end needs only its time.
    let day = match (out[from].split_once(' '), out[at..].split_once(' ')) {
        (Some((d1, _)), Some((d2, _))) if d1 == d2 => Some(d2.len() + 1),
        _ => None,
    };
    if let Some(n) = day {
        out.replace_range(at..at + n, "");
    }
    out.push_str("  ");
    timefmt::push_duration(out, b.duration_since(a).as_secs());
}

/// A row's first line: id, span, turns, its lanes (a session) or shape (a
/// lane), size, then what the transcript says of itself and how it was copied.
fn row_line(out: &mut String, st: Style, tz: &TimeZone, r: &Row, id: &str) {
    let (s, t) = (&r.summary, &r.transcript);
    let _ = write!(out, "{}{id}{}  ", st.head, st.reset);
    span(out, tz, s);
    let _ = match s.turns {
        Some(n) => write!(out, "  {n}t"),
        None => write!(out, "  ?t"),
    };
    let _ = match t.is_lane() {
        false => write!(out, "  {} lanes", r.lanes),
        true => write!(out, "  {}", t.shape.name()),
    };
    if t.is_lane() && r.orphan {
        let _ = write!(out, "  {}parent transcript missing{}", st.warn, st.reset);
    }
    out.push_str("  ");
    crate::cmd::push_human_bytes(out, t.size);
    setting(out, st, s);
    copies(out, r);
    malformed(out, st, r);
}

/// `  models  vVERSIONS  [branch]  cwd`, each only when known.
fn setting(out: &mut String, st: Style, s: &Summary) {
    for (i, m) in s.models.iter().enumerate() {
        out.push_str(if i == 0 { "  " } else { "," });
        push_one_line(out, m.strip_prefix("claude-").unwrap_or(m));
    }
    for (i, v) in s.versions.iter().enumerate() {
        out.push_str(if i == 0 { "  v" } else { ",v" });
        push_one_line(out, v);
    }
    if let Some(b) = &s.git_branch {
        out.push_str("  [");
        push_one_line(out, b);
        out.push(']');
    }
    if let Some(c) = &s.cwd {
        out.push_str("  ");
        out.push_str(st.dim);
        push_one_line(out, c);
        out.push_str(st.reset);
    }
}

/// `  malformed: FILE:LINE KIND, …` (a byte offset where the line number is
/// unknown), or nothing.
fn malformed(out: &mut String, st: Style, r: &Row) {
    if r.summary.malformed.is_empty() {
        return;
    }
    let _ = write!(out, "  {}malformed: ", st.warn);
    for (i, b) in r.summary.malformed.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&sanitize::path(&r.transcript.path));
        let _ = match b.line {
            Some(n) => write!(out, ":{n} {}", b.kind.name()),
            None => write!(out, " byte {} {}", b.offset, b.kind.name()),
        };
    }
    out.push_str(st.reset);
}

/// What the rows leave out: rows cut by --max-count, untimed sessions a time
/// window dropped, and the rows whose turns were not counted.
fn footer<W: Write>(w: &mut W, st: Style, l: &Listing) -> io::Result<()> {
    if l.dropped > 0 {
        writeln!(
            w,
            "[… {} more rows not shown; raise --max-count]",
            l.dropped
        )?;
    }
    if l.untimed_left_out > 0 {
        writeln!(
            w,
            "{}[{} sessions with no timestamp left out by --since/--until]{}",
            st.warn, l.untimed_left_out, st.reset
        )?;
    }
    let (whole, head_tail) = read_counts(l);
    if head_tail > 0 {
        writeln!(
            w,
            "turns counted in {} of {} rows (the rest read head and tail only: ?t); --full counts every line",
            grouped(whole),
            grouped(whole + head_tail)
        )?;
    }
    Ok(())
}

/// `  fork of @…`, `  clone of @…`, `  continued in @…`: how the row's session
/// was copied from another, or into one.
fn copies(out: &mut String, r: &Row) {
    let at = |id: &str| format!("@{}", one_line(crate::discovery::short(id)));
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

/// `s` on one line, cut to `max` chars ([`cut`]), appended to `out`.
fn push_cut_line(out: &mut String, s: &str, max: usize) {
    let at = out.len();
    push_one_line(out, s);
    // Most titles are shorter in bytes than the cut, so in chars too.
    if out.len() - at > max {
        let line = out.split_off(at);
        out.push_str(&cut(&line, max));
    }
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
pub(super) mod tests {
    use std::path::PathBuf;

    use super::super::rows::{Listing, Row};
    use super::super::summary::{ReadMode, Summary};
    use crate::discovery::{Shape, Transcript};
    use crate::output::PLAIN;

    /// A title is cut by characters, not bytes: one of 160 two-byte
    /// characters (320 bytes) is kept whole, one of 161 is cut with its
    /// marker, as `cut(&one_line(..))` did; folding comes first either way.
    #[test]
    fn titles_are_cut_by_characters_after_folding() {
        for title in [
            "é".repeat(160),
            "é".repeat(161),
            "a".repeat(200),
            format!("  {}\n\t{}  ", "é".repeat(100), "b".repeat(100)),
            "short".to_string(),
        ] {
            let mut out = String::from(">");
            super::push_cut_line(&mut out, &title, 160);
            let want = format!(">{}", super::cut(&super::one_line(&title), 160));
            assert_eq!(out, want, "{title:?}");
        }
    }

    fn row(session: &str, agent: Option<&str>, read: ReadMode) -> Row {
        let shape = if agent.is_some() {
            Shape::Subagent
        } else {
            Shape::Main
        };
        Row {
            transcript: Transcript {
                path: PathBuf::from(format!("/p/{session}.jsonl")),
                project_dir: PathBuf::from("/p"),
                session_id: session.to_string(),
                agent_id: agent.map(str::to_string),
                shape,
                size: 100,
                mtime: None,
            },
            summary: Box::new(Summary {
                read,
                turns: (read == ReadMode::Whole).then_some(3),
                first_prompt: Some("fix the\nbuild".into()),
                ..Summary::default()
            }),
            lanes: usize::from(agent.is_none()),
            orphan: session.starts_with("bbbb"),
            clone_of: None,
            forked_from: None,
        }
    }

    pub(in crate::cmd::list) fn listing() -> Listing {
        Listing {
            rows: vec![
                row("aaaa1111-0000", None, ReadMode::Whole),
                row("aaaa1111-0000", Some("a1b2"), ReadMode::Whole),
                row("bbbb2222-0000", Some("c3d4"), ReadMode::HeadTail),
            ],
            dropped: 2,
            untimed_left_out: 1,
            bytes: 300,
        }
    }

    /// In-process, with no binary: a lane under its session's row is drawn
    /// as `└`, one whose session is not above it names its session, and the
    /// footer says what was cut and what was not counted.
    #[test]
    fn human_rows_and_footer() {
        let mut w = Vec::new();
        super::human(&mut w, PLAIN, &listing()).unwrap();
        let text = String::from_utf8(w).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("aaaa1111  no timestamps  3t  1 lanes  "),
            "{text}"
        );
        assert_eq!(lines[1], "    fix the build");
        assert!(
            lines[2].starts_with("  └ @a1b2  no timestamps  3t  subagent  "),
            "{text}"
        );
        assert!(
            lines[4].starts_with(
                "bbbb2222@c3d4  no timestamps  ?t  subagent  parent transcript missing"
            ),
            "{text}"
        );
        assert_eq!(lines[6], "[… 2 more rows not shown; raise --max-count]");
        assert_eq!(
            lines[7],
            "[1 sessions with no timestamp left out by --since/--until]"
        );
        assert_eq!(
            lines[8],
            "turns counted in 2 of 3 rows (the rest read head and tail only: ?t); --full counts every line"
        );
        assert_eq!(lines.len(), 9, "{text}");
    }

    #[test]
    fn grouped_counts() {
        assert_eq!(super::grouped(0), "0");
        assert_eq!(super::grouped(925), "925");
        assert_eq!(super::grouped(1186), "1,186");
        assert_eq!(super::grouped(1_234_567), "1,234,567");
    }
}
