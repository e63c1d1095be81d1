//! `csift guard` (not yet implemented).

use std::time::Instant;

use crate::cli::guard::GuardArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &GuardArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    anyhow::bail!("csift guard is not implemented yet")
}
