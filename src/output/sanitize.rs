//! Making transcript bytes safe for a terminal. Everything csift prints in human
//! form came from arbitrary tool output, so escape sequences (CSI, OSC, DCS, …),
//! C0/C1 control characters other than newline and tab, and bidi overrides are
//! removed before they reach the screen. `--raw` and `--format json` are exact and
//! never pass through [`clean`]; JSON escapes DEL, C1 controls and bidi overrides
//! as `\uXXXX` ([`write_json_escaped`]), which keeps its values exact.

use std::borrow::Cow;

/// Strip terminal control from `s`. Borrows when nothing needed removing.
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_work) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\u{1b}' => skip_escape(&mut it),
            // C1 string introducers (DCS, SOS, OSC, PM, APC) run to ST or BEL.
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut it),
            '\u{9b}' => skip_csi(&mut it),
            '\n' | '\t' => out.push(c),
            c if needs_work(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Clean and fold to one line: newlines and tabs become spaces.
pub fn one_line(s: &str) -> String {
    if is_one_line(s) {
        return s.to_owned();
    }
    fold(s)
}

/// [`one_line`] the long way: cleaned, then each run of whitespace one space.
fn fold(s: &str) -> String {
    let c = clean(s);
    let mut out = String::with_capacity(c.len());
    let mut space = false;
    for ch in c.chars() {
        if ch.is_whitespace() {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(ch);
            space = false;
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// [`one_line`], appended to `out`: a cell that is one line already is
/// copied, with no string made for it.
pub(crate) fn push_one_line(out: &mut String, s: &str) {
    if is_one_line(s) {
        out.push_str(s);
    } else {
        out.push_str(&one_line(s));
    }
}

/// Whether [`one_line`] leaves `s` as it is: printable ASCII, no space at
/// either end, none doubled. Most cells are (ids, versions, models, paths),
/// and this one pass over bytes was a third of what the char-wise clean
/// and fold cost them; the range check runs on whole vectors, and only a
/// space's neighbour is looked at.
fn is_one_line(s: &str) -> bool {
    let b = s.as_bytes();
    // A fold with no early exit, so the compiler runs it on whole vectors.
    b.iter()
        .fold(true, |ok, &c| ok & (c.wrapping_sub(b' ') <= b'~' - b' '))
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && memchr::memchr_iter(b' ', b).all(|i| b.get(i + 1) != Some(&b' '))
}

/// A path for a terminal: lossy UTF-8, cleaned, on one line. File and directory
/// names may hold any byte but `/`, escape sequences included.
pub(crate) fn path(p: &std::path::Path) -> String {
    one_line(&p.to_string_lossy())
}

/// Serialised JSON with each character a terminal would obey escaped as
/// `\uXXXX`. Outside strings JSON is ASCII punctuation, so every such
/// character is inside a string, where the escape is the same value.
pub(crate) fn write_json_escaped(w: &mut impl std::io::Write, json: &str) -> std::io::Result<()> {
    let unsafe_char =
        |c: char| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || (needs_work(c) && c > '~');
    // Fast path: every such character starts with one of these bytes.
    if memchr::memchr3(0x7f, 0xc2, 0xe2, json.as_bytes()).is_none() {
        return w.write_all(json.as_bytes());
    }
    let mut last = 0;
    for (i, c) in json.char_indices() {
        if unsafe_char(c) {
            w.write_all(&json.as_bytes()[last..i])?;
            write!(w, "\\u{:04x}", c as u32)?;
            last = i + c.len_utf8();
        }
    }
    w.write_all(&json.as_bytes()[last..])
}

/// `s` as one POSIX shell word: as it is when every character is plainly safe,
/// else in single quotes (a quote inside written `'\\''`).
pub(crate) fn shell_word(s: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(format!("'{}'", s.replace('\'', "'\\''")))
}

fn needs_work(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

fn skip_escape(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match it.next() {
        Some('[') => skip_csi(it),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(it),
        // Two-byte escapes (ESC c, ESC 7 …) and charset selections (ESC ( B).
        Some('(' | ')' | '*' | '+' | '#' | '%') => {
            it.next();
        }
        _ => {}
    }
}

fn skip_csi(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in it.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

/// OSC/DCS/… bodies end at BEL, ST (`ESC \\`) or C1 ST. A body with no such end
/// before the next newline, escape, string introducer or the end of the text is
/// no control string: only its introducer is dropped and the text after it is
/// kept (a terminal would swallow it, and so did this, silently). Stopping at
/// the next introducer keeps the look-ahead linear over hostile input.
fn skip_string(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let mut ahead = it.clone();
    let mut body = 0;
    loop {
        match ahead.next() {
            None | Some('\n' | '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}') => return,
            Some('\u{7}' | '\u{9c}') => {
                body += 1;
                break;
            }
            Some('\u{1b}') => {
                if ahead.peek() != Some(&'\\') {
                    return;
                }
                body += 2;
                break;
            }
            Some(_) => body += 1,
        }
    }
    for _ in 0..body {
        it.next();
    }
}

#[cfg(test)]
mod tests {
    /// The fast path takes only what the long way would leave as it is:
    /// every string of up to four characters from a set of the cases.
    #[test]
    fn one_line_fast_path_changes_nothing_the_fold_would() {
        let set = [" ", "a", "~", "\t", "\n", "\u{7f}", "é", "\u{1b}", "\r"];
        let mut all = vec![String::new()];
        for _ in 0..4 {
            let next: Vec<String> = all
                .iter()
                .flat_map(|s| set.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(next);
        }
        for s in &all {
            assert_eq!(one_line(s), fold(s), "{s:?}");
            if is_one_line(s) {
                assert_eq!(fold(s), *s, "{s:?}");
            }
            let mut out = String::from(">");
            push_one_line(&mut out, s);
            assert_eq!(out, format!(">{}", fold(s)), "{s:?}");
        }
    }

    /// JSON keeps its value and loses what a terminal would obey: serde writes
    /// C1 controls, DEL and bidi overrides raw.
    #[test]
    fn json_escapes_what_a_terminal_obeys() {
        let v = serde_json::json!({"t": "c1 \u{9b}2J \u{9d}0;PWN\u{7} \u{7f} \u{202e}é→✅"});
        let raw = serde_json::to_string(&v).unwrap();
        let mut out = Vec::new();
        write_json_escaped(&mut out, &raw).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            r#"{"t":"c1 \u009b2J \u009d0;PWN\u0007 \u007f \u202eé→✅"}"#
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }
    use super::*;

    #[test]
    fn strips_csi_osc_and_controls() {
        assert_eq!(clean("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(clean("x\u{1b}]0;title\u{7}y"), "xy");
        assert_eq!(
            clean("x\u{1b}]8;;http://e\u{1b}\\link\u{1b}]8;;\u{1b}\\y"),
            "xlinky"
        );
        assert_eq!(clean("a\rb\u{0}c\u{8}d"), "abcd");
        assert_eq!(clean("a\u{9b}2Jb"), "ab");
        assert_eq!(clean("keep\nnew\tlines"), "keep\nnew\tlines");
        assert_eq!(clean("bidi\u{202e}evil"), "bidievil");
        assert_eq!(clean("x\u{9d}0;t\u{9c}y"), "xy");
        assert_eq!(clean("x\u{1b}]0;t\u{1b}[31my"), "x0;ty");
    }

    /// An OSC (or C1 string) with no end drops its introducer only: the text
    /// after it was silently deleted to the end of the value (a review found
    /// two lines of a tool result gone).
    #[test]
    fn an_unterminated_control_string_keeps_the_text_after_it() {
        assert_eq!(
            clean("UNTERM \u{1b}]0;title\nline2\nline3 TAIL"),
            "UNTERM 0;title\nline2\nline3 TAIL"
        );
        assert_eq!(clean("before[\u{1b}]after TAIL9"), "before[after TAIL9");
        assert_eq!(clean("a\u{9d}b\u{9f}c"), "abc");
        assert_eq!(clean("a\u{1b}Pq\u{1b}]0;t\u{7}z"), "aqz");
        // Linear on a line of introducers.
        let hostile = "\u{9d}x".repeat(200_000);
        assert_eq!(clean(&hostile), "x".repeat(200_000));
        assert!(matches!(clean("plain ✓ 中文"), Cow::Borrowed(_)));
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("@3f2a@a1b2"), "@3f2a@a1b2");
        assert_eq!(shell_word("/tmp/a b/x.jsonl"), "'/tmp/a b/x.jsonl'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("-home-ana-app"), "-home-ana-app");
    }

    #[test]
    fn one_line_folds_whitespace() {
        assert_eq!(one_line("  a\n\n b\t c \u{1b}[1m"), "a b c");
    }
}
