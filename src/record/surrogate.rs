//! Lone surrogate escapes. Node's `JSON.stringify` writes a string cut inside
//! an emoji (a preview, a truncated tool output) with its unpaired UTF-16 half
//! as an escape, `"\ud83c"` (well-formed JSON since ES2019; Python reads it).
//! serde_json refuses to decode such an escape into a `str`: without help the
//! record holding one in a text it reads was malformed, and a tool_result
//! string holding one decoded to nothing.
//!
//! csift reads such a string with U+FFFD in place of the lone half, as
//! `String::from_utf16_lossy` does, and only where a decode failed, so the
//! lines and values that decode (all but a few) cost nothing more:
//! - a line whose record fails to parse is looked at ([`readable`]); if it
//!   holds a lone surrogate escape, the record is read from a copy with each
//!   one replaced by `\ufffd` (six bytes for six: every offset into the line
//!   still holds), and says so (`Record::repaired`);
//! - a raw value decoded later (a tool_result's content, a system text, an
//!   attachment's hook output, a tool's echo) retries the same way when its
//!   decode fails ([`repair`], [`string`]).
//!
//! A record borrows from its line for the line's lifetime, which a copy made
//! here cannot have; so a repaired line is kept for the rest of the process,
//! once per distinct line (reading the same line again reuses it). The memory
//! is bounded by the distinct repaired lines a process reads: these are rare
//! lines (a cut string), and a repaired line is never copied twice.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// The code unit of the `\uXXXX` escape whose backslash is at `b[i]`, when
/// `b[i..]` is one (`\\u` is an escaped backslash and a `u`, not an escape).
fn escape_at(b: &[u8], i: usize) -> Option<u16> {
    if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
        return None;
    }
    // The backslash starts an escape only after an even run of backslashes.
    let run = b[..i].iter().rev().take_while(|&&c| c == b'\\').count();
    if run % 2 == 1 {
        return None;
    }
    let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// Byte offsets of the lone surrogate escapes in `b`, a JSON text: a high
/// half (`\ud800`–`\udbff`) not followed by a low one, or a low half
/// (`\udc00`–`\udfff`) not preceded by a high one.
fn lone(b: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut paired_low = None;
    for at in memchr::memmem::find_iter(b, b"\\u") {
        // Only a surrogate can be lone: `\uD…` in either case.
        if !matches!(b.get(at + 2), Some(b'd' | b'D')) {
            continue;
        }
        let Some(n) = escape_at(b, at) else { continue };
        match n {
            0xD800..=0xDBFF => {
                let low = escape_at(b, at + 6).filter(|m| (0xDC00..=0xDFFF).contains(m));
                match low {
                    Some(_) => paired_low = Some(at + 6),
                    None => out.push(at),
                }
            }
            0xDC00..=0xDFFF if paired_low != Some(at) => out.push(at),
            _ => {}
        }
    }
    out
}

/// `b` with every lone surrogate escape replaced by `\ufffd`, the same length;
/// `None` when it holds none.
pub(crate) fn repair(b: &[u8]) -> Option<Vec<u8>> {
    memchr::memmem::find(b, b"\\u")?;
    let at = lone(b);
    if at.is_empty() {
        return None;
    }
    let mut out = b.to_vec();
    for i in at {
        out[i..i + 6].copy_from_slice(b"\\ufffd");
    }
    Some(out)
}

/// [`repair`] of a JSON string value or text, as a `String` (for decoders that
/// own their output anyway); `None` when nothing needed repair or the bytes are
/// not UTF-8.
pub(crate) fn repaired_str(s: &str) -> Option<String> {
    String::from_utf8(repair(s.as_bytes())?).ok()
}

/// A JSON string value decoded, a lone surrogate escape read as U+FFFD;
/// `None` when `raw` is no string.
pub(crate) fn string(raw: &str) -> Option<String> {
    serde_json::from_str::<String>(raw)
        .ok()
        .or_else(|| serde_json::from_str::<String>(&repaired_str(raw)?).ok())
}

/// The bytes a reader parses for line `b`: `b` itself, or (`true`) its
/// repaired copy, kept for the rest of the process (see the module doc).
pub(crate) fn readable(b: &[u8]) -> (&[u8], bool) {
    match repair(b) {
        None => (b, false),
        Some(fixed) => (intern(fixed), true),
    }
}

/// The one kept copy of `fixed`.
fn intern(fixed: Vec<u8>) -> &'static [u8] {
    static KEPT: OnceLock<Mutex<HashSet<&'static [u8]>>> = OnceLock::new();
    let kept = KEPT.get_or_init(|| Mutex::new(HashSet::new()));
    // A poisoned lock still holds a valid set: every insert is one call.
    let mut set = kept.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = set.get(fixed.as_slice()) {
        return k;
    }
    let k: &'static [u8] = Box::leak(fixed.into_boxed_slice());
    set.insert(k);
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(s: &str) -> String {
        String::from_utf8(repair(s.as_bytes()).unwrap_or_else(|| s.as_bytes().to_vec())).unwrap()
    }

    #[test]
    fn only_lone_halves_are_replaced() {
        // Node's JSON.stringify of "ok 🎉" cut after the high half.
        assert_eq!(fixed(r#""ok \ud83c""#), r#""ok \ufffd""#);
        assert_eq!(fixed(r#""\udf89 tail""#), r#""\ufffd tail""#);
        assert_eq!(fixed(r#""\uD83C\u0041""#), r#""\ufffd\u0041""#);
        // A pair (as Python writes every emoji) is left alone, in either case.
        assert_eq!(repair(br#""\ud83c\udf89 \uD83D\uDE00""#), None);
        // A high half followed by another high half: both lone.
        assert_eq!(fixed(r#""\ud83c\ud83c\udf89""#), r#""\ufffd\ud83c\udf89""#);
        // `\\ud83c` is an escaped backslash and text, not an escape.
        assert_eq!(repair(br#""\\ud83c""#), None);
        assert_eq!(fixed(r#""\\\ud83c""#), r#""\\\ufffd""#);
        // Other escapes and a cut escape at the end never panic.
        assert_eq!(repair(br#""\u001b[0m \n \u""#), None);
        assert_eq!(repair(br#""\ud8"#), None);
    }

    #[test]
    fn a_repaired_line_decodes_with_the_replacement_character() {
        let line = r#"{"text":"cut \ud83c","pair":"\ud83c\udf89"}"#;
        assert!(serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line).is_err());
        let (b, repaired) = readable(line.as_bytes());
        assert!(repaired);
        assert_eq!(b.len(), line.len(), "offsets into the line still hold");
        let v: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(b).unwrap();
        assert_eq!(v["text"], "cut \u{FFFD}");
        assert_eq!(v["pair"], "\u{1F389}");
        // The same line again is the same kept copy.
        assert!(std::ptr::eq(readable(line.as_bytes()).0, b));
        let plain = br#"{"text":"no escape"}"#;
        assert!(std::ptr::eq(readable(plain).0, &plain[..]));
    }
}
