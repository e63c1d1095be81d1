//! One literal-set pass over the bytes `csift list` read: the models of
//! assistant lines, titles (custom, AI, summaries with their leaves),
//! `continued-in` successors (MISC-028), glued records, and in a main file
//! read whole its 1.0.x inline sidechain lanes.

use regex::bytes::Regex;

use super::summary::{Bad, Summary};
use crate::classify::sidechain::InlineLanes;
use crate::record::{parse_line, MalformedKind, Parsed, Record};
use crate::scan;

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
pub(super) fn literal_pass(
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
}
