//! Flags of `csift verbatim`.

use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum Tools {
    /// One line per tool call: the call and a short status of its result.
    #[default]
    Summary,
    /// Each call's whole input and each result's whole body.
    Full,
}

/// Which turns the budget goes to (`--prefer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum PreferArg {
    /// The newest turns, back to the first that does not fit.
    #[default]
    Newest,
    /// The turns the compaction summaries carried least of, each while it
    /// fits whole (turns no summary covers first, newest first).
    LeastCarried,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift verbatim @3f2a                        # the last ~40000 chars of whole turns\n",
    "  csift verbatim @3f2a --budget 20000 --thinking --tools full\n",
    "  csift verbatim @3f2a --slices 4 --window 9000            # all four slices, in order\n",
    "  csift verbatim @3f2a --slices 4 --slice 2 --window 9000  # the second oldest slice\n",
    "  echo '{\"transcript_path\":\"/path/s.jsonl\"}' | csift verbatim --hook-json --slices 4 --slice 1\n",
    "  csift verbatim --hook-json --hook-source compact --ordered --slices 4 --slice 2 < payload.json\n",
    "  csift verbatim @3f2a --max-compactions 1       # what the last compaction summarised, no older\n",
    "  csift verbatim @3f2a --prefer least-carried    # the turns the summaries kept least of\n\n",
    "What it rebuilds: walking back from the end of ONE transcript (a session's main file, or a\n",
    "lane named by @agent-id), whole turns (numbered as `search` numbers them) are kept while\n",
    "they fit; the output is oldest first. Text only: prompts, replies, one line per tool call\n",
    "(--tools full for inputs and results, rendered as `show` renders them), notifications\n",
    "whole, a local command's output (its first 500 units and a marker that counts the rest\n",
    "and gives the show command printing it; whole with --tools full); thinking only with\n",
    "--thinking; hook context, meta and system lines never. A compaction\n",
    // CMP-011: a compaction summary is a turn member; REC-091: a resume replay.
    "summary is part of its turn, under a banner; the walk goes on past it. A record a resume\n",
    "wrote again is rendered once.\n",
    "The walk stops at the first turn that does not fit, so older turns are left out even when\n",
    "budget remains; the human form then says so on stderr (the text stays within the budget),\n",
    "the JSON summary in turns vs turns_total. --max-compactions N stops it before a turn that\n",
    "would take it back across more than N compaction summaries (0: only turns after the newest\n",
    "summary; 1: back to what the newest one summarised).\n",
    // CMP-009: a summary loses turns by volume, not by count.
    "--prefer least-carried spends the budget on the turns the compaction summaries carried\n",
    "least of instead: a summary lists the user's messages and keeps at most one assistant\n",
    "message, so a turn's carried share is the characters of its prompts a summary bullet holds\n",
    "(and of a quoted assistant message) over its own; turns are kept by that share, least\n",
    "first, each while it fits whole, and printed in order (gaps show in the turn numbers).\n\n",
    "Sizes are UTF-16 code units (JavaScript String.length, what Claude Code's 10000-char\n",
    // MISC-012: the threshold counts UTF-16 units.
    "additionalContext threshold counts). A turn too long for the room it gets is cut\n",
    "to fit: first its shorter assistant messages are left out, the longest kept (a compaction\n",
    // CMP-010: a summary keeps at most one assistant message, not reliably the last.
    "summary keeps at most one, not reliably the last); if it still does not fit, its head and\n",
    "tail are kept around the middle cut. One explicit\n",
    "`[… csift verbatim: N characters of this turn cut …]` marker says so. Without slicing that is only\n",
    "the newest turn, when it alone passes the budget: an older turn that does not fit ends\n",
    "the walk. When slicing, any turn longer than a window is cut to fill a window of its own,\n",
    "so the slices can reach older turns than the unsliced output of the same budget.\n\n",
    "Slicing: --slices N --window W packs the reconstruction into at most N windows of at most\n",
    "W units, whole turns each, newest turns first; --slice i (1 = oldest) prints one of them.\n",
    "The budget is then N×W unless --budget is given. The slices concatenated are exactly the\n",
    "output without --slice, and the same transcript and arguments always give the same slices.\n",
    // ELI-025: an empty hook output is no error.
    "A slice beyond the ones used prints nothing and exits 0, so N hooks can be\n",
    "registered once and for all.\n\n",
    "--hook-json prints {\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\n",
    // ELI-021: the SessionStart hook output shape.
    "\"additionalContext\":TEXT}}, or nothing when TEXT is empty. With no TARGET it reads\n",
    "the hook payload on stdin and uses its transcript_path (else @session_id); with\n",
    // MISC-027: the five SessionStart sources; the matcher selects on the same value.
    "--hook-source compact it prints nothing unless the payload's source is compact (a\n",
    "SessionStart hook also fires on startup, resume, clear and fork).\n",
    // MISC-013: same-event hooks run concurrently; outputs join in completion order.
    "Claude Code runs the hooks of one event at once and joins their outputs in the order\n",
    "they finish, so N slice hooks would inject the slices shuffled: with --ordered each slice\n",
    "is rebuilt at once but prints only after slice i-1 of the same event has (done-flags in\n",
    "csift's state directory, named after the payload; a flag older than --order-wait is\n",
    "ignored, and a slice whose predecessor never prints waits that long, then prints).\n",
    "See hooks/ and `csift hooks print`.\n\n",
    "JSON (--format json): {\"type\":\"turn\",\"turn\",\"first_line\",\"last_line\",\"chars\",\"cut\",\n",
    "\"cut_chars\",\"slice\",\"compaction_summaries\":[line…],\"summary_carried\",\"text\"} per kept\n",
    "turn, oldest first\n",
    "(cut_chars: characters of the turn the cut left out, the count its marker gives;\n",
    "compaction_summaries: the lines of the summaries the turn holds, whole or cut: a cut\n",
    "turn's marker names them with the `csift show @SESSION --line N` that prints one\n",
    "whole), then\n",
    "{\"type\":\"summary\",\"file\",\"session_id\",\"agent_id\",\"turns\",\"turns_total\",\"chars\",\"budget\",\n",
    "\"slices\",\"window\",\"slices_used\",\"compaction_summaries_spanned\",\"compaction_summaries_total\",\n",
    "\"max_compactions\",\"prefer\",\"stopped_by\",\"turns_skipped\",\n",
    "\"left_out_before\",\"errors\",\"elapsed_ms\"} (stopped_by: budget, windows, max-compactions or\n",
    "null when nothing was left out; turns_skipped: with --prefer least-carried, the turns not\n",
    "kept; summary_carried on a turn row: the share of it the covering summary carried, 0 to 1,\n",
    "null where no summary covers it; left_out_before: the oldest turn kept when older\n",
    "content was left out, turn 0 included, else null; errors: files or targets that could not be\n",
    "read; exit 2). A line of a kept turn that is not a readable record, or a block of a type\n",
    "csift does not model, is said in place with the show command that prints it.\n",
    "\"turns\" counts the kept turns, turn 0 (what precedes the first prompt, e.g. a session\n",
    "opened by a slash command without arguments) included; \"turns_total\" counts the file's\n",
    "turns from 1, so a session with no prompt has turns 1 and turns_total 0. With --slice,\n",
    "turns, chars and compaction_summaries_spanned count that slice; slices_used counts the\n",
    "slices the turns fill.\n\n",
    "Exit status: 0 printed (or an empty slice), 1 nothing to print, 2 an error.",
))]
pub(crate) struct VerbatimArgs {
    /// The transcript (see TARGETS in `csift --help`), most often `@<session-id>`.
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Most characters (UTF-16 units) to print. Default 40000, or N×W when slicing.
    #[arg(long, value_name = "CHARS")]
    pub(crate) budget: Option<usize>,
    /// Include thinking blocks (narration marked).
    #[arg(long)]
    pub(crate) thinking: bool,
    /// How tool calls read: one summary line each, or full input and result.
    #[arg(long, value_enum, default_value_t = Tools::Summary, value_name = "HOW")]
    pub(crate) tools: Tools,
    /// Pack into at most N windows of whole turns (for N SessionStart hooks).
    #[arg(long, value_name = "N")]
    pub(crate) slices: Option<usize>,
    /// Print only window i of --slices N (1 = oldest). Past N: nothing, exit 0.
    #[arg(long, value_name = "I", requires = "slices")]
    pub(crate) slice: Option<usize>,
    /// Window size in UTF-16 units when slicing.
    #[arg(long, value_name = "W", default_value_t = 9000, requires = "slices")]
    pub(crate) window: usize,
    /// Print the result as SessionStart hook output JSON (reads the hook payload on
    /// stdin when no TARGET is given).
    #[arg(long)]
    pub(crate) hook_json: bool,
    /// With --hook-json reading the payload on stdin: print nothing (exit 0)
    /// unless the payload's `source` (what started the session: startup,
    /// resume, clear, compact, fork) is one of these. Repeatable or
    /// comma-separated.
    #[arg(long, value_name = "SOURCE", value_delimiter = ',')]
    pub(crate) hook_source: Vec<String>,
    /// With --hook-json, --slices and --slice, the payload on stdin: print
    /// only once slice i-1 of the same hook event has printed. Claude Code runs
    /// one event's hooks at once and joins their output as they finish.
    #[arg(long, requires_all = ["hook_json", "slice"])]
    pub(crate) ordered: bool,
    /// How long an --ordered slice waits for the one before it, in seconds,
    /// before it prints anyway.
    #[arg(long, value_name = "SECS", default_value_t = 20, requires = "ordered")]
    pub(crate) order_wait: u64,
    /// Reach back across at most N compaction summaries (0: only what came
    /// after the newest one).
    #[arg(long, value_name = "N")]
    pub(crate) max_compactions: Option<usize>,
    /// Which turns the budget goes to: the newest, or those the compaction
    /// summaries carried least of.
    #[arg(long, value_enum, default_value_t = PreferArg::Newest, value_name = "WHICH")]
    pub(crate) prefer: PreferArg,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
