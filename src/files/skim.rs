//! `files`' fast read of a tool-result carrier: one structural skim over the
//! line (no serde, no UTF-8 pass) gives the results it answers and the few
//! echo facts a touch's kind needs. Read echoes carry whole files, and these
//! lines are most of the bytes `files` must look at: serde skipping their
//! strings three times (the record, its echo, the echo's file) was a third of
//! the command's time. `recover` decodes content and always parses.
//!
//! The skim takes only the shape it knows — a `type:"user"` record whose
//! `message.content` is an array of `tool_result` blocks — and leaves anything
//! else (a text block beside the results, a nested record, a flaw) to the
//! parser.

use std::borrow::Cow;

use super::echo::Facts;
use crate::scan::json::{plain_str, string, value_end, ws, Fields, Flaw};

/// What a carrier line says.
#[derive(Debug, Default)]
pub(crate) struct Carrier<'a> {
    pub(crate) ts: Option<Cow<'a, str>>,
    pub(crate) cwd: Option<Cow<'a, str>>,
    /// `(tool_use_id, is_error)` per result block.
    pub(crate) results: Vec<(Cow<'a, str>, bool)>,
    pub(crate) facts: Option<Facts>,
}

/// The carrier on `line`, or `None` when the line is another shape.
pub(crate) fn carrier(line: &[u8]) -> Option<Carrier<'_>> {
    let mut c = Carrier::default();
    let mut user = false;
    let mut other = false;
    let mut top = Fields::new(line, 0);
    while let Some(kv) = top.next_with(|key, at| match key {
        b"message" => message(line, at, &mut c.results, &mut other),
        b"toolUseResult" if line.get(at) == Some(&b'{') => {
            let (facts, end) = echo(line, at)?;
            c.facts = Some(facts);
            Ok(end)
        }
        _ => value_end(line, at),
    }) {
        let (k, v) = kv.ok()?;
        match k {
            b"type" => user = plain_str(v) == Some("user"),
            b"timestamp" => c.ts = string(v),
            b"cwd" => c.cwd = string(v),
            b"data" | b"attachment" => return None,
            _ => {}
        }
    }
    // Anything after the object (records glued on one line) is the parser's to report.
    let whole = ws(line, top.end()) == line.len();
    (whole && user && !other && !c.results.is_empty()).then_some(c)
}

/// Walk `message` (an object at `at`), reading its `content` array of blocks.
fn message<'a>(
    b: &'a [u8],
    at: usize,
    results: &mut Vec<(Cow<'a, str>, bool)>,
    other: &mut bool,
) -> Result<usize, Flaw> {
    if b.get(at) != Some(&b'{') {
        *other = true;
        return value_end(b, at);
    }
    let mut f = Fields::new(b, at);
    while let Some(kv) = f.next_with(|key, i| {
        if key == b"content" {
            blocks(b, i, results, other)
        } else {
            value_end(b, i)
        }
    }) {
        kv?;
    }
    Ok(f.end())
}

/// Walk a content array at `at`: every element must be a tool_result block.
fn blocks<'a>(
    b: &'a [u8],
    at: usize,
    results: &mut Vec<(Cow<'a, str>, bool)>,
    other: &mut bool,
) -> Result<usize, Flaw> {
    if b.get(at) != Some(&b'[') {
        *other = true;
        return value_end(b, at);
    }
    let mut i = ws(b, at + 1);
    loop {
        match b.get(i) {
            Some(b']') => return Ok(i + 1),
            Some(b'{') => {}
            _ => return Err(Flaw::Invalid),
        }
        let mut kind = None;
        let mut id = None;
        let mut err = false;
        let mut f = Fields::new(b, i);
        for kv in f.by_ref() {
            let (k, v) = kv?;
            match k {
                b"type" => kind = plain_str(v),
                b"tool_use_id" => id = string(v),
                b"is_error" => err = v == b"true",
                _ => {}
            }
        }
        match (kind, id) {
            (Some("tool_result"), Some(id)) => results.push((id, err)),
            _ => *other = true,
        }
        i = ws(b, f.end());
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b']') => return Ok(i + 1),
            _ => return Err(Flaw::Invalid),
        }
    }
}

/// The facts of an echo object at `at`, and where it ends.
fn echo(b: &[u8], at: usize) -> Result<(Facts, usize), Flaw> {
    let mut facts = Facts::default();
    let mut f = Fields::new(b, at);
    while let Some(kv) = f.next_with(|key, i| {
        if key == b"file" && b.get(i) == Some(&b'{') {
            file(b, i, &mut facts)
        } else {
            value_end(b, i)
        }
    }) {
        let (k, v) = kv?;
        match k {
            b"type" => facts.kind = string(v).map(Cow::into_owned),
            b"staleRecovered" => facts.stale = v == b"true",
            b"staleReadFileStateHint" => facts.hint = string(v).map(Cow::into_owned),
            _ => {}
        }
    }
    Ok((facts, f.end()))
}

/// A Read echo's `file` object: its coordinates, and whether it has content.
fn file(b: &[u8], at: usize, facts: &mut Facts) -> Result<usize, Flaw> {
    facts.file = true;
    let mut f = Fields::new(b, at);
    for kv in f.by_ref() {
        let (k, v) = kv?;
        let num = || std::str::from_utf8(v).ok().and_then(|s| s.parse().ok());
        match k {
            b"content" => facts.content = v.first() == Some(&b'"'),
            b"startLine" => facts.start = num(),
            b"numLines" => facts.num = num(),
            b"totalLines" => facts.total = num(),
            b"truncatedByTokenCap" => facts.truncated = v == b"true",
            _ => {}
        }
    }
    Ok(f.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skim reads what serde reads, on the Read echo shape (REC-042).
    #[test]
    fn a_read_carrier() {
        let line = br#"{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"     1\u2192a \"q\""}]},"uuid":"u","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","toolUseResult":{"type":"text","file":{"filePath":"/p/a","content":"a \"q\"\n","numLines":2,"startLine":1,"totalLines":2}}}"#;
        let c = carrier(line).unwrap();
        assert_eq!(c.results, vec![(Cow::Borrowed("toolu_1"), false)]);
        assert_eq!(c.ts.as_deref(), Some("2026-01-01T00:00:00.000Z"));
        let f = c.facts.unwrap();
        assert_eq!(
            (f.kind.as_deref(), f.file, f.content),
            (Some("text"), true, true)
        );
        assert_eq!(
            (f.start, f.num, f.total, f.truncated),
            (Some(1), Some(2), Some(2), false)
        );
    }

    #[test]
    fn other_shapes_are_left_to_the_parser() {
        for line in [
            &br#"{"type":"user","message":{"role":"user","content":"hi"}}"#[..],
            br#"{"type":"user","message":{"content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"t"}]}}"#,
            br#"{"type":"assistant","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
            br#"{"type":"progress","data":{},"message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
            br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]"#,
            br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}{"type":"user"}"#,
        ] {
            assert!(carrier(line).is_none(), "{}", String::from_utf8_lossy(line));
        }
        let err = br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true}]},"toolUseResult":"Error: x"}"#;
        let c = carrier(err).unwrap();
        assert_eq!(c.results, vec![(Cow::Borrowed("t"), true)]);
        assert!(c.facts.is_none());
    }
}
