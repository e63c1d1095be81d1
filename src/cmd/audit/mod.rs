//! `csift audit` (not yet implemented).

use std::time::Instant;

use crate::cli::audit::AuditArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &AuditArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    anyhow::bail!("csift audit is not implemented yet")
}
