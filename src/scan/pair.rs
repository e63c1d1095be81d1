//! `"key": value` pairs found in raw bytes, with any JSON whitespace around the
//! colon. Claude Code writes compact JSON (`"name":"Task"`), but a line
//! re-serialised by a JSON dump, jq or an editor (`"name": "Task"`) is the same
//! record (REC-038), so a byte test must never be a compact `"key":"value"`
//! literal: it would drop the re-serialised line before any parse could see it.
//!
//! Each test searches for the rarer side (a quoted value or a quoted key) with
//! `memmem` and checks the other side in place. A quoted needle cannot match
//! inside a JSON string, whose quotes are escaped, so a hit is a real key or a
//! real string value.

use memchr::memmem::Finder;

/// JSON whitespace (RFC 8259): what may stand around a colon.
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// The index of the first byte at or after `i` that is not JSON whitespace
/// (`b.len()` when none is).
pub(crate) fn ws_fwd(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

/// The index just past the last byte before `i` that is not JSON
/// whitespace (0 when none is).
pub(crate) fn ws_back(b: &[u8], mut i: usize) -> usize {
    while i > 0 && is_ws(b[i - 1]) {
        i -= 1;
    }
    i
}

/// Whether the value whose first byte is at `at` is the value of `key` (quoted,
/// e.g. `b"\"id\""`): the bytes before it are `key`, blanks, `:`, blanks.
pub(crate) fn keyed_by(b: &[u8], at: usize, key: &[u8]) -> bool {
    let i = ws_back(b, at.min(b.len()));
    if i == 0 || b[i - 1] != b':' {
        return false;
    }
    b[..ws_back(b, i - 1)].ends_with(key)
}

/// The index of the value's first byte after the key (quoted) whose quote
/// opens at `at`, or `None` when no colon follows it (a string value that
/// happens to spell the key).
pub(crate) fn value_at(b: &[u8], at: usize, key: &[u8]) -> Option<usize> {
    let i = ws_fwd(b, at + key.len());
    if b.get(i) != Some(&b':') {
        return None;
    }
    Some(ws_fwd(b, i + 1))
}

/// Whether some `key` (quoted) has the value `value` finds (quoted, e.g.
/// `lit!(b"\"assistant\"")`: a finder built once per call site, since building
/// one costs more than searching a short line).
pub(crate) fn has_pair(b: &[u8], key: &[u8], value: &Finder<'_>) -> bool {
    value.find_iter(b).any(|at| keyed_by(b, at, key))
}

/// The positions of every `key` (the finder's quoted needle) whose value's
/// bytes start with `value` (a bare literal such as `b"true"`, which no other
/// JSON token starts with), either spacing.
pub(crate) fn keys_valued<'a>(
    b: &'a [u8],
    key: &'a Finder<'_>,
    value: &'a [u8],
) -> impl Iterator<Item = usize> + 'a {
    let k = key.needle();
    key.find_iter(b)
        .filter(move |&at| value_at(b, at, k).is_some_and(|v| b[v..].starts_with(value)))
}

/// The first string value of the key `key` finds (quoted) that holds no
/// escape: its body bytes, without quotes. For ids, timestamps, model names.
pub(crate) fn first_plain_str<'a>(b: &'a [u8], key: &Finder<'_>) -> Option<&'a [u8]> {
    let k = key.needle();
    key.find_iter(b).find_map(|at| {
        let v = value_at(b, at, k)?;
        if b.get(v) != Some(&b'"') {
            return None;
        }
        let body = &b[v + 1..];
        let end = memchr::memchr2(b'"', b'\\', body)?;
        (body[end] == b'"').then(|| &body[..end])
    })
}

/// The time an untimed record (a snapshot, a summary, a session-state line,
/// which carries no timestamp: REC-024) stands at, by the rule `stats` counts windows with: the top-level
/// `timestamp` of the nearest record before the line starting at `start`, else
/// (before the file's first time) the first `timestamp` of the file.
pub(crate) fn time_before(buf: &[u8], start: usize) -> Option<&[u8]> {
    let key = crate::scan::lit!(b"\"timestamp\"");
    let mut end = start.min(buf.len());
    while let Some(at) = memchr::memmem::rfind(&buf[..end], key.needle()) {
        let s = crate::scan::lines::line_start(buf, at);
        let e = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |n| at + n);
        if let Some(v) = crate::scan::json::field(&buf[s..e], b"timestamp") {
            if let Some(t) = v.strip_prefix(b"\"").and_then(|v| v.strip_suffix(b"\"")) {
                return Some(t);
            }
        }
        end = s;
    }
    first_plain_str(buf, key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::lit;

    /// REC-038: a bare value (`true`) after either spacing, never inside a string.
    #[test]
    fn bare_values_read_either_spacing_rec_038() {
        let k = lit!(b"\"isCompactSummary\"");
        let line = br#"{"isCompactSummary":true,"a":{"isCompactSummary": true},"b":"\"isCompactSummary\":true","c":{"isCompactSummary":false}}"#;
        assert_eq!(keys_valued(line, k, b"true").count(), 2);
        assert_eq!(keys_valued(line, k, b"false").count(), 1);
    }

    /// REC-038: both spellings of a pair are the same record; a mention inside
    /// a string (escaped quotes) is never a pair.
    #[test]
    fn pairs_read_either_spacing_and_never_string_content_rec_038() {
        for line in [
            &br#"{"type":"assistant","x":1}"#[..],
            br#"{"type": "assistant", "x": 1}"#,
            br#"{"type" :	"assistant"}"#,
        ] {
            assert!(
                has_pair(line, b"\"type\"", lit!(b"\"assistant\"")),
                "{line:?}"
            );
        }
        assert!(!has_pair(
            br#"{"role":"assistant"}"#,
            b"\"type\"",
            lit!(b"\"assistant\"")
        ));
        assert!(!has_pair(
            br#"{"text":"say \"type\":\"assistant\" here"}"#,
            b"\"type\"",
            lit!(b"\"assistant\"")
        ));
        // A key whose name ends like the wanted one is another key.
        assert!(!has_pair(
            br#"{"tool_use_id":"t1"}"#,
            b"\"id\"",
            lit!(b"\"t1\"")
        ));
        assert!(has_pair(
            br#"{"tool_use_id": "t1"}"#,
            b"\"tool_use_id\"",
            lit!(b"\"t1\"")
        ));
        // A value at the very start has no key.
        assert!(!keyed_by(br#""t1""#, 0, b"\"id\""));
    }

    #[test]
    fn first_plain_str_takes_the_first_keyed_string_rec_038() {
        let line = br#"{"text":"a \"model\": \"fake\"","message":{"model": "claude-x"}}"#;
        assert_eq!(
            first_plain_str(line, lit!(b"\"model\"")),
            Some(&b"claude-x"[..])
        );
        assert_eq!(
            first_plain_str(br#"{"sessionId":"abc","x":1}"#, lit!(b"\"sessionId\"")),
            Some(&b"abc"[..])
        );
        // A non-string value, or a string with an escape, is not plain.
        assert_eq!(
            first_plain_str(br#"{"model":null}"#, lit!(b"\"model\"")),
            None
        );
        assert_eq!(
            first_plain_str(br#"{"model":"a\"b"}"#, lit!(b"\"model\"")),
            None
        );
        assert_eq!(first_plain_str(br#"{"model""#, lit!(b"\"model\"")), None);
    }

    /// An untimed line takes the nearest top-level time before it (a nested
    /// or quoted "timestamp" is not one), else the file's first time.
    #[test]
    fn an_untimed_line_takes_the_time_before_it_rec_024() {
        let buf = br#"{"type":"summary","summary":"s"}
{"type":"user","timestamp":"2026-01-01T00:00:00Z"}
{"type":"assistant","timestamp":"2026-01-02T00:00:00Z"}
{"type":"file-history-snapshot","snapshot":{"timestamp":"2026-03-03T00:00:00Z"},"x":""timestamp":"1999""}
{"type":"summary","summary":"t"}
"#;
        let at = |n: usize| {
            buf.split(|&b| b == b'\n')
                .take(n - 1)
                .map(|l| l.len() + 1)
                .sum::<usize>()
        };
        assert_eq!(time_before(buf, at(5)), Some(&b"2026-01-02T00:00:00Z"[..]));
        // REC-026: a snapshot's time is nested in `snapshot`: no top-level time.
        assert_eq!(time_before(buf, at(4)), Some(&b"2026-01-02T00:00:00Z"[..]));
        assert_eq!(time_before(buf, at(1)), Some(&b"2026-01-01T00:00:00Z"[..]));
    }
}
