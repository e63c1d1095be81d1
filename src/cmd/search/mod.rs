//! `csift search`: regex over labelled units, printed as complete exchanges.

use std::time::Instant;

use crate::cli::search::SearchArgs;
use crate::output::Out;

use super::{Exit, Problems};

pub fn run(
    _args: &SearchArgs,
    _out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    Ok(Exit::NotFound)
}
