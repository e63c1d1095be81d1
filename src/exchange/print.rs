//! A unit's one-line header, as search prints a hit and show a record, and
//! as `wait` prints the record that fired: who, turn, label, tool, time and
//! `file:line`. Ids, paths and names are cleaned for the terminal.

use std::io::{self, Write};

use super::unit::UnitOut;
use crate::output::{sanitize, Out, Style};
use crate::timefmt;

/// One unit's header line; `mark` ends it with `[match]`, the marker that tells
/// the matched unit of an exchange from its partners where colour does not
/// (piped output, which is how an agent reads it).
pub(crate) fn header(out: &mut Out, u: &UnitOut, arrow: bool, mark: bool) -> io::Result<()> {
    let st = out.style;
    let tail = if mark { " [match]" } else { "" };
    unit_line(out, st, u, arrow, "", tail)
}

/// The header line every command prints for a unit: `──` (or `  ↳` for the
/// 2nd+ unit of a record), who, turn, label, tool, error, time and
/// `file:line`, then `tail` in `tail_style` (search's `[match]`, show's copy
/// mark).
pub(crate) fn unit_line<W: Write + ?Sized>(
    w: &mut W,
    st: Style,
    u: &UnitOut,
    arrow: bool,
    tail_style: &str,
    tail: &str,
) -> io::Result<()> {
    let turn = u.turn.map_or("·t-".to_string(), |t| format!("·t{t}"));
    let tool = u
        .tool_name
        .as_deref()
        .map(|n| format!(" {}", sanitize::one_line(n)))
        .unwrap_or_default();
    let err = if u.is_error { " error" } else { "" };
    let lead = if arrow { "  ↳" } else { "──" };
    let via = u.via_mark();
    writeln!(
        w,
        "{}{lead} {} {turn} {}{}{}{tool}{err}{via} {} {}:{}{tail_style}{tail}{}",
        st.head,
        who(&u.session_id, u.agent_id.as_deref()),
        st.label,
        u.label,
        st.head,
        when(u.timestamp.as_deref()),
        sanitize::one_line(&u.file),
        u.line,
        st.reset
    )
}

/// A record time as the local time headers print, `-` when there is none.
pub(crate) fn when(ts: Option<&str>) -> String {
    ts.and_then(timefmt::parse_ts)
        .map(timefmt::local)
        .unwrap_or_else(|| "-".into())
}

/// `session@agent` for a header, cleaned: ids come from file names, which
/// may hold escape bytes.
pub(crate) fn who(session_id: &str, agent_id: Option<&str>) -> String {
    let who = match agent_id {
        Some(a) => format!("{}@{}", crate::discovery::short(session_id), a),
        None => crate::discovery::short(session_id).to_string(),
    };
    sanitize::one_line(&who)
}
