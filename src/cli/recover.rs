//! Flags of `csift recover`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift recover --file /home/ana/app/src/main.rs @4d5611e5 > main.rs\n",
    "  csift recover --file src/main.rs . --coverage        # what is known, from where\n",
    "  csift recover --file src/main.rs @4d56 --at 340      # as of line 340 of the session\n",
    "  csift recover --file notes.md --at 2026-09-01T12:00  # as of a time\n",
    "  csift recover --file src/main.rs @4d56 --out ~/rescued   # writes ~/rescued/home/ana/app/src/main.rs\n",
    "  csift recover --file /home/ana/app/src/main.rs --list-backups\n",
    "  csift recover --all --out ~/rescued @4d56            # every file the session touched\n\n",
    "PATH is absolute, or relative: then the current directory is tried first, and otherwise the\n",
    "one touched path that ends with it (several are an error that lists them).\n\n",
    "Evidence, newest best: a Write body; a Read echo (a full one is the whole file, a window\n",
    "places its lines; one cut by the token cap loses its last line); an Edit or MultiEdit\n",
    "replayed with Claude Code's own rule (its old text found exactly once unless replaceAll,\n",
    "else refused), its originalFile pre-image when echoed; a clean `cat FILE` stdout (bash\n",
    "trims its edges, which stay marked unknown) and a literal heredoc into cat or tee; an\n",
    "edited_text_file snippet (its first hunk); Claude Code's own file-history backups, trusted\n",
    "only when the file's mtime is within 120 s of the recorded backupTime (--list-backups\n",
    "shows every generation and its verdict). What changed the file without saying how — a\n",
    "bash write, sed -i, a stale-read hint, an external edit, an unexplained file-history\n",
    "version jump — makes it unknown from that point; commands that change files they never\n",
    "name (fmt:, pkg:, git:, interp:) are counted, not applied.\n\n",
    "Output: the text on stdout (--out writes DIR/<absolute path> instead, never over an\n",
    "existing file without --force, never inside the Claude home). An unknown range is one\n",
    "marker line, `<<csift gap: lines 40-52 unknown (13 lines): why>>`, never filled in. A\n",
    "summary goes to stderr. --coverage prints the map instead of the text: each range, known\n",
    "(from which step: transcript line, tool, kind) or unknown (and why).\n\n",
    "--at LINE is the state after every event at or before that line of the target's\n",
    "transcript (the target must be one session) and every other event up to that line's\n",
    "time; --at TIME takes the --since forms (a bare date is its end). Default: the end. A\n",
    "file deleted at the end is shown as it was before, and the deletion is said.\n\n",
    "JSON (--format json): {\"type\":\"range\",\"from\",\"to\",\"lines\",\"known\",\"source\",\"reason\"}\n",
    "per range, {\"type\":\"note\",…} per note, then {\"type\":\"recovered\",\"path\",\"complete\",\n",
    "\"lines\",\"known_lines\",\"gaps\",\"steps\",\"deleted\",\"out\",\"content\"} (content unless\n",
    "--out or --coverage); --all prints one {\"type\":\"recovered\",…} per file and a summary;\n",
    "--list-backups one {\"type\":\"backup\",…} per store file, then {\"type\":\"summary\",\"path\",\n",
    "\"store_key\",\"backups\",\"trusted\"}.\n\n",
    "Exit status: 0 the whole file is known, 1 gaps remain (the text is still printed, gaps\n",
    "marked) or nothing was found, 2 an error.",
))]
pub(crate) struct RecoverArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// The file to rebuild (absolute, or relative: see below).
    #[arg(
        long,
        value_name = "PATH",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub(crate) file: Option<String>,
    /// Rebuild every file the targets touched (needs --out).
    #[arg(long, requires = "out")]
    pub(crate) all: bool,
    /// Rebuild as of this line of the target transcript, or this time.
    #[arg(long, value_name = "LINE|TIME")]
    pub(crate) at: Option<String>,
    /// Write DIR/<absolute path> instead of printing.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Overwrite files under --out.
    #[arg(long, requires = "out")]
    pub(crate) force: bool,
    /// Print the coverage map (known ranges and their evidence, gaps and why).
    #[arg(long)]
    pub(crate) coverage: bool,
    /// List Claude Code's file-history backups of the file, with trust verdicts.
    #[arg(long, conflicts_with_all = ["all", "out", "coverage", "at"])]
    pub(crate) list_backups: bool,
    #[command(flatten)]
    pub(crate) common: super::Common,
}
