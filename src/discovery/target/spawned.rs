//! The hint for an id no lane file carries that still names a subagent a
//! session spawned: its spawn result records the id (`toolUseResult.agentId`,
//! BG-004, or the `agentId: <id>` footer of the result text, SUB-019) while the
//! lane file was never written or is gone (`agents` shows it as
//! `no-lane-file`). Only on this error path are the main transcripts of
//! sessions starting with `session` read, for the first such mention, so the
//! error can say where the spawn and its answer are.

use crate::discovery::walk::Walk;
use crate::discovery::Transcript;
use crate::scan::json::field;
use crate::scan::lines::{line_no_at, line_start};
use crate::scan::source::Source;

/// Where one main transcript names a subagent id, as byte offsets.
#[derive(Default)]
struct Mentions {
    /// The first mention, and where the id starts in it.
    first: Option<(usize, usize)>,
    /// The first mention on a line carrying a tool result's echo (the spawn
    /// result); `agent_progress` records name it first.
    result: Option<usize>,
    /// Its records nested in agent_progress records: first and last line
    /// start, and how many.
    nested: Option<(usize, usize, usize)>,
}

/// The hint for `id` (a prefix), from the first main transcript of a session
/// starting with `session` that names it; `None` when none does.
pub(super) fn without_lane(all: &Walk, session: &str, id: &str, home_args: &str) -> Option<String> {
    let keys = [
        format!("\"agentId\":\"{id}"),
        format!("\"agentId\": \"{id}"),
        format!("agentId: {id}"),
    ];
    all.transcripts
        .iter()
        .filter(|t| !t.is_lane() && t.session_id.starts_with(session))
        .find_map(|t| {
            let buf = Source::open(&t.path).ok()?;
            let m = mentions(&buf, &keys, id);
            let first = m.first?;
            // Cut while mapped: zeros past the cut, so no line number is trusted.
            buf.check().ok()?;
            Some(hint(&buf, t, first, &m, home_args))
        })
}

/// Every mention of `keys` in `buf` (each key ends in the id prefix `id`).
fn mentions(buf: &[u8], keys: &[String], id: &str) -> Mentions {
    let mut m = Mentions::default();
    for k in keys {
        let mut last_line = usize::MAX;
        for at in memchr::memmem::find_iter(buf, k.as_bytes()) {
            let s = line_start(buf, at);
            let e = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |n| at + n);
            if m.first.is_none_or(|(f, _)| at < f) {
                m.first = Some((at, at + k.len() - id.len()));
            }
            let line = &buf[s..e];
            // The record's own agentId key, not a result text's footer.
            if s != last_line && k.starts_with('"') && is_agent_progress(line) {
                last_line = s;
                m.nested = Some(match m.nested {
                    None => (s, s, 1),
                    Some((a, b, n)) => (a.min(s), b.max(s), n + 1),
                });
            }
            // Its own echo: a subagent's progress records nest results too.
            if is_result_echo(line) {
                m.result = Some(m.result.map_or(at, |r| r.min(at)));
                break;
            }
        }
    }
    m
}

fn is_agent_progress(line: &[u8]) -> bool {
    field(line, b"type") == Some(&b"\"progress\""[..])
        && memchr::memmem::find(line, b"\"agent_progress\"").is_some()
}

fn is_result_echo(line: &[u8]) -> bool {
    field(line, b"type") == Some(&b"\"user\""[..])
        && memchr::memmem::find(line, b"\"toolUseResult\"").is_some()
}

/// The error's hint: the full id as written at its first mention, where the
/// spawn result (or the first mention) is, and where nested records are.
fn hint(
    buf: &[u8],
    t: &Transcript,
    (at, start): (usize, usize),
    m: &Mentions,
    home_args: &str,
) -> String {
    let full: String = buf[start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .map(|&b| b as char)
        .collect();
    let sid = t.session_id.get(..8).unwrap_or(&t.session_id);
    let no = |at| line_no_at(buf, at);
    let whereabouts = match m.result {
        Some(r) => format!(
            "its spawn result, with what it returned, is line {n} of the session: \
             csift show @{sid} --line {n}{home_args}",
            n = no(r)
        ),
        None => format!(
            "the session first names it on line {n}: csift show @{sid} --line {n}{home_args}",
            n = no(at)
        ),
    };
    // Where its own records are, when the parent nests them.
    let records = match m.nested {
        Some((a, b, n)) => format!(
            "; its {n} records are nested in the session's agent_progress records, \
             lines {}..{}: csift search PATTERN @{sid}{home_args} finds them (read \
             `{sid}@{full} via agent_progress`), csift show @{sid} --line {}..{}{home_args} prints them",
            no(a),
            no(b),
            no(a),
            no(b)
        ),
        None => String::new(),
    };
    format!(
        "subagent `{full}` was spawned in session {sid} but has no lane file of its own \
         (`csift agents @{sid}{home_args}` shows it as no-lane-file); {whereabouts}{records}"
    )
}
