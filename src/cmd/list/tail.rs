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

impl Keep {
    /// Whether the timestamp text `v` (a string's raw content) is one this
    /// keeps: unparsable text adds nothing.
    fn adds(self, v: &[u8]) -> bool {
        let ts = std::str::from_utf8(v).ok().and_then(timefmt::parse_ts);
        match (self, ts) {
            (_, None) | (Keep::Nothing, _) => false,
            (Keep::Before(Some(min)), Some(t)) => t < min,
            (Keep::After(Some(max)), Some(t)) => t > max,
            (Keep::Before(None) | Keep::After(None), Some(_)) => true,
        }
    }
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
///
/// The keys are found by one pass over the line ([`keys`]: a literal set,
/// where a memmem per key was a pass each). A match hides no other on a
/// line that is JSON: each key's closing quote ends a string, which no
/// quote follows, and no key holds the backslash or `u` of `\u`.
pub(super) fn may_add(line: &[u8], time: Keep, versions: Option<&[String]>, branch: bool) -> bool {
    let adds_time = |v: &[u8]| time.adds(v);
    let new_version = |v: &[u8]| versions.is_some_and(|k| !k.iter().any(|k| k.as_bytes() == v));
    let timed = !matches!(time, Keep::Nothing);
    let want = usize::from(timed) | usize::from(versions.is_some()) << 1 | usize::from(branch) << 2;
    let Some(set) = keys(want) else {
        return by_key(
            line,
            (timed, adds_time),
            versions.map(|_| new_version),
            branch,
        );
    };
    set.find_iter(line)
        .any(|m| match &line[m.start()..m.end()] {
            b"\\u" => true,
            b"\"gitBranch\"" => super::head::branch_at(line, m.start()),
            k @ b"\"timestamp\"" => {
                plain_value(line, m.start(), k).is_some_and(|v| v.is_none_or(adds_time))
            }
            k => plain_value(line, m.start(), k).is_some_and(|v| v.is_none_or(new_version)),
        })
}

/// The keys [`may_add`] may want, by bit of its `want`.
const KEYS: [&[u8]; 3] = [b"\"timestamp\"", b"\"version\"", b"\"gitBranch\""];

/// The literal set [`may_add`] searches for `want` (bit 0 the timestamp,
/// 1 the version, 2 the branch): `\u` and the keys wanted, leftmost first;
/// `None` on a CPU with no Teddy, where [`by_key`] searches instead.
fn keys(want: usize) -> Option<&'static aho_corasick::packed::Searcher> {
    use aho_corasick::packed::{Config, MatchKind, Searcher};
    static SETS: std::sync::LazyLock<[Option<Searcher>; 8]> = std::sync::LazyLock::new(|| {
        std::array::from_fn(|want| {
            let mut b = Config::new().match_kind(MatchKind::LeftmostFirst).builder();
            b.add(b"\\u");
            for (bit, k) in KEYS.iter().enumerate() {
                if want >> bit & 1 == 1 {
                    b.add(k);
                }
            }
            b.build()
        })
    });
    SETS.get(want)?.as_ref()
}

/// [`may_add`] by a memmem per key: `time` whether a timestamp is wanted
/// and whether a value adds one, `version` whether a value is new (`None`:
/// versions are not wanted), `branch` whether a branch is.
fn by_key(
    line: &[u8],
    (timed, adds_time): (bool, impl Fn(&[u8]) -> bool),
    version: Option<impl Fn(&[u8]) -> bool>,
    branch: bool,
) -> bool {
    use crate::scan::lit;
    let values = |k: &'static memchr::memmem::Finder<'static>| {
        k.find_iter(line)
            .filter_map(move |at| plain_value(line, at, k.needle()))
    };
    lit!(b"\\u").find(line).is_some()
        || (branch && super::head::names_a_branch(line))
        || (timed && values(lit!(b"\"timestamp\"")).any(|v| v.is_none_or(&adds_time)))
        || version.is_some_and(|new| values(lit!(b"\"version\"")).any(|v| v.is_none_or(&new)))
}

/// The value of the key `k` found at `at` (any depth, either spacing):
/// `None` when no value follows it; `Some(Some(body))` for a string holding
/// no escape, `Some(None)` for any other value, which only a parse reads.
fn plain_value<'a>(line: &'a [u8], at: usize, k: &[u8]) -> Option<Option<&'a [u8]>> {
    let v = crate::scan::pair::value_at(line, at, k)?;
    let body = line[v..].strip_prefix(b"\"");
    Some(body.and_then(|b| {
        let end = memchr::memchr2(b'"', b'\\', b)?;
        (b[end] == b'"').then(|| &b[..end])
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`may_add`] by a memmem per key ([`by_key`], as it was before the
    /// literal set): the reference the literal set is pinned to.
    fn may_add_by_key(line: &[u8], time: Keep, versions: Option<&[String]>, branch: bool) -> bool {
        let adds_time = |v: &[u8]| time.adds(v);
        let new = |v: &[u8]| versions.is_some_and(|k| !k.iter().any(|k| k.as_bytes() == v));
        let timed = !matches!(time, Keep::Nothing);
        by_key(line, (timed, adds_time), versions.map(|_| new), branch)
    }

    /// The one-pass [`may_add`] says what a memmem per key said, on every
    /// line of the sample and public transcripts and the built lines of the
    /// test below, for every kind of question the head and tail ask.
    #[test]
    fn may_add_in_one_pass_is_may_add_by_key() {
        let mut lines: Vec<Vec<u8>> = BUILT.iter().map(|l| l.as_bytes().to_vec()).collect();
        for t in crate::discovery::sample_and_public() {
            let buf = std::fs::read(&t.path).unwrap();
            lines.extend(crate::scan::Lines::new(&buf).map(|l| l.bytes.to_vec()));
        }
        let times: Vec<Option<Timestamp>> = [
            "2025-01-01T00:00:00Z",
            "2025-09-01T00:00:00Z",
            "2026-01-15T12:00:00Z",
            "2026-06-02T11:17:01.695Z",
        ]
        .iter()
        .map(|t| ts(t))
        .chain([None])
        .collect();
        let mut keeps = vec![Keep::Nothing];
        for t in &times {
            keeps.extend([Keep::Before(*t), Keep::After(*t)]);
        }
        let known = [
            "2.1.0".to_string(),
            "1.0.98".to_string(),
            "2.0.5".to_string(),
        ];
        let sets: [Option<&[String]>; 4] = [None, Some(&[]), Some(&known[..1]), Some(&known)];
        let mut yes = 0;
        for l in &lines {
            for &time in &keeps {
                for versions in sets {
                    for branch in [false, true] {
                        let want = may_add_by_key(l, time, versions, branch);
                        let at = String::from_utf8_lossy(l);
                        assert_eq!(may_add(l, time, versions, branch), want, "{at}");
                        yes += usize::from(want);
                    }
                }
            }
        }
        assert!(lines.len() > 1000 && yes > 1000, "{} {yes}", lines.len());
    }

    const BUILT: &[&str] = &[
        r#"{"type":"user","version":"2.1.0","gitBranch":"main","timestamp":"2026-06-02T11:17:01.695Z"}"#,
        r#"{"type": "user", "version": "2.1.0", "gitBranch": "", "timestamp": "2026-06-02T12:00:00Z"}"#,
        r#"{"snapshot":{"timestamp":"2026-06-02T12:00:00Z"},"timestamp":"2025-01-01T00:00:00Z"}"#,
        r#"{"timestamp":"2026-06-02T\u0031\u0032:00:00Z"}"#,
        r#"{"timestamp":"2026-06-02T12:00:00Z\n"}"#,
        r#"{"timestamp":1780000000,"version":"2.1.0"}"#,
        r#"{"version":["2.1.0"],"gitBranch":null}"#,
        r#"{"time\u0073tamp":"2026-06-02T12:00:00Z"}"#,
        r#"{"text":"\"timestamp\":\"2099-01-01T00:00:00Z\"","version":"2.1.0"}"#,
        r#"{"text":"a \"gitBranch\":\"dev\"","gitBranch":"","x":{"gitBranch":"dev"}}"#,
        r#"{"timestamp":"yesterday","version":"2.1.0","gitBranch" : "main"}"#,
        r#"{"version""timestamp":"2026-06-02T12:00:00Z","gitBranch"}"#,
        r#"{"version":"1.0.98","timestamp" :"2025-09-01T00:00:00Z","a":"\\u"}"#,
    ];

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
