//! Flags of `csift files`.

use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum By {
    /// One row per path, with what touched it.
    #[default]
    File,
    /// One row per touch, in time order.
    Timeline,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift files @4d5611e5                   # every path one session touched\n",
    "  csift files . --by timeline              # this project's touches, in time order\n",
    "  csift files --path '\\.rs$' --since 2d    # Rust files touched in two days\n",
    "  csift files @4d56 --format json | jq -r 'select(.kind==\"bash_delete\") | .path'\n",
    "  csift recover --file src/main.rs @4d56   # rebuild one of them\n\n",
    "Kinds. Structured tools: create / update (the Write echo's type; write when no echo\n",
    "says), edit, multi_edit, notebook_edit; read_full, read_partial, read_truncated (cut\n",
    "by the token cap), read_unchanged, read_other (image, PDF), read (no echo: coverage\n",
    "unknown). A call whose result is an error never landed: failed. Bash, read from the\n",
    "command text: bash_read, bash_write, bash_append, bash_delete, bash_move_from,\n",
    "bash_move_to, bash_copy_to, bash_touch, and opaque for commands that change files they\n",
    "never name, listed under a class marker (fmt:, pkg:, extract:, interp:, git:,\n",
    "powershell). Signals that the file changed outside the tool stream: hint_modified (a\n",
    "Bash result's staleReadFileStateHint), stale_recovered (an Edit applied over drift),\n",
    "edited_text_file (an attachment), external_write (a file-history version jump with no\n",
    "tool write in its interval; settings files only).\n\n",
    "Classes say how a path was resolved: absolute (as written), cwd-joined (relative, onto\n",
    "the record's cwd), cd-tracked (after a cd in the same command: an inference),\n",
    "unresolved (an expansion like $VAR or ~, kept verbatim), marker. Bash paths are a\n",
    "lexical reading of the command: a heuristic, never a record of what ran.\n\n",
    "Subagent lanes and the subagent records nested in agent_progress records are read\n",
    "(--no-subagents leaves both out).\n\n",
    "JSON (--format json): one {\"type\":\"event\",\"path\",\"session_id\",\"agent_id\",\"file\",\n",
    "\"line\",\"turn\",\"timestamp\",\"tool\",\"kind\",\"class\"} per (path, touch), grouped by path\n",
    "(--by file) or in time order (--by timeline); then {\"type\":\"summary\",\"paths\",\"events\",\n",
    "\"kinds\":{…},\"classes\":{…},\"transcripts\",\"malformed_lines\",\"errors\",\"elapsed_ms\"}.\n\n",
    "Exit status: 0 touches found, 1 none, 2 an error.",
))]
pub(crate) struct FilesArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// One row per path (file, the default) or per touch in time order (timeline).
    #[arg(long, value_enum, default_value_t = By::File, value_name = "HOW")]
    pub(crate) by: By,
    /// Only paths this regex matches (anywhere in the path).
    #[arg(long, value_name = "REGEX")]
    pub(crate) path: Option<String>,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
