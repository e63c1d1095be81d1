//! Flags of `csift usage` and `csift statusline`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::output::{ColorChoice, Format};

/// What `usage --by` groups messages by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum By {
    /// The local calendar day ($TZ) of the message's time.
    Day,
    /// The ISO week (2026-W03) of the message's local time.
    Week,
    /// The local month.
    Month,
    /// The session (a lane's messages count to its session).
    Session,
    /// The projects/<encoded> folder.
    Project,
    /// The model.
    Model,
    /// Claude's 5-hour usage blocks (ccusage's rule).
    Block,
}

impl By {
    pub(crate) fn name(self) -> &'static str {
        match self {
            By::Day => "day",
            By::Week => "week",
            By::Month => "month",
            By::Session => "session",
            By::Project => "project",
            By::Model => "model",
            By::Block => "block",
        }
    }
}

/// Output forms of `usage`: those of every command, and CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum UsageFormat {
    /// A table (human/LLM-readable).
    #[default]
    Human,
    /// JSON Lines: a row per group, then the total.
    Json,
    /// Comma-separated values with a header line.
    Csv,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift usage                          # tokens and cost per day, every project\n",
    "  csift usage --by month --breakdown   # per month, each row split per model\n",
    "  csift usage --by block --since 1d    # today's 5-hour blocks; the active one projected\n",
    "  csift usage . --by session           # this project's sessions\n",
    "  csift usage --format csv > usage.csv\n",
    "  csift usage --pricing-table          # the prices in use (--format json: a --pricing FILE)\n\n",
    "Counting (one definition for every report): each distinct API message counts once,\n",
    "keyed by (message.model, message.id) across every file read: main transcripts, lanes,\n",
    "and the usage copies nested in agent_progress records (a subagent's calls; the only copy\n",
    "when its lane file is absent). Claude Code writes one record per content block, each\n",
    // REC-020, QT-040: one record per block, each with the whole usage.
    "repeating the message's usage; the copies of one key merge by per-field MAX (a streamed\n",
    // QT-041, REC-034: a compaction replay's zeroed copy; REC-035: a subagent's replay.
    "partial copy, a compaction replay's zeroed copy read from usage.iterations, a subagent's\n",
    "replay of its parent's spawning message). A copy\n",
    "without message.id is its own message. nested_only counts messages seen only in\n",
    "agent_progress copies: those are written as the reply starts to stream, so their output\n",
    "counts are what was streamed then, the only count the transcript keeps. `<synthetic>`\n",
    // REC-023: <synthetic>.
    "(harness stand-ins) is shown apart, never in totals.\n\n",
    "Time: a message is placed by the earliest timestamp among its copies (not its file's\n",
    "first day): day, week (ISO) and month in the local time zone ($TZ); --since/--until keep\n",
    "messages by that time, and a message without one is left out of a window. Blocks: a block\n",
    "opens at the first message after the previous block ended, its start floored to the UTC\n",
    "hour, and lasts 5 hours; the active block shows elapsed and remaining minutes, the burn\n",
    "rate (tokens per minute from its first to its last message) and a projection to its end.\n\n",
    // REC-098, REC-099.
    "Columns: cache_write is the flat cache_creation count if > 0, else the 5m + 1h split;\n",
    "thinking is part of output, recorded by some versions only; total =\n",
    "input + output + cache_read + cache_write. Cost (USD) prices each message at the table\n",
    "entry in force on its day: the 1h part of a cache write at the 1h rate, the rest at the 5m\n",
    "rate; a request over a model's long-context threshold (input + cache) at its long-context\n",
    "rates. A model the table does not know keeps its tokens, has cost null (a row holding it\n",
    "has cost null; its priced part is cost_priced_usd) and is named on stderr.\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"row\",\"by\",\"key\",\"messages\",\"input\",\"output\",\"cache_read\",\"cache_write\",\n",
    "   \"cache_write_5m\",\"cache_write_1h\",\"thinking\",\"total\",\"cost_usd\",\"cost_priced_usd\",\n",
    "   \"unpriced\":[…],\"models\":[…],\"nested_only\"}  (key null: messages with no time;\n",
    "   --breakdown adds \"per_model\":{<model>:{same token fields, cost_usd}}; --by block adds\n",
    "   \"start\",\"end\",\"first\",\"last\",\"active\", and for the active block \"elapsed_min\",\n",
    "   \"remaining_min\",\"burn_tokens_per_min\",\"projected_total\",\"projected_cost_usd\")\n",
    "  then {\"type\":\"total\",\"by\",…the same fields,\"rows\",\"unplaced\",\"synthetic\":{…},\"files\",\n",
    "   \"copies\",\"nested_copies\",\"zeroed_copies_recovered\",\"idless\",\"errors\",\"pricing_checked\"}\n",
    "  CSV: type,by,key,model,messages,input,output,cache_read,cache_write,cache_write_5m,\n",
    "  cache_write_1h,thinking,total,cost_usd,models,nested_only (model: the breakdown's).\n\n",
    "Cache: each file's census is kept in csift's state directory ($XDG_STATE_HOME/csift,\n",
    "else ~/.local/state/csift; never under the Claude home), checked against the file's\n",
    "device, inode, size, mtime and first and last 4 KB; a file that grew is read from where\n",
    "the entry ends. --no-cache reads every file whole; the output is the same.\n\n",
    "Exit status: 0 a message was counted, 1 none, 2 an error (other files still count).",
))]
pub(crate) struct UsageArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Group rows by KEY.
    #[arg(long, value_enum, value_name = "KEY", default_value_t = By::Day)]
    pub(crate) by: By,
    /// Split each row per model.
    #[arg(long)]
    pub(crate) breakdown: bool,
    /// Prices from FILE (the shape `--pricing-table --format json` prints), in
    /// place of the compiled prices of the models it names.
    #[arg(long, value_name = "FILE")]
    pub(crate) pricing: Option<PathBuf>,
    /// Print the pricing table in use and exit.
    #[arg(long)]
    pub(crate) pricing_table: bool,
    /// Read every file whole instead of through the census cache.
    #[arg(long)]
    pub(crate) no_cache: bool,
    /// Claude config home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_home: Option<PathBuf>,
    /// Leave subagent lanes out, and the usage copies nested in agent_progress
    /// records (a lane named directly by @id or file stays).
    #[arg(long)]
    pub(crate) no_subagents: bool,
    /// Only messages at or after this time (the forms of every command's --since).
    #[arg(long, value_name = "WHEN")]
    pub(crate) since: Option<String>,
    /// Only messages at or before this time (a date alone: the end of that day).
    #[arg(long, value_name = "WHEN")]
    pub(crate) until: Option<String>,
    /// Output form.
    #[arg(long, value_enum, default_value_t = UsageFormat::Human)]
    pub(crate) format: UsageFormat,
    /// When to colour output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub(crate) color: ColorChoice,
}

impl UsageArgs {
    /// The flags every command shares, for target resolution.
    pub(crate) fn common(&self) -> super::Common {
        super::Common {
            claude_home: self.claude_home.clone(),
            no_subagents: self.no_subagents,
            since: self.since.clone(),
            until: self.until.clone(),
            format: match self.format {
                UsageFormat::Json => Format::Json,
                _ => Format::Human,
            },
            color: self.color,
        }
    }
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Claude Code's statusLine command: reads the status-line JSON payload on stdin\n",
    "(session_id, transcript_path, model, workspace, cost …) and prints one line: the model,\n",
    "this session's tokens and cost (its transcript and lanes, each API message once, as\n",
    "`usage` counts), today's cost over every project, the active 5-hour block's remaining\n",
    "time and burn rate, and `⚠ eaten text` when `audit` would report eaten text in this\n",
    "session. It never fails: on any error it prints a minimal line and exits 0.\n\n",
    "It runs on every prompt, so it reads only the session's files and those modified\n",
    "since the start of today or of the active block's chain of blocks, through the census\n",
    "cache (see `csift usage --help`): a run re-reads only bytes appended since the last.\n\n",
    "Settings (~/.claude/settings.json):\n",
    "  \"statusLine\": {\"type\": \"command\", \"command\": \"csift statusline\"}\n\n",
    "Examples:\n",
    "  echo '{\"session_id\":\"…\",\"transcript_path\":\"…\",\"model\":{\"display_name\":\"Opus\"}}' | csift statusline\n",
    "  csift statusline --format json < payload.json   # the parts, for a line of your own\n\n",
    "The line: model · session <tokens> tok $<cost> · today $<cost> · block <left> left ·\n",
    "<tokens>/min · N tasks (background tasks of this session still open, as `csift tasks\n",
    "--open` lists them) · ⚠ eaten text ×N. A cost ending in +? leaves out a model the price\n",
    "table does not know. `usage n/a` when nothing could be read (the home, the payload).\n\n",
    "JSON (--format json): one {\"type\":\"statusline\",\"line\",\"model\",\"session_id\",\n",
    "\"session_tokens\",\"session_cost_usd\",\"today_cost_usd\",\"unpriced\",\"block\":{\"remaining_min\",\n",
    "\"tokens_per_min\"}|null,\"open_tasks\",\"eaten_text\",\"error\"} (error: why the minimal\n",
    "line was printed, else null; the counts are null then).\n\n",
    "Exit status: always 0.",
))]
pub(crate) struct StatuslineArgs {
    /// Claude config home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_home: Option<PathBuf>,
    /// Prices from FILE (as `usage --pricing`).
    #[arg(long, value_name = "FILE")]
    pub(crate) pricing: Option<PathBuf>,
    /// Read every file whole instead of through the census cache.
    #[arg(long)]
    pub(crate) no_cache: bool,
    /// Output form: the line (human, default) or one JSON object with its parts.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
}
