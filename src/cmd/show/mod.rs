//! `csift show` (not yet implemented).

use std::time::Instant;

use crate::cli::show::ShowArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &ShowArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    anyhow::bail!("csift show is not implemented yet")
}
