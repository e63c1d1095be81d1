//! Flags of `csift hooks record`, the elicitation recorder run as a Claude
//! Code hook.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Claude Code writes nothing to the transcript while a single-question AskUserQuestion,\n",
    "an ExitPlanMode or an MCP elicitation waits for an answer; its hooks see them. Run as a\n",
    "hook, this reads the payload on stdin and appends one line per event to\n",
    "$XDG_STATE_HOME/csift/elicitations/<session>.jsonl (else ~/.local/state/csift/...), never\n",
    "under the Claude home: PreToolUse of AskUserQuestion/ExitPlanMode writes `pending`,\n",
    "PostToolUse/PostToolUseFailure of them `resolved`; Elicitation writes an MCP `pending`,\n",
    "ElicitationResult `resolved`. Lines pair on tool_use_id, else elicitation_id, else the\n",
    "MCP server name. Any other payload writes nothing.\n\n",
    "Read by `csift status` (verdict waiting-hitl with the question) and\n",
    "`csift wait --until hitl|auq`. A rejected question fires no PostToolUse: it is closed\n",
    "once its tool_use id is on the transcript.\n\n",
    "Wiring (settings.json \"hooks\"; the command is this binary's absolute path; `csift hooks\n",
    "print --record` prints the block, `csift hooks install --record` merges it):\n",
    "  PreToolUse, PostToolUse, PostToolUseFailure  matcher \"AskUserQuestion|ExitPlanMode\"\n",
    "  Elicitation, ElicitationResult               no matcher (every MCP server)\n",
    "  each: {\"type\": \"command\", \"command\": \"/abs/path/csift hooks record\", \"timeout\": 10}\n\n",
    "Exit status: always 0 (a recorder must never block a session): an unreadable payload\n",
    "or a write that fails is said in one stderr line. Reads stdin for at most 5 seconds.\n\n",
    "Example:\n",
    "  echo '{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"AskUserQuestion\",\"tool_use_id\":\"toolu_1\",\"session_id\":\"…\"}' | csift hooks record",
))]
pub(crate) struct RecordArgs {
    /// Claude config home to stay out of (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_home: Option<PathBuf>,
}
