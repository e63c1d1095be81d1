//! An unreturned call and its plausible life. "Not returned" is not proof of
//! running: a process that died mid-tool leaves the same shape as a tool in
//! flight (TAIL-001), and a pending permission prompt leaves no more (TAIL-010,
//! BASH-018). Where a tool's life is bounded, an unreturned call older than the
//! bound is not running whatever the file says; where it is not, the call's age
//! is evidence only.
//!
//! Bounds: a `Bash`/`PowerShell` call ends by its `timeout` (default 2 min, at
//! most 10 min): Claude Code kills it, or since 2.1.210 moves it to the
//! background with a result (BASH-027); a backgrounded launch or a `Monitor`
//! arm answers at once (TAIL-011, BG-003, BG-007); `TaskOutput` waits at most
//! its own `timeout`. A question (`AskUserQuestion`, `ExitPlanMode`) waits on a
//! human (ELI-009), a spawn (`Agent`/`Task`/`Workflow`) on its lane, and any
//! other tool may wait on an approval prompt: no bound.

use jiff::Timestamp;
use serde::Deserialize;
use serde::Serialize;

/// Slack on a bound: the main lane writes a message up to ~3 s after it
/// happened (TAIL-003), and a result can take seconds to land (BG-003: 7 s p99).
pub(crate) const SLACK_SECS: i64 = 60;

/// What kind of wait an unreturned call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Wait {
    /// A tool whose life has a known bound ([`Call::bound_secs`]).
    Bounded,
    /// A question put to the human (AskUserQuestion, ExitPlanMode).
    Human,
    /// A subagent spawn: as alive as its lanes.
    Spawn,
    /// Anything else: no bound csift knows.
    Open,
}

/// One `tool_use` with no `tool_result` after it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Call {
    pub(crate) name: String,
    pub(crate) id: String,
    #[serde(serialize_with = "crate::live::ser_ts")]
    pub(crate) time: Option<Timestamp>,
    #[serde(skip)]
    pub(crate) offset: u64,
    /// 1-based line, once numbered.
    pub(crate) line: Option<usize>,
    pub(crate) wait: Wait,
    /// The most a call of this kind can stay unreturned, slack included.
    pub(crate) bound_secs: Option<i64>,
    /// A short human label: the shell command, the spawn's description, the
    /// first question.
    pub(crate) detail: Option<String>,
    /// Claude Code's own reason when its dangerous-rm rule holds this Bash
    /// call for a human "Yes" (BASH-015…017, SUB-024): the call never ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) escalation: Option<String>,
}

impl Call {
    /// Seconds since the call was made, at `now`.
    pub(crate) fn age(&self, now: Timestamp) -> Option<i64> {
        self.time.map(|t| (now.as_second() - t.as_second()).max(0))
    }

    /// Older than its bound at `now`: a bounded call that cannot still be running.
    pub(crate) fn past_bound(&self, now: Timestamp) -> bool {
        matches!((self.bound_secs, self.age(now)), (Some(b), Some(a)) if a > b)
    }

    /// `unreturned Bash call 40 s old`.
    pub(crate) fn describe(&self, now: Timestamp) -> String {
        format!(
            "unreturned {} call {}",
            self.name,
            super::evidence::old(self.age(now))
        )
    }
}

#[derive(Deserialize, Default)]
struct Input {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    timeout: Option<serde_json::Value>,
    #[serde(default)]
    run_in_background: Option<bool>,
    #[serde(default)]
    questions: Option<Vec<Question>>,
    #[serde(default)]
    plan: Option<String>,
}

#[derive(Deserialize, Default)]
struct Question {
    #[serde(default)]
    question: Option<String>,
}

/// The Bash tool's default and largest timeout.
const BASH_DEFAULT_MS: i64 = 120_000;
const BASH_MAX_MS: i64 = 600_000;

/// Read one unreturned `tool_use` into a [`Call`].
pub(crate) fn call(
    id: &str,
    name: &str,
    input_json: &str,
    time: Option<Timestamp>,
    offset: u64,
) -> Call {
    let input: Input = serde_json::from_str(input_json).unwrap_or_default();
    let timeout_ms = input.timeout.as_ref().and_then(|v| {
        v.as_i64()
            .or_else(|| v.as_f64().map(|f| f as i64))
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    });
    let first_line = |s: &str| crate::output::sanitize::one_line(s.lines().next().unwrap_or(""));
    // A command Claude Code's dangerous-rm rule escalates waits on a human
    // before it runs, in the background or not: no timeout bounds it.
    let escalation = input
        .command
        .as_deref()
        .and_then(|c| crate::bash::for_tool(name, c))
        .and_then(|v| v.reason());
    let (wait, bound, detail) = match name {
        _ if escalation.is_some() => (Wait::Human, None, input.command.as_deref().map(first_line)),
        "Bash" | "PowerShell" if input.run_in_background == Some(true) => (
            Wait::Bounded,
            Some(SLACK_SECS * 5),
            input.command.as_deref().map(first_line),
        ),
        "Bash" | "PowerShell" => {
            let ms = timeout_ms.unwrap_or(BASH_DEFAULT_MS).clamp(0, BASH_MAX_MS);
            (
                Wait::Bounded,
                Some(ms / 1000 + SLACK_SECS),
                input
                    .command
                    .as_deref()
                    .or(input.description.as_deref())
                    .map(first_line),
            )
        }
        "Monitor" => (
            Wait::Bounded,
            Some(SLACK_SECS * 5),
            input.description.clone(),
        ),
        "TaskOutput" => (
            Wait::Bounded,
            Some(timeout_ms.unwrap_or(BASH_DEFAULT_MS).clamp(0, BASH_MAX_MS) / 1000 + SLACK_SECS),
            None,
        ),
        "AskUserQuestion" => {
            let qs = input.questions.unwrap_or_default();
            let first = qs
                .first()
                .and_then(|q| q.question.as_deref())
                .map(first_line);
            let detail = match (qs.len(), first) {
                (0, _) => None,
                (1, f) => f,
                (n, f) => Some(format!("{n} questions: {}", f.unwrap_or_default())),
            };
            (Wait::Human, None, detail)
        }
        "ExitPlanMode" => (Wait::Human, None, input.plan.as_deref().map(first_line)),
        "Agent" | "Task" | "Workflow" => (Wait::Spawn, None, input.description.clone()),
        _ => (Wait::Open, None, None),
    };
    Call {
        name: name.to_string(),
        id: id.to_string(),
        time,
        offset,
        line: None,
        wait,
        bound_secs: bound,
        detail: detail.map(|d| crate::output::sanitize::one_line(&d)),
        escalation: escalation.map(|e| crate::output::sanitize::one_line(&e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BASH-027: a Bash call's life is its timeout (default 2 min, at most 10).
    #[test]
    fn a_bash_call_is_bounded_by_its_timeout_bash_027() {
        let c = call(
            "t",
            "Bash",
            r#"{"command":"make\nx","timeout":30000}"#,
            None,
            0,
        );
        assert_eq!(c.bound_secs, Some(30 + SLACK_SECS));
        assert_eq!(c.detail.as_deref(), Some("make"));
        let c = call("t", "Bash", r#"{"command":"x"}"#, None, 0);
        assert_eq!(c.bound_secs, Some(120 + SLACK_SECS));
        let c = call(
            "t",
            "Bash",
            r#"{"command":"x","timeout":99999999}"#,
            None,
            0,
        );
        assert_eq!(c.bound_secs, Some(600 + SLACK_SECS));
        let now = Timestamp::from_second(1_000_000).unwrap();
        let old = Timestamp::from_second(1_000_000 - 3600).unwrap();
        let c = call("t", "Bash", r#"{"command":"x"}"#, Some(old), 0);
        assert!(c.past_bound(now));
        assert_eq!(c.describe(now), "unreturned Bash call 1h00m old");
    }

    /// ELI-009: a question waits on a human; a spawn on its lanes.
    #[test]
    fn questions_and_spawns_have_no_bound_eli_009() {
        let c = call(
            "t",
            "AskUserQuestion",
            r#"{"questions":[{"question":"Which route?"},{"question":"And?"}]}"#,
            None,
            0,
        );
        assert_eq!((c.wait, c.bound_secs), (Wait::Human, None));
        assert_eq!(c.detail.as_deref(), Some("2 questions: Which route?"));
        assert_eq!(call("t", "Agent", "{}", None, 0).wait, Wait::Spawn);
        assert_eq!(call("t", "mcp__x__y", "{}", None, 0).wait, Wait::Open);
    }

    /// BASH-015/016, SUB-024: a Bash call Claude Code's dangerous-rm rule
    /// escalates waits on a human and has no timeout bound (it never ran); the
    /// same command under PowerShell is not bash text (WIN-005) and stays bounded.
    #[test]
    fn a_dangerous_rm_waits_on_a_human_bash_015_sub_024() {
        let input = r#"{"command":"rm -rf $BUILD/*","timeout":30000}"#;
        let c = call("t", "Bash", input, None, 0);
        assert_eq!((c.wait, c.bound_secs), (Wait::Human, None));
        assert_eq!(c.detail.as_deref(), Some("rm -rf $BUILD/*"));
        assert!(c
            .escalation
            .as_deref()
            .is_some_and(|r| r.starts_with("Dangerous rm operation")));
        let bg = r#"{"command":"rm -rf \"$X\"/","run_in_background":true}"#;
        assert_eq!(call("t", "Bash", bg, None, 0).wait, Wait::Human);
        let ps = call("t", "PowerShell", input, None, 0);
        assert_eq!((ps.wait, ps.escalation), (Wait::Bounded, None));
        let safe = call("t", "Bash", r#"{"command":"rm -rf build/"}"#, None, 0);
        assert_eq!((safe.wait, safe.escalation), (Wait::Bounded, None));
    }
}
