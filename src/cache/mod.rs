//! The census cache: what a command folds from one transcript (a [`Census`]:
//! counts, token books, findings) kept in csift's state directory, so a
//! repeated run re-reads only what changed. Built once, for every command that
//! folds per-file facts: `usage`, `statusline`, `stats` and `audit` (issue 37;
//! audit's checks of other files' existence run every time, outside it), and
//! `list`, whose entry is a whole file's row.
//!
//! An entry is keyed by the transcript's path and checked against the file's
//! identity: device, inode, size and modification time, and a hash of the
//! first and of the last 4 KB of the bytes it covers. Claude Code only appends
//! to a transcript (REC-087) and replaces it by rename on compaction (MISC-017,
//! a new inode), so:
//! - same identity: the entry is the census of the file (**hit**);
//! - same inode, larger, and both hashes still match at the same offsets: the
//!   file grew; only the appended bytes are scanned and folded in with
//!   [`Census::extend`] (**grew**);
//! - anything else (rename-replacement, truncation, an in-place rewrite, a
//!   corrupt, foreign-version or colliding entry): the file is scanned whole
//!   and the entry rewritten (**miss**).
//!
//! A kind may need a context to scan (`stats`: is the file a lane, which
//! agents have lane files), keep variants apart (`stats --no-subagents`),
//! check that a cached census still holds ([`Census::valid`]: an agent's lane
//! file appeared) and finish a census with the whole file at hand before it is
//! cached ([`Census::seal`]), so a hit reads nothing of the transcript but the
//! two 4 KB edges its key hashes.
//!
//! An entry's resume state covers whole lines only, so a line completed later
//! is read complete; an unterminated final line is folded into the answer of
//! a kind that splits its entry ([`Census::SPLIT`]: the answer is then valid
//! for exactly that file, size and time), and scanned on every run for the
//! others. Entries are kept in packs ([`pack`]): one per transcript for the
//! status line's per-session reads, one per project for `stats` and `audit`,
//! so a run over a home opens and writes a few dozen files, not thousands.
//! With the cache off (`--no-cache`, no state directory, or one inside the
//! Claude home) every file is scanned whole, and a census must come out
//! byte-identical either way (tests/usage.rs runs both). csift never writes
//! under the Claude home: a state directory there turns the cache off.

pub(crate) mod codec;
mod ident;
mod pack;
mod store;
mod sweep;

pub(crate) use codec::{Dec, Enc};
pub(crate) use store::{edge_digests, Cache};

/// Where the reading of a census starts: a byte offset at a line start and
/// that line's 1-based number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) offset: u64,
    pub(crate) line: u64,
}

/// Per-file facts a command folds, computable from any run of whole lines and
/// foldable in file order: `scan(a) .extend(scan(b))` must equal `scan(a ++ b)`.
pub(crate) trait Census: Sized {
    /// Folder name of this kind of census in the cache.
    const KIND: &'static str;
    /// Bump on any change to what a census holds or how lines are read: an
    /// entry of another version is ignored and rewritten, never trusted.
    const VERSION: u32;
    /// What a scan needs beside the bytes (`()` for most kinds; `stats`: whether
    /// the file is a lane and which agents have lane files).
    type Ctx: ?Sized;
    /// The census of `buf`, the file's lines from `at` on (the last one may be
    /// unterminated: a file's torn or still-growing end).
    fn scan(buf: &[u8], at: Pos, ctx: &Self::Ctx) -> Self;
    /// A name for censuses of this kind read under `ctx` that differ from
    /// others by more than their file (`stats --no-subagents`): kept apart, so
    /// runs that alternate do not overwrite each other's entries.
    fn variant(_ctx: &Self::Ctx) -> &'static str {
        ""
    }
    /// Whether a census read back from the cache still holds under `ctx`: a
    /// census that depended on something outside its file (another file's
    /// existence) checks it here; `false` is a miss.
    fn valid(&self, _ctx: &Self::Ctx) -> bool {
        true
    }
    /// Called with every byte the census covers (from the file's start)
    /// whenever the store has them at hand: before an entry is written
    /// (`kept`: it is written from this census next), and once more after an
    /// unterminated tail is folded in or when nothing is cached (`kept`
    /// false: what only an entry needs may be given up). A census whose
    /// final form needs the whole file (a file index) computes it here, so a
    /// hit needs no read of the file.
    fn seal(&mut self, _covered: &[u8], _ctx: &Self::Ctx, _kept: bool) {}
    /// Fold in the census of the bytes that follow this one's.
    fn extend(&mut self, later: Self);
    /// Write the census an entry keeps (for a kind that splits its entry:
    /// the answer a hit returns, the census of the whole file).
    fn encode(&self, e: &mut Enc);
    fn decode(d: &mut Dec<'_>) -> Option<Self>;
    /// Whether an entry keeps two parts: the finished census of the whole
    /// file (its unterminated final line too) as the answer a hit decodes
    /// alone, and apart from it, in [`Census::encode_resume`], the state of
    /// the file's whole lines a file that grew resumes from. A kind whose
    /// census is its own resume state (the default) keeps one part, and an
    /// unterminated final line is scanned on every run.
    const SPLIT: bool = false;
    /// Whether a splitting kind's resume state is sealed (with `kept`) over
    /// the whole lines before an unterminated final line is folded in: a
    /// kind whose resume state must be sealed to be written (audit's
    /// duplicate uuids confirmed and malformed lines timed against the bytes).
    const SEAL_RESUME: bool = false;
    /// Whether a file that grew resumes from its entry. A kind whose census
    /// does not fold (`list`'s row: the newest title, the turn count) says
    /// `false`: a grown file is read whole again, and its entries keep no
    /// line count, so a miss does not count the file's newlines for one.
    const RESUMES: bool = true;
    /// Write the state a file that grew resumes from (a splitting kind:
    /// called with the census of the entry's whole lines, once sealed with
    /// `kept` when the file has no unterminated line, else before that line
    /// is folded in).
    fn encode_resume(&self, _e: &mut Enc) {}
    /// The census a file that grew continues from, read from an entry's
    /// answer (the bytes [`Census::encode`] wrote) and the resume state
    /// [`Census::encode_resume`] wrote; `None` is a miss.
    fn resume(answer: &[u8], _d: &mut Dec<'_>) -> Option<Self> {
        let mut d = Dec::new(answer);
        Self::decode(&mut d).filter(|_| d.done())
    }
}

/// csift's state directory: `$XDG_STATE_HOME/csift` (an absolute path), else
/// `$HOME/.local/state/csift`; `None` when neither is set.
pub(crate) fn state_root() -> Option<std::path::PathBuf> {
    use std::path::{Path, PathBuf};
    if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Some(PathBuf::from(x).join("csift"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".local/state/csift"))
}

#[cfg(test)]
mod tests;
