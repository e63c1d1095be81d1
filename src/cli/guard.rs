//! Flags of `csift guard`, the live eaten-text arms run as Claude Code hooks.

use std::path::PathBuf;

use clap::{ArgGroup, Args};

#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("arm").args(["post", "stop", "print_settings"])),
    after_help = concat!(
        "Wiring (print it with --print-settings): PostToolUse (matcher \".*\") runs\n",
        "`csift guard --post`, Stop runs `csift guard --stop`, both with timeout 10.\n\n",
        "Post arm: scans the transcript bytes appended since its last fire (per-session byte\n",
        "offset; per-message.id counts carried across fires because the writer lags). A new\n",
        "eaten-text response (>=2 thinking records, no text record, main context only) is\n",
        "surfaced to the model with exit 2 and a short stderr note asking it to weave the\n",
        "lost text into its final message and end it with `[recovered: N]`.\n",
        "Stop arm: checks the last 300 characters of the final message, as the Stop payload's\n",
        "last_assistant_message gives it, for a covering `[recovered: N]` footer; blocks the\n",
        "stop (exit 2) once, then gives up until a fire passes. A payload without that field\n",
        "(older Claude Code) cannot be checked: the stop goes on, the ids stay pending, and\n",
        "events.jsonl logs marker-unverifiable. Responses it finds itself (writer lag, the final\n",
        "response) are kept silently and surfaced by the next turn's first post fire.\n",
        "The first fire of a session scans only the transcript's final turn (last 4 MB); a\n",
        "rewritten transcript is re-baselined the same way. A response is never flagged twice.\n",
        "Subagent fires (agent_id) and sidechain records are skipped.\n\n",
        "State: $XDG_STATE_HOME/csift/guard/ (else ~/.local/state/csift/guard/), one JSON file\n",
        "per session plus events.jsonl; never under the Claude home.\n\n",
        "Exit status: 2 only to surface (post) or block (stop); 0 otherwise, including on every\n",
        "error and on unreadable hook input (fail open, with a one-line stderr note); 1 when\n",
        "no arm was chosen.\n\n",
        "Examples:\n",
        "  csift guard --print-settings        # paste into ~/.claude/settings.json\n",
        "  echo '{\"transcript_path\":\"…\",\"session_id\":\"…\"}' | csift guard --post",
    )
)]
pub(crate) struct GuardArgs {
    /// PostToolUse arm: scan new records, surface new eaten-text ids (exit 2).
    #[arg(long)]
    pub(crate) post: bool,
    /// Stop arm: verify the `[recovered: N]` footer, collect stragglers.
    #[arg(long)]
    pub(crate) stop: bool,
    /// Print the settings.json hooks snippet for this binary.
    #[arg(long)]
    pub(crate) print_settings: bool,
    /// Where to keep per-session state (must be outside the Claude home).
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
