//! Unit tests of `json`.

use super::*;

/// REC-037, REC-038: a re-serialised tool input reads as the compact form;
/// blanks inside strings (and escaped quotes) are kept.
#[test]
fn compact_drops_blanks_between_tokens_only_rec_038() {
    let spaced = r#"{"command": "echo \"a b\"", "n": [1, 2], "o": {"k" :	true}}"#;
    assert_eq!(
        compact(spaced),
        r#"{"command":"echo \"a b\"","n":[1,2],"o":{"k":true}}"#
    );
    let tight = r#"{"command":"ls -la","description":"a: b, c"}"#;
    assert!(matches!(compact(tight), std::borrow::Cow::Borrowed(_)));
    assert_eq!(compact(" {} "), "{}");
    // REC-095: Python's `\u` escapes and `\/` read as Claude Code writes
    // them; a control character keeps its escape, a lone surrogate its text.
    assert_eq!(
        compact(r#"{"p": "a\/b \u00e9\u2192 \u001b[0m \ud83d\ude80"}"#),
        "{\"p\":\"a/b é→ \\u001b[0m 🚀\"}"
    );
    let esc = r#"{"c":"\u001b\n\ud800"}"#;
    assert!(matches!(compact(esc), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn walks_top_level_fields_only() {
    let o = br#"{"a":{"type":"x","b":[1,{"c":"}"}]}, "type" : "rec\"q" ,"n":-1.5e3,"t":true}"#;
    let f: Vec<(&[u8], &[u8])> = Fields::new(o, 0).map(Result::unwrap).collect();
    assert_eq!(f.len(), 4);
    assert_eq!(f[1], (&b"type"[..], &br#""rec\"q""#[..]));
    assert_eq!(f[2].1, b"-1.5e3");
    assert_eq!(field(o, b"type"), Some(&br#""rec\"q""#[..]));
    assert_eq!(field(o, b"c"), None);
    assert_eq!(
        string(field(o, b"type").unwrap()).as_deref(),
        Some("rec\"q")
    );
    assert_eq!(plain_str(br#""abc""#), Some("abc"));
    assert_eq!(plain_str(br#""a\nb""#), None);
    let mut it = Fields::new(br#"{}"#, 0);
    assert!(it.next().is_none());
    assert_eq!(it.end(), 2);
    assert_eq!(
        Fields::new(br#"{"a":"open"#, 0).next(),
        Some(Err(Flaw::Unterminated))
    );
}

#[test]
fn one_object_names_structural_flaws() {
    assert_eq!(one_object(br#"{"a":[1,{"b":"}"}],"c":"x\"y"}  "#), Ok(()));
    assert_eq!(one_object(b"{}"), Ok(()));
    assert_eq!(one_object(br#"{"a":1}{"b":2}"#), Err(Flaw::Glued));
    assert_eq!(one_object(br#"{"a":"torn"#), Err(Flaw::Unterminated));
    assert_eq!(one_object(br#"{"a":1} x"#), Err(Flaw::Invalid));
    assert_eq!(one_object(b"[1]"), Err(Flaw::Invalid));
    assert_eq!(one_object(b"   "), Err(Flaw::Blank));
}

#[test]
fn quote_search_agrees_with_a_plain_scan() {
    let s = br#"ab\"cd\\"ef"\"""#;
    for from in 0..s.len() {
        let want = s[from..].iter().position(|&c| c == b'"').map(|k| from + k);
        assert_eq!(next_quote(s, from), want, "from {from}");
    }
    let long = [b"x".repeat(300), b"\"".to_vec()].concat();
    assert_eq!(next_quote(&long, 0), Some(300));
    assert_eq!(string_end(&long, 0), Ok(301));
}

/// A tool input read with its strings decoded: escaped quotes, backslashes,
/// newlines and `\u` escapes become the characters they stand for; keys,
/// quotes and plain strings stay as they were.
#[test]
fn decode_strings_reads_escapes_in_place() {
    let j = r#"{"command":"git commit -m \"fix: a\\b\"\necho \u00e9","n":[1,"x"]}"#;
    assert_eq!(
        decode_strings(j).as_deref(),
        Some("{\"command\":\"git commit -m \"fix: a\\b\"\necho é\",\"n\":[1,\"x\"]}")
    );
    assert_eq!(decode_strings(r#"{"a":"plain"}"#), None);
    assert_eq!(decode_strings(r#"{"a":"torn\"#), None);
    assert_eq!(decode_strings(r#"{"a":"\ud800"}"#), None);
}

#[test]
fn array_elements_are_read_as_written() {
    let got: Vec<&[u8]> = elements(br#"[ {"a":[1,2]} , "x,]" ,3]"#).collect();
    assert_eq!(got, [&br#"{"a":[1,2]}"#[..], br#""x,]""#, b"3"]);
    assert_eq!(elements(b"[]").count(), 0);
    assert_eq!(elements(b"{}").count(), 0);
}
