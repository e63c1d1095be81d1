//! One literal-set pass over the bytes `csift list` read: the models of
//! assistant lines, titles (custom, AI, summaries with their leaves),
//! `continued-in` successors (MISC-028), glued records, and in a main file
//! read whole its 1.0.x inline sidechain lanes.

use regex::bytes::Regex;

use super::summary::{Bad, Summary};
use crate::classify::sidechain::InlineLanes;
use crate::record::{parse_line, MalformedKind, Parsed, Record};
use crate::scan::Line;

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

/// The literals [`literal_pass`] looks for: every match of [`interesting`]
/// but a sidechain flag's holds one of them (`-title"`, `ued-in"` and
/// `"summary"` end its title alternatives, `"model"` and `}{"` start the
/// others), and none of them is frequent: a pure literal set, searched by
/// Teddy alone, where [`interesting`]'s `"type":` prefix (every content
/// block has one) made a candidate, and a DFA run, of several places on
/// every line.
///
/// With `users`, also `:"user"`, which every compact `"type":"user"` holds
/// (the literal the turn count's lines hold, [`FileIndex::count_turns_of`]):
/// no literal of the set holds a `:`, so none can hide one, and the lines
/// it flags come from this pass instead of a pass of their own.
///
/// [`FileIndex::count_turns_of`]: crate::classify::FileIndex::count_turns_of
fn literals(users: bool) -> &'static Regex {
    match users {
        false => crate::scan::re!(bytes r#"-title"|ued-in"|"summary"|"model"|\}\{""#),
        true => crate::scan::re!(bytes r#"-title"|ued-in"|"summary"|"model"|\}\{"|:"user""#),
    }
}

/// One pass over `buf` (whole lines at file offset `base`; numbered from 1 when
/// `numbered`, i.e. it starts the file) with a literal set: models, titles,
/// glued records (confirmed by a parse), and with `inline` (a main file read
/// whole) its 1.0.x sidechain records, placed in their lanes as `agents` does
/// ([`InlineLanes`]).
///
/// A line whose only literals are `"model"` keys can tell nothing but its model: its
/// first match of [`interesting`], if any, is a model, so only the model is
/// read, from the first `"model"` on. Any other line is read by [`read_line`]
/// as [`interesting`]'s hits were: its first match decides. A literal that
/// ends in a quote followed by `s`, `m` or `i` may hide another starting at
/// that quote (the search does not overlap matches), so such a line is read
/// by [`read_line`] too.
///
/// With `users`, the lines holding a compact `"type":"user"` are listed
/// there (`(start, end)`, end the newline or the end of `buf`, in file
/// order, each once), and the pass returns true; false when it did not
/// look for them (a main file with inline lanes).
pub(super) fn literal_pass(
    buf: &[u8],
    base: u64,
    numbered: bool,
    s: &mut Summary,
    mut inline: Option<&mut InlineLanes>,
    mut users: Option<&mut Vec<(usize, usize)>>,
) -> bool {
    // Every record line has an `"isSidechain"` flag, nearly always false: a
    // main file with a true one (1.0.x) is read line by line as before.
    if inline.is_some() && has_true_flag(buf) {
        for (l, _) in crate::scan::lines::HitLines::new(buf, interesting(true)) {
            read_line(&l, || l.no, base, numbered, s, inline.as_deref_mut());
        }
        return false;
    }
    let set = literals(users.is_some());
    let mut numbers = (0, 1); // (offset, number of the line starting there)
    let mut line: Option<Hits> = None;
    let mut done = |l: Hits, inline: Option<&mut InlineLanes>| {
        if let Some(u) = users.as_deref_mut().filter(|_| l.user) {
            u.push((l.start, l.end));
        }
        l.read(buf, base, numbered, &mut numbers, s, inline);
    };
    for m in set.find_iter(buf) {
        if let Some(l) = line.as_mut().filter(|l| m.start() < l.end) {
            l.take(buf, m.start(), m.as_bytes());
            continue;
        }
        if let Some(l) = line.take() {
            done(l, inline.as_deref_mut());
        }
        let start = crate::scan::lines::line_start(buf, m.start());
        let end = memchr::memchr(b'\n', &buf[m.start()..]).map_or(buf.len(), |i| m.start() + i);
        let mut l = Hits {
            start,
            end,
            model: None,
            other: false,
            user: false,
        };
        l.take(buf, m.start(), m.as_bytes());
        line = Some(l);
    }
    if let Some(l) = line {
        done(l, inline);
    }
    true
}

/// The literals [`literal_pass`] found on one line.
struct Hits {
    start: usize,
    /// The line's end (its newline, or the end of the buffer).
    end: usize,
    /// Where its first `"model"` is.
    model: Option<usize>,
    /// Whether it holds a literal other than `"model"`, or one that may
    /// hide another.
    other: bool,
    /// Whether it holds a compact `"type":"user"`.
    user: bool,
}

impl Hits {
    fn take(&mut self, buf: &[u8], at: usize, lit: &[u8]) {
        let next = buf.get(at + lit.len()).copied();
        match lit {
            b"\"model\"" => {
                self.model.get_or_insert(at);
                self.other |= matches!(next, Some(b's' | b'm' | b'i'));
            }
            // Nothing this pass reads but what it may hide at its last quote.
            b":\"user\"" => {
                self.user |= buf[..at].ends_with(b"\"type\"");
                self.other |= matches!(next, Some(b's' | b'm' | b'i'));
            }
            _ => self.other = true,
        }
    }

    fn read(
        self,
        buf: &[u8],
        base: u64,
        numbered: bool,
        numbers: &mut (usize, usize),
        s: &mut Summary,
        inline: Option<&mut InlineLanes>,
    ) {
        let terminated = self.end < buf.len();
        let mut bytes = &buf[self.start..self.end];
        if let [head @ .., b'\r'] = bytes {
            bytes = head;
        }
        if !self.other {
            if let Some(at) = self.model {
                take_model(bytes, &bytes[at - self.start..], s);
            }
            return;
        }
        // Numbered only when a glue check needs the number (a title or a
        // successor does not), from the last line numbered: each byte is
        // counted once.
        let number = || {
            let (at, no) = *numbers;
            let no = no + memchr::memchr_iter(b'\n', &buf[at..self.start]).count();
            *numbers = (self.start, no);
            no
        };
        let l = Line {
            no: 0,
            offset: self.start,
            bytes,
            terminated,
        };
        read_line(&l, number, base, numbered, s, inline);
    }
}

/// Whether some `"isSidechain":` key is not followed by `false` (the only
/// places [`interesting`]'s sidechain alternative can match).
fn has_true_flag(buf: &[u8]) -> bool {
    const KEY: &[u8] = b"\"isSidechain\":";
    crate::scan::lit!(KEY)
        .find_iter(buf)
        .any(|at| !buf[at + KEY.len()..].starts_with(b"false"))
}

/// The model of a line's first `"model"` key with a plain string value
/// (either spacing, REC-038), from `from` (the line's first `"model"`) on.
fn take_model(line: &[u8], from: &[u8], s: &mut Summary) {
    // The first "model" on an assistant line is message.model.
    let Some(v) = crate::scan::pair::first_plain_str(from, crate::scan::lit!(b"\"model\"")) else {
        return;
    };
    let Ok(model) = std::str::from_utf8(v) else {
        return;
    };
    // The line's own type: an `agent_progress` record nests a subagent's
    // assistant message (and its model) inside `data` (measured, not a claim:
    // 8 of the 59 public transcripts). The field walk runs only for a model
    // new to this row.
    if !model.is_empty()
        && v.len() < 100
        && !s.models.contains(model)
        && crate::scan::json::field(line, b"type") == Some(&b"\"assistant\""[..])
    {
        s.models.insert(model.to_string());
    }
}

/// A line [`interesting`] may hit other than by a model: glue, a model,
/// and what its first match names (a title, a `continued-in`, a sidechain
/// flag). `number` gives the line's number (`l.no` is not read), asked only
/// for a glue check.
fn read_line(
    l: &Line<'_>,
    number: impl FnOnce() -> usize,
    base: u64,
    numbered: bool,
    s: &mut Summary,
    inline: Option<&mut InlineLanes>,
) {
    let line = l.bytes;
    let Some(hit) = interesting(inline.is_some()).find(line) else {
        return;
    };
    let hit = hit.as_bytes();
    // `}{"` also ends strings like "x }{" in code; only a parse can confirm glue.
    if crate::scan::lit!(b"}{\"").find(line).is_some() {
        let l = &Line { no: number(), ..*l };
        if let Parsed::Malformed(bad) = parse_line(l) {
            if bad.kind == MalformedKind::Glued {
                s.malformed.push(Bad {
                    line: numbered.then_some(l.no),
                    offset: base + l.offset as u64,
                    kind: MalformedKind::Glued,
                });
                return;
            }
        }
    }
    take_model(line, line, s);
    if hit.ends_with(b"true") {
        // A flag nested in an agent_progress record is not the line's own
        // (the line's own leads its record: a skim of the first fields).
        let own = || crate::scan::json::field(line, b"isSidechain") == Some(&b"true"[..]);
        if let Some(lanes) = inline.filter(|_| own()) {
            if let Parsed::Record(r) = parse_line(l) {
                if r.is_sidechain() {
                    lanes.place(r.uuid.as_deref(), r.parent_uuid.as_deref());
                }
            }
        }
        return;
    }
    if hit.ends_with(b"continued-in\"") {
        // MISC-028: a fork's successor, named in its origin.
        s.continued_in.extend(super::clones::continued_in(line));
        return;
    }
    if hit.ends_with(b"title\"") || hit.ends_with(b"summary\"") {
        if let Parsed::Record(r) = parse_line(l) {
            take_titles(&r, s);
        }
    }
}

/// A summary whose leaf the bytes read so far cannot settle.
pub(super) struct Undecided;

/// The title among `s.summaries`: the newest whose leaf is a record uuid in
/// `parts` (the whole file, or its windows); `Err` when a newer one's leaf is
/// not in the windows, which only the rest of the file can settle. `None`
/// when a custom or AI title outranks every summary anyway.
pub(super) fn titling_summary(s: &Summary, parts: &[&[u8]]) -> Result<Option<String>, Undecided> {
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
mod tests;
