//! Flags of `csift guard`.

use clap::Args;

#[derive(Debug, Args)]
pub struct GuardArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub common: super::Common,
}
