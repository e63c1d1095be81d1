//! Command-line definitions (clap derive). Each command's flags live in their own
//! file; this one holds the root, the subcommand enum and the flags every command
//! shares. Nothing here does work: `lib.rs` turns these into configs.

pub(crate) mod agents;
pub(crate) mod argv;
pub(crate) mod audit;
pub(crate) mod export;
pub(crate) mod extra;
pub(crate) mod files;
pub(crate) mod guard;
pub(crate) mod image;
pub(crate) mod list;
pub(crate) mod plan;
pub(crate) mod record;
pub(crate) mod recover;
pub(crate) mod search;
pub(crate) mod show;
pub(crate) mod stats;
pub(crate) mod status;
pub(crate) mod usage;
pub(crate) mod verbatim;
pub(crate) mod wait;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::output::{ColorChoice, Format};

/// The TARGETS section of `csift --help`, which every command's TARGET
/// argument points to ("see TARGETS in `csift --help`").
macro_rules! target_help {
    () => {
        "\
TARGETS (every command accepts them):
  (none)               every project under <claude-home>/projects
  @<id>                a session id, a subagent id, or a unique prefix of either
  @<session>@<agent>   one lane, as search and show print it (prefixes of both)
  <session>[@<agent>]  the same without `@`, as list rows and headers print it,
                       when no file or folder has that name (hex session ids)
  FILE.jsonl           one transcript file
  DIR                  a projects/<encoded> folder, a session folder, or a real
                       project directory (encoded the way Claude Code encodes a cwd)
  <encoded>            a projects/ folder's bare name, e.g. -home-ana-app: it starts
                       with a dash but is read as a target when that folder exists
                       or no flags spell it (a typo is then an error, not flags);
                       put any other dashed target after `--`
  @<encoded>           the same folder by name in any shape: @-home-ana-app, a
                       Windows cwd's @C--Users-ana-app, a UNC cwd's @--server-share-app
  @main                the calling session, from CLAUDE_CODE_SESSION_ID (from a
                       subagent: its parent session)
  @trap:MARKER         the transcript whose Bash/PowerShell call holds MARKER and
                       `csift` (run `echo MARKER; csift … @trap:MARKER`); the main
                       session writes it up to ~3 s late: on a miss, run it again"
    };
}
/// `csift --version`: the crate version and the git commit it was built from.
pub(crate) const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("CSIFT_COMMIT"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "csift",
    version = crate::cli::VERSION,
    about = "ripgrep for Claude Code session transcripts",
    long_about = "csift lists, regex-searches, shows and counts the JSONL transcripts Claude Code \
writes under ~/.claude/projects. It is read-only: it never writes under the Claude home.",
    after_help = concat!(
        target_help!(),
        "\n\nExit status: 0 found, 1 nothing found, 2 error; except audit, a linter: 0 no findings,\n1 findings; guard, a hook: see its help; and wait: 124 on its timeout.\n\nExamples:\n  csift list\n  \
         csift search 'panic|unwrap' -t agent.tool.result\n  csift list -home-ana-app\n  \
         csift whoami --path"
    )
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List sessions (newest first) with a one-line summary each.
    List(list::ListArgs),
    /// Regex-search labelled transcript content; prints complete exchanges.
    Search(Box<search::SearchArgs>),
    /// Print records exactly: by line, uuid or turn, rendered or raw.
    Show(Box<show::ShowArgs>),
    /// Rebuild the recent conversation (whole turns) for re-injection after compaction.
    #[command(mut_arg("since", |a| a.hide(true)))]
    #[command(mut_arg("until", |a| a.hide(true)))]
    Verbatim(Box<verbatim::VerbatimArgs>),
    /// An exact census: records, labels, tokens (deduplicated), tools, unknown shapes.
    Stats(Box<stats::StatsArgs>),
    /// Tokens and cost by day, week, month, session, project, model or 5-hour block.
    Usage(Box<usage::UsageArgs>),
    /// Claude Code's status line: model, session and today's cost, the active block.
    Statusline(usage::StatuslineArgs),
    /// The subagent tree of a session: lanes, kinds, states and returns.
    #[command(mut_arg("no_subagents", |a| a.hide(true)))]
    Agents(Box<agents::AgentsArgs>),
    /// Every path a session touched: reads, writes, bash, outside-stream signals.
    Files(Box<files::FilesArgs>),
    /// Rebuild a file's content from the transcript, gaps marked, never filled.
    Recover(Box<recover::RecoverArgs>),
    /// Detect what Claude Code lost from its transcripts (eaten text, missing files …).
    Audit(Box<audit::AuditArgs>),
    /// Claude Code hook arms that surface transcript loss in live sessions.
    #[command(mut_arg("no_subagents", |a| a.hide(true)))]
    #[command(mut_arg("since", |a| a.hide(true)))]
    #[command(mut_arg("until", |a| a.hide(true)))]
    Guard(Box<guard::GuardArgs>),
    /// The plan file each session is bound to, and what happened to it (--audit: edits).
    #[command(mut_arg("since", |a| a.hide(true)))]
    #[command(mut_arg("until", |a| a.hide(true)))]
    Plan(Box<plan::PlanArgs>),
    /// Every image a session holds: listed once per content with its copies, or written out.
    Image(Box<image::ImageArgs>),
    /// What sessions are doing now: a verdict per session, with its evidence.
    #[command(mut_arg("until", |a| a.hide(true)))]
    #[command(mut_arg("since", |a| a.help(status::STATUS_SINCE).long_help(None::<&str>)))]
    Status(Box<status::StatusArgs>),
    /// Background tasks sessions launched, whether each came back, and task lists.
    #[command(mut_arg("since", |a| a.help(status::TASKS_SINCE).long_help(None::<&str>)))]
    #[command(mut_arg("until", |a| a.help(status::TASKS_UNTIL).long_help(None::<&str>)))]
    Tasks(Box<status::TasksArgs>),
    /// Block until a session stops, asks, calls a tool or writes a file (exit 124 on timeout).
    Wait(Box<wait::WaitArgs>),
    /// A session (with its lanes) or a lane as one self-contained HTML page, or Markdown.
    Export(Box<export::ExportArgs>),
    /// Print the calling Claude Code session (from CLAUDE_CODE_SESSION_ID).
    #[command(mut_arg("no_subagents", |a| a.hide(true)))]
    #[command(mut_arg("since", |a| a.hide(true)))]
    #[command(mut_arg("until", |a| a.hide(true)))]
    Whoami(WhoamiArgs),
    /// Serve the read commands as MCP tools on stdio (for Claude Code and other clients).
    Mcp(extra::McpArgs),
    /// Print or install the settings.json hooks block (guard arms, verbatim re-injection).
    Hooks(extra::HooksArgs),
    /// Print a shell completion script.
    Completions(extra::CompletionsArgs),
    /// Print the man page (roff).
    Man(extra::ManArgs),
}

impl Command {
    /// The colour choice of a command's output: `--color` where it has one.
    pub(crate) fn color(&self) -> ColorChoice {
        match self {
            Command::List(a) => a.common.color,
            Command::Search(a) => a.common.color,
            Command::Show(a) => a.common.color,
            Command::Verbatim(a) => a.common.color,
            Command::Stats(a) => a.common.color,
            Command::Agents(a) => a.common.color,
            Command::Usage(a) => a.color,
            Command::Files(a) => a.common.color,
            Command::Recover(a) => a.common.color,
            Command::Audit(a) => a.common.color,
            Command::Guard(a) => a.common.color,
            Command::Plan(a) => a.common.color,
            Command::Image(a) => a.common.color,
            Command::Status(a) => a.common.color,
            Command::Tasks(a) => a.common.color,
            Command::Whoami(a) => a.common.color,
            Command::Wait(a) => a.color,
            Command::Statusline(_)
            | Command::Export(_)
            | Command::Mcp(_)
            | Command::Hooks(_)
            | Command::Completions(_)
            | Command::Man(_) => ColorChoice::Never,
        }
    }
}

/// Flags shared by every command that reads transcripts.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct Common {
    /// Claude config home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) claude_home: Option<PathBuf>,
    /// Leave subagent lanes out (a lane named directly by @id or file stays).
    #[arg(long, global = true)]
    pub(crate) no_subagents: bool,
    /// Only records at or after this time: RFC 3339 (2026-09-01T12:00:00Z), a date or a
    /// date and time in the local time zone ($TZ; 2026-09-01, 2026-09-01T12:00) or a
    /// named one (2026-09-01T12:00[Europe/Paris]), or an age like 2d, 12h. A record with
    /// no time of its own (a snapshot, a summary) stands at the time before it in its
    /// file. `list` keeps whole sessions whose first-to-last span overlaps the window.
    #[arg(long, value_name = "WHEN", global = true)]
    pub(crate) since: Option<String>,
    /// Only records at or before this time (same forms as --since; a date alone means
    /// the end of that day, so `--since D --until D` is the whole day).
    #[arg(long, value_name = "WHEN", global = true)]
    pub(crate) until: Option<String>,
    /// Output form: human (default) or json (JSON Lines).
    #[arg(long, value_enum, default_value_t = Format::Human, global = true)]
    pub(crate) format: Format,
    /// When to colour output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    pub(crate) color: ColorChoice,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  csift whoami            # the session id\n  csift whoami --path     # its transcript path\n  csift whoami --format json   # and is_subagent, depth\n  echo BlueHeronLamp4821; csift whoami @trap:BlueHeronLamp4821 --format json   # from a subagent\n\n\
The id is CLAUDE_CODE_SESSION_ID exactly, never a prefix. A transcript is a main file\n\
named <id>.jsonl; when several project folders hold one, all are printed, with a note.\n\n\
JSON: {\"type\":\"session\",\"session_id\",\"agent_id\",\"files\",\"source\",\"is_subagent\",\n\
\"parent_session_id\",\"depth\"}. The variable names the session in every subagent too, so\n\
depth is 0 (is_subagent false) only when the session has no lane file, and no subagent\n\
can be calling; otherwise depth, is_subagent and parent_session_id are null.\n\
With @trap:MARKER (source \"trap\") the caller is the transcript whose Bash call holds\n\
MARKER and `csift`: a subagent's own lane (written as each block ends, so a first try\n\
finds it) with agent_id, is_subagent true, parent_session_id its session and depth its\n\
spawns below the session (1: spawned by the main conversation; null where a link is\n\
not on disk), or the main session (depth 0; it writes its call up to ~3 s late: on a\n\
miss, run the same command again).\n\n\
Exit status: 0 the id (or its paths) printed; 1 --path, and no transcript of that id;\n\
2 CLAUDE_CODE_SESSION_ID unset or empty, or @trap:MARKER found no call."
)]
pub(crate) struct WhoamiArgs {
    /// `@trap:MARKER`: the caller named by a marker in the very Bash call
    /// that runs csift (a subagent's own lane, which the variable cannot name).
    #[arg(value_name = "@trap:MARKER")]
    pub(crate) target: Option<String>,
    /// Print the transcript path instead of the id.
    #[arg(long)]
    pub(crate) path: bool,
    #[command(flatten)]
    pub(crate) common: Common,
}
