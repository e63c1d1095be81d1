//! Flags of `csift search`.

use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CountBy {
    Label,
    /// The session id; a subagent lane's hits count toward its session.
    Session,
    Project,
    Tool,
    Model,
    Month,
    Version,
    /// How a tool unit pairs: `answered` (a call its result answers, or a
    /// result whose call is in its file), `unanswered` (a call no result in
    /// its file answers) or `orphan-result` (a result whose call is in no
    /// record of its file); null for any other unit.
    Pairing,
    /// A tool result's outcome: `ok` or `error` (is_error true); null for any
    /// other unit.
    Result,
    /// An attachment record's payload type (`hook_success`, …); null for any
    /// other unit. Lifts the default skip of attachment records, as
    /// --attachments does.
    Attachment,
    /// The turn a hit is in: `<session-id>:<turn>`, `<session-id>@<agent>:<turn>`
    /// in a lane file (turns are numbered per file).
    Turn,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift search 'migration'                      # every visible unit, all projects\n",
    "  csift search -t user 'deploy' .              # what the user said here about deploy\n",
    "  csift search -t agent.tool.use --tool Bash 'cargo (test|build)'\n",
    "  csift search -F 'a.b(c)' -t agent.tool.result --max-count 5\n",
    "  csift search 'TODO' --count-by label\n",
    "  csift search '' -t agent.tool.use --count-by pairing @3f2a   # answered vs unanswered calls\n",
    "  csift search 'panic' @3f2a --count-by turn        # which turns hold the hits\n",
    "  csift search 'migration' @3f2a --raw | jq .uuid   # the matched records, byte for byte\n",
    "  csift search --list-labels\n",
    "  csift search -t harness.meta.turn-duration ''   # an earlier spelling of harness.meta.turn\n\n",
    "Matching: the regex runs over each unit's decoded text (JSON escapes undone); a tool_use\n",
    "unit's text is `<tool name> <input JSON>`, a tool_result's is its content text. A pattern\n",
    "that does not match a call's input JSON is tried on that input with its strings decoded,\n",
    "so `-F 'commit -m \"fix'` finds the call as the command reads (the JSON holds `\\\"fix`);\n",
    "such a hit shows the decoded text and has \"input_decoded\":true in JSON.\n",
    "Smart case: all-lowercase patterns match case-insensitively unless -s. `^` and `$` match\n",
    "at each line of a unit's text, as in ripgrep; a pattern that matches only the empty string\n",
    "in a unit (`^`, `\\b`) still makes it a hit.\n\n",
    "Output: each exchange in path order (project folder, session file, line; not by time),\n",
    "one header line per unit (`──` first, `↳` partners: session ·turn label [tool] time\n",
    "file:line); the unit that matched ends its header with `[match]` when the exchange has\n",
    "partners.\n\n",
    "Subagents: a lane file is searched as its own transcript (session@agent in the header).\n",
    "A subagent with no lane file may still have its records in the parent: Claude Code nests\n",
    "each record of a synchronous Task/Agent subagent in an agent_progress record. Those are\n",
    "searched as that subagent's units: the header reads session@agent, `via agent_progress`,\n",
    "and the parent's file:line and turn. Where the agent's lane file exists they are skipped\n",
    "(it holds the same records); --no-subagents leaves them out too.\n\n",
    "Unmodelled types: text in a record type, content block type or tool_result part type\n",
    "csift does not model (a type newer than csift; a document part's title) is in no\n",
    "unit, so no label reaches it. When a line holds the pattern only there (not in its\n",
    "envelope: ids, times, cwd), stderr names the line and the type, and\n",
    "`csift show @SESSION --line N --raw` prints it (first 10, then a count).\n",
    "The same holds one level in, for a subagent record nested in an agent_progress record,\n",
    "and for an agent_progress record whose nested record csift cannot read at all.\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"match\",\"session_id\",\"agent_id\",\"file\",\"line\",\"uuid\",\"label\",\"turn\",\"timestamp\",\n",
    "   \"tool_name\",\"tool_use_id\",\"is_error\"?,\"input_decoded\"?,\"via\"?,\"text\",\"block\",\n",
    "   \"submatches\":[{\"start\",\"end\"}],\"exchange\":[{…same fields, no exchange}],\n",
    "   \"unanswered\"?}\n",
    "   (is_error: only on a tool result that reported an error, as true; input_decoded: see\n",
    "   Matching; via: \"agent_progress\" on a subagent's record nested in the parent, see\n",
    "   Subagents, with agent_id that subagent's and uuid the progress record's; block: the\n",
    "   content block's index in the record; unanswered: only on a matched call that no\n",
    "   tool_result in its file answers, as true: running, interrupted or never answered,\n",
    "   which the file cannot tell apart; the human form says so under the call)\n",
    "  then {\"type\":\"summary\",\"hits\",\"exchanges\",\"dropped\",\"files\",\"files_with_hits\",\"bytes\",\n",
    "   \"malformed_lines\",\"unmodelled_lines\",\"errors\",\"elapsed_ms\"}\n",
    "  (errors: files or targets that could not be read, said on stderr; exit 2; malformed_lines:\n",
    "  those among the lines the prefilter let through, so it depends on the pattern;\n",
    "  unmodelled_lines: see Unmodelled types).\n",
    "  start/end are byte offsets into text; past 10,000 matches in one unit the rest are\n",
    "  counted in \"submatches_omitted\" instead of listed.\n",
    "  With -c or -l, one {\"type\":\"count\",\"session_id\",\"agent_id\",\"file\",\"hits\"} per file\n",
    "  with hits; with --count-by, one {\"type\":\"count\",\"key\",\"hits\"} per key, most hits first\n",
    "  (key null for hits with no tool, model, version, time, pairing, result, attachment type\n",
    "  or turn; `-` in the human form); then the summary (its exchanges is 0: none were built).\n",
    "  With --raw, each matched record's line as it is in the file (every line once, however\n",
    "  many of its units match; a line holding glued records whole), in path order; with\n",
    "  --format json one {\"type\":\"raw\",\"session_id\",\"agent_id\",\"file\",\"line\",\"record\"}\n",
    "  per line (record: the line as a string; a byte that is not UTF-8 becomes U+FFFD, said\n",
    "  on stderr), then the summary. A subagent's record nested in an agent_progress record\n",
    "  prints the progress record's line. -m counts lines; what it leaves out is said on stderr.\n\n",
    "Exit status: 0 a match, 1 no match, 2 an error (other files are still searched).",
))]
pub(crate) struct SearchArgs {
    /// Regex (Rust syntax). Omit when using -e or --list-labels.
    #[arg(value_name = "PATTERN")]
    pub(crate) pattern: Option<String>,
    /// What to search (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// A pattern; repeatable (a unit matches if any pattern does). As in
    /// ripgrep, the way to pass a pattern that starts with a dash: -e -draft.
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    pub(crate) regexp: Vec<String>,
    /// Treat patterns as literal strings.
    #[arg(short = 'F', long)]
    pub(crate) fixed_strings: bool,
    /// Case-insensitive.
    #[arg(short = 'i', long, conflicts_with = "case_sensitive")]
    pub(crate) ignore_case: bool,
    /// Case-sensitive (default is smart case).
    #[arg(short = 's', long)]
    pub(crate) case_sensitive: bool,
    /// Match whole words only: no word character right before or after a match (as
    /// ripgrep 14), so `-w '\.go'` finds `*.go` but not `state.go`.
    #[arg(short = 'w', long)]
    pub(crate) word: bool,
    /// Let `.` match newlines (`^`/`$` match at every line of a unit either way).
    #[arg(short = 'U', long)]
    pub(crate) multiline: bool,
    /// Labels to search: a leaf, a subtree (`agent.tool.*`), or a bare role
    /// (visible leaves only). Repeatable or comma-separated. Default: every visible leaf.
    #[arg(short = 't', long = "label", value_name = "SELECTOR")]
    pub(crate) labels: Vec<String>,
    /// Print the label taxonomy and the aliases -t accepts, each with the leaf
    /// it names, and exit (with --format json: one
    /// {"type":"label","label","visible","description"} per leaf, then one
    /// {"type":"alias","alias","label"} per alias).
    #[arg(long)]
    pub(crate) list_labels: bool,
    /// Only tool units whose tool name (or the name of the call a result answers)
    /// matches this glob (`*`, `?`, `[…]` classes as in a shell), in any case:
    /// `bash`, `mcp__*`, `[BR]*`. Repeatable; several globs may also be given as
    /// `Write,Edit`, `Write|Edit` or `{Write,Edit}`. A glob that matches no tool
    /// name in the lines searched is said on stderr, with the names there.
    #[arg(long, value_name = "GLOB")]
    pub(crate) tool: Vec<String>,
    /// Only units of assistant records whose `message.model` matches this glob,
    /// in any case (e.g. `claude-opus-*`, `<synthetic>`); repeatable or
    /// comma-separated, and a miss said, as --tool.
    #[arg(long, value_name = "GLOB")]
    pub(crate) model: Vec<String>,
    /// Also search attachment records (hook-injected additionalContext and other
    /// payloads). Without -t they are skipped: they dominate line
    /// counts and repeat the same hook text. With -t the labels decide: an explicit
    /// `-t harness.meta.hook` or `-t harness.meta.attachment` reaches them, and
    /// --attachments adds nothing to a -t that names neither.
    #[arg(long)]
    pub(crate) attachments: bool,
    /// Follow <persisted-output> pointers into tool-results/ files (only a regular
    /// file in a tool-results folder, up to 64 MB; anything else is said on stderr).
    #[arg(long)]
    pub(crate) resolve_persisted: bool,
    /// Print hit counts per transcript file instead of exchanges, as `rg -c`
    /// (a subagent lane is its own file; --count-by session adds lanes to their
    /// session).
    #[arg(short = 'c', long)]
    pub(crate) count: bool,
    /// Print only the transcript files with hits.
    #[arg(short = 'l', long = "files-with-matches")]
    pub(crate) files_with_matches: bool,
    /// Print a table of hit counts grouped by KEY.
    #[arg(long, value_enum, value_name = "KEY")]
    pub(crate) count_by: Option<CountBy>,
    /// Print each matched record as its original line (JSON Lines as Claude Code
    /// wrote them, ready for jq), once per line, instead of exchanges.
    #[arg(long, conflicts_with_all = ["count", "files_with_matches", "count_by", "no_exchange"])]
    pub(crate) raw: bool,
    /// Stop after N exchanges (--raw: N lines; the output says how many were left out). Exchanges
    /// come in path order (project folder, session file, line), as ripgrep
    /// orders files, so these are the first N in that order, not the newest:
    /// narrow with --since 2d or a target (`.`, `@id`) for recent ones.
    #[arg(short = 'm', long, value_name = "N")]
    pub(crate) max_count: Option<usize>,
    /// Show whole bodies instead of cutting around the match.
    #[arg(long)]
    pub(crate) no_truncate: bool,
    /// Lines of context kept around each match when cutting a body.
    #[arg(short = 'C', long, value_name = "N", default_value_t = 2)]
    pub(crate) context: usize,
    /// Don't print the paired units of an exchange, only the matched unit.
    #[arg(long)]
    pub(crate) no_exchange: bool,
    /// Parse every line instead of prefiltering raw bytes (for testing the prefilter).
    #[arg(long, hide = true)]
    pub(crate) no_prefilter: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
