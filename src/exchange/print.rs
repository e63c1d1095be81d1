//! A unit's one-line header, as search prints a hit and show a record, and
//! as `wait` prints the record that fired: who, turn, label, tool, time and
//! `file:line`. Ids, paths and names are cleaned for the terminal.

use std::io::{self, Write};

use super::unit::UnitOut;
use crate::output::{sanitize, Out};
use crate::timefmt;

/// One unit's header line; `mark` ends it with `[match]`, the marker that tells
/// the matched unit of an exchange from its partners where colour does not
/// (piped output, which is how an agent reads it).
pub(crate) fn header(out: &mut Out, u: &UnitOut, arrow: bool, mark: bool) -> io::Result<()> {
    let st = out.style;
    let when = u
        .timestamp
        .as_deref()
        .and_then(timefmt::parse_ts)
        .map(timefmt::local)
        .unwrap_or_else(|| "-".into());
    let turn = u.turn.map_or("·t-".to_string(), |t| format!("·t{t}"));
    // Ids and paths come from file names, which may hold escape bytes too.
    let who = match &u.agent_id {
        Some(a) => format!("{}@{}", crate::discovery::short(&u.session_id), a),
        None => crate::discovery::short(&u.session_id).to_string(),
    };
    let who = sanitize::one_line(&who);
    let tool = u
        .tool_name
        .as_deref()
        .map(|n| format!(" {}", sanitize::one_line(n)))
        .unwrap_or_default();
    let err = if u.is_error { " error" } else { "" };
    let lead = if arrow { "  ↳" } else { "──" };
    let mark = if mark { " [match]" } else { "" };
    let via = u.via_mark();
    writeln!(
        out,
        "{}{lead} {who} {turn} {}{}{}{tool}{err}{via} {when} {}:{}{mark}{}",
        st.head,
        st.label,
        u.label,
        st.head,
        sanitize::one_line(&u.file),
        u.line,
        st.reset
    )
}
