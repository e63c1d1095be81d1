//! Flags of `csift plan`.

use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift plan @4d56                 # the plan file this session is bound to, and its events\n",
    "  csift plan @4d56 --show          # the same, then the plan file itself\n",
    "  csift plan                       # every session of the home that binds a plan\n",
    "  csift plan --audit               # plan files edited by a session that does not bind them\n",
    "  csift plan --format json | jq -r 'select(.type==\"plan\") | .plan_file'\n\n",
    "Binding, as Claude Code decides it: the latest plan_mode attachment's planFilePath\n",
    "(binding_source plan_mode); without one, the first record carrying a slug binds\n",
    "<plans-dir>/<slug>.md when the slug is valid (slug-only; minted_at_compaction when that\n",
    "record is a compaction boundary, as in a session forked at a compaction). The plans\n",
    "directory is plansDirectory from <home>/settings.json, then <cwd>/.claude/settings.json,\n",
    "then <cwd>/.claude/settings.local.json, joined to the session's first cwd and refused when\n",
    "it leaves it; else <home>/plans. --settings, managed settings and a git-root local layer\n",
    "leave no trace in a transcript, so csift cannot see them. A plan is never guessed from a\n",
    "session id or a directory listing. [missing]: bound, but the file does not exist (yet:\n",
    "Claude Code binds at Plan Mode entry and writes the file later).\n\n",
    "Events: approvals of ExitPlanMode (plan or empty), rejections with the plan under\n",
    "discussion and what the user typed, and re-injections of a plan after a compaction.\n\n",
    "--audit: every Write/Edit/MultiEdit/NotebookEdit in the targets to a file some session\n",
    "of the home binds, with a warning when the editing session does not bind it itself: only\n",
    "the bound plan comes back in full after a compaction.\n\n",
    "JSON (--format json): per session\n",
    "  {\"type\":\"plan\",\"session_id\",\"agent_id\",\"file\",\"plan_file\",\"binding_source\",\"line\",\n",
    "   \"slug\",\"exists\",\"plan_exists_at_binding\",\"minted_at_compaction\",\n",
    "   \"approvals\":[{\"line\",\"variant\"}],\"rejections\":[{\"line\",\"plan_file\",\"message\"}],\n",
    "   \"reinjections\":[{\"line\",\"plan_file\",\"bound\"}],\"plan_content\"?}\n",
    "  then {\"type\":\"summary\",\"sessions\",\"bound\",\"plan_mode\",\"slug_only\",\"missing\",\n",
    "   \"errors\",\"elapsed_ms\"}\n",
    "  --audit: {\"type\":\"plan-edit\",\"session_id\",\"agent_id\",\"file\",\"plan_file\",\"mutations\",\n",
    "   \"lines\",\"bound_by_owner\",\"bound_by\":[{\"session_id\",\"line\",\"binding_source\"}]}\n",
    "  then {\"type\":\"summary\",\"bindings\",\"plan_files_touched\",\"edits\",\"warnings\",\"errors\",\n",
    "   \"elapsed_ms\"}\n\n",
    "Exit status: 0 a plan (or a plan edit) found, 1 none, 2 an error.",
))]
pub(crate) struct PlanArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Edits to plan files, joined against the sessions that bind them.
    #[arg(long, conflicts_with = "show")]
    pub(crate) audit: bool,
    /// Print each bound plan file after its row.
    #[arg(long)]
    pub(crate) show: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
