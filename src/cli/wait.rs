//! Flags of `csift wait`. Its `--until` is a condition, not the time window
//! every other command's `--until` is, so the shared flags are spelled here.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::output::{ColorChoice, Format};

/// `30s`, `5m`, `1h`, `500ms`, `1.5s`, or bare seconds.
pub(crate) fn duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is no duration (write e.g. 30s, 5m, 1h, 500ms)"))?;
    let secs = match unit.trim() {
        "" | "s" | "sec" | "secs" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        u => return Err(format!("`{s}`: unknown unit `{u}` (ms, s, m, h)")),
    };
    if !(secs > 0.0 && secs < 1e9) {
        return Err(format!("`{s}`: a duration must be above zero"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Conditions (--until, repeatable; the first to hold wins and the output says which):\n",
    "  stop                  the session stopped: verdict idle-eot or stale-dead (an open\n",
    "                        background task is neither: use idle)\n",
    "  idle                  any idle verdict (idle-eot, idle-background-open)\n",
    "  hitl                  waiting for a human: verdict waiting-hitl (a registry waiting\n",
    "                        row, an unanswered question at the tail) or a pending ask in\n",
    "                        the elicitation sidecar (see `csift hooks record --help`)\n",
    "  auq                   an AskUserQuestion or ExitPlanMode asked (transcript or sidecar)\n",
    "  notification[:REGEX]  a task notification in the main lane (REGEX: its text)\n",
    "  tool:NAME             a tool call of that name starts (a glob: Bash, mcp__*, Write,Edit)\n",
    "  write:PATH_RE[:LINE_RE]  a Write/Edit/MultiEdit/NotebookEdit whose path matches\n",
    "                        PATH_RE and whose written text has a line matching LINE_RE\n",
    "                        (content, new_string, new_source, each edits[].new_string);\n",
    "                        `\\:` is a literal colon inside either regex\n",
    "  change                any new record\n\n",
    "Only what is written after the start counts: each watched file's length is taken as\n",
    "its baseline, then `csift: watching N files from byte offsets …` is printed on stderr;\n",
    "order your own trigger after that line. Records before it never fire, and a verdict\n",
    "condition fires only once something changed after the start (a new record, a registry\n",
    "row, the process ending). Lanes and sidecars born during the wait are read from their\n",
    "first byte. A torn line fires once, when its newline lands; a file replaced under its\n",
    "name (a rewrite) is re-baselined at its new length, and said.\n\n",
    "Wakes on filesystem notifications (inotify), so an idle wait costs no CPU; --poll\n",
    "polls every --interval instead, as it does where notifications cannot be had.\n\n",
    "Output: the event, as search prints a hit (the record and its exchange), the verdict\n",
    "after it and what was read. On timeout: what it last saw, the verdict, the activity.\n",
    "JSON (--format json), one object:\n",
    "  {\"type\":\"wait\",\"fired\":\"<COND as given>\"|\"timeout\",\"because\",\"waited_ms\",\n",
    "   \"event\":{<unit as search prints it>,\"exchange\":[…]}|null,\n",
    "   \"elicitation\":{\"kind\",\"phase\",\"key\",\"detail\",\"file\"}|null,\n",
    "   \"last\":{<unit>}|null,\"activity\":{\"files\",\"records\",\"lanes\",\"sidecar_lines\",\"tools\"},\n",
    "   \"sessions\":[{\"session_id\",\"verdict\",\"since\",\"because\",\"notes\",\"waiting_for\"}]}\n\n",
    "Exit status: 0 a condition held; 124 the timeout passed (GNU timeout's convention);\n",
    "2 an error (a target that names nothing without --wait-for-start, a malformed --until,\n",
    "a transcript deleted while waiting).\n\n",
    "Examples:\n",
    "  csift wait @4d5611e5 --until stop --timeout 10m\n",
    "  csift wait @main --until 'tool:Bash' --timeout 60s\n",
    "  csift wait @4d5611e5 --until hitl --until stop --timeout 1h --format json\n",
    "  csift wait @4d5611e5 --until 'write:src/.*\\.rs:fn main' --timeout 5m\n",
    "  csift wait @4d5611e5 --until 'notification:failed' --timeout 30m; echo $?\n",
    "  csift wait @$ID --wait-for-start --until change --timeout 2m   # a session about to start",
))]
pub(crate) struct WaitArgs {
    /// What to watch (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET", required = true)]
    pub(crate) targets: Vec<String>,
    /// The condition to wait for (repeatable; see below).
    #[arg(long, value_name = "COND", required = true)]
    pub(crate) until: Vec<String>,
    /// How long to wait at most (30s, 5m, 1h, 500ms): required, since a
    /// background task can be built never to return. Exit 124 when it passes.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub(crate) timeout: Option<Duration>,
    /// Wait for a TARGET that names nothing yet to appear (else: error).
    #[arg(long)]
    pub(crate) wait_for_start: bool,
    /// Poll instead of using filesystem notifications.
    #[arg(long)]
    pub(crate) poll: bool,
    /// How often to poll (with --poll, or where notifications fail).
    #[arg(long, value_name = "DURATION", default_value = "500ms", value_parser = duration)]
    pub(crate) interval: Duration,
    /// Claude config home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_home: Option<PathBuf>,
    /// Watch main transcripts only, not subagent lanes.
    #[arg(long)]
    pub(crate) no_subagents: bool,
    /// Output form: human (default) or json (one JSON object).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    /// When to colour output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub(crate) color: ColorChoice,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(duration("0").is_err() && duration("x").is_err() && duration("3d").is_err());
    }
}
