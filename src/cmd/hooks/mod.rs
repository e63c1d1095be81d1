//! `csift hooks print|install` (placeholder while the server is built).
use crate::cli::extra::HooksArgs;
use crate::error::Result;
use crate::output::Out;
use super::Exit;
pub(crate) fn run(_args: &HooksArgs, _out: &mut Out) -> Result<Exit> {
    Ok(Exit::Found)
}
