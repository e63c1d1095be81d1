//! Transcript text into HTML and Markdown without letting it become markup.
//! Every byte of transcript text goes through [`escape`]: the five HTML
//! specials become entities and the ASCII control characters (escape
//! sequences, NUL) their visible Unicode pictures (`␛`), so a transcript
//! holding `<script>` or `</details>` reads as that text. Markdown fences are
//! longer than any backtick run of what they hold ([`fence`]).

use std::io::{self, Write};

/// Bytes that cannot be written as they are: `<>&"'` and the controls other
/// than tab and newline.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = i != b'\t' as usize && i != b'\n' as usize;
        i += 1;
    }
    t[0x7f] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'&' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    // The lead byte of U+0080…U+00FF: the C1 controls (a CSI is U+009B).
    t[0xc2] = true;
    t
};

/// The C1 control whose UTF-8 encoding starts at `b[i]` (`0xC2`), if one does.
fn c1(b: &[u8], i: usize) -> Option<u8> {
    b.get(i + 1).copied().filter(|n| (0x80..=0x9f).contains(n))
}

/// Write `s` HTML-escaped: safe in element content and in quoted attributes.
pub(crate) fn escape<W: Write + ?Sized>(w: &mut W, s: &str) -> io::Result<()> {
    escape_with(w, s, true)
}

/// The replacement of one [`SPECIAL`] byte.
fn special<W: Write + ?Sized>(w: &mut W, c: u8) -> io::Result<()> {
    match c {
        b'<' => w.write_all(b"&lt;"),
        b'>' => w.write_all(b"&gt;"),
        b'&' => w.write_all(b"&amp;"),
        b'"' => w.write_all(b"&quot;"),
        b'\'' => w.write_all(b"&#39;"),
        0x7f => w.write_all("\u{2421}".as_bytes()),
        // U+2400 + c: the control picture (␀, ␛, ␍ …).
        c => write!(
            w,
            "{}",
            char::from_u32(0x2400 + u32::from(c)).unwrap_or('?')
        ),
    }
}

/// Write `s` for Markdown prose: `&`, `<` and `>` as entities (so no HTML
/// forms), the controls as pictures; quotes stay as they are.
pub(crate) fn escape_md<W: Write + ?Sized>(w: &mut W, s: &str) -> io::Result<()> {
    escape_with(w, s, false)
}

/// The one escaping walk: every [`SPECIAL`] byte replaced, quotes only when
/// `quotes` (HTML attributes need them; Markdown prose keeps them).
fn escape_with<W: Write + ?Sized>(w: &mut W, s: &str, quotes: bool) -> io::Result<()> {
    let b = s.as_bytes();
    let mut from = 0;
    for (i, &c) in b.iter().enumerate() {
        if !SPECIAL[c as usize] || i < from || (!quotes && (c == b'"' || c == b'\'')) {
            continue;
        }
        if c == 0xc2 {
            if let Some(n) = c1(b, i) {
                w.write_all(&b[from..i])?;
                write!(w, "&#x{n:X};")?;
                from = i + 2;
            }
            continue;
        }
        w.write_all(&b[from..i])?;
        from = i + 1;
        special(w, c)?;
    }
    w.write_all(&b[from..])
}

/// `s` escaped into a new string (for short texts: titles, summaries).
pub(crate) fn escaped(s: &str) -> String {
    let mut v = Vec::with_capacity(s.len() + 16);
    let _ = escape(&mut v, s);
    String::from_utf8(v).unwrap_or_default()
}

/// `s` with its control characters (but tab and newline) as their visible
/// pictures, for text that is not HTML-escaped (a Markdown code block).
pub(crate) fn pictured(s: &str) -> std::borrow::Cow<'_, str> {
    if !s
        .bytes()
        .any(|c| (c < 0x20 && c != b'\t' && c != b'\n') || c == 0x7f || c == 0xc2)
    {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| match c {
            '\t' | '\n' => c,
            '\u{7f}' => '\u{2421}',
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
            '\u{80}'..='\u{9f}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A Markdown code fence for `body`: backticks, one more than its longest run
/// of backticks and at least three, so the body cannot close it.
pub(crate) fn fence(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.bytes() {
        run = if c == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        escaped(s)
    }

    #[test]
    fn markup_and_controls_are_text() {
        assert_eq!(
            esc("<script>alert('x')</script></details>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;/details&gt;"
        );
        assert_eq!(esc("a & \"b\""), "a &amp; &quot;b&quot;");
        assert_eq!(
            esc("\x1b[31mred\x00\x7f"),
            "\u{241b}[31mred\u{2400}\u{2421}"
        );
        assert_eq!(esc("tab\tnew\nline ünï"), "tab\tnew\nline ünï");
        // C1 controls (a one-byte CSI) become character references; other
        // U+0080…U+00FF characters stay.
        assert_eq!(esc("a\u{9b}31mb\u{a0}é"), "a&#x9B;31mb\u{a0}é");
        assert_eq!(pictured("x\u{1b}\u{9b}y"), "x\u{241b}\u{fffd}y");
    }

    #[test]
    fn fences_outrun_the_body() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ``` b"), "````");
        assert_eq!(fence("``````"), "```````");
    }
}
