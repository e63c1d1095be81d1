//! Flags of `csift list`.

use clap::Args;

use super::Common;

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift list                      # every session, newest first\n",
    "  csift list . --max-count 5      # the 5 newest sessions of this project\n",
    "  csift list @3f2a                # one session and its subagent lanes\n",
    "  csift list --since 2d --format json\n\n",
    "JSON fields (one object per line): type=\"session\"|\"lane\", session_id, agent_id, file, project,\n",
    "cwd, started, last_activity (RFC 3339 UTC or null), duration_s, turns, records, lanes, bytes,\n",
    "models, versions, git_branch, title, title_source, malformed_lines; then a summary line\n",
    "{type:\"summary\", sessions, shown, dropped, files, bytes, malformed_lines, elapsed_ms}.",
))]
pub struct ListArgs {
    /// What to list (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Show at most N rows (the output says how many more exist).
    #[arg(short = 'm', long, value_name = "N")]
    pub max_count: Option<usize>,
    #[command(flatten)]
    pub common: super::Common,
}

impl ListArgs {
    pub fn common(&self) -> &Common {
        &self.common
    }
}
