//! The live engine: what a session is doing right now, and what it left running.
//! It joins every surface Claude Code leaves on disk into one verdict with its
//! evidence (MISC-022), and rebuilds the background-task ledger no store keeps
//! (BG-027, BG-035). Commands (`status`, `tasks`; `wait`, the status line and
//! the MCP server after them) call [`session::assess`] and [`ledger::build`] and
//! print what they return; nothing here prints, and nothing here writes.
//!
//! - [`registry`]: `<home>/sessions/<pid>.json` rows (REG-*);
//! - [`procs`]: is a row's process alive and the same one (REG-010…013, WIN-007…009);
//! - [`tail`]: a transcript's tail, read backward from EOF (TAIL-*);
//! - [`calls`]: an unreturned call's plausible life;
//! - [`lanes`]: child lanes and workflow journals (TAIL-004/007/008);
//! - [`verdict`]: the join and its precedence; [`evidence`]: its rows in words;
//! - [`ledger`]: background launches and their completions (BG-*);
//! - [`tasklist`]: the session task list under `<home>/tasks` (REG-007/008);
//! - [`session`]: one session's surfaces gathered and judged.

pub(crate) mod calls;
pub(crate) mod evidence;
pub(crate) mod lanes;
pub(crate) mod ledger;
pub(crate) mod procs;
pub(crate) mod registry;
pub(crate) mod session;
pub(crate) mod tail;
pub(crate) mod tasklist;
pub(crate) mod verdict;
pub(crate) mod watch;

/// Serialise an optional instant as Claude Code writes times (REC-005), or null.
pub(crate) fn ser_ts<S: serde::Serializer>(
    t: &Option<jiff::Timestamp>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&crate::timefmt::utc_exact(*t)),
        None => s.serialize_none(),
    }
}
