//! Flags of `csift agents`.

use clap::Args;

#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub common: super::Common,
}
