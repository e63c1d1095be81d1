//! Lexical readings of the shell commands a session ran: what Claude Code itself
//! decides from a command's text alone, without running it or looking at disk.
//!
//! [`danger`] is Claude Code's `dangerous-rm` classifier (BASH-015…017, WIN-011):
//! the one bash-danger class it hoists to a human even under bypass permissions.
//! `agents` uses it to split a frozen lane's pending call into
//! `escalation-blocked` and `awaiting-execution` (SUB-024, TAIL-010), and
//! `status` to report `waiting-hitl` with reason `dangerous-rm`.
//!
//! Only the `Bash` tool's text is bash: on Windows it is Git-for-Windows bash and
//! POSIX (WIN-005), while the separate `PowerShell` tool (WIN-003) carries text no
//! lexical bash analysis is valid on, so [`for_tool`] answers nothing for it.

pub mod danger;
mod subst;

pub use danger::{dangerous_rm, is_dangerous_rm, Verdict};

/// Whether `tool` names a shell tool whose `input.command` is bash text: `Bash`
/// only. `PowerShell` is a shell tool too (WIN-003/004) but not bash (WIN-005).
pub fn is_bash_tool(tool: &str) -> bool {
    tool == "Bash"
}

/// The dangerous-rm verdict for one tool call: `None` when the tool's command is
/// not bash text (a `PowerShell` call, WIN-005/011; any non-shell tool), so a
/// pending PowerShell lane stays `awaiting-execution` rather than being guessed at.
pub fn for_tool(tool: &str, command: &str) -> Option<Verdict> {
    is_bash_tool(tool).then(|| dangerous_rm(command))
}

#[cfg(test)]
mod tests;
