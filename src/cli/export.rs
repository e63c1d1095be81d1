//! Flags of `csift export`. It has no JSON form, so it does not take the
//! common `--format human|json`: its `--format` picks the page's language.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum PageFormat {
    /// One self-contained HTML page (CSS and a small script inline).
    #[default]
    Html,
    /// Markdown: headings, blockquotes and fenced blocks.
    Md,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift export @3f2a --out session.html        # the session and its lanes, one page\n",
    "  csift export @3f2a --format md --out s.md    # the same as Markdown\n",
    "  csift export @3f2a@a1b2c3 --out lane.html     # one subagent lane alone\n",
    "  csift export @3f2a --highlight 'panic|unwrap' --out s.html\n",
    "  csift export @3f2a -t user.message,agent.message --out talk.html\n",
    "  csift export @3f2a --out - | gzip > s.html.gz\n\n",
    "The TARGET must select one session (with its lanes) or one lane. The page holds a\n",
    "header (session, title, cwd, branch, versions, models, time span, turns), then every\n",
    "turn in order: prompts and replies with their times, thinking collapsed, each tool call\n",
    "with its result (long results collapsed, errors marked), subagent lanes under the call\n",
    "that spawned them (lanes no recorded key ties to a call come after the transcript),\n",
    "compaction boundaries and summaries, images inline from their base64 blocks, and marks\n",
    "where audit would report something: eaten text, a call with no result, a malformed line.\n",
    "A record or content block csift does not model is shown raw, never dropped. Records with\n",
    "no content (progress, snapshots, session state) are listed, collapsed.\n\n",
    "The HTML page is one file: no network fetch (its Content-Security-Policy forbids any),\n",
    "readable without JavaScript (collapsing is <details>), and every transcript byte is\n",
    "escaped, so `<script>` in a transcript is text. The small script only adds 'expand all'\n",
    "and 'collapse all' buttons. --highlight marks every match in the text and lists them in a\n",
    "jump index at the end of the page; -t keeps only units with those labels.\n\n",
    "Output: --out FILE, or --out - for stdout; without --out, stdout when it is not a\n",
    "terminal. An existing FILE is kept unless --force; a path inside the Claude home is\n",
    "refused. The page is written to a temporary file beside FILE and renamed into place, so\n",
    "FILE is never left half-written. The page streams: memory stays flat however long the\n",
    "session.\n\n",
    "Exit status: 0 the page was written; 2 an error (a lane or file that could not be read\n",
    "is said on stderr and marked in the page, which is still written).",
))]
pub(crate) struct ExportArgs {
    /// The session or lane to export (see TARGETS in `csift --help`): `@<session-id>`,
    /// `@<session>@<agent>`, or a .jsonl file.
    #[arg(value_name = "TARGET", required = true)]
    pub(crate) targets: Vec<String>,
    /// The page's language.
    #[arg(long, value_enum, default_value_t = PageFormat::Html)]
    pub(crate) format: PageFormat,
    /// Write the page to FILE (`-`: stdout).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long)]
    pub(crate) force: bool,
    /// Mark the matches of this regex (smart case) and list them in a jump index.
    #[arg(long, value_name = "REGEX")]
    pub(crate) highlight: Option<String>,
    /// Keep only units with these labels: a leaf, a subtree (`agent.tool.*`) or a bare
    /// role. Repeatable or comma-separated. Default: everything.
    #[arg(short = 't', long = "label", value_name = "SELECTOR")]
    pub(crate) labels: Vec<String>,
    /// Leave subagent lanes out (a lane named directly by @id or file stays).
    #[arg(long)]
    pub(crate) no_subagents: bool,
    /// Claude config home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_home: Option<PathBuf>,
}
