//! Token accounting, shared by `stats` and `usage`: reading one usage copy
//! ([`copy`]), the per-file book `stats` keeps ([`book`]), the cacheable
//! per-file usage book `usage` and `statusline` fold ([`file`]), the cross-file
//! dedupe both totals use ([`ledger`]), prices ([`pricing`]) and Claude's
//! 5-hour usage blocks ([`blocks`]).
//!
//! The one definition every report uses: an API message is the key
//! (message.model, message.id); its copies (one record per content block,
//! REC-020, QT-040; a subagent's replay of its parent's spawning message,
//! REC-035; a compaction replay, QT-041) merge by per-field MAX; a copy without
//! an id is its own message; `<synthetic>` (REC-023) stays apart.

pub(crate) mod blocks;
pub(crate) mod book;
pub(crate) mod copy;
pub(crate) mod file;
pub(crate) mod fold;
pub(crate) mod ledger;
pub(crate) mod pricing;

pub(crate) use copy::{Row, Vals};

pub(crate) const SYNTHETIC: &str = "<synthetic>";
pub(crate) const UNKNOWN_MODEL: &str = "(unknown)";

/// A stable 64-bit hash of a key (`model \0 id`), for the cross-file dedupe
/// sets and the census cache: FNV-1a, so it is the same in every build and
/// process (the cache keeps it on disk). Two messages would have to collide
/// in 64 bits to be merged.
pub(crate) fn key_hash(key: &str) -> u64 {
    crate::loss::fnv1a(key.as_bytes())
}
