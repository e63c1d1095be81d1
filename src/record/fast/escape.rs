//! A string's escapes decoded as serde_json decodes them, once the fast
//! reader's scan has found the string's end: a lone or reversed surrogate
//! escape is declined, since serde_json refuses it in a string it decodes.

use super::Decline;

/// Decode the escapes of a string body that [`string_end`] accepted; a
/// surrogate escape outside a well-formed pair is declined (serde_json
/// refuses it in a string it decodes).
pub(super) fn unescape(body: &str, out: &mut String) -> Result<(), Decline> {
    let mut rest = body;
    while let Some(at) = rest.find('\\') {
        out.push_str(rest.get(..at).ok_or(Decline)?);
        let esc = rest.get(at + 1..).ok_or(Decline)?;
        let (c, used) = match esc.as_bytes().first() {
            Some(b'"') => ('"', 1),
            Some(b'\\') => ('\\', 1),
            Some(b'/') => ('/', 1),
            Some(b'b') => ('\u{8}', 1),
            Some(b'f') => ('\u{c}', 1),
            Some(b'n') => ('\n', 1),
            Some(b'r') => ('\r', 1),
            Some(b't') => ('\t', 1),
            Some(b'u') => unicode(esc)?,
            _ => return Err(Decline),
        };
        out.push(c);
        rest = esc.get(used..).ok_or(Decline)?;
    }
    out.push_str(rest);
    Ok(())
}

/// The character of a `uXXXX` escape (`esc` starts at the `u`), or of a
/// `uXXXX\uXXXX` surrogate pair, and the bytes it took.
fn unicode(esc: &str) -> Result<(char, usize), Decline> {
    let hex = |s: Option<&str>| {
        s.and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or(Decline)
    };
    let n = hex(esc.get(1..5))?;
    if !(0xD800..=0xDFFF).contains(&n) {
        return char::from_u32(n).map(|c| (c, 5)).ok_or(Decline);
    }
    if n > 0xDBFF || esc.get(5..7) != Some("\\u") {
        return Err(Decline);
    }
    let lo = hex(esc.get(7..11))?;
    if !(0xDC00..=0xDFFF).contains(&lo) {
        return Err(Decline);
    }
    let c = 0x1_0000 + ((n - 0xD800) << 10) + (lo - 0xDC00);
    char::from_u32(c).map(|c| (c, 11)).ok_or(Decline)
}
