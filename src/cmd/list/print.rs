//! Printing `csift list` rows in the human form: two compact lines a row
//! (its facts, then its title), then what was left out. The JSON Lines form
//! is [`super::json`].

use std::io::{self, Write};

use super::rows::{Listing, Row};
use super::summary::{ReadMode, Summary};
use crate::output::sanitize::{self, one_line};
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

/// Two lines a row: its facts, then its title; then what was left out.
pub(crate) fn human<W: Write>(w: &mut W, st: Style, l: &Listing) -> io::Result<()> {
    // The session of the last session row, whose lanes may follow it.
    let mut above: Option<&str> = None;
    for r in &l.rows {
        let id = id_cell(r, &mut above);
        writeln!(w, "{}", row_line(st, r, &id))?;
        if let Some((title, _)) = r.summary.title() {
            writeln!(w, "    {}", cut(&one_line(title), 160))?;
        }
    }
    footer(w, st, l)
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
fn span(s: &Summary) -> String {
    let (Some(a), Some(b)) = (s.started, s.last_activity) else {
        return "no timestamps".to_string();
    };
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

/// A row's first line: id, span, turns, its lanes (a session) or shape (a
/// lane), size, then what the transcript says of itself and how it was copied.
fn row_line(st: Style, r: &Row, id: &str) -> String {
    let (s, t) = (&r.summary, &r.transcript);
    let turns = s.turns.map_or("?".to_string(), |n| n.to_string());
    let mut line = format!("{}{id}{}  {}  {turns}t", st.head, st.reset, span(s));
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
    line.push_str(&setting(st, s));
    line.push_str(&copies(r));
    line.push_str(&malformed(st, r));
    line
}

/// `  models  vVERSIONS  [branch]  cwd`, each only when known.
fn setting(st: Style, s: &Summary) -> String {
    let mut out = String::new();
    let models: Vec<String> = s
        .models
        .iter()
        .map(|m| one_line(m.strip_prefix("claude-").unwrap_or(m)))
        .collect();
    if !models.is_empty() {
        out.push_str(&format!("  {}", models.join(",")));
    }
    let versions: Vec<String> = s.versions.iter().map(|v| one_line(v)).collect();
    if !versions.is_empty() {
        out.push_str(&format!("  v{}", versions.join(",v")));
    }
    if let Some(b) = &s.git_branch {
        out.push_str(&format!("  [{}]", one_line(b)));
    }
    if let Some(c) = &s.cwd {
        out.push_str(&format!("  {}{}{}", st.dim, one_line(c), st.reset));
    }
    out
}

/// `  malformed: FILE:LINE KIND, …` (a byte offset where the line number is
/// unknown), or nothing.
fn malformed(st: Style, r: &Row) -> String {
    if r.summary.malformed.is_empty() {
        return String::new();
    }
    let what: Vec<String> = r
        .summary
        .malformed
        .iter()
        .map(|b| {
            let at = b
                .line
                .map_or(format!(" byte {}", b.offset), |n| format!(":{n}"));
            format!(
                "{}{at} {}",
                sanitize::path(&r.transcript.path),
                b.kind.name()
            )
        })
        .collect();
    format!("  {}malformed: {}{}", st.warn, what.join(", "), st.reset)
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
pub(super) mod tests {
    use std::path::PathBuf;

    use super::super::rows::{Listing, Row};
    use super::super::summary::{ReadMode, Summary};
    use crate::discovery::{Shape, Transcript};
    use crate::output::PLAIN;

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
            summary: Summary {
                read,
                turns: (read == ReadMode::Whole).then_some(3),
                first_prompt: Some("fix the\nbuild".into()),
                ..Summary::default()
            },
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
