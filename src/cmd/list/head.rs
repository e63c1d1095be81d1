//! The head of a transcript, for `csift list`: cwd, branch, first version,
//! start (the minimum over the first records, REC-089) and the first genuine
//! prompt, from the first lines; resumable as the head window grows.

use jiff::Timestamp;

use super::summary::Summary;
use super::tail::{envelope, may_add, Keep};
use crate::classify::turns;
use crate::record::{parse_line, Parsed, Record, Str};
use crate::scan::Lines;
use crate::timefmt;

/// Records parsed at the head for the start time (timestamps are not monotone,
/// REC-089, so the minimum over a few).
const HEAD_RECORDS: usize = 12;

/// The head scan, resumable when its window grows: how many lines it has seen.
#[derive(Default)]
pub(super) struct HeadScan {
    lines: usize,
}

impl HeadScan {
    /// Read head lines after those already seen: cwd, branch, first version,
    /// start (min over the first lines, REC-089), first genuine prompt.
    pub(super) fn feed(&mut self, head: &[u8], lane: bool, s: &mut Summary) {
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
            // parsed, often tool calls and results, most of their bytes), and
            // not read at all when it cannot change what is known.
            let user = crate::scan::lit!(b"\"user\"").find(line.bytes).is_some();
            let prompt = user && s.first_prompt.is_none();
            if !prompt && !envelope_may_add(parsed, line.bytes, s) {
                continue;
            }
            if !user {
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

/// Whether the `parsed`-th head line's envelope could change what `s` holds
/// ([`HeadScan::envelope`]): anything while cwd or the first version is
/// missing; else a non-empty branch while none is known, or among the first
/// [`HEAD_RECORDS`] a time before the earliest seen ([`may_add`]).
fn envelope_may_add(parsed: usize, line: &[u8], s: &Summary) -> bool {
    if s.cwd.is_none() || s.versions.is_empty() {
        return true;
    }
    let time = match parsed < HEAD_RECORDS {
        true => Keep::Before(s.started),
        false => Keep::Nothing,
    };
    may_add(line, time, None, s.git_branch.is_none())
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
pub(super) fn names_a_branch(line: &[u8]) -> bool {
    crate::scan::lit!(b"\"gitBranch\"")
        .find_iter(line)
        .any(|at| branch_at(line, at))
}

/// Whether the `"gitBranch"` key at `at` has a non-empty value.
pub(super) fn branch_at(line: &[u8], at: usize) -> bool {
    let v = line[at + 11..].trim_ascii_start();
    let v = v.strip_prefix(b":").unwrap_or(v).trim_ascii_start();
    !v.starts_with(b"\"\"")
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

pub(super) fn nonempty(v: Option<&str>) -> Option<String> {
    v.filter(|b| !b.is_empty()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

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
