//! One bounded scan window: the complete lines in `[offset, offset + 8 MB)` of
//! the transcript, grouped by message.id the way `audit`'s eaten-text rule does
//! (main context only: sidechain records are skipped, their losses are not the
//! parent's to restate). Counts carried from earlier windows seed a group on its
//! first appearance, because the main-lane writer lags the conversation
//! (TAIL-003) and one response's records can straddle fires. A torn final line
//! is held back for the next fire (TAIL-012).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use crate::loss::fnv1a;
use crate::loss::lite::{kinds, LiteMessage};
use crate::loss::skim::{skim, Top};

use super::state::{keep_last, Carried, CARRY_CAP};

/// Bytes read per fire: bounds the work so an arm stays far inside the 10 s
/// hook timeout on any transcript, while the offset always advances.
pub(crate) const MAX_WINDOW: u64 = 8_000_000;
/// First-fire tail: enough to hold any final turn.
pub(crate) const TAIL_SCAN: u64 = 4_000_000;

#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// New eaten responses, `"<mid>@HH:MM:SS"`, in first-record order.
    pub(crate) hits: Vec<String>,
    pub(crate) new_offset: u64,
    pub(crate) carry: Vec<Carried>,
}

struct Group {
    mid: String,
    thinking: u32,
    text: u32,
    uuids: Vec<u64>,
    hms: String,
}

/// Scan from `offset`. `final_turn_only` (first fire / re-baseline) resets the
/// groups at every typed user prompt, so only the final turn can flag.
pub(crate) fn scan(
    file: &File,
    size: u64,
    offset: u64,
    carry: Vec<Carried>,
    flagged: &[String],
    final_turn_only: bool,
) -> std::io::Result<Scan> {
    let buf = read_at(file, offset, size.saturating_sub(offset).min(MAX_WINDOW))?;
    let Some(last_nl) = memchr::memrchr(b'\n', &buf) else {
        return Ok(Scan {
            hits: Vec::new(),
            new_offset: offset,
            carry,
        });
    };
    let body = &buf[..=last_nl];
    let mut groups = Groups::default();
    // A glued line's records (a write race) are read one by one, as audit
    // reads them.
    let records = body.split(|&b| b == b'\n').flat_map(|raw| match skim(raw) {
        Err(crate::scan::json::Flaw::Glued) => glued_objects(raw),
        _ => vec![raw],
    });
    for raw in records {
        let Ok(top) = skim(raw) else { continue };
        if final_turn_only && is_typed_prompt(&top) {
            groups.list.clear();
            groups.index.clear();
            continue;
        }
        groups.feed(&top, &carry);
    }
    let hits = groups
        .list
        .iter()
        .filter(|g| g.thinking >= 2 && g.text == 0 && !flagged.contains(&g.mid))
        .map(|g| format!("{}@{}", g.mid, g.hms))
        .collect();
    Ok(Scan {
        hits,
        new_offset: offset + last_nl as u64 + 1,
        carry: groups.carry_forward(carry),
    })
}

/// A main-context prompt the user typed: it opens a turn.
fn is_typed_prompt(top: &Top<'_>) -> bool {
    top.is(b"user")
        && !top.is_sidechain
        && !top.is_meta
        && top
            .message
            .and_then(LiteMessage::parse)
            .is_some_and(|m| m.is_typed_prompt())
}

/// The window's message.id groups in first-record order.
#[derive(Default)]
struct Groups {
    list: Vec<Group>,
    index: HashMap<String, usize>,
}

impl Groups {
    /// Count a main-context assistant record into its message.id group.
    fn feed(&mut self, top: &Top<'_>, carry: &[Carried]) {
        if !top.is(b"assistant") || top.is_sidechain {
            return;
        }
        let Some(m) = top.message.and_then(LiteMessage::parse) else {
            return;
        };
        let (Some(mid), Some(blocks)) = (m.id(), m.blocks()) else {
            return;
        };
        let k = kinds(blocks);
        let i = self.slot(&mid, top, carry);
        // REC-091: a resume replays records under their own uuids; a copy is
        // the same record, counted once (as audit counts it).
        let g = &mut self.list[i];
        if k.thinking || k.text {
            if let Some(key) = top.uuid.filter(|u| !u.is_empty()).map(fnv1a) {
                if g.uuids.contains(&key) {
                    return;
                }
                g.uuids.push(key);
            }
        }
        g.thinking += u32::from(k.thinking);
        g.text += u32::from(k.text);
    }

    /// The group of `mid`, opened on its first record here, seeded by the
    /// counts an earlier window carried.
    fn slot(&mut self, mid: &str, top: &Top<'_>, carry: &[Carried]) -> usize {
        if let Some(&i) = self.index.get(mid) {
            return i;
        }
        let prev = carry.iter().find(|c| *c.mid == *mid);
        let hms = top
            .timestamp
            .and_then(|t| t.get(11..19.min(t.len())))
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .unwrap_or_default();
        self.list.push(Group {
            mid: mid.to_string(),
            thinking: prev.map_or(0, |p| p.thinking),
            text: prev.map_or(0, |p| p.text),
            uuids: prev.map_or_else(Vec::new, |p| p.uuids.clone()),
            hms,
        });
        self.index.insert(mid.to_string(), self.list.len() - 1);
        self.list.len() - 1
    }

    /// What the next window carries: the old carry less the mids seen here,
    /// then this window's groups. Active mids move to the young end so the
    /// cap never evicts one mid-straddle.
    fn carry_forward(self, carry: Vec<Carried>) -> Vec<Carried> {
        let mut new_carry: Vec<Carried> = carry
            .into_iter()
            .filter(|c| !self.index.contains_key(&c.mid))
            .collect();
        new_carry.extend(self.list.into_iter().map(|g| Carried {
            mid: g.mid,
            thinking: g.thinking,
            text: g.text,
            uuids: g.uuids,
        }));
        keep_last(&mut new_carry, CARRY_CAP);
        new_carry
    }
}

/// The whole objects of a glued line, as byte slices.
fn glued_objects(raw: &[u8]) -> Vec<&[u8]> {
    let line = crate::scan::Line {
        no: 0,
        offset: 0,
        bytes: raw,
        terminated: true,
    };
    crate::record::glued_records(&line)
        .into_iter()
        .map(|l| l.bytes)
        .collect()
}

/// FNV-1a (hex) of the transcript's first line, within its first 4,096 bytes: a
/// truncated-and-regrown or replaced file gets a new anchor.
pub(crate) fn anchor(file: &File, size: u64) -> std::io::Result<String> {
    let head = read_at(file, 0, size.min(4096))?;
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    Ok(format!("{:016x}", fnv1a(first)))
}

/// Where a first fire starts: `size - TAIL_SCAN`, moved to the next line start.
pub(crate) fn tail_start(file: &File, size: u64) -> std::io::Result<u64> {
    let from = size.saturating_sub(TAIL_SCAN);
    if from == 0 {
        return Ok(0);
    }
    let buf = read_at(
        file,
        from - 1,
        (TAIL_SCAN.min(1 << 20) + 1).min(size - (from - 1)),
    )?;
    Ok(match memchr::memchr(b'\n', &buf) {
        Some(i) => from - 1 + i as u64 + 1,
        None => from,
    })
}

/// Up to `n` bytes of `file` from `offset`, never more than the caller's size
/// at open allows: every read of the guard is bounded by the length of the
/// file it opened (a `/proc` file that reports none is read as empty).
fn read_at(file: &File, offset: u64, n: u64) -> std::io::Result<Vec<u8>> {
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    f.take(n).read_to_end(&mut buf)?;
    Ok(buf)
}
