//! Flags of `csift audit`.

use clap::Args;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub common: super::Common,
}
