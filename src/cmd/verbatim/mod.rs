//! `csift verbatim` (not yet implemented).

use std::time::Instant;

use crate::cli::verbatim::VerbatimArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &VerbatimArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    anyhow::bail!("csift verbatim is not implemented yet")
}
