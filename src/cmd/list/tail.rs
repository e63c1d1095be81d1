//! The end of a transcript, for `csift list`: last activity (the maximum over
//! the last records, REC-089), the versions and newest branch they name, and
//! a torn final line; and the four envelope fields head and tail lines are
//! read for, with the byte test that spares a line whose envelope cannot
//! change what is already known ([`may_add`]).

use jiff::Timestamp;

use super::head::nonempty;
use super::summary::{Bad, Summary};
use crate::record::{opt_str, parse_line, Parsed, Str};
use crate::scan;
use crate::timefmt;

/// Records read at the tail for the last activity (timestamps are not
/// monotone, REC-089, so the maximum over a few).
const TAIL_RECORDS: usize = 12;

/// What the last records say, read backwards from EOF.
#[derive(Default)]
pub(super) struct TailFacts {
    /// Last activity: the max over the last records (REC-089).
    pub(super) last: Option<Timestamp>,
    versions: Vec<String>,
    /// The newest branch.
    branch: Option<String>,
    torn: Option<Bad>,
}

impl TailFacts {
    /// Scan the last [`TAIL_RECORDS`] lines of `tail`, whole lines starting at file
    /// offset `at` of a file of `len` bytes. `whole` is the whole file when it was
    /// read, to number a torn final line.
    pub(super) fn scan(tail: &[u8], at: u64, len: u64, whole: Option<&[u8]>) -> TailFacts {
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
            // A torn final line is judged by its parse; any other line only
            // when it can change the facts ([`may_add`]).
            let torn = !line.terminated && at + body_end as u64 == len;
            let time = Keep::After(f.last);
            if !torn && !may_add(line.bytes, time, Some(&f.versions), f.branch.is_none()) {
                continue;
            }
            let Some(r) = envelope(line.bytes) else {
                if torn && !line.bytes.is_empty() {
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

    pub(super) fn merge(self, s: &mut Summary) {
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
pub(super) struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(super) cwd: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(super) timestamp: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(super) version: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(super) git_branch: Str<'a>,
}

/// A line's envelope, when it is a JSON object (serde would read a struct from
/// an array too).
pub(super) fn envelope(line: &[u8]) -> Option<Envelope<'_>> {
    if line.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    serde_json::from_slice(line).ok()
}

/// Which timestamps a line could still add: one before the head's minimum,
/// one after the tail's maximum (either `None`: any), or none at all.
#[derive(Clone, Copy)]
pub(super) enum Keep {
    Before(Option<Timestamp>),
    After(Option<Timestamp>),
    Nothing,
}

/// Whether a line's envelope (read by [`envelope`] or a record parse) could
/// change what is known: a timestamp `time` keeps, a version not in
/// `versions` (`None`: versions are not wanted), a non-empty branch while
/// `branch` (none known yet). Judged from the line's bytes, so the head and
/// tail records that cannot change the row (most of them: the same version
/// and branch, a time inside the range already seen) are never parsed.
///
/// Only a `false` a parse would contradict is wrong, so every test errs
/// towards parsing. The bare tokens `"timestamp"`, `"version"`, `"gitBranch"`
/// cannot occur inside a JSON string (its quotes would be escaped), so every
/// such key of the line, at any depth and either spacing (REC-038), is among
/// those looked at, the top-level one a parse keeps included; a key spelled
/// with a `\u` escape is one a byte search cannot see, so a line holding
/// `\u` is parsed; a value that is not a plain string (escaped, or of another
/// type) is parsed. A line a parse would reject adds nothing either way.
pub(super) fn may_add(line: &[u8], time: Keep, versions: Option<&[String]>, branch: bool) -> bool {
    use crate::scan::lit;
    if lit!(b"\\u").find(line).is_some() {
        return true;
    }
    if branch && super::head::names_a_branch(line) {
        return true;
    }
    let adds_time = |v: &[u8]| {
        let ts = std::str::from_utf8(v).ok().and_then(timefmt::parse_ts);
        match (time, ts) {
            (_, None) | (Keep::Nothing, _) => false,
            (Keep::Before(Some(min)), Some(t)) => t < min,
            (Keep::After(Some(max)), Some(t)) => t > max,
            (Keep::Before(None) | Keep::After(None), Some(_)) => true,
        }
    };
    if !matches!(time, Keep::Nothing)
        && plain_values(line, lit!(b"\"timestamp\"")).any(|v| v.is_none_or(adds_time))
    {
        return true;
    }
    versions.is_some_and(|known| {
        plain_values(line, lit!(b"\"version\""))
            .any(|v| v.is_none_or(|v| !known.iter().any(|k| k.as_bytes() == v)))
    })
}

/// Each value of the key `key` finds in `line` (any depth, either spacing):
/// `Some(body)` for a string holding no escape, `None` for any other value,
/// which only a parse reads.
fn plain_values<'a>(
    line: &'a [u8],
    key: &'a memchr::memmem::Finder<'static>,
) -> impl Iterator<Item = Option<&'a [u8]>> + 'a {
    let k = key.needle();
    key.find_iter(line).filter_map(move |at| {
        let v = crate::scan::pair::value_at(line, at, k)?;
        let body = line[v..].strip_prefix(b"\"");
        Some(body.and_then(|b| {
            let end = memchr::memchr2(b'"', b'\\', b)?;
            (b[end] == b'"').then(|| &b[..end])
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Option<Timestamp> {
        timefmt::parse_ts(s)
    }

    /// A line is spared only when no value of its keys could change what is
    /// known, at any depth and either spacing (REC-038); an escaped value, a
    /// value of another type or a `\u` anywhere (a key spelled with one)
    /// always asks for a parse. REC-089: the tail keeps the latest time, the
    /// head the earliest.
    #[test]
    fn may_add_spares_only_lines_that_cannot_change_the_row_rec_038_rec_089() {
        let t = r#"{"type":"user","version":"2.1.0","gitBranch":"main","timestamp":"2026-06-02T11:17:01.695Z"}"#;
        let known = ["2.1.0".to_string()];
        let v = Some(&known[..]);
        let at = ts("2026-06-02T11:17:01.695Z");
        let later = ts("2026-06-02T12:00:00Z");
        let earlier = ts("2026-06-02T10:00:00Z");
        assert!(may_add(t.as_bytes(), Keep::After(None), v, false));
        assert!(!may_add(t.as_bytes(), Keep::After(at), v, false));
        assert!(!may_add(t.as_bytes(), Keep::After(later), v, false));
        assert!(may_add(t.as_bytes(), Keep::After(earlier), v, false));
        assert!(!may_add(t.as_bytes(), Keep::Before(earlier), v, false));
        assert!(may_add(t.as_bytes(), Keep::Before(later), v, false));
        assert!(!may_add(t.as_bytes(), Keep::Nothing, None, false));
        assert!(may_add(t.as_bytes(), Keep::Nothing, None, true), "a branch");
        assert!(
            may_add(t.as_bytes(), Keep::Nothing, Some(&[]), false),
            "a version"
        );
        let spaced = t.replace("\":\"", "\": \"");
        assert!(may_add(spaced.as_bytes(), Keep::After(earlier), v, false));
        assert!(may_add(spaced.as_bytes(), Keep::Nothing, Some(&[]), false));
        // A nested key counts too (a parse may keep the top-level one).
        let nested = r#"{"snapshot":{"timestamp":"2026-06-02T12:00:00Z"}}"#;
        assert!(may_add(nested.as_bytes(), Keep::After(at), v, false));
        // Values only a parse reads.
        for odd in [
            r#"{"timestamp":"2026-06-02T\u0031\u0032:00:00Z"}"#,
            r#"{"timestamp":"2026-06-02T12:00:00Z\n"}"#,
            r#"{"timestamp":1780000000}"#,
            r#"{"version":["2.1.0"]}"#,
            r#"{"time\u0073tamp":"2026-06-02T12:00:00Z"}"#,
        ] {
            assert!(
                may_add(odd.as_bytes(), Keep::After(later), v, false),
                "{odd}"
            );
        }
        // A quoted mention inside a string is escaped: no key.
        let quoted = r#"{"text":"\"timestamp\":\"2099-01-01T00:00:00Z\""}"#;
        assert!(!may_add(quoted.as_bytes(), Keep::After(at), v, false));
        // A time that does not parse changes nothing, as after a parse.
        let bad = r#"{"timestamp":"yesterday","version":"2.1.0"}"#;
        assert!(!may_add(bad.as_bytes(), Keep::After(None), v, false));
    }
}
