//! `stats` in the census cache ([`crate::cache`]). An entry splits in two
//! ([`crate::cache::Census::SPLIT`]): its answer is the finished census and
//! token book of the whole file (sealed with the file's bytes at hand), which
//! an unchanged file returns with no read of its bytes; its resume state is
//! the unfinished scan of the file's whole lines (counts, call joins, the
//! pieces of its file index, the records waiting on that index), which a file
//! that grew merges the scan of its appended lines into exactly as a large
//! file merges its chunks. The token book is kept once: the scan's book is the
//! answer's (finishing it only sorts its progress ids and fills two notes that
//! every finish fills again), except for a file with an unterminated final
//! line, whose answer holds that line and whose scan does not. The byte form
//! is in [`super::codec`].
//!
//! Only a run with no `--since`/`--until` goes through the cache (a window
//! counts a record by the time carried from the records before it, so a
//! windowed census is not one of whole-file facts); such a run reads every
//! file whole, as before.
//!
//! A census depends on one thing outside its file: whether each agent named
//! by an `agent_progress` record has a lane file of its own (then its nested
//! records count there, not here). The entry lists those agents with the
//! answer the scan got; a different answer now is a miss.

use super::census::{scan_chunked, Embeds, Part, Scan, CHUNK};
use super::codec::encode_scan;
use super::codec::{decode_book, decode_census, decode_scan};
use super::codec::{encode_book, encode_census};
use super::model::Census;
use crate::cache::{Dec, Enc, Pos};
use crate::timefmt::Window;
use crate::tokens::book::Book;

/// What a scan of a file's lines needs beside the bytes.
pub(crate) struct Ctx {
    pub(crate) lane: bool,
    pub(crate) embeds: Embeds,
}

impl Ctx {
    /// Whether `agent`'s nested records count in this file now.
    fn counts(&self, agent: &str) -> bool {
        self.embeds.as_ref().is_some_and(|l| !l.contains(agent))
    }
}

/// One transcript's `stats` census as the cache keeps it.
pub(crate) struct FileCensus {
    lane: bool,
    embeds: bool,
    /// The agents the scan asked about, and whether their records counted.
    agents: Vec<(String, bool)>,
    state: State,
    /// The finished census of the lines read so far (an answer read back, or
    /// sealed with the file at hand); `None` once more lines are merged in,
    /// until sealed again.
    sealed: Option<(Census, Book)>,
    /// The cached scan could not be read back: the caller censuses the file
    /// whole instead (never a wrong count).
    broken: bool,
}

enum State {
    Scan(Box<Scan>),
    /// The scan encoded without its book (sealed for an entry: the finished
    /// book is the same).
    Raw(Vec<u8>),
    /// Finished with no scan kept (an answer read back, or sealed for no entry).
    Gone,
}

impl FileCensus {
    fn of(s: Scan, ctx: &Ctx) -> FileCensus {
        FileCensus {
            lane: ctx.lane,
            embeds: ctx.embeds.is_some(),
            agents: s.agents.iter().map(|(a, c)| (a.clone(), *c)).collect(),
            state: State::Scan(Box::new(s)),
            sealed: None,
            broken: false,
        }
    }

    /// The finished census and token book, or `None` when this census holds
    /// only a scan (the caller finishes it with the file's bytes) or could not
    /// be read back.
    pub(crate) fn take_sealed(&mut self) -> Option<(Census, Book)> {
        if self.broken {
            return None;
        }
        self.sealed.take()
    }

    /// The unfinished scan, when it could be read back.
    fn into_scan(self) -> Option<Scan> {
        match self.state {
            State::Scan(s) if !self.broken => Some(*s),
            _ => None,
        }
    }

    fn scan_mut(&mut self) -> Option<&mut Scan> {
        if let State::Raw(raw) = &self.state {
            let book = self.sealed.take().map(|(_, b)| b)?;
            let mut d = Dec::new(raw);
            let s = decode_scan(&mut d, Some(book)).filter(|_| d.done())?;
            self.state = State::Scan(Box::new(s));
        }
        match &mut self.state {
            State::Scan(s) => Some(s),
            _ => None,
        }
    }
}

impl crate::cache::Census for FileCensus {
    const KIND: &'static str = "stats";
    const VERSION: u32 = 4;
    const SPLIT: bool = true;
    type Ctx = Ctx;

    fn scan(buf: &[u8], at: Pos, ctx: &Ctx) -> FileCensus {
        let p = Part {
            bytes: buf,
            base: at.offset as usize,
            first_no: at.line as usize,
        };
        let s = scan_chunked(p, ctx.lane, &Window::default(), CHUNK, ctx.embeds.clone());
        FileCensus::of(s, ctx)
    }

    fn variant(ctx: &Ctx) -> &'static str {
        if ctx.embeds.is_some() {
            ""
        } else {
            "-own"
        }
    }

    fn valid(&self, ctx: &Ctx) -> bool {
        self.lane == ctx.lane
            && self.embeds == ctx.embeds.is_some()
            && self.agents.iter().all(|(a, c)| ctx.counts(a) == *c)
    }

    fn extend(&mut self, later: FileCensus) {
        let Some(more) = later.into_scan() else {
            self.broken = true;
            return;
        };
        let Some(s) = self.scan_mut() else {
            self.broken = true;
            return;
        };
        s.merge(more);
        self.agents = s.agents.iter().map(|(a, c)| (a.clone(), *c)).collect();
        self.sealed = None;
    }

    fn seal(&mut self, covered: &[u8], _ctx: &Ctx, kept: bool) {
        if self.broken {
            return;
        }
        // The scan is encoded for the entry now (or given up when none is
        // written) and finished by move: no copy of it is made.
        let State::Scan(s) = std::mem::replace(&mut self.state, State::Gone) else {
            return;
        };
        if kept {
            let mut e = Enc::default();
            encode_scan(&mut e, &s, false);
            self.state = State::Raw(e.buf);
        }
        self.sealed = Some(s.finalize(covered));
    }

    fn encode(&self, e: &mut Enc) {
        e.bool(self.lane);
        e.bool(self.embeds);
        e.u64(self.agents.len() as u64);
        for (a, c) in &self.agents {
            e.str(a);
            e.bool(*c);
        }
        match &self.sealed {
            None => e.bool(false),
            Some((c, b)) => {
                e.bool(true);
                encode_census(e, c);
                encode_book(e, b);
            }
        }
    }

    fn decode(d: &mut Dec<'_>) -> Option<FileCensus> {
        FileCensus::decode_answer(d)
    }

    fn encode_resume(&self, e: &mut Enc) {
        match &self.state {
            State::Raw(raw) => {
                e.u8(0);
                e.bytes(raw);
            }
            State::Scan(s) => {
                e.u8(1);
                encode_scan(e, s, true);
            }
            State::Gone => e.u8(2),
        }
    }

    fn resume(answer: &[u8], d: &mut Dec<'_>) -> Option<FileCensus> {
        let mut a = Dec::new(answer);
        let mut fc = FileCensus::decode_answer(&mut a).filter(|_| a.done())?;
        let s = match d.u8()? {
            0 => {
                let book = fc.sealed.take().map(|(_, b)| b)?;
                let mut inner = Dec::new(d.bytes()?);
                decode_scan(&mut inner, Some(book)).filter(|_| inner.done())?
            }
            1 => decode_scan(d, None)?,
            _ => return None,
        };
        fc.sealed = None;
        fc.state = State::Scan(Box::new(s));
        Some(fc)
    }
}

impl FileCensus {
    /// An entry's answer.
    fn decode_answer(d: &mut Dec<'_>) -> Option<FileCensus> {
        let lane = d.bool()?;
        let embeds = d.bool()?;
        let mut agents = Vec::new();
        for _ in 0..d.len(9)? {
            agents.push((d.str()?.to_string(), d.bool()?));
        }
        let sealed = match d.bool()? {
            false => None,
            true => Some((decode_census(d)?, decode_book(d)?)),
        };
        Some(FileCensus {
            lane,
            embeds,
            agents,
            state: State::Gone,
            sealed,
            broken: false,
        })
    }
}
