//! The on-disk forms of a decoded literal, for [`super::prefilter`]: the piece
//! of a literal a line must hold past a unit's glue ([`on_disk_piece`]), and
//! each way that piece may be written in a line's JSON ([`forms_of`]: as
//! written, JSON-escaped, with quotes mixed, re-spaced, and as a regex for the
//! `\u` escapes Python writes for non-ASCII, [`ascii_escaped`]).

/// The part of a required literal that a line holding a match holds, or
/// `None` when no part is sure to be. A unit's text joins decoded pieces with
/// glue that is not on disk: `\n` between text blocks, tool-result parts and
/// hook strings, and `[kind]` for a part with no text, whose kind is on disk as
/// its `type`. A match that crosses a `\n` join holds the literal's part before
/// its first newline in one piece and the part after its last in another, so
/// the longer of the two is on disk either way; a match inside a placeholder
/// holds the literal without its brackets. (A tool call's `name input` and a
/// system record's `subtype detail` are joined by a space: [`forms_of`].)
/// A U+FFFD in a unit's text may stand for a lone surrogate escape on disk
/// (`\ud83c`, [`crate::record::surrogate`]): it is cut out as a newline is.
pub(super) fn on_disk_piece(lit: &[u8]) -> Option<&[u8]> {
    const FFFD: &[u8] = "\u{FFFD}".as_bytes();
    let mut piece = lit;
    if let (Some(first), Some(last)) = (memchr::memchr(b'\n', lit), memchr::memrchr(b'\n', lit)) {
        let (pre, suf) = (&lit[..first], &lit[last + 1..]);
        piece = if suf.len() > pre.len() { suf } else { pre };
    }
    if let (Some(first), Some(last)) = (
        memchr::memmem::find(piece, FFFD),
        memchr::memmem::rfind(piece, FFFD),
    ) {
        let (pre, suf) = (&piece[..first], &piece[last + FFFD.len()..]);
        piece = if suf.len() > pre.len() { suf } else { pre };
    }
    let piece = piece.strip_prefix(b"[").unwrap_or(piece);
    let piece = piece.strip_suffix(b"]").unwrap_or(piece);
    (!piece.is_empty()).then_some(piece)
}

/// Every on-disk form of a decoded literal.
pub(super) fn forms_of(lit: &[u8]) -> Vec<Vec<u8>> {
    let mut bases = vec![lit.to_vec()];
    for (i, _) in lit.iter().enumerate().filter(|(_, &b)| b == b' ') {
        let piece = if i + 1 < lit.len() {
            &lit[i + 1..]
        } else {
            &lit[..i]
        };
        bases.push(piece.to_vec());
    }
    let mut out: Vec<Vec<u8>> = Vec::new();
    for b in &bases {
        for f in encodings(b) {
            // A tool input matches as compact JSON; a line re-serialised with
            // blanks after its colons and commas (REC-038) holds it spaced.
            let spaced = json_spaced(&f);
            for g in [Some(f), spaced].into_iter().flatten() {
                if !out.contains(&g) {
                    out.push(g);
                }
            }
        }
    }
    out
}

/// Most quotes in a literal whose escaped/unescaped mixes are all offered.
const QUOTE_MIXES: usize = 4;

/// The byte forms of one literal: as written (raw JSON text, a tool_use's
/// input, REC-037), JSON-escaped (decoded text), and, since a match of a
/// decoded tool input can run from a string's content over its closing quote
/// into the JSON around it, every mix of escaped and raw quotes. Past
/// [`QUOTE_MIXES`] quotes, the longest piece holding nothing JSON escapes
/// stands for the mixes instead (less selective, never wrong).
fn encodings(b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![b.to_vec()];
    let esc = json_escape(b);
    if esc == b {
        return out;
    }
    out.push(esc);
    let quotes: Vec<usize> = (0..b.len()).filter(|&i| b[i] == b'"').collect();
    if quotes.len() < 2 && quotes.len() == b.iter().filter(|&&c| escapes(c)).count() {
        return out; // raw and escaped are every form
    }
    if quotes.len() > QUOTE_MIXES {
        let piece = b
            .split(|&c| escapes(c))
            .max_by_key(|p| p.len())
            .unwrap_or_default();
        out.push(piece.to_vec());
        return out;
    }
    for mask in 0..(1usize << quotes.len()) {
        let mut f = Vec::with_capacity(b.len() * 2);
        for (i, &c) in b.iter().enumerate() {
            match quotes.iter().position(|&q| q == i) {
                Some(k) if mask & (1 << k) == 0 => f.push(b'"'),
                Some(_) => f.extend_from_slice(b"\\\""),
                None => f.extend(json_escape(&[c])),
            }
        }
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// A byte JSON escapes inside a string.
pub(super) fn escapes(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// `f` with a blank after each colon and comma that may be JSON's, one
/// followed by what starts a value or key (`"a":"b",1` as `"a": "b", 1`,
/// Python's `json.dumps`), or `None` when it has none. A colon or comma in
/// prose gets one too: an extra form costs candidates, never a hit.
fn json_spaced(f: &[u8]) -> Option<Vec<u8>> {
    let structural = |i: usize| {
        matches!(f[i], b':' | b',')
            && f.get(i + 1).is_some_and(|&n| {
                matches!(n, b'"' | b'{' | b'[' | b'-') || n.is_ascii_alphanumeric()
            })
    };
    if !(0..f.len()).any(structural) {
        return None;
    }
    let mut out = Vec::with_capacity(f.len() + 8);
    for (i, &c) in f.iter().enumerate() {
        out.push(c);
        if structural(i) {
            out.push(b' ');
        }
    }
    Some(out)
}

/// The form Python's `json.dumps` writes by default (`ensure_ascii`), as a
/// regex: every non-ASCII character as `\uXXXX` (a surrogate pair past
/// U+FFFF), hex digits in either case, and with `ci` each case variant of the
/// character. Claude Code writes non-ASCII verbatim (REC-095), but a transcript
/// re-serialised by Python (REC-038) holds this form, and serde decodes it to
/// the same text. `None` when `lit` is ASCII or not UTF-8.
pub(super) fn ascii_escaped(lit: &[u8], ci: bool) -> Option<String> {
    let s = std::str::from_utf8(lit).ok()?;
    if s.is_ascii() {
        return None;
    }
    let mut re = String::new();
    for c in s.chars() {
        if c.is_ascii() {
            let mut buf = [0u8; 4];
            let esc = json_escape(c.encode_utf8(&mut buf).as_bytes());
            re.push_str(&regex::escape(&String::from_utf8_lossy(&esc)));
            continue;
        }
        // With -i or smart case, every character the regex's simple case
        // folding makes equal (`σ` also `ς` and `Σ`; `ω` also the Ohm sign).
        let mut variants = vec![c];
        if ci {
            use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
            let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
            class.case_fold_simple();
            for r in class.iter() {
                for v in r.start()..=r.end() {
                    if !variants.contains(&v) {
                        variants.push(v);
                    }
                }
            }
        }
        let alts: Vec<String> = variants
            .iter()
            .map(|&v| {
                if v.is_ascii() {
                    return regex::escape(v.encode_utf8(&mut [0u8; 4]));
                }
                let mut units = [0u16; 2];
                v.encode_utf16(&mut units)
                    .iter()
                    .map(|u| {
                        let hex: String = format!("{u:04x}")
                            .chars()
                            .map(|h| match h {
                                'a'..='f' => format!("[{h}{}]", h.to_ascii_uppercase()),
                                _ => h.to_string(),
                            })
                            .collect();
                        format!(r"\\u{hex}")
                    })
                    .collect()
            })
            .collect();
        re.push_str(&format!("(?:{})", alts.join("|")));
    }
    Some(re)
}

/// JavaScript `JSON.stringify` string escaping (without the quotes).
pub(crate) fn json_escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b if b < 0x20 => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            b => out.push(b),
        }
    }
    out
}
