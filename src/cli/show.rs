//! Flags of `csift show`.

use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift show @3f2a --line 17                # one record, rendered\n",
    "  csift show @3f2a --line 100..120,-5..     # a range and the last five lines\n",
    "  csift show @3f2a --line 17 --raw          # the exact original bytes\n",
    "  csift show @3f2a --uuid 6dd9a1da-4d5c-4d6d-b4d7-8cb4d7d341fe\n",
    "  csift show @3f2a --turn -1                # the last turn, every user/assistant record\n",
    "  csift show @3f2a --turn 3..5 -t agent.message\n",
    "  csift show @a1b2c3 --line 40              # a subagent lane, by its own agent id\n",
    "  csift show @3f2a --branch-points\n\n",
    "A TARGET is required (without one, show would print every record of every session);\n",
    "--uuid alone looks in every transcript.\n\n",
    "Addresses: a line number and a turn number belong to ONE transcript. When the\n",
    "target is a session with subagent lanes, --line and --turn address the MAIN transcript;\n",
    "address a lane by its own @agent-id (or its file). --uuid searches every selected transcript.\n",
    "Addresses combine as a union; -t then narrows to labels. With no address, everything is shown.\n",
    "An address that resolves to nothing is an error naming each miss (exit 2); a range (`a..b`)\n",
    "is clamped to what exists and fails only when nothing is left.\n",
    "A uuid is not a primary key (a resume can write a record again): every line carrying it is\n",
    "shown, each marked copy k/n.\n\n",
    "Turns are numbered exactly as `search` prints them (·t<N>): turn 0 is everything before the\n",
    "first prompt. A turn fetch returns every user and assistant record of the turns (superseded\n",
    "drafts belong to no turn); system, attachment, queue and snapshot lines that sit inside a turn\n",
    "are not turn members: address them with --line or --uuid.\n\n",
    "Rendering: a tool call reads as its input (`$ cmd` for Bash). A tool result is rendered from\n",
    "the structured copy Claude Code keeps beside it (toolUseResult) where there is one: Bash\n",
    "stdout and stderr apart, the lines a Read returned, the patch an Edit made, the file a Write\n",
    "created. That is what the tool did, not the text the model was sent (\"The file … has been\n",
    "updated …\"), which --raw and --format json print and which `search` matches. A progress\n",
    "record (a hook starting, a shell still running, an MCP call's status) reads as one line.\n",
    "--raw prints each line's bytes and a newline, except after a last line the file ends\n",
    "without one.\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"unit\",\"session_id\",\"agent_id\",\"file\",\"line\",\"uuid\",\"label\",\"turn\",\"timestamp\",\n",
    "   \"tool_name\",\"tool_use_id\",\"is_error\"?,\"via\"?,\"text\",\"block\",\"copy\"?,\"copies\"?}\n",
    "   (the fields of a search match)\n",
    "  {\"type\":\"line\",\"file\",\"line\",\"uuid\",\"record_type\",\"subtype\",\"turn\",\"timestamp\",\n",
    "   \"progress_type\"?,\"text\"?}  a record with no unit (a progress record: its data.type\n",
    "   and the line show prints for it)\n",
    "  {\"type\":\"malformed\",\"file\",\"line\",\"kind\",\"detail\"}\n",
    "  {\"type\":\"unknown-block\",\"file\",\"line\",\"uuid\",\"block\",\"block_type\"}  a content\n",
    "   block of a type csift does not model (--raw prints it)\n",
    "  then {\"type\":\"summary\",\"files\",\"records\",\"malformed\",\"units\",\"errors\",\"elapsed_ms\"}\n",
    "  (records: the records shown, a glued line's each; malformed: the malformed lines shown).\n",
    "  --branch-points: {\"type\":\"branch-point\",\"session_id\",\"agent_id\",\"file\",\"uuid\",\"line\",\n",
    "   \"widest_gap_seconds\",\"children\":[{\"uuid\",\"line\",\"record_type\",\"timestamp\",\"text\",\n",
    "   \"text_chars\"}]} (text: a one-line preview of at most 120 characters, then …; text_chars:\n",
    "   the length of the whole line; show --line reads the child whole), then\n",
    "   {\"type\":\"summary\",\"files\",\"branch_points\",\"errors\",\"elapsed_ms\"}\n\n",
    "Exit status: 0 something shown, 1 nothing shown, 2 an error or a missed address.",
))]
pub(crate) struct ShowArgs {
    /// What to read (see TARGETS in `csift --help`); most often `@<session-or-agent-id>`.
    /// Required, unless --uuid looks in every transcript.
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Physical 1-based lines: `17`, `17,40`, `100..120`, `..20`, `-5..` (the last five),
    /// `-1` (the last line). Repeatable.
    #[arg(long = "line", value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) lines: Vec<String>,
    /// Records whose own `uuid` is this (every copy). Repeatable.
    #[arg(long = "uuid", value_name = "UUID")]
    pub(crate) uuids: Vec<String>,
    /// Turns: `3`, `3..5`, `42..`, `-1` (the last), `-3..` (the last three). Repeatable.
    #[arg(long = "turn", value_name = "RANGE", allow_hyphen_values = true)]
    pub(crate) turns: Vec<String>,
    /// Only units with these labels: a leaf, a subtree (`agent.tool.*`) or a bare role.
    /// Repeatable or comma-separated. Default: every label.
    #[arg(short = 't', long = "label", value_name = "SELECTOR")]
    pub(crate) labels: Vec<String>,
    /// Print the addressed lines' exact original bytes, one per line, nothing else.
    #[arg(long, conflicts_with = "branch_points")]
    pub(crate) raw: bool,
    /// List the records with more than one conversation child (forks, rewinds, retries),
    /// with their children. Which branch is live is not decided: the file cannot tell.
    #[arg(long, conflicts_with_all = ["lines", "uuids", "turns"])]
    pub(crate) branch_points: bool,
    /// Print whole bodies (default: long bodies are cut, saying how much was left out).
    #[arg(long)]
    pub(crate) no_truncate: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
