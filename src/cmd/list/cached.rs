//! `list`'s rows through the census cache ([`crate::cache`]): the
//! [`Summary`] of a transcript `list` reads whole (one up to
//! [`WHOLE_MAX`](super::read::WHOLE_MAX), or any under `--full` or a
//! one-session listing) is kept in csift's state directory, so a repeated
//! `list` over an unchanged home opens each such file and reads only the two
//! 4 KB edges its entry hashes, instead of every byte (issue 37).
//!
//! A row is a fact of the whole file and does not fold: the newest title, the
//! last activity and the turn count (drafts, replays: TURN-*) are read across
//! every line. So an entry keeps only its answer, the summary of exactly that
//! file, size and time; a file that grew, was cut or replaced is read whole
//! again ([`Census::RESUMES`] is false), as `--no-cache` reads it. A larger
//! file's row, read from its head and tail windows, is kept the same way
//! (variant `-windows`), its entry made from the windows list read
//! ([`Cache::read_own`]): an unchanged file is not parsed again. The summary
//! is computed by [`facts::of_whole`](super::facts::of_whole), the code
//! `--no-cache` runs, once the store has every byte ([`Census::seal`]), so the
//! rows are the same with and without the cache (tests/list_cache.rs).
//! Bump [`Census::VERSION`] on any change to what a row says.

use super::facts;
use super::summary::{Bad, ReadMode, Summary};
#[cfg(doc)]
use crate::cache::Cache;
use crate::cache::{Census, Dec, Enc, Pos};
use crate::record::MalformedKind;

/// The summary of one whole transcript, as the cache keeps it.
#[derive(Debug, Default)]
pub(crate) struct Row(pub(crate) Summary);

/// How a row's file is read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct How {
    /// The transcript is a lane (no inline lanes, no clone probe).
    pub(crate) lane: bool,
    /// Read as a head and a tail window ([`Cache::read_own`]), not whole
    /// (a census of every byte, [`Cache::census_grouped`]): kept apart, so
    /// `--full` never takes a windowed row for a whole one.
    pub(crate) windows: bool,
}

impl Census for Row {
    const KIND: &'static str = "list";
    const VERSION: u32 = 1;
    type Ctx = How;
    /// The answer is the whole file's summary, its unterminated line too.
    const SPLIT: bool = true;
    /// A row does not fold: a grown file is read whole again.
    const RESUMES: bool = false;

    fn scan(_buf: &[u8], _at: Pos, _how: &How) -> Row {
        Row::default()
    }

    fn variant(how: &How) -> &'static str {
        match how.windows {
            true => "-windows",
            false => "",
        }
    }

    /// The summary, with every byte at hand: the last call before an entry
    /// is written or the row is returned is always with the whole file.
    fn seal(&mut self, covered: &[u8], how: &How, _kept: bool) {
        self.0 = facts::of_whole(covered, how.lane);
    }

    fn extend(&mut self, _later: Row) {}

    fn encode(&self, e: &mut Enc) {
        encode(&self.0, e);
    }

    fn decode(d: &mut Dec<'_>) -> Option<Row> {
        decode(d).map(Row)
    }
}

fn encode(s: &Summary, e: &mut Enc) {
    e.opt_str(s.cwd.as_deref());
    e.opt_str(s.git_branch.as_deref());
    e.strs(s.versions.iter().map(String::as_str));
    e.strs(s.models.iter().map(String::as_str));
    e.ts(s.started);
    e.ts(s.last_activity);
    e.opt_usize(s.turns);
    e.opt_usize(s.inline_lanes);
    e.u8(match s.read {
        ReadMode::Whole => 0,
        ReadMode::HeadTail => 1,
    });
    e.u64(s.bytes);
    e.opt_str(s.custom_title.as_deref());
    e.opt_str(s.ai_title.as_deref());
    e.opt_str(s.summary.as_deref());
    e.u64(s.summaries.len() as u64);
    for (title, leaf) in &s.summaries {
        e.str(title);
        e.str(leaf);
    }
    e.opt_str(s.first_prompt.as_deref());
    e.opt_str(s.first_command.as_deref());
    e.u64(s.malformed.len() as u64);
    for b in &s.malformed {
        e.opt_usize(b.line);
        e.u64(b.offset);
        e.u8(kind_code(b.kind));
    }
    e.opt_str(s.clone_boundary.as_deref());
    e.strs(s.continued_in.iter().map(String::as_str));
}

fn decode(d: &mut Dec<'_>) -> Option<Summary> {
    let mut s = Summary {
        cwd: opt_string(d)?,
        git_branch: opt_string(d)?,
        versions: d.owned_strs()?,
        models: d.owned_strs()?,
        started: d.ts()?,
        last_activity: d.ts()?,
        turns: d.opt_usize()?,
        inline_lanes: d.opt_usize()?,
        read: match d.u8()? {
            0 => ReadMode::Whole,
            1 => ReadMode::HeadTail,
            _ => return None,
        },
        bytes: d.u64()?,
        custom_title: opt_string(d)?,
        ai_title: opt_string(d)?,
        summary: opt_string(d)?,
        ..Summary::default()
    };
    for _ in 0..d.len(16)? {
        s.summaries.push((d.str()?.to_owned(), d.str()?.to_owned()));
    }
    s.first_prompt = opt_string(d)?;
    s.first_command = opt_string(d)?;
    for _ in 0..d.len(10)? {
        s.malformed.push(Bad {
            line: d.opt_usize()?,
            offset: d.u64()?,
            kind: kind_of(d.u8()?)?,
        });
    }
    s.clone_boundary = opt_string(d)?;
    s.continued_in = d.owned_strs()?;
    Some(s)
}

fn opt_string(d: &mut Dec<'_>) -> Option<Option<String>> {
    d.opt_str().map(|s| s.map(str::to_owned))
}

/// A kind as its index in [`MalformedKind::ALL`].
fn kind_code(k: MalformedKind) -> u8 {
    let at = MalformedKind::ALL.iter().position(|x| *x == k);
    at.map_or(u8::MAX, |i| i as u8)
}

fn kind_of(code: u8) -> Option<MalformedKind> {
    MalformedKind::ALL.get(usize::from(code)).copied()
}

#[cfg(test)]
mod tests;
