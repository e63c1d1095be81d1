//! The `--until` conditions of `csift wait`: their grammar, and what each one
//! matches. Two classes:
//!
//! - record conditions, matched against each record appended after the
//!   baseline: `tool:NAME`, `write:PATH_RE[:LINE_RE]`, `notification[:REGEX]`,
//!   `auq`, `change` (and `hitl` on a sidecar's pending line);
//! - verdict conditions, matched against the session's verdict
//!   ([`crate::live::verdict`]) once something changed after the start:
//!   `stop` (idle-eot or stale-dead only: an open background task is neither,
//!   BG-038), `idle` (any idle verdict), `hitl` (waiting-hitl).

use regex::Regex;

use super::cursor::Role;
use crate::elicitation::{Marker, KIND_MCP};
use crate::error::Error;
use crate::globs::NameGlobs;
use crate::live::verdict::Verdict;
use crate::record::Record;

/// The grammar, said on a malformed `--until`.
pub(crate) const GRAMMAR: &str = "stop | idle | hitl | auq | notification[:REGEX] | \
tool:NAME | write:PATH_RE[:LINE_RE] | change (a `\\:` in a regex is a literal colon)";

/// The file tools and where each keeps its written text (TAIL-015, REC-083:
/// no common key; MultiEdit nests it per hunk).
const WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

pub(crate) enum Kind {
    Stop,
    Idle,
    Hitl,
    Auq,
    Notification(Option<Regex>),
    Tool(NameGlobs),
    Write { path: Regex, line: Option<Regex> },
    Change,
}

/// One condition, with the text it was given as.
pub(crate) struct Cond {
    pub(crate) spec: String,
    pub(crate) kind: Kind,
}

/// Split `s` at its first colon not escaped as `\:`; the escapes are undone
/// in both halves.
fn split_colon(s: &str) -> (String, Option<String>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1) == Some(&b':') => i += 2,
            b':' => {
                return (unescape(&s[..i]), Some(unescape(&s[i + 1..])));
            }
            _ => i += 1,
        }
    }
    (unescape(s), None)
}

fn unescape(s: &str) -> String {
    s.replace("\\:", ":")
}

fn regex(what: &str, re: &str, spec: &str) -> Result<Regex, Error> {
    Regex::new(re).map_err(|e| Error::Usage(format!("--until {spec}: bad {what} regex: {e}")))
}

impl Cond {
    pub(crate) fn parse(spec: &str) -> Result<Cond, Error> {
        let bad =
            |why: &str| Error::Usage(format!("--until {spec:?}: {why}; the grammar: {GRAMMAR}"));
        let (head, rest) = match spec.split_once(':') {
            Some((h, r)) => (h, Some(r)),
            None => (spec, None),
        };
        let kind = match (head, rest) {
            ("stop", None) => Kind::Stop,
            ("idle", None) => Kind::Idle,
            ("hitl", None) => Kind::Hitl,
            ("auq", None) => Kind::Auq,
            ("change", None) => Kind::Change,
            ("notification", None) => Kind::Notification(None),
            ("notification", Some(r)) => Kind::Notification(Some(regex("notification", r, spec)?)),
            ("tool", Some(n)) if !n.trim().is_empty() => Kind::Tool(
                NameGlobs::parse(&[n.to_string()])?.ok_or_else(|| bad("tool: needs a NAME"))?,
            ),
            ("write", Some(r)) if !r.is_empty() => {
                let (p, l) = split_colon(r);
                Kind::Write {
                    path: regex("path", &p, spec)?,
                    line: l.map(|l| regex("line", &l, spec)).transpose()?,
                }
            }
            ("tool" | "write", _) => return Err(bad("it needs its argument")),
            ("stop" | "idle" | "hitl" | "auq" | "change", Some(_)) => {
                return Err(bad("it takes no argument"))
            }
            _ => return Err(bad("unknown condition")),
        };
        Ok(Cond {
            spec: spec.to_string(),
            kind,
        })
    }

    /// A verdict condition (matched against the session's verdict).
    pub(crate) fn on_verdict(&self) -> bool {
        matches!(self.kind, Kind::Stop | Kind::Idle | Kind::Hitl)
    }

    /// Does `v` satisfy this verdict condition?
    pub(crate) fn verdict(&self, v: Verdict) -> bool {
        match self.kind {
            // BG-038: a task left open is neither running nor stopped.
            Kind::Stop => matches!(v, Verdict::IdleEot | Verdict::StaleDead),
            Kind::Idle => matches!(v, Verdict::IdleEot | Verdict::IdleBackgroundOpen),
            Kind::Hitl => v == Verdict::WaitingHitl,
            _ => false,
        }
    }

    /// Does record `r` of a transcript (`role`) satisfy this condition? The
    /// answer says what matched, in a few words.
    pub(crate) fn record(&self, r: &Record<'_>, role: Role) -> Option<String> {
        match &self.kind {
            Kind::Change => Some(format!("a new {} record", kind_name(r))),
            Kind::Tool(g) => tool_uses(r)
                .find(|(name, _)| g.is_match(name))
                .map(|(name, _)| format!("a {name} call")),
            Kind::Auq => tool_uses(r)
                .find(|(n, _)| matches!(*n, "AskUserQuestion" | "ExitPlanMode"))
                .map(|(n, _)| format!("an {n} call on the transcript")),
            Kind::Write { path, line } => tool_uses(r)
                .filter(|(n, _)| WRITE_TOOLS.contains(n))
                .find_map(|(n, input)| write_matches(n, input, path, line.as_ref())),
            Kind::Notification(re) if role == Role::Main => notification(r, re.as_ref()),
            _ => None,
        }
    }

    /// Does a sidecar marker satisfy this condition (a pending ask)?
    pub(crate) fn marker(&self, m: &Marker) -> Option<String> {
        if m.phase != "pending" {
            return None;
        }
        let asks = m.kind != KIND_MCP;
        match self.kind {
            Kind::Hitl => Some(format!("a pending {} (elicitation sidecar)", m.kind)),
            Kind::Auq if asks => Some(format!("a pending {} (elicitation sidecar)", m.kind)),
            Kind::Change => Some("a new elicitation sidecar line".into()),
            _ => None,
        }
    }
}

fn kind_name(r: &Record<'_>) -> String {
    match (r.kind(), r.subtype()) {
        ("", _) => "(untyped)".into(),
        (k, "") => k.to_string(),
        (k, s) => format!("{k}:{s}"),
    }
}

/// The tool_use blocks of an assistant record: (name, input JSON).
fn tool_uses<'r>(r: &'r Record<'_>) -> impl Iterator<Item = (&'r str, &'r str)> {
    let assistant = r.kind() == "assistant";
    r.blocks()
        .iter()
        .filter(move |b| assistant && b.kind() == "tool_use")
        .map(|b| (b.name.as_deref().unwrap_or(""), b.input_json()))
}

/// A file tool's call against `write:PATH_RE[:LINE_RE]`: the path from
/// `file_path` or `notebook_path`, the text from `content`, `new_string`,
/// `new_source`, and each MultiEdit hunk's `edits[].new_string` (TAIL-015).
fn write_matches(name: &str, input: &str, path: &Regex, line: Option<&Regex>) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(input).ok()?;
    let p = v
        .get("file_path")
        .or_else(|| v.get("notebook_path"))
        .and_then(serde_json::Value::as_str)?;
    if !path.is_match(p) {
        return None;
    }
    let what = format!("a {name} of {p}");
    let Some(line) = line else {
        return Some(what);
    };
    let top = ["content", "new_string", "new_source"]
        .iter()
        .filter_map(|k| v.get(*k).and_then(serde_json::Value::as_str));
    let hunks = v
        .get("edits")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("new_string").and_then(serde_json::Value::as_str));
    let mut texts = top.chain(hunks);
    texts
        .any(|t| t.lines().any(|l| line.is_match(l)))
        .then_some(what)
}

/// A task notification in a main-lane carrier (a user record, a
/// queue-operation enqueue, a queued_command attachment: QT-008, BG-013),
/// its section matched against `re` when given.
fn notification(r: &Record<'_>, re: Option<&Regex>) -> Option<String> {
    let (_, text) = crate::live::ledger::notice::carrier_text(r)?;
    let sections = crate::classify::markers::sections(&text);
    sections
        .iter()
        .filter(|(k, _, _)| *k == crate::classify::markers::SectionKind::Task)
        .map(|(_, a, b)| &text[*a..*b])
        .find(|s| re.is_none_or(|re| re.is_match(s)))
        .map(|s| {
            let id = crate::classify::markers::xml_tag(s, "task-id").map(str::trim);
            let status = crate::classify::markers::xml_tag(s, "status").map(str::trim);
            match (id, status) {
                (Some(i), Some(st)) => format!("a task notification ({i} {st})"),
                (Some(i), None) => format!("a task notification ({i})"),
                _ => "a task notification".to_string(),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(line: &str) -> Box<Record<'_>> {
        let l = crate::scan::Line {
            no: 1,
            offset: 0,
            bytes: line.as_bytes(),
            terminated: true,
        };
        crate::record::line_records(&l).remove(0).1
    }

    #[test]
    fn grammar_errors_name_the_grammar() {
        for bad in [
            "sotp",
            "tool:",
            "write",
            "stop:x",
            "write:(",
            "notification:(",
        ] {
            let e = Cond::parse(bad).err().unwrap().to_string();
            assert!(e.contains("--until"), "{bad}: {e}");
        }
        assert!(Cond::parse("nope")
            .err()
            .unwrap()
            .to_string()
            .contains("tool:NAME"));
        let c = Cond::parse(r"write:C\:\\x\.rs:fn main").unwrap();
        match c.kind {
            Kind::Write { path, line } => {
                assert_eq!(path.as_str(), r"C:\\x\.rs");
                assert_eq!(line.unwrap().as_str(), "fn main");
            }
            _ => panic!(),
        }
    }

    /// TAIL-015, REC-083: the written text is `content`, `new_string`,
    /// `new_source`, or a MultiEdit hunk's `edits[].new_string`; the path is
    /// `file_path` or a notebook's `notebook_path`.
    #[test]
    fn write_reads_every_file_tools_payload_tail_015_rec_083() {
        let c = Cond::parse("write:target\\.rs:NEEDLE").unwrap();
        let call = |name: &str, input: &str| {
            format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"t","name":"{name}","input":{input}}}]}}}}"#
            )
        };
        let hit = |l: String| c.record(&rec(&l), Role::Main).is_some();
        assert!(hit(call(
            "Write",
            r#"{"file_path":"/a/target.rs","content":"x\nNEEDLE y\n"}"#
        )));
        assert!(hit(call(
            "Edit",
            r#"{"file_path":"/a/target.rs","old_string":"a","new_string":"NEEDLE"}"#
        )));
        assert!(hit(call(
            "MultiEdit",
            r#"{"file_path":"/a/target.rs","edits":[{"old_string":"a","new_string":"b NEEDLE"}]}"#
        )));
        assert!(hit(call(
            "NotebookEdit",
            r#"{"notebook_path":"/a/target.rs","new_source":"NEEDLE"}"#
        )));
        assert!(!hit(call(
            "Edit",
            r#"{"file_path":"/a/other.rs","new_string":"NEEDLE"}"#
        )));
        assert!(!hit(call(
            "Edit",
            r#"{"file_path":"/a/target.rs","old_string":"NEEDLE","new_string":"x"}"#
        )));
        assert!(!hit(call(
            "Read",
            r#"{"file_path":"/a/target.rs","content":"NEEDLE"}"#
        )));
    }

    /// BG-038: an open background task satisfies idle, never stop.
    #[test]
    fn stop_admits_idle_eot_and_stale_dead_only_bg_038() {
        let stop = Cond::parse("stop").unwrap();
        let idle = Cond::parse("idle").unwrap();
        assert!(stop.verdict(Verdict::IdleEot) && stop.verdict(Verdict::StaleDead));
        assert!(!stop.verdict(Verdict::IdleBackgroundOpen));
        assert!(idle.verdict(Verdict::IdleBackgroundOpen) && idle.verdict(Verdict::IdleEot));
        assert!(!idle.verdict(Verdict::Running) && !stop.verdict(Verdict::WaitingHitl));
    }

    /// QT-008, BG-013: a notification fires from a user carrier in the main
    /// lane; the regex reads its section; a lane's record never fires it.
    #[test]
    fn notification_reads_the_main_lane_carriers_qt_008() {
        let n = r#"{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>b7x1q2w3e</task-id>\n<status>completed</status>\n<summary>Background command \"make\" completed</summary>\n</task-notification>"}}"#;
        let any = Cond::parse("notification").unwrap();
        let failed = Cond::parse("notification:failed").unwrap();
        assert!(any
            .record(&rec(n), Role::Main)
            .unwrap()
            .contains("b7x1q2w3e completed"));
        assert!(any.record(&rec(n), Role::Lane).is_none());
        assert!(failed.record(&rec(n), Role::Main).is_none());
    }
}
