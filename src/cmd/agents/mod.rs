//! `csift agents` (not yet implemented).

use std::time::Instant;

use crate::cli::agents::AgentsArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &AgentsArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    anyhow::bail!("csift agents is not implemented yet")
}
