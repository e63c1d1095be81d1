//! Flags of `csift audit`. The finding kinds are defined here so `--help` lists
//! each one with its one-line explanation straight from the definition.

use clap::{Args, ValueEnum};

/// A named kind of silent loss (or anomaly) `audit` can detect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, ValueEnum)]
pub(crate) enum Kind {
    /// A message.id group with >=2 thinking records and no text record: a streamed text block never persisted.
    EatenText,
    /// A group the report's adjacency rule flags but the group rule does not (rule disagreement; info).
    EatenTextAdjacency,
    /// A line that is not one JSON record: glued records, a torn final line, invalid JSON, or
    /// JSON that is not an object (not-an-object). A blank line, or an object with a value csift
    /// cannot read, loses nothing and is no finding (`stats` counts both as malformed: kinds
    /// blank, unexpected-value).
    MalformedLine,
    /// A session folder without its <uuid>.jsonl, or a spawned/named subagent whose lane file is absent.
    MissingTranscript,
    /// A <persisted-output> / persistedOutputPath pointer whose file is gone (or has another size).
    MissingPersistedOutput,
    /// A successful top-level file write/read/Bash result without its structured toolUseResult.
    // REC-078: Claude Code always writes it there.
    MissingEcho,
    /// A tool_use with no tool_result anywhere in its file and a later turn (info). Calls after
    /// the last turn opener are not reported: in flight and died mid-tool look the same;
    /// `stats` counts them as tail.
    // TAIL-001: a live tail and a dead one look the same on disk.
    UnansweredCall,
    /// One uuid on several physical lines (info; resume replay, compaction straddle,
    /// usage-divergent copy, or a repeat naming the fields that differ).
    // REC-091/092: a uuid is not a primary key.
    DuplicateUuid,
}

impl Kind {
    pub(crate) const ALL: [Kind; 8] = [
        Kind::EatenText,
        Kind::EatenTextAdjacency,
        Kind::MalformedLine,
        Kind::MissingTranscript,
        Kind::MissingPersistedOutput,
        Kind::MissingEcho,
        Kind::UnansweredCall,
        Kind::DuplicateUuid,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::EatenText => "eaten-text",
            Kind::EatenTextAdjacency => "eaten-text-adjacency",
            Kind::MalformedLine => "malformed-line",
            Kind::MissingTranscript => "missing-transcript",
            Kind::MissingPersistedOutput => "missing-persisted-output",
            Kind::MissingEcho => "missing-echo",
            Kind::UnansweredCall => "unanswered-call",
            Kind::DuplicateUuid => "duplicate-uuid",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum By {
    Month,
    Version,
    Transcript,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift audit                                   # every transcript, every kind\n",
    "  csift audit --kind eaten-text --by month      # the eaten-text survey, per month\n",
    "  csift audit --kind eaten-text --by version\n",
    "  csift audit @3f2a --kind missing-echo --kind malformed-line\n",
    "  csift audit --format json --kind eaten-text | jq -r 'select(.type==\"finding\").message_id'\n",
    "  csift audit --no-cache                        # read every file whole, not through the cache\n\n",
    "eaten-text counts what the bug report's survey script counts: per file, assistant\n",
    "records grouped by (isSidechain, message.id); a group with >=2 thinking-bearing and 0\n",
    "text-bearing records is one eaten response; month and version come from its first record.\n",
    // REC-091: a resume replays records under their uuids.
    "One difference: a record replayed under the same uuid by a resume is counted\n",
    "once, so a replayed [thinking][tool_use] response is not an eaten one (the detail says\n",
    "how many copies were left out); on files with no repeated uuid the counts are equal.\n",
    "The report's adjacency rule (two adjacent thinking-first records sharing message.id) is\n",
    "checked too. A group both rules flag is an eaten-text finding whose detail says \"adjacency\n",
    "rule agrees\"; one only the group rule flags, an eaten-text finding saying \"adjacency rule\n",
    "disagrees\"; one only the adjacency rule flags, an eaten-text-adjacency finding (info).\n",
    "MAIN and SIDECHAIN are the survey's two counts. TRANSCRIPTS counts the files with a\n",
    "finding of the kind, main or sidechain (a subagent lane is a file); the survey's\n",
    "\"in N transcripts\" counts only files with a MAIN one.\n\n",
    "Cache: each transcript's findings are kept in csift's state directory\n",
    "($XDG_STATE_HOME/csift, never under the Claude home), per set of kinds; a file unchanged\n",
    "since is not read again, one that grew is read from where its entry ended. Pointers to\n",
    "other files (lane files, persisted output) are checked on disk every run. --no-cache\n",
    "reads every file whole; the output is the same either way.\n\n",
    "--since/--until keep findings by time: a finding's record's own, else the last time\n",
    "before it in its file (a torn final line), else the first time in the lanes of a lost\n",
    "session transcript. A finding with none (lane metadata without its lane) cannot be\n",
    "placed; a window leaves it out and says how many (untimed_left_out in JSON).\n\n",
    "JSON (--format json), one object per line, findings newest first:\n",
    "  {\"type\":\"finding\",\"kind\",\"file\",\"line\",\"session_id\",\"message_id\",\"sidechain\",\n",
    "   \"timestamp\",\"version\",\"detail\"}          (message_id, timestamp, version may be null;\n",
    "   line is null for a finding about a file or folder, such as missing-transcript)\n",
    "  with --by: {\"type\":\"count\",\"kind\",\"by\",\"key\",\"main\",\"sidechain\"}\n",
    "  then {\"type\":\"summary\",\"counts\":{<kind>:{\"main\",\"sidechain\",\"transcripts\"}},\"files\",\n",
    "   \"bytes\",\"multi_block_assistant_records\",\"untimed_left_out\",\"errors\",\"elapsed_ms\"}\n\n",
    "Exit status: 0 no findings of the selected kinds, 1 findings, 2 an error (unreadable\n",
    "file, bad target; other files are still audited).",
))]
pub(crate) struct AuditArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Only these kinds (repeatable, or comma-separated). Default: all.
    #[arg(
        long = "kind",
        short = 'k',
        value_enum,
        value_delimiter = ',',
        value_name = "KIND"
    )]
    pub(crate) kinds: Vec<Kind>,
    /// Also break the counts down by month (UTC), Claude Code version or transcript.
    #[arg(long, value_enum, value_name = "KEY")]
    pub(crate) by: Option<By>,
    /// Show at most this many findings (human form; the summary still counts all).
    #[arg(long, value_name = "N")]
    pub(crate) max_count: Option<usize>,
    /// Read every file whole instead of through the census cache (kept in
    /// csift's state directory; output is the same either way).
    #[arg(long)]
    pub(crate) no_cache: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
