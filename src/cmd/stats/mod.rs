//! `csift stats` (not yet implemented).

use std::time::Instant;

use crate::cli::stats::StatsArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &StatsArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    anyhow::bail!("csift stats is not implemented yet")
}
