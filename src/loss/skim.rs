//! A structural skim of one transcript line: find the top-level keys audit reads
//! and the byte ranges of their values, without deserialising anything (the
//! primitives live in [`crate::scan::json`]). The skim checks structure (one
//! top-level object, terminated strings, balanced nesting, nothing after the
//! object) but not every value's grammar. When malformed lines are wanted,
//! audit reads the same fields with serde instead (`cmd::audit::checked`),
//! which judges the whole line's grammar in the same walk.

use super::lite::{eaten_walk, EatenRaw};
pub(crate) use crate::scan::json::Flaw;
use crate::scan::json::{value_end, ws, Fields};

/// The top-level fields audit reads. String values are the raw bytes between the
/// quotes (escapes left as written); object values include their braces.
#[derive(Debug, Default, Clone, Copy)]
pub struct Top<'a> {
    pub kind: Option<&'a [u8]>,
    pub subtype: Option<&'a [u8]>,
    pub uuid: Option<&'a [u8]>,
    pub timestamp: Option<&'a [u8]>,
    pub version: Option<&'a [u8]>,
    pub agent_id: Option<&'a [u8]>,
    pub is_sidechain: bool,
    pub is_meta: bool,
    pub message: Option<&'a [u8]>,
    pub tool_use_result: Option<&'a [u8]>,
    pub data: Option<&'a [u8]>,
    /// The message's raw id and block kinds, read while skimming it when the
    /// caller asked ([`skim_at`]'s `eaten`); `None` when not asked or declined.
    pub eaten: Option<EatenRaw<'a>>,
}

impl Top<'_> {
    pub(crate) fn is(&self, kind: &[u8]) -> bool {
        self.kind == Some(kind)
    }
}

/// Python's truthiness of a scalar JSON value (`bool(r.get("isSidechain"))`).
pub(crate) fn truthy(v: &[u8]) -> bool {
    !matches!(
        v,
        b"false" | b"null" | b"0" | b"\"\"" | b"[]" | b"{}" | b"0.0"
    )
}

/// Skim one line (without its newline).
pub(crate) fn skim(b: &[u8]) -> Result<Top<'_>, Flaw> {
    let (top, end) = skim_at(b, 0, false);
    match top {
        Ok(_) if end != b.len() => Err(Flaw::Invalid),
        other => other,
    }
}

/// Skim the line starting at `start` of `buf`; also returns its end (the index
/// of its `\n`, or `buf.len()`). With `eaten`, the message is read for the
/// eaten-text rule in the same walk that skips it ([`Top::eaten`]).
pub fn skim_at(buf: &[u8], start: usize, eaten: bool) -> (Result<Top<'_>, Flaw>, usize) {
    // Framing first (memchr for the newline is far cheaper than any JSON work),
    // then the skim inside the line, where a quote search need not stop at `\n`.
    let end = memchr::memchr(b'\n', &buf[start..]).map_or(buf.len(), |k| start + k);
    let line = &buf[start..end];
    match skim_object(line, 0, eaten) {
        Ok((top, _)) => (Ok(top), end),
        Err(flaw) => {
            let flaw = if line.iter().all(|c| c.is_ascii_whitespace()) {
                Flaw::Blank
            } else {
                flaw
            };
            (Err(flaw), end)
        }
    }
}

fn skim_object(b: &[u8], start: usize, eaten: bool) -> Result<(Top<'_>, usize), Flaw> {
    let mut top = Top::default();
    let mut fields = Fields::new(b, start);
    let mut view = None;
    while let Some(kv) = fields.next_with(|key, i| {
        if !(eaten && key == b"message") {
            return value_end(b, i);
        }
        // A repeated key: the view belongs to the last message, as `Top::message`.
        view = None;
        let walk = (b.get(i) == Some(&b'{'))
            .then(|| eaten_walk(b, i))
            .flatten();
        match walk {
            Some((raw, end)) => {
                view = Some(raw);
                Ok(end)
            }
            None => value_end(b, i),
        }
    }) {
        let (key, v) = kv?;
        let s = || (v.len() >= 2 && v[0] == b'"').then(|| &v[1..v.len() - 1]);
        match key {
            b"type" => top.kind = s(),
            b"subtype" => top.subtype = s(),
            b"uuid" => top.uuid = s(),
            b"timestamp" => top.timestamp = s(),
            b"version" => top.version = s(),
            b"agentId" => top.agent_id = s(),
            b"isSidechain" => top.is_sidechain = truthy(v),
            b"isMeta" => top.is_meta = truthy(v),
            b"message" => top.message = v.starts_with(b"{").then_some(v),
            b"toolUseResult" => top.tool_use_result = Some(v),
            b"data" => top.data = v.starts_with(b"{").then_some(v),
            _ => {}
        }
    }
    top.eaten = view;
    let i = ws(b, fields.end());
    match b.get(i) {
        None | Some(b'\n') => Ok((top, i)),
        Some(b'{') => Err(Flaw::Glued),
        Some(_) => Err(Flaw::Invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_keys_only() {
        let l = br#"{"type":"assistant","message":{"id":"m1","uuid":"nested","content":[{"type":"text","text":"a \"q\" } {"}]},"uuid":"u1","isSidechain":true,"timestamp":"2026-07-01T00:00:00Z"}"#;
        let t = skim(l).unwrap();
        assert_eq!(t.kind, Some(&b"assistant"[..]));
        assert_eq!(t.uuid, Some(&b"u1"[..]));
        assert!(t.is_sidechain);
        assert!(t.message.unwrap().starts_with(b"{\"id\""));
        assert_eq!(t.timestamp.unwrap()[..7], b"2026-07"[..]);
    }

    /// Reading the message for the eaten rule in the skim's own walk changes
    /// nothing else the skim finds, and reads what `skim_eaten` reads.
    #[test]
    fn eaten_reading_skim_equals_the_plain_skim() {
        let lines: [&[u8]; 5] = [
            br#"{"message":{"id":"m1","content":[{"type":"thinking","thinking":"x\"]}"},{"type":"text","text":"y"}]},"type":"assistant","uuid":"u1"}"#,
            br#"{"message":{"id":"m1","content":"plain"},"type":"assistant","uuid":"u2","isSidechain":true}"#,
            br#"{"message":{"id":"m1","id":"m2","content":[]},"type":"assistant"}"#,
            br#"{"message":{"id":"m1","content":[{"type":"text","type":"x"}]},"message":{"id":"m3","content":[]},"type":"assistant"}"#,
            br#"{"message":{"id":"m1","content":[{"type":"text"} {"type":"x"}]},"type":"assistant"}"#,
        ];
        for l in lines {
            let (plain, e1) = skim_at(l, 0, false);
            let (read, e2) = skim_at(l, 0, true);
            assert_eq!(e1, e2);
            let l_ = String::from_utf8_lossy(l);
            let (plain, read) = (plain.expect(&l_), read.expect(&l_));
            assert_eq!(
                format!(
                    "{:?}",
                    Top {
                        eaten: None,
                        ..read
                    }
                ),
                format!("{plain:?}")
            );
            let want = crate::loss::lite::skim_eaten(plain.message.unwrap());
            let got = read
                .eaten
                .and_then(|(id, k)| Some((crate::loss::lite::eaten_id(id)?, k)));
            assert_eq!(
                format!("{got:?}"),
                format!("{want:?}"),
                "{}",
                String::from_utf8_lossy(l)
            );
        }
    }

    #[test]
    fn names_flaws() {
        assert_eq!(skim(br#"{"a":1}{"b":2}"#).unwrap_err(), Flaw::Glued);
        assert_eq!(
            skim(br#"{"a":"unterminated"#).unwrap_err(),
            Flaw::Unterminated
        );
        assert_eq!(skim(br#"{"a":{"b":[1,2]"#).unwrap_err(), Flaw::Unterminated);
        assert_eq!(skim(b"[1,2]").unwrap_err(), Flaw::Invalid);
        assert_eq!(skim(b"  ").unwrap_err(), Flaw::Blank);
        assert_eq!(skim(br#"{"a":1} x"#).unwrap_err(), Flaw::Invalid);
        assert_eq!(skim(br#"{"a" 1}"#).unwrap_err(), Flaw::Invalid);
        assert!(skim(br#"{"a":"x\\"} "#).is_ok());
        assert!(skim(b"{}").is_ok());
    }

    #[test]
    fn frames_lines_while_skimming() {
        let buf = b"{\"a\":\"x\\\"y\"}\r\n\n{\"b\":\"torn\n{\"c\":1}";
        let (t, end) = skim_at(buf, 0, false);
        assert!(t.is_ok());
        assert_eq!(buf[end], b'\n');
        let (t, end2) = skim_at(buf, end + 1, false);
        assert_eq!(t.unwrap_err(), Flaw::Blank);
        let (t, end3) = skim_at(buf, end2 + 1, false);
        assert_eq!(t.unwrap_err(), Flaw::Unterminated);
        let (t, end4) = skim_at(buf, end3 + 1, false);
        assert!(t.is_ok());
        assert_eq!(end4, buf.len());
    }
}
