//! Flags of `csift list`.

use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift list                      # every session, newest first\n",
    "  csift list . --max-count 5      # the 5 newest sessions of this project\n",
    "  csift list @3f2a                # one session and its subagent lanes\n",
    "  csift list --since 2d --format json\n",
    "  csift list --full               # exact turns: reads every line of every file\n",
    "  csift list . --format json | jq 'select(.is_clone) | [.session_id, .clone_of]'\n\n",
    "Rows are newest first by their last record's time; a transcript with no timestamp at all\n",
    "comes after every timed one.\n\n",
    "Each file is read as a head and a tail window unless it is small, --full is given or one\n",
    "session is listed; then it is read whole. Each row is kept in csift's census cache (the\n",
    "state directory, never under the Claude home): a later list reads only the first and last\n",
    "4 KB of a file unchanged since, and reads a changed one again. --no-cache reads every file;\n",
    "the output is the same either way.\n\n",
    "JSON fields (one object per line): type=\"session\"|\"lane\", session_id, agent_id, shape, file,\n",
    "project, cwd, started, last_activity (RFC 3339 UTC or null), duration_s, turns (null unless\n",
    "read whole), lanes, inline_lanes (of lanes, those inline in a 1.0.x main file; null unless\n",
    "read whole), parent_missing, bytes, models, versions, git_branch, title, title_source,\n",
    "read=\"whole\"|\"head-tail\" (head-tail: models, titles and malformed lines only from the\n",
    "windows), malformed_lines, malformed [{line (null in the tail window), offset, kind}],\n",
    // CMP-012: a clone's first timestamped record is its origin's compact_boundary;
    // MISC-028: a --fork-session fork is named by a continued-in record in its origin.
    "is_clone (minted by copying another session at a compaction: its first timestamped record\n",
    "is a compact_boundary), clone_of (that session, found beside it, else null),\n",
    "clone_boundary_uuid, forked_from (the session whose continued-in line names this one, a\n",
    "--fork-session fork; known where that session's lines were read: always for a clone,\n",
    "else when it is in the listing), continued_in (sessions this one's continued-in lines\n",
    "name, among the lines read); then a\n",
    "summary line {type:\"summary\", rows, shown, dropped, untimed_left_out, bytes, read_whole,\n",
    "read_head_tail, errors, elapsed_ms} (read_* count the rows shown; bytes sums every row's file,\n",
    "--max-count aside, so a session's lanes, counted in its lanes field, are not in it;\n",
    "untimed_left_out: sessions a --since/--until window left out because no record of theirs has\n",
    "a timestamp). lanes counts a session's lane files and the 1.0.x sidechain chains inline\n",
    "in its main file (as `csift agents` lists them); agents also shows spawns whose lane file\n",
    "was never written. In the human\n",
    "form `list @SESSION` prints the session's lanes under its row as `└ @AGENT`; any other\n",
    "lane row (one named on its own, or one whose session transcript is missing:\n",
    "parent_missing) is named SESSION@AGENT, a target that selects it.\n\n",
    "Malformed lines here are the two kinds list looks for, glued records and a torn final\n",
    "line, even with --full; `csift audit -k malformed-line` judges every line's grammar.\n\n",
    "Exit status: 0 sessions found (shown or not: -m 0 only counts), 1 none, 2 an error.",
))]
pub(crate) struct ListArgs {
    /// What to list (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Show at most N rows (the output says how many more exist).
    #[arg(short = 'm', long, value_name = "N")]
    pub(crate) max_count: Option<usize>,
    /// Read every file whole: exact turn counts, every model, titles and glued lines
    /// anywhere. Costs a pass over every byte of each file not read whole
    /// before (the census cache keeps the rows); without it larger files are
    /// read as a head and a tail window only.
    #[arg(long)]
    pub(crate) full: bool,
    /// Read every file instead of through the census cache (kept in csift's
    /// state directory; output is the same either way).
    #[arg(long)]
    pub(crate) no_cache: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
