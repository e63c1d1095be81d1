//! Content evidence kept as places in the transcript instead of as text.
//!
//! `recover --all` wants evidence for every path, and the decoded bodies
//! (Read windows, written files, Edit pre-images) of a whole home do not fit
//! in memory (1.2 GB at 4.8 GB of transcripts). So the pass keeps, for a
//! structured call or a `cat`, where its result echo and its input sit in the
//! file ([`Place`]); the replay of one path reads those bytes again and
//! decodes them with the same code the pass would have run
//! ([`super::evidence::decode`]), so the evidence is the same. The file must be
//! the one scanned ([`crate::scan::source::Seen`]): grown is fine (REC-087),
//! replaced or cut is refused. Evidence from bytes that are not the file's
//! own (a value decoded out of an escaped string) is kept decoded.

use serde_json::value::RawValue;

use super::echo::Evidence;
use super::Kind;

/// A touch's content evidence: decoded, or where to read it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kept {
    Now(Evidence),
    At(Place),
}

/// Bytes `at..at + len` of the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) at: u64,
    pub(crate) len: u32,
}

/// What a place decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// A structured call's evidence (its echo, else its input).
    Structured { tool: &'static str, kind: Kind },
    /// A clean `cat`'s stdout (from its echo).
    Cat,
}

/// Where a touch's evidence is: the result's echo and the call's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) what: What,
    pub(crate) echo: Option<Span>,
    pub(crate) input: Option<Span>,
}

/// Where `raw` sits in `base`, when it is a slice of it.
pub(crate) fn span(base: &[u8], raw: &RawValue) -> Option<Span> {
    let b = base.as_ptr() as usize;
    let p = raw.get().as_ptr() as usize;
    let len = raw.get().len();
    let at = p.checked_sub(b)?;
    (at.checked_add(len)? <= base.len()).then_some(Span {
        at: u64::try_from(at).ok()?,
        len: u32::try_from(len).ok()?,
    })
}

/// A place for `echo` and `input` in `base`: `None` when either is given but
/// is not a slice of `base` (the caller keeps the evidence decoded).
pub(crate) fn place(
    base: &[u8],
    what: What,
    echo: Option<&RawValue>,
    input: Option<&RawValue>,
) -> Option<Place> {
    let echo = match echo {
        Some(e) => Some(span(base, e)?),
        None => None,
    };
    let input = match input {
        Some(i) => Some(span(base, i)?),
        None => None,
    };
    Some(Place { what, echo, input })
}

/// A span's bytes as the raw JSON value they were.
pub(crate) fn raw(bytes: &[u8]) -> Option<&RawValue> {
    serde_json::from_slice::<&RawValue>(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value borrowed from the buffer has a place; one decoded elsewhere
    /// has none; the place's bytes are the value again.
    #[test]
    fn a_borrowed_value_has_a_place() {
        let line = br#"{"toolUseResult":{"type":"create","content":"a\nb"},"x":1}"#;
        #[derive(serde::Deserialize)]
        struct R<'a> {
            #[serde(borrow, rename = "toolUseResult")]
            e: &'a RawValue,
        }
        let r: R<'_> = serde_json::from_slice(line).unwrap();
        let s = span(line, r.e).unwrap();
        let bytes = &line[s.at as usize..][..s.len as usize];
        assert_eq!(raw(bytes).unwrap().get(), r.e.get());
        let other = RawValue::from_string(r.e.get().to_string()).unwrap();
        assert!(span(line, &other).is_none());
        assert!(place(line, What::Cat, Some(&other), None).is_none());
        assert!(place(line, What::Cat, Some(r.e), None).is_some());
    }
}
