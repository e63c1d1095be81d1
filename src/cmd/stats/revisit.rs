//! The census's own file index. A census parses every line, so it builds the
//! [`FileIndex`] from that parse ([`Piece::note`]) instead of a separate literal
//! pass, and classifies each record first against an empty index. The few
//! records whose labels can depend on the finished index are remembered as
//! [`Cand`]idates and revisited once it exists: turn openers (a superseded draft
//! is `user.unsent`, a lane's seed is inbox; TURN-022, REC-031), meta texts that
//! may repeat an armed ScheduleWakeup prompt (CLS-015), and tool-result carriers
//! answering a spawn call (CLS-010). A revisit re-parses the line and swaps its
//! provisional labels for the final ones, and counts the turns the openers open.
//! An opener's line is re-parsed only when the finished index can relabel it
//! ([`Facts`]): re-parsing every one read the generated home's image prompts
//! twice, 4% of stats' CPU there.

use crate::classify::index::{legacy_seed_shape, Piece};
use crate::classify::unit::index_bound;
use crate::classify::{classify_labels, turns, FileIndex};
use crate::record::{parse_line, Parsed, Record};
use crate::scan::Line;

use super::model::Census;

/// Why a record may need its labels revisited.
#[derive(Debug, Clone)]
pub(crate) enum Why {
    /// A turn opener; `None` when what its first read learnt is not known
    /// (an entry cached before it was kept): re-read it.
    Opener(Option<Facts>),
    /// A meta user text (a wakeup prompt if the file arms one with this text).
    Meta,
    /// A tool-result carrier; the tool_use ids it answers.
    Carrier(Vec<String>),
}

/// What the first read of a turn opener learnt of it: enough to count the
/// turn it opens, and to tell whether the finished index can relabel it
/// ([`index_bound`]; else only as a draft or a lane's seed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) bound: bool,
    /// [`turns::is_operator_prose`].
    pub(crate) prose: bool,
    /// [`legacy_seed_shape`].
    pub(crate) legacy: bool,
}

impl Facts {
    fn of(r: &Record<'_>) -> Facts {
        Facts {
            bound: index_bound(r),
            prose: turns::is_operator_prose(r),
            legacy: legacy_seed_shape(r),
        }
    }

    /// The three flags as one byte (the census cache's form).
    pub(crate) fn bits(self) -> u8 {
        u8::from(self.bound) | u8::from(self.prose) << 1 | u8::from(self.legacy) << 2
    }

    pub(crate) fn from_bits(b: u8) -> Option<Facts> {
        (b < 8).then_some(Facts {
            bound: b & 1 != 0,
            prose: b & 2 != 0,
            legacy: b & 4 != 0,
        })
    }
}

/// A record counted inside the window whose labels may change.
#[derive(Debug, Clone)]
pub(crate) struct Cand {
    pub(crate) no: usize,
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) why: Why,
}

/// Note `r` (line `l`) in the piece and, when it was counted (`counted`), say
/// whether its labels wait on the finished index.
pub(crate) fn note(piece: &mut Piece, r: &Record<'_>, l: &Line<'_>, counted: bool) -> Option<Cand> {
    let opener = piece.note(r, l.no, l.offset);
    if !counted || r.kind() != "user" || !r.has_message() {
        return None;
    }
    let why = if opener {
        Why::Opener(Some(Facts::of(r)))
    } else if r.blocks().iter().any(|b| b.kind() == "tool_result") {
        let ids: Vec<String> = r
            .blocks()
            .iter()
            .filter(|b| b.kind() == "tool_result")
            .filter_map(|b| b.tool_use_id.as_deref().map(str::to_string))
            .collect();
        if ids.is_empty() {
            return None;
        }
        Why::Carrier(ids)
    } else if r.is_meta() {
        Why::Meta
    } else {
        return None;
    };
    Some(Cand {
        no: l.no,
        offset: l.offset,
        len: l.bytes.len(),
        why,
    })
}

/// Add (`add`) or take back the labels `r` gets under `idx`.
fn count(c: &mut Census, r: &Record<'_>, no: usize, idx: &FileIndex, add: bool) {
    let mut units = Vec::new();
    classify_labels(r, no, idx, &mut units);
    let step = |v: &mut u64| {
        if add {
            *v += 1;
        } else {
            *v = v.saturating_sub(1);
        }
    };
    for u in &units {
        step(&mut c.units);
        step(&mut c.labels[u.label as usize]);
        if let Some(x) = u.also {
            step(&mut c.labels_secondary[x as usize]);
        }
    }
}

/// Revisit the candidates of `buf` against the finished `idx`: swap labels
/// where the index changes them and count the turns the openers open.
pub(crate) fn apply(c: &mut Census, buf: &[u8], idx: &FileIndex, lane: bool, cands: &[Cand]) {
    let empty = FileIndex::empty(lane);
    let wakeups = idx.has_wakeup_prompts();
    for cand in cands {
        let relabel = match &cand.why {
            Why::Opener(Some(f)) => f.bound || idx.is_draft(cand.no) || idx.is_seed(cand.no),
            Why::Opener(None) => true,
            Why::Meta => wakeups,
            Why::Carrier(ids) => ids.iter().any(|id| idx.is_spawn(id)),
        };
        if relabel {
            let Some(r) = reread(buf, cand) else { continue };
            count(c, &r, cand.no, &empty, false);
            count(c, &r, cand.no, idx, true);
            if matches!(cand.why, Why::Opener(_)) {
                opened(c, idx, cand.no, Facts::of(&r));
            }
        } else if let Why::Opener(Some(f)) = cand.why {
            // Labelled alike under both indexes: only its turn is counted.
            opened(c, idx, cand.no, f);
        }
    }
}

/// The record on a candidate's line, parsed again.
fn reread<'b>(buf: &'b [u8], cand: &Cand) -> Option<Box<Record<'b>>> {
    let bytes = buf.get(cand.offset..cand.offset + cand.len)?;
    let line = Line {
        no: cand.no,
        offset: cand.offset,
        bytes,
        terminated: true,
    };
    match parse_line(&line) {
        Parsed::Record(r) => Some(r),
        Parsed::Malformed(_) => None,
    }
}

/// Count the turn an opener at line `no` opens under the finished index.
fn opened(c: &mut Census, idx: &FileIndex, no: usize, f: Facts) {
    if let Some(n) = idx.turn(no).filter(|&n| n > 0) {
        if idx.turn_start(n) == Some(no) {
            c.turns += 1;
            // A lane's seed is its spawn prompt (REC-031), labelled
            // agent.communication.inbox: the parent wrote it, not the operator.
            let seed = idx.is_seed(no) || idx.is_legacy_seed_of(f.legacy);
            c.genuine_user_turns += u64::from(!seed && f.prose);
        }
    }
}
