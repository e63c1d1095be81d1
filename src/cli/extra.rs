//! Flags of the commands that read no transcript themselves: `mcp` (the
//! stdio server), `hooks` (the settings.json block, printed or merged),
//! `completions` and `man` (generated from this one clap definition).

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
#[command(after_help = "\
Tools: list_sessions, search, show, verbatim, stats, agents, audit, status, tasks,
files, recover (as many as this build has commands for). Each takes the same
options as the CLI command (names with `_` for `-`, same defaults), answers the
command's --format json objects as structured content with the same lines as
text, and takes `max_chars` (default --budget) and `offset`: an answer over
budget says how many objects it cut and the offset that gets the rest.

Register with Claude Code:
  claude mcp add csift -- /absolute/path/to/csift mcp
Or in .mcp.json:
  {\"mcpServers\": {\"csift\": {\"command\": \"/absolute/path/to/csift\", \"args\": [\"mcp\"]}}}

Read-only, as every csift command. A tool's error (a target that names nothing,
a bad regex) answers that call with isError and the message; a malformed request
answers with a JSON-RPC error; the server keeps serving either way. Exits 0 when
the client closes stdin.")]
pub(crate) struct McpArgs {
    /// Claude config home for the server's whole life (default: $CLAUDE_CONFIG_DIR,
    /// else ~/.claude); no tool can change it.
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_home: Option<PathBuf>,
    /// Default result budget of every tool answer, in characters (a call's
    /// `max_chars` overrides it).
    #[arg(long, value_name = "CHARS", default_value_t = 20_000)]
    pub(crate) budget: usize,
}

#[derive(Debug, Args)]
pub(crate) struct HooksArgs {
    #[command(subcommand)]
    pub(crate) action: HooksAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum HooksAction {
    /// Print the settings.json hooks block (this binary's absolute path).
    #[command(after_help = "\
Without a selection flag, every arm is printed. The block is what `hooks install`
merges; paste it under the top-level \"hooks\" key of a settings file yourself if you
prefer.

Examples:
  csift hooks print
  csift hooks print --guard
  csift hooks print --verbatim --slices 2
  csift hooks print --record")]
    Print(HooksPrintArgs),
    /// Merge the hooks block into a settings file you name: diff first, --yes writes.
    #[command(after_help = "\
Shows the change as a unified diff and writes nothing unless --yes is given. The
user's other settings and hooks are kept byte for byte (the file is edited as
text: only the hooks entries added are new); an entry already there (same event,
matcher and command) is not added again, so a second run changes nothing. The file
is replaced atomically, its former content kept as FILE.bak. The file is always
named here: csift never picks ~/.claude/settings.json by itself.

Exit status: 0 nothing to change, or written (--yes); 1 a change shown and not
written (no --yes); 2 error (unreadable or not a JSON object, hooks not an object).

Examples:
  csift hooks install --settings ~/.claude/settings.json           # show the diff
  csift hooks install --settings ~/.claude/settings.json --yes     # write it
  csift hooks install --settings .claude/settings.local.json --guard --yes")]
    Install(HooksInstallArgs),
    /// Record a pending question, plan approval or MCP elicitation (run as a hook).
    Record(super::record::RecordArgs),
}

/// Which arms a hooks block holds (none given: all).
#[derive(Debug, Args, Clone)]
pub(crate) struct HookSelect {
    /// The guard arms: PostToolUse (matcher ".*") and Stop run `csift guard`.
    #[arg(long)]
    pub(crate) guard: bool,
    /// The SessionStart(compact) re-injection: `csift verbatim --hook-json`, once per slice.
    #[arg(long)]
    pub(crate) verbatim: bool,
    /// The elicitation recorder: `csift hooks record` on PreToolUse, PostToolUse and
    /// PostToolUseFailure (matcher "AskUserQuestion|ExitPlanMode"), Elicitation and
    /// ElicitationResult, so `status` and `wait` see questions waiting for a person.
    #[arg(long)]
    pub(crate) record: bool,
    /// Slices of the verbatim re-injection (one hook each, 9000 characters a slice:
    /// Claude Code replaces a longer additionalContext with a file pointer).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=16))]
    pub(crate) slices: u16,
}

#[derive(Debug, Args)]
pub(crate) struct HooksPrintArgs {
    #[command(flatten)]
    pub(crate) select: HookSelect,
    /// Output form: human (indented) or json (one line).
    #[arg(long, value_enum, default_value_t = crate::output::Format::Human)]
    pub(crate) format: crate::output::Format,
}

#[derive(Debug, Args)]
pub(crate) struct HooksInstallArgs {
    /// The settings file to merge into (created when missing); required: csift
    /// never chooses one for you.
    #[arg(long, value_name = "FILE", required = true)]
    pub(crate) settings: PathBuf,
    /// Write the change (without it, only the diff is shown).
    #[arg(long)]
    pub(crate) yes: bool,
    #[command(flatten)]
    pub(crate) select: HookSelect,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  csift completions bash > ~/.local/share/bash-completion/completions/csift
  csift completions zsh > ~/.zfunc/_csift
  csift completions fish > ~/.config/fish/completions/csift.fish")]
pub(crate) struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  csift man > csift.1 && man ./csift.1
  csift man > ~/.local/share/man/man1/csift.1")]
pub(crate) struct ManArgs {}
