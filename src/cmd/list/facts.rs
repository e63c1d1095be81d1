//! What one `csift list` row says about a transcript, computed from the bytes
//! `read` fetched. Head lines answer cwd, branch, first version, start and
//! the first genuine prompt; the last records answer last activity, last version
//! and branch; a literal-set pass answers models, titles and glued records; and
//! a [`FileIndex`] answers genuine-user turns.
//!
//! A file read whole gets every fact exactly. A file read as a head and a tail
//! window gets only what those windows hold: models, titles and malformed lines
//! seen in them, and no turn count (`None`), which cannot be had without every
//! line. Nothing here guesses a fact from a part of the file. The tail still
//! answers the usual title: Claude Code rewrites `ai-title` every turn (QT-030,
//! TAIL-006), so the newest one sits among the last records. A `summary` titles
//! the row only when its `leafUuid` is a record of the file; when the windows
//! hold such a summary but not its leaf, and nothing outranks it, the file is
//! read whole to decide rather than guess (so `--full` gives the same title).

use jiff::Timestamp;
use regex::bytes::Regex;

use super::read::{Bytes, Windows, HEAD_MAX, TAIL_MAX};
use super::summary::{Bad, ReadMode, Summary};
use crate::classify::sidechain::InlineLanes;
use crate::classify::{turns, FileIndex};
use crate::discovery::Transcript;
use crate::record::{opt_str, parse_line, MalformedKind, Parsed, Record, Str};
use crate::scan::{self, Lines};
use crate::timefmt;

/// Records parsed at the head for the start time (timestamps are not monotone,
/// REC-089, so the minimum over a few) and at the tail for the last activity.
const HEAD_RECORDS: usize = 12;
const TAIL_RECORDS: usize = 12;

/// Summarise one transcript: read whole when `whole`, else head and tail windows
/// (whole anyway when the file fits in them).
pub(crate) fn summarize(t: &Transcript, whole: bool) -> crate::error::Result<Summary> {
    let lane = t.is_lane();
    let mut bytes = Bytes::open(&t.path, whole)?;
    if let Bytes::Windows(w) = &mut bytes {
        if let Some(s) = from_windows(w, lane, &t.path)? {
            return Ok(s);
        }
    }
    let buf = bytes.whole().unwrap_or_default();
    let mut s = Summary::default();
    let mut head = HeadScan::default();
    let head_lines = head_of(buf);
    head.feed(head_lines, lane, &mut s);
    s.clone_boundary = clone_probe(head_lines, lane);
    // The scan walks back from EOF over whole lines only: a byte window could
    // cut a long last record and miss the last records before it (REC-089).
    let end = TailFacts::scan(buf, 0, buf.len() as u64, Some(buf));
    let mut inline = (!lane).then(InlineLanes::default);
    literal_pass(buf, 0, true, &mut s, inline.as_mut());
    s.inline_lanes = Some(inline.map_or(0, |l| l.len()));
    s.summary = titling_summary(&s, &[buf]).ok().flatten();
    end.merge(&mut s);
    s.turns = Some(FileIndex::build(buf, lane).turns());
    s.read = ReadMode::Whole;
    s.bytes = buf.len() as u64;
    bytes.check()?;
    Ok(s)
}

/// Summarise from windows, growing them while facts are missing; `None` when they
/// grew to cover the file (the caller then reads it as whole).
fn from_windows(
    w: &mut Windows,
    lane: bool,
    path: &std::path::Path,
) -> crate::error::Result<Option<Summary>> {
    if w.is_whole() {
        return Ok(None); // small enough to have been read whole
    }
    let mut s = Summary::default();
    let mut head = HeadScan::default();
    loop {
        let lines = complete_head(w.head());
        head.feed(lines, lane, &mut s);
        let found = s.first_prompt.is_some() && s.cwd.is_some();
        // At least one whole line, as `scan::head`, even past HEAD_MAX; and
        // HEAD_MAX of lines other than payloads.
        let partial = w.head().len() - lines.len();
        let max = if lines.is_empty() || partial >= PAYLOAD_LINE {
            usize::MAX
        } else {
            HEAD_MAX + payload_bytes(lines)
        };
        if found || !w.grow_head(max, path)? {
            break;
        }
        if w.is_whole() {
            return Ok(None);
        }
    }
    s.clone_boundary = clone_probe(complete_head(w.head()), lane);
    let end = loop {
        let (at, win) = w.tail();
        // The window starts inside a line: its first whole line follows a newline.
        let skip = memchr::memchr(b'\n', win).map_or(win.len(), |i| i + 1);
        let end = TailFacts::scan(&win[skip..], at + skip as u64, w.file_len(), None);
        // A last record longer than the window leaves no whole line in it: grow
        // past TAIL_MAX until one is whole (to the whole file at worst), or the
        // last activity would be some older record's, or none.
        let whole_line = memchr::memchr(b'\n', &win[..win.len().saturating_sub(1)]).is_some();
        let max = if whole_line { TAIL_MAX } else { usize::MAX };
        if end.last.is_some() || !w.grow_tail(max, path)? {
            break end;
        }
        if w.is_whole() {
            return Ok(None);
        }
    };
    literal_pass(complete_head(w.head()), 0, true, &mut s, None);
    let (at, win) = w.tail();
    let skip = memchr::memchr(b'\n', win).map_or(win.len(), |i| i + 1);
    literal_pass(&win[skip..], at + skip as u64, false, &mut s, None);
    let titled = titling_summary(&s, &[w.head(), w.tail().1]);
    match titled {
        Ok(found) => s.summary = found,
        // A summary's leaf may lie between the windows: read it all to decide.
        Err(Undecided) => {
            w.read_whole(path)?;
            return Ok(None);
        }
    }
    end.merge(&mut s);
    s.turns = None;
    s.read = ReadMode::HeadTail;
    s.bytes = w.file_len();
    Ok(Some(s))
}

/// The head boundary of a main transcript minted as a clone (CMP-012).
fn clone_probe(head: &[u8], lane: bool) -> Option<String> {
    match lane {
        true => None,
        false => super::clones::head_boundary(head).flatten(),
    }
}

/// A line this long is a payload (a pasted screenshot, a large attachment or
/// snapshot): the head's budget does not count it.
const PAYLOAD_LINE: usize = 256 * 1024;

/// Bytes of the payload lines among `lines`: one ahead of the first prompt
/// (a 3 MB attachment line, a prompt behind a 3 MB image) used up the head's
/// budget, and the session lost its title, with `--full` too.
fn payload_bytes(lines: &[u8]) -> usize {
    let mut total = 0;
    let mut at = 0;
    while at < lines.len() {
        let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |i| at + i + 1);
        if end - at >= PAYLOAD_LINE {
            total += end - at;
        }
        at = end;
    }
    total
}

/// The head of a file read whole: whole lines while those other than
/// payloads ([`payload_bytes`]) fit in [`HEAD_MAX`]; at least one.
fn head_of(buf: &[u8]) -> &[u8] {
    let mut small = 0;
    let mut at = 0;
    while at < buf.len() {
        let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i + 1);
        if end - at < PAYLOAD_LINE {
            small += end - at;
            if small > HEAD_MAX && at > 0 {
                break;
            }
        }
        at = end;
    }
    &buf[..at]
}

/// The whole lines of a head window (which may end inside a line).
fn complete_head(head: &[u8]) -> &[u8] {
    memchr::memrchr(b'\n', head).map_or(&[], |i| &head[..=i])
}

/// The head scan, resumable when its window grows: how many lines it has seen.
#[derive(Default)]
struct HeadScan {
    lines: usize,
}

impl HeadScan {
    /// Read head lines after those already seen: cwd, branch, first version,
    /// start (min over the first lines, REC-089), first genuine prompt.
    fn feed(&mut self, head: &[u8], lane: bool, s: &mut Summary) {
        for line in Lines::new(head).skip(self.lines) {
            let parsed = self.lines;
            // Enough once the prompt and envelope are known and a few timestamps seen.
            if parsed >= HEAD_RECORDS && s.first_prompt.is_some() && s.cwd.is_some() {
                break;
            }
            self.lines += 1;
            if parsed >= HEAD_RECORDS && !may_tell(line.bytes, s) {
                continue;
            }
            // A line without the bare `"user"` token is no user record, so it
            // holds no prompt: its envelope is all it can tell, read without
            // building its content (a file read whole has its first records
            // parsed, often tool calls and results, most of their bytes).
            if crate::scan::lit!(b"\"user\"").find(line.bytes).is_none() {
                if let Some(e) = envelope(line.bytes) {
                    self.envelope(parsed, [e.cwd, e.git_branch, e.version, e.timestamp], s);
                }
                continue;
            }
            let Parsed::Record(r) = parse_line(&line) else {
                continue;
            };
            let fields = [&r.cwd, &r.git_branch, &r.version, &r.timestamp].map(|f| f.clone());
            self.envelope(parsed, fields, s);
            if s.first_prompt.is_none() && (lane || !r.is_sidechain()) {
                first_prompt(&r, s);
            }
        }
    }
}

impl HeadScan {
    /// What the `parsed`-th head record's envelope tells: `[cwd, gitBranch,
    /// version, timestamp]`.
    fn envelope(&self, parsed: usize, [cwd, branch, version, ts]: [Str<'_>; 4], s: &mut Summary) {
        if s.cwd.is_none() {
            s.cwd = cwd.as_deref().map(str::to_string);
        }
        if s.git_branch.is_none() {
            s.git_branch = nonempty(branch.as_deref());
        }
        if let Some(v) = version.as_deref() {
            if s.versions.is_empty() {
                s.versions.insert(v.to_string());
            }
        }
        if parsed < HEAD_RECORDS {
            if let Some(ts) = ts.as_deref().and_then(timefmt::parse_ts) {
                s.started = Some(s.started.map_or(ts, |x: Timestamp| x.min(ts)));
            }
        }
    }
}

/// Whether a head line past the first [`HEAD_RECORDS`] can still tell the row
/// something, judged from its bytes; the lines it rules out are never parsed.
/// A session opened by a slash command can hold its first typed prompt half a
/// megabyte in, behind tool results (which are most of the bytes there); those
/// lines are skipped unparsed. Only a `false` that a parse would contradict is
/// wrong, so every test below errs towards parsing:
/// - the envelope (cwd, first version) still missing: parse;
/// - no branch yet and the line holds a non-empty `"gitBranch"` value: parse;
/// - no prompt yet and the line is a user record that is not a tool_result
///   carrier, or a carrier that may name the first slash command: parse.
///
/// The bare tokens `"user"` and `"tool_result"` cannot occur inside a JSON string
/// (its quotes would be escaped), so a line without `"user"` is no user record,
/// and a line whose `"tool_result"` is a `type` value holds a tool_result block.
fn may_tell(line: &[u8], s: &Summary) -> bool {
    use crate::scan::lit;
    if s.cwd.is_none() || s.versions.is_empty() {
        return true;
    }
    if s.git_branch.is_none() && names_a_branch(line) {
        return true;
    }
    if s.first_prompt.is_some() || lit!(b"\"user\"").find(line).is_none() {
        return false;
    }
    !is_result_carrier(line)
        || (s.first_command.is_none() && lit!(b"<command-name>").find(line).is_some())
}

/// Whether any `"gitBranch"` key in the line has a non-empty value (REC-038:
/// either spacing).
fn names_a_branch(line: &[u8]) -> bool {
    crate::scan::lit!(b"\"gitBranch\"")
        .find_iter(line)
        .any(|at| {
            let v = line[at + 11..].trim_ascii_start();
            let v = v.strip_prefix(b":").unwrap_or(v).trim_ascii_start();
            !v.starts_with(b"\"\"")
        })
}

/// Whether the line holds `"tool_result"` as a `type` value (either spacing).
fn is_result_carrier(line: &[u8]) -> bool {
    crate::scan::lit!(b"\"tool_result\"")
        .find_iter(line)
        .any(|at| {
            let before = line[..at].trim_ascii_end();
            before
                .strip_suffix(b":")
                .is_some_and(|k| k.trim_ascii_end().ends_with(b"\"type\""))
        })
}

fn first_prompt(r: &Record<'_>, s: &mut Summary) {
    s.first_prompt = turns::prompt_text(r).map(|p| crate::output::sanitize::one_line(&p));
    if s.first_command.is_none() && r.kind() == "user" && !r.is_meta() {
        s.first_command = r
            .user_text()
            .and_then(|t| {
                crate::classify::markers::xml_tag(&t, "command-name")
                    .map(crate::output::sanitize::one_line)
            })
            .filter(|c| !c.is_empty());
    }
}

fn nonempty(v: Option<&str>) -> Option<String> {
    v.filter(|b| !b.is_empty()).map(str::to_string)
}

/// What the last records say, read backwards from EOF.
#[derive(Default)]
struct TailFacts {
    /// Last activity: the max over the last records (REC-089).
    last: Option<Timestamp>,
    versions: Vec<String>,
    /// The newest branch.
    branch: Option<String>,
    torn: Option<Bad>,
}

impl TailFacts {
    /// Scan the last [`TAIL_RECORDS`] lines of `tail`, whole lines starting at file
    /// offset `at` of a file of `len` bytes. `whole` is the whole file when it was
    /// read, to number a torn final line.
    fn scan(tail: &[u8], at: u64, len: u64, whole: Option<&[u8]>) -> TailFacts {
        let mut f = TailFacts::default();
        let mut end = tail.len();
        let mut seen = 0;
        while end > 0 && seen < TAIL_RECORDS {
            let body_end = if tail[end - 1] == b'\n' { end - 1 } else { end };
            let start = memchr::memrchr(b'\n', &tail[..body_end]).map_or(0, |i| i + 1);
            let line = scan::Line {
                no: 0,
                offset: start,
                bytes: &tail[start..body_end],
                terminated: body_end < end,
            };
            end = start;
            seen += 1;
            let Some(r) = envelope(line.bytes) else {
                if !line.terminated && at + body_end as u64 == len && !line.bytes.is_empty() {
                    let no = whole.map(scan::lines::count);
                    let line = scan::Line {
                        no: no.unwrap_or(0),
                        ..line
                    };
                    if let Parsed::Malformed(m) = parse_line(&line) {
                        f.torn = Some(Bad {
                            line: no,
                            offset: at + start as u64,
                            kind: m.kind,
                        });
                    }
                }
                continue;
            };
            if let Some(ts) = r.timestamp.as_deref().and_then(timefmt::parse_ts) {
                f.last = Some(f.last.map_or(ts, |x: Timestamp| x.max(ts)));
            }
            if let Some(v) = r.version.as_deref() {
                f.versions.push(v.to_string());
            }
            if f.branch.is_none() {
                f.branch = nonempty(r.git_branch.as_deref());
            }
        }
        f
    }

    fn merge(self, s: &mut Summary) {
        s.last_activity = self.last;
        s.versions.extend(self.versions);
        if let Some(b) = self.branch {
            s.git_branch = Some(b);
        }
        s.malformed.extend(self.torn);
        s.malformed.sort_by_key(|b| b.offset);
        if s.started.is_none() {
            s.started = s.last_activity;
        }
        if s.last_activity.is_none() {
            s.last_activity = s.started;
        }
    }
}

/// The envelope fields the tail (and a head line that holds no prompt) needs.
/// Such records are often the largest (tool results, long replies); reading four
/// fields skips the rest without building content blocks or unescaping text.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    cwd: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    timestamp: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    version: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    git_branch: Str<'a>,
}

/// A line's envelope, when it is a JSON object (serde would read a struct from
/// an array too).
fn envelope(line: &[u8]) -> Option<Envelope<'_>> {
    if line.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    serde_json::from_slice(line).ok()
}

/// The literal set of [`literal_pass`]; with `sidechains` also an inline
/// sidechain record's flag, which leads its record (before any `"model"`).
/// Only a main file read whole looks for it: a pattern every line's
/// `"isSidechain":false` starts costs the pass a few percent.
fn interesting(sidechains: bool) -> &'static Regex {
    // REC-038: tolerate `"type": "x"` as well as the compact form.
    match sidechains {
        false => {
            crate::scan::re!(bytes r#""type":\s?"(?:ai-title|custom-title|summary|continued-in)"|"model"\s*:\s*"|\}\{""#)
        }
        true => {
            crate::scan::re!(bytes r#""type":\s?"(?:ai-title|custom-title|summary|continued-in)"|"model"\s*:\s*"|\}\{"|"isSidechain":\s?true"#)
        }
    }
}

/// One pass over `buf` (whole lines at file offset `base`; numbered from 1 when
/// `numbered`, i.e. it starts the file) with a literal set: models, titles,
/// glued records (confirmed by a parse), and with `inline` (a main file read
/// whole) its 1.0.x sidechain records, placed in their lanes as `agents` does
/// ([`InlineLanes`]).
fn literal_pass(
    buf: &[u8],
    base: u64,
    numbered: bool,
    s: &mut Summary,
    mut inline: Option<&mut InlineLanes>,
) {
    let re = interesting(inline.is_some());
    for (l, hit) in scan::lines::HitLines::new(buf, re) {
        let line = l.bytes;
        // `}{"` also ends strings like "x }{" in code; only a parse can confirm glue.
        if crate::scan::lit!(b"}{\"").find(line).is_some() {
            if let Parsed::Malformed(bad) = parse_line(&l) {
                if bad.kind == MalformedKind::Glued {
                    s.malformed.push(Bad {
                        line: numbered.then_some(l.no),
                        offset: base + l.offset as u64,
                        kind: MalformedKind::Glued,
                    });
                    continue;
                }
            }
        }
        // The first "model" on an assistant line is message.model (either
        // spacing, REC-038).
        if let Some(v) = crate::scan::pair::first_plain_str(line, crate::scan::lit!(b"\"model\"")) {
            if let Ok(model) = std::str::from_utf8(v) {
                // The line's own type: an `agent_progress` record nests a
                // subagent's assistant message (and its model) inside `data`
                // (measured, not a claim: 8 of the 59 public transcripts). The
                // field walk runs only for a model new to this row.
                if !model.is_empty()
                    && v.len() < 100
                    && !s.models.contains(model)
                    && crate::scan::json::field(line, b"type") == Some(&b"\"assistant\""[..])
                {
                    s.models.insert(model.to_string());
                }
            }
        }
        if hit.ends_with(b"true") {
            // A flag nested in an agent_progress record is not the line's own
            // (the line's own leads its record: a skim of the first fields).
            let own = || crate::scan::json::field(line, b"isSidechain") == Some(&b"true"[..]);
            if let Some(lanes) = inline.as_deref_mut().filter(|_| own()) {
                if let Parsed::Record(r) = parse_line(&l) {
                    if r.is_sidechain() {
                        lanes.place(r.uuid.as_deref(), r.parent_uuid.as_deref());
                    }
                }
            }
            continue;
        }
        if hit.ends_with(b"continued-in\"") {
            // MISC-028: a fork's successor, named in its origin.
            s.continued_in.extend(super::clones::continued_in(line));
            continue;
        }
        if hit.ends_with(b"title\"") || hit.ends_with(b"summary\"") {
            if let Parsed::Record(r) = parse_line(&l) {
                take_titles(&r, s);
            }
        }
    }
}

/// A summary whose leaf the bytes read so far cannot settle.
struct Undecided;

/// The title among `s.summaries`: the newest whose leaf is a record uuid in
/// `parts` (the whole file, or its windows); `Err` when a newer one's leaf is
/// not in the windows, which only the rest of the file can settle. `None`
/// when a custom or AI title outranks every summary anyway.
fn titling_summary(s: &Summary, parts: &[&[u8]]) -> Result<Option<String>, Undecided> {
    if s.summaries.is_empty() || s.custom_title.is_some() || s.ai_title.is_some() {
        return Ok(None);
    }
    let leaves: std::collections::HashSet<&str> =
        s.summaries.iter().map(|(_, l)| l.as_str()).collect();
    let mut found = std::collections::HashSet::new();
    for part in parts {
        record_uuids_among(part, &leaves, &mut found);
    }
    for (title, leaf) in s.summaries.iter().rev() {
        if found.contains(leaf.as_str()) {
            return Ok(Some(title.clone()));
        }
        if parts.len() > 1 {
            return Err(Undecided);
        }
    }
    Ok(None)
}

/// Every value of a `"uuid"` key in `buf` (either spacing, REC-038) that is in
/// `wanted`. The bare token `"uuid"` cannot occur inside a JSON string (its
/// quotes would be escaped), so each is a key: a record's own uuid, or one
/// nested in an `agent_progress` record (a record of this session too).
fn record_uuids_among<'a>(
    buf: &[u8],
    wanted: &std::collections::HashSet<&'a str>,
    found: &mut std::collections::HashSet<&'a str>,
) {
    for at in crate::scan::lit!(b"\"uuid\"").find_iter(buf) {
        let v = buf[at + 6..].trim_ascii_start();
        let Some(v) = v.strip_prefix(b":").map(<[u8]>::trim_ascii_start) else {
            continue;
        };
        let Some(v) = v.strip_prefix(b"\"") else {
            continue;
        };
        let Some(end) = memchr::memchr(b'"', &v[..v.len().min(128)]) else {
            continue;
        };
        if let Some(w) = std::str::from_utf8(&v[..end])
            .ok()
            .and_then(|u| wanted.get(u))
        {
            found.insert(*w);
        }
    }
}

/// Last wins within a type (REC-002); a blank title keeps the previous one.
/// Summaries are gathered with their leaves ([`titling_summary`] picks one).
fn take_titles(r: &Record<'_>, s: &mut Summary) {
    let keep = |v: &Option<std::borrow::Cow<'_, str>>| {
        v.as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(crate::output::sanitize::one_line)
    };
    match r.kind() {
        "custom-title" => s.custom_title = keep(&r.custom_title).or(s.custom_title.take()),
        "ai-title" => s.ai_title = keep(&r.ai_title).or(s.ai_title.take()),
        "summary" => {
            let leaf = r.leaf_uuid.as_deref().filter(|l| !l.is_empty());
            if let (Some(title), Some(leaf)) = (keep(&r.summary), leaf) {
                s.summaries.push((title, leaf.to_string()));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The static pattern compiles and finds each fact it is for.
    #[test]
    fn static_pattern_compiles() {
        for sidechains in [false, true] {
            let re = interesting(sidechains);
            for hay in [&br#""type": "summary""#[..], br#""model":"x""#, b"}{\""] {
                assert!(re.is_match(hay), "{}", String::from_utf8_lossy(hay));
            }
            let flag = br#""isSidechain":true"#;
            assert_eq!(re.is_match(flag), sidechains);
        }
    }

    /// REC-038: a re-serialised line (`": "`) is the same record, so both byte
    /// checks read either spacing; a quoted mention inside a string is escaped
    /// and never counts.
    #[test]
    fn head_line_checks_read_either_spacing_rec_038() {
        assert!(names_a_branch(br#"{"gitBranch":"main"}"#));
        assert!(names_a_branch(br#"{"gitBranch" : "main"}"#));
        assert!(!names_a_branch(br#"{"gitBranch":""}"#));
        assert!(!names_a_branch(br#"{"gitBranch": ""}"#));
        assert!(names_a_branch(
            br#"{"gitBranch":"","x":{"gitBranch":"dev"}}"#
        ));
        assert!(!names_a_branch(br#"{"text":"a \"gitBranch\":\"dev\""}"#));

        assert!(is_result_carrier(
            br#"{"content":[{"type":"tool_result","content":"x"}]}"#
        ));
        assert!(is_result_carrier(
            br#"{"content":[{"tool_use_id":"t","type": "tool_result"}]}"#
        ));
        assert!(!is_result_carrier(
            br#"{"content":"why is {\"type\":\"tool_result\"} here"}"#
        ));
        assert!(!is_result_carrier(br#"{"content":"tool_result"}"#));
    }

    /// Past the head records only a user line that is no carrier (or a carrier
    /// that may name the first command) can still give the first prompt.
    #[test]
    fn may_tell_rules_out_only_lines_that_cannot_answer() {
        let mut s = Summary {
            cwd: Some("/w".into()),
            git_branch: Some("main".into()),
            ..Summary::default()
        };
        s.versions.insert("2.1.0".into());
        let user = br#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        let carrier =
            br#"{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}"#;
        let named = br#"{"type":"user","message":{"content":[{"type":"tool_result","content":"x"},{"type":"text","text":"<command-name>/go</command-name>"}]}}"#;
        let reply = br#"{"type":"assistant","message":{"role":"assistant","content":[]}}"#;
        assert!(may_tell(user, &s));
        assert!(!may_tell(carrier, &s));
        assert!(may_tell(named, &s));
        assert!(!may_tell(reply, &s));
        s.first_command = Some("/go".into());
        assert!(!may_tell(named, &s));
        s.first_prompt = Some("hi".into());
        assert!(!may_tell(user, &s));
        s.git_branch = None;
        assert!(!may_tell(user, &s), "no branch on the line");
        assert!(may_tell(br#"{"type":"assistant","gitBranch":"dev"}"#, &s));
        s.cwd = None;
        assert!(may_tell(reply, &s), "the envelope is still missing");
    }
}
