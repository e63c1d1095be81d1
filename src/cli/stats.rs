//! Flags of `csift stats`.

use clap::{Args, ValueEnum};

/// What `--by` groups the rows by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GroupBy {
    /// The projects/<encoded> directory.
    Project,
    /// The local day of the transcript's first timestamp.
    Day,
    /// The local month of the transcript's first timestamp.
    Month,
    /// Each message's model: a transcript that used several models counts in
    /// each of their groups, with that model's tokens.
    Model,
    /// The Claude Code version with the most records in the transcript.
    Version,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift stats                         # every transcript, then the total\n",
    "  csift stats . --no-subagents        # this project's main transcripts only\n",
    "  csift stats --by month              # one row per month\n",
    "  csift stats --since 7d --by model   # last week's tokens per model\n",
    "  csift stats @3f2a --format json     # one session (and its lanes) as JSON Lines\n",
    "  csift stats --no-cache              # read every file whole, not through the cache\n",
    "  csift stats --format json | tail -1 | jq .narration_blocks   # narration blocks per model\n\n",
    "Token rule (one API message counts once):\n",
    "  Only top-level `assistant` records whose message.usage is an object count. Copies are\n",
    "  keyed by (message.model, message.id): Claude Code writes one record per content block,\n",
    // REC-020, QT-040: one record per block, each with the whole usage.
    "  each repeating the whole usage. Per copy: null/absent → 0;\n",
    "  cache_creation = cache_creation_input_tokens if > 0, else ephemeral_5m + ephemeral_1h\n",
    // REC-098, REC-099.
    "  (never both); thinking_tokens is a subset of output, never added.\n",
    "  A copy whose four flat counts are all 0 but whose usage.iterations is non-empty is a\n",
    // QT-041, REC-034: a compaction replay's zeroed copy.
    "  compaction replay's zeroed copy: its counts are taken from the iterations,\n",
    "  so it never counts as zero. The copies of one key merge by per-field MAX\n",
    "  (streamed partial copies come first, zeroed replays last). A transcript's row dedupes\n",
    "  within the file; the total dedupes across files by the same key and MAX, so a\n",
    // REC-035: a subagent replays its parent's spawning message; REC-023: <synthetic>.
    "  subagent's replayed copy of its parent's spawning message counts once.\n",
    "  Model `<synthetic>` (harness stand-ins) is shown apart, never in totals.\n",
    "  A record with no message.id is its own message. Usage copies embedded in progress\n",
    "  records (agent_progress) are not counted; their ids are disclosed.\n\n",
    "Subagent records nested in agent_progress records (a subagent with no lane file; search\n",
    "finds them `via agent_progress`) count in labels, units, units_embedded, tools (calls,\n",
    "errors, unanswered) and models, as the records of a lane file would: the total is then\n",
    "the same whether or not Claude Code wrote the lane file. Record and block types and\n",
    "tokens count each file's own records (a nested usage copy is written as the reply\n",
    "starts to stream, so its counts are not the message's). What the\n",
    "agent_progress records nest, lane copies included, is counted on its own line (`nested`):\n",
    "each nested record's type, `(unreadable)` where csift cannot read one, and their block\n",
    "types; names csift does not model are listed under unknown.\n\n",
    "Cache: a run without --since/--until keeps each transcript's census in csift's state\n",
    "directory ($XDG_STATE_HOME/csift, never under the Claude home); a file unchanged since\n",
    "is not read again, one that grew is read from where its census ended. --no-cache\n",
    "reads every file whole; the output is the same either way.\n\n",
    "Windows (--since/--until) count a record by its time; a record without one takes the\n",
    "time before it in its file, or the file's first time when none comes before (a leading\n",
    "snapshot or summary). A transcript with no time at all cannot be placed and is left\n",
    "out. outside_window counts the records a window left out, whole transcripts included.\n\n",
    "JSON (--format json), one object per line:\n",
    "  {\"type\":\"transcript\",\"file\",\"session_id\",\"agent_id\",\"shape\",\"project\",\"lines\",\"bytes\",\n",
    "   \"malformed_lines\",\"malformed\":[{\"line\",\"kind\",\"detail\"}] (the first 5),\n",
    "   \"repaired_surrogates\" (lines whose record was read by taking a lone surrogate escape,\n",
    "   a string cut inside an emoji, as U+FFFD: records, not malformed),\n",
    "   \"malformed_omitted\" (the rest, counted),\"glued_records\":{type:n},\n",
    "   \"records\",\"outside_window\",\"record_types\":{…},\"system_subtypes\":{…},\"attachment_types\":{…},\n",
    "   \"block_types\":{…},\"content_shapes\":{…},\"tool_use_result_shapes\":{…},\"units\",\n",
    "   \"units_embedded\" (of units, those of subagent records nested in agent_progress records),\n",
    "   \"nested_record_types\":{…},\"nested_block_types\":{…} (what agent_progress records nest),\n",
    "   \"result_part_types\":{…},\"labels\":{…},\"labels_secondary\":{…},\n",
    "   \"turns\",\"genuine_user_turns\",\"compactions\",\"first_timestamp\",\"last_timestamp\",\n",
    "   \"turn_durations\",\"turn_duration_ms\",\"lanes\" (lane files, and the 1.0.x sidechain chains\n",
    "   inline in a main file),\"inline_lanes\" (those of lanes),\"spawns\",\"images\",\"versions\":{…},\"models\":{…},\n",
    "   \"narration_blocks\":{<model>:n} (narration-tagged thinking blocks per model: a block count;\n",
    // NAR-004: usage is per message, covering a reasoning block and its narration.
    "   usage is written once per message and covers a narration and its reasoning together,\n",
    "   so no token figure is split off for narration),\n",
    "   \"unknown\":{\"record_types\",\"system_subtypes\",\"attachment_types\",\"block_types\",\n",
    "   \"content_shapes\",\"result_part_types\",\"tool_use_result_shapes\",\"nested_record_types\",\n",
    "   \"nested_block_types\"},\"tokens\":{<model>:{\"messages\",\"records\",\"input\",\"output\",\n",
    "   \"cache_read\",\"cache_creation\",\"cache_creation_5m\",\"cache_creation_1h\",\"thinking\",\n",
    "   \"web_search_requests\",\"web_fetch_requests\"}},\"tokens_apart\":{\"<synthetic>\":{…}},\n",
    "   \"token_notes\":{\"ids_with_differing_copies\",\"zeroed_copies_recovered\",\"idless_usage_records\",\n",
    "   \"assistant_without_usage\",\"progress_embedded_ids\"},\n",
    "   \"tools\":{<name>:{\"calls\",\"errors\",\"unanswered\",\"unanswered_at_tail\"}},\"orphan_results\"}\n",
    "  then, with --by, {\"type\":\"group\",\"key\",\"transcripts\",…same fields} per group (key\n",
    "  null: transcripts with no such value, printed (none)), then\n",
    "  {\"type\":\"total\",\"transcripts\",\"rows\",\"shown\",\"dropped\",\"shared_ids_across_files\",\n",
    "   \"tokens_sum_of_rows\":{…},\"errors\",\"elapsed_ms\",…same fields summed; tokens deduped\n",
    "   across files} (errors: files or targets that could not be read, said on stderr; exit 2).\n",
    "  turns: turns opened; genuine_user_turns: those whose opener the operator typed as\n",
    "  prose or an image, so not a notification, an answer, a rejection, a slash command (a\n",
    "  command's arguments are labelled user.message, its turn is not counted here) or a lane's seed\n",
    "  (the spawn prompt its parent wrote, labelled agent.communication.inbox).\n",
    "  A malformed line is counted, never dropped; a glued line's records are listed in\n",
    "  glued_records (their usage and labels count), so record_types sum to lines -\n",
    "  malformed_lines. rows, shown, dropped: as list's summary (rows in all, printed, left out\n",
    "  by --max-count).\n\n",
    "Exit status: 0 something was counted, 1 no line to count, 2 an error (other files still count).",
))]
pub(crate) struct StatsArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Group the rows by KEY instead of one row per transcript.
    #[arg(long, value_enum, value_name = "KEY")]
    pub(crate) by: Option<GroupBy>,
    /// Print at most N rows (the total still covers everything; the output says
    /// how many rows were left out).
    #[arg(short = 'm', long, value_name = "N")]
    pub(crate) max_count: Option<usize>,
    /// Read every file whole instead of through the census cache (kept in
    /// csift's state directory; output is the same either way).
    #[arg(long)]
    pub(crate) no_cache: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
