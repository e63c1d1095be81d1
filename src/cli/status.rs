//! Flags of `csift status` and `csift tasks`.

use clap::{Args, ValueEnum};

/// `status --since`: the activity window, not a record window.
pub(crate) const STATUS_SINCE: &str =
    "Sessions whose transcript or a lane was written at or after this time \
(default with no TARGET: 24 h ago); the same forms as everywhere: RFC 3339, a local date or \
date and time, or an age like 2h, 3d";
/// `tasks --since/--until`: a window on launch times.
pub(crate) const TASKS_SINCE: &str =
    "Only background tasks launched at or after this time (RFC 3339, a \
local date or date and time, or an age like 2d, 12h)";
pub(crate) const TASKS_UNTIL: &str =
    "Only background tasks launched at or before this time (same forms \
as --since; a date alone means the end of that day)";

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift status                     # every session active in the last 24 h\n",
    "  csift status @4d5611e5           # one session and its lanes\n",
    "  csift status .                   # this directory's sessions\n",
    "  csift status --since 2h          # sessions written in the last 2 hours\n",
    "  csift status --all --format json | jq -r 'select(.verdict==\"running\") | .session_id'\n",
    "  csift tasks @4d5611e5 --open     # what a session left running\n\n",
    "Verdicts, highest precedence first: stale-dead (the registry row's process is gone or\n",
    "its pid was reused), waiting-hitl (a question, a permission prompt, an elicitation),\n",
    "running (a busy registry row, or an unreturned call within its plausible life),\n",
    "waiting-children (a lane in flight or generating), idle-background-open (the turn\n",
    "ended, background tasks never came back), idle-eot (a clean end of turn), unknown\n",
    "(surfaces csift cannot rank, with the reason). Each comes with the evidence that\n",
    "decided it. Not returned is not proof of running: a call older than its plausible life\n",
    "with no live process behind it is never called running.\n\n",
    "Surfaces: <home>/sessions/<pid>.json registry rows (matched on sessionId; the pid is\n",
    "probed with `ps -o lstart=` as Claude Code runs it, or /proc, and its start compared with\n",
    "the row's procStart), a window read backward from each transcript's end, each lane's\n",
    "tail, workflow journals, and the whole-file background ledger (see `csift tasks`).\n",
    "A pending permission prompt leaves no transcript trace: only a live registry row shows it.\n\n",
    "Which sessions: with no TARGET, those whose transcript or a lane was written in the last\n",
    "24 h (by file time; --since sets the window) plus every session with a registry row;\n",
    "--all or a TARGET takes every session named. Lanes not written for an hour are settled\n",
    "without a read (--all-lanes reads them).\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"session\",\"session_id\",\"agent_id\":null,\"project\",\"file\",\"verdict\",\"since\",\n",
    "   \"because\":[…],\"notes\":[…],\"registry\":{\"file\",\"pid\",\"status\",\"waiting_for\",\n",
    "   \"status_updated_at\",\"status_age_secs\",\"proc_start\",\"pid_domain\",\"kind\",\"version\"}|null,\n",
    "   \"registry_state\":\"row\"|\"no-row\"|\"no-registry\"|\"unreadable\",\"pid_alive\":true|false|null,\n",
    "   \"pid\":\"<the probe's evidence>\"|null,\"tail\":{\"time\",\"record\",\"line\",\"stop_reason\",\n",
    "   \"pending\":{\"tool\",\"tool_use_id\",\"since\",\"age_secs\",\"bound_secs\",\"wait\",\"detail\",\"line\"}|null,\n",
    "   \"torn\",\"malformed\"}|null,\"open_background\",\"background\":{<state>:N},\n",
    "   \"task_list_open\"|null,\"waiting_for\":{\"reason\",\"source\",\"detail\"}|null,\n",
    "   \"lanes\":{\"total\",\"read\",\"live\",\"unread\"},\"workflow_in_flight\"}\n",
    "  {\"type\":\"lane\",\"session_id\",\"agent_id\",\"shape\",\"file\",\"state\",\"since\",\"because\",\"tail\"}\n",
    "   per lane read (state: in-flight | generating | stalled | settled)\n",
    "  then {\"type\":\"summary\",\"sessions\",\"shown\",\"verdicts\":{…},\"window\",\"registry\",\n",
    "   \"notes\",\"errors\",\"elapsed_ms\"}. Times are RFC 3339 UTC as Claude Code writes them.\n\n",
    "Exit status: 0 sessions shown, 1 none, 2 an error.",
))]
pub(crate) struct StatusArgs {
    /// What to judge (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Every session of the home (or of the TARGETs), however old.
    #[arg(long, conflicts_with = "since")]
    pub(crate) all: bool,
    /// Read every lane's tail, not only lanes written within the last hour.
    #[arg(long)]
    pub(crate) all_lanes: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum KindArg {
    Shell,
    Monitor,
    Agent,
    Workflow,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift tasks                      # every session's background tasks and task lists\n",
    "  csift tasks @4d5611e5 --open     # what one session left running\n",
    "  csift tasks . --kind monitor\n",
    "  csift tasks --since 2d --format json | jq 'select(.type==\"background_task\")'\n\n",
    "Background tasks are rebuilt from the transcripts (no file on disk keeps them): launches\n",
    "from every lane - a Bash/PowerShell call with run_in_background, a foreground call moved\n",
    "to the background on its timeout or by the user, a Monitor, an async agent, a background\n",
    "workflow - joined to the completion notifications in the main transcript (a user record,\n",
    "a queue-operation enqueue line or a queued_command attachment) on <tool-use-id>, then\n",
    "<task-id>, the latest winning; TaskOutput retrievals and TaskStop results end tasks too.\n",
    "Monitor event pulses keep a monitor open; its timeout event closes it. The whole of each\n",
    "file is read, behind a byte prefilter.\n\n",
    "States: open (no carrier ended it: running, or gone without a trace - a UI stop, a\n",
    "Monitor timeout or agent teardown writes none), completed, failed, killed (killed or\n",
    "stopped), timed-out, unknown (a status csift does not know; raw_status keeps it).\n\n",
    "The session task list is <home>/tasks/<session>/ and tasks/session-<first 8>/, merged:\n",
    "open entries are listed, completed ones counted. --since/--until select launches by time.\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"background_task\",\"session_id\",\"agent_id\",\"task_id\",\"tool_use_id\",\"kind\",\n",
    "   \"tool\",\"trigger\",\"state\",\"raw_status\",\"launched\",\"file\",\"line\",\"turn\",\"command\",\n",
    "   \"description\",\"persistent\",\"ended_by\":{\"carrier\",\"file\",\"line\",\"time\",\n",
    "   \"orphan_reconciliation\",\"summary\"}|null,\"notifications\",\"events\",\"output_file\",\n",
    "   \"output_bytes\",\"output_age_secs\",\"output_gone\",\"notes\"}\n",
    "  {\"type\":\"task\",\"session_id\",\"id\",\"subject\",\"status\",\"active_form\",\"owner\",\n",
    "   \"blocked_by\",\"blocks\",\"file\"} per open task-list entry\n",
    "  {\"type\":\"task_list\",\"session_id\",\"dirs\",\"open\",\"completed\",\"deleted\"} per session\n",
    "  then {\"type\":\"summary\",\"sessions\",\"background\",\"shown\",\"states\":{…},\"kinds\":{…},\n",
    "   \"task_list_open\",\"task_list_completed\",\"unjoined_notifications\":[{\"ids\",\"status\"}],\n",
    "   \"notes\",\"errors\",\"elapsed_ms\"}.\n\n",
    "Exit status: 0 tasks listed, 1 none, 2 an error.",
))]
pub(crate) struct TasksArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Only open background tasks and open task-list entries.
    #[arg(long)]
    pub(crate) open: bool,
    /// Only background tasks of this kind (the task list is left out).
    #[arg(long, value_enum, value_name = "KIND")]
    pub(crate) kind: Option<KindArg>,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
