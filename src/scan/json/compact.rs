//! Rewriting JSON text rather than locating in it: the compact form Claude
//! Code writes (REC-037, REC-038, REC-095), and a value's strings decoded for
//! reading.

use super::string_end;

/// `raw` (valid JSON) with the whitespace between tokens removed: the compact
/// form Claude Code writes, keeping key order. A line re-serialised with spaces
/// is the same record (REC-038), so its tool input must read the same
/// (REC-037); and a string another writer escaped differently (Python's
/// `\u00e9` for `é`, `\/` for `/`) is re-escaped the way Claude Code's
/// `JSON.stringify` writes it (non-ASCII verbatim, REC-095). Borrowed when
/// there is nothing to change, which is every line Claude Code wrote itself.
pub(crate) fn compact(raw: &str) -> std::borrow::Cow<'_, str> {
    let b = raw.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let (mut i, mut kept) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                let Ok(end) = string_end(b, i + 1) else {
                    return std::borrow::Cow::Borrowed(raw);
                };
                if let Some(canon) = restringify(&raw[i..end]) {
                    let o = out.get_or_insert_with(|| Vec::with_capacity(b.len()));
                    o.extend_from_slice(&b[kept..i]);
                    o.extend_from_slice(canon.as_bytes());
                    kept = end;
                }
                i = end;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {
                let o = out.get_or_insert_with(|| Vec::with_capacity(b.len()));
                o.extend_from_slice(&b[kept..i]);
                while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
                    i += 1;
                }
                kept = i;
            }
            _ => i += 1,
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(raw),
        Some(mut o) => {
            o.extend_from_slice(&b[kept..]);
            // Blanks between tokens dropped, whole strings replaced: still UTF-8.
            String::from_utf8(o).map_or(std::borrow::Cow::Borrowed(raw), std::borrow::Cow::Owned)
        }
    }
}

/// A JSON string (with its quotes) escaped as `JSON.stringify` escapes it, when
/// that differs: only a string holding `\u` or `\/` can differ, since every
/// other escape is the one JavaScript writes. A lone surrogate, which a Rust
/// string cannot hold, is left as written.
fn restringify(quoted: &str) -> Option<String> {
    let body = quoted.as_bytes();
    if memchr::memmem::find(body, b"\\u").is_none() && memchr::memmem::find(body, b"\\/").is_none()
    {
        return None;
    }
    let text: String = serde_json::from_str(quoted).ok()?;
    // serde escapes what JSON.stringify escapes: `"`, `\`, \b \f \n \r \t,
    // other controls as lowercase `\u00xx`; everything else verbatim.
    let canon = serde_json::to_string(&text).ok()?;
    (canon != quoted).then_some(canon)
}

/// `json` (valid JSON) with every string's escapes decoded in place: `\"` as a
/// quote, `\n` as a newline, `\u00e9` as `é`. The delimiting quotes stay, so
/// keys and structure still read (`"command":"git commit -m "fix""`); the
/// result is text to match and read, no longer JSON. `None` when no string
/// holds an escape (the text would be unchanged) or a string does not decode.
pub(crate) fn decode_strings(json: &str) -> Option<String> {
    let b = json.as_bytes();
    memchr::memchr(b'\\', b)?;
    let mut out = String::with_capacity(json.len());
    let (mut i, mut kept) = (0, 0);
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let end = string_end(b, i + 1).ok()?;
        let body = &b[i + 1..end - 1];
        if memchr::memchr(b'\\', body).is_some() {
            let decoded: String = serde_json::from_str(json.get(i..end)?).ok()?;
            out.push_str(json.get(kept..i + 1)?);
            out.push_str(&decoded);
            out.push('"');
            kept = end;
        }
        i = end;
    }
    out.push_str(json.get(kept..)?);
    Some(out)
}
