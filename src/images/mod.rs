//! Every image a transcript holds, located, identified, hashed and grouped by
//! content: the engine of `csift image` (and of export, which embeds them).
//!
//! Images ride inline as base64 in the JSONL line (IMG-001); nothing is
//! externalised. A file is searched for `"media_type"`, the key every image
//! block carries (IMG-003), and only lines holding it are skimmed ([`skim`]); a
//! file without one costs a single literal search.
//!
//! Identity: `L<line>i<n>`, the carrying record's 1-based line and the image's
//! 1-based ordinal in that record across every carrier (IMG-001/002). It is
//! stable because Claude Code only appends, a compaction included (CMP-018).
//! The model-facing `[Image #N]` handle is recovered by zipping the record's
//! markers with its images, only when the counts agree (IMG-005); it is per
//! prompt and reused (IMG-006), so each image also names the turn of the prompt
//! it belongs to. The same image re-sent at a prompt or re-included at a
//! compaction (IMG-008) is one content hash (of its base64 payload, which is
//! one text per content): [`group`] lists it once with its copies. Nothing is
//! decoded here ([`payload`]).

pub(crate) mod payload;
pub(crate) mod skim;

use rayon::prelude::*;
use std::collections::HashMap;

use crate::classify::FileIndex;
pub(crate) use skim::Carrier;

/// The key every image source carries, compact or re-spaced (IMG-003), and the
/// image `Read` echo's payload key (IMG-011), for a record that would carry
/// only the echo (none does on disk, IMG-013, but it is read if one appears).
fn candidate() -> &'static regex::bytes::Regex {
    crate::scan::re!(bytes r#""media_type"|"base64":"#)
}

/// One image occurrence.
#[derive(Debug, Clone)]
pub(crate) struct Image {
    pub(crate) line: usize,
    /// 1-based ordinal among the record's images (`i<n>`).
    pub(crate) block: usize,
    pub(crate) carrier: Carrier,
    pub(crate) media_type: String,
    /// The payload's JSON string as a range of the file.
    pub(crate) data: Option<(usize, usize)>,
    /// `[Image #N]`, when the record's markers match its images one to one.
    pub(crate) handle: Option<u32>,
    /// The turn whose prompt the image belongs to, and that prompt's line.
    pub(crate) turn: Option<usize>,
    pub(crate) prompt_line: Option<usize>,
    pub(crate) uuid: Option<String>,
    pub(crate) timestamp: Option<String>,
    /// Decoded size (from the payload's length) and the SHA-256 of the base64
    /// payload ([`payload::digest`]); `error` when there is no inline payload.
    pub(crate) bytes: u64,
    pub(crate) sha256: Option<[u8; 32]>,
    pub(crate) error: Option<String>,
}

impl Image {
    /// The stable id `L<line>i<n>`.
    pub(crate) fn id(&self) -> String {
        format!("L{}i{}", self.line, self.block)
    }
}

/// What one transcript holds.
#[derive(Debug, Default)]
pub(crate) struct FileImages {
    /// Every occurrence, in file order.
    pub(crate) images: Vec<Image>,
    /// `document` blocks met on the way (media, not images).
    pub(crate) documents: usize,
    /// Lines holding `"media_type"` where no image or document was read: a
    /// carrier csift does not read (a subagent record nested in an
    /// `agent_progress` record, whose lane file holds the image). A key quoted
    /// in text is escaped (`\"media_type\"`) and never matches. Counted, never hidden.
    pub(crate) unlisted_lines: usize,
    /// Candidate lines that are not one JSON object.
    pub(crate) malformed: usize,
}

/// Every image in the transcript `buf` (`lane`: a subagent transcript, whose
/// turns are counted from its seed).
pub(crate) fn scan(buf: &[u8], lane: bool) -> FileImages {
    let mut out = FileImages::default();
    if !candidate().is_match(buf) {
        return out;
    }
    let (idx, lines) = FileIndex::build_finding(buf, lane, candidate(), 0);
    // Skimmed and hashed in parallel, each payload while it is in cache;
    // assembled in file order.
    let recs: Vec<(skim::RecordImages, Vec<Digest>)> = lines
        .par_iter()
        .map(|l| {
            let rec = skim::record(l.bytes, l.offset);
            let digests = rec.images.iter().map(|f| digest(buf, f)).collect();
            (rec, digests)
        })
        .collect();
    for (line, (rec, digests)) in lines.iter().zip(recs) {
        out.malformed += usize::from(rec.malformed);
        out.documents += rec.documents;
        if rec.images.is_empty() {
            out.unlisted_lines += usize::from(rec.documents == 0);
            continue;
        }
        let zip = rec.markers.len() == rec.images.len();
        let turn = idx.turn(line.no);
        let prompt_line = turn.and_then(|t| idx.turn_start(t));
        for (i, (f, d)) in rec.images.into_iter().zip(digests).enumerate() {
            let (bytes, sha256, error) = match d {
                Ok((n, h)) => (n, Some(h), None),
                Err(e) => (0, None, Some(e)),
            };
            out.images.push(Image {
                line: line.no,
                block: i + 1,
                carrier: f.carrier,
                media_type: f.media_type,
                data: f.data,
                handle: zip.then(|| rec.markers[i]),
                turn,
                prompt_line,
                uuid: rec.uuid.clone(),
                timestamp: rec.timestamp.clone(),
                bytes,
                sha256,
                error,
            });
        }
    }
    out
}

type Digest = Result<(u64, [u8; 32]), String>;

fn digest(buf: &[u8], f: &skim::Found) -> Digest {
    match f.data {
        Some((a, b)) => payload::digest(&buf[a..b]),
        None => Err(format!(
            "no inline payload (source type `{}`)",
            f.source_kind
        )),
    }
}

/// One distinct image of a file: its first occurrence and later copies, as
/// indexes into [`FileImages::images`].
#[derive(Debug, Clone)]
pub(crate) struct Distinct {
    pub(crate) first: usize,
    pub(crate) copies: Vec<usize>,
}

/// Group a file's occurrences by content hash, in order of first appearance.
/// An image without a hash (no inline payload) is its own group: two
/// unreadable payloads are never called the same image.
pub(crate) fn group(images: &[Image]) -> Vec<Distinct> {
    let mut out: Vec<Distinct> = Vec::new();
    let mut by_hash: HashMap<[u8; 32], usize> = HashMap::new();
    for (i, im) in images.iter().enumerate() {
        match im.sha256 {
            Some(h) => match by_hash.get(&h) {
                Some(&g) => out[g].copies.push(i),
                None => {
                    by_hash.insert(h, out.len());
                    out.push(Distinct {
                        first: i,
                        copies: Vec::new(),
                    });
                }
            },
            None => out.push(Distinct {
                first: i,
                copies: Vec::new(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests;
