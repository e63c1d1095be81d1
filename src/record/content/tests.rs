//! Unit tests of `content`.

use super::*;

/// The head decode is a prefix of the full decode at every cut, whatever
/// escape (short, `\uXXXX`, surrogate pair) the cut falls on, and as long
/// as the cut allows: it covers the raw text up to `max` bytes less at most
/// one escape or character (an empty head is a prefix too, and was passed).
#[test]
fn head_decode_is_a_prefix_at_every_cut() {
    let text = "a\"b\\c\nd\u{e9}\u{1F600}e\tf\u{0001}g\"\"\\\\h\u{20ac}".repeat(5);
    let json = serde_json::to_string(&text).unwrap();
    let raw: &RawValue = serde_json::from_str(&json).unwrap();
    let full = raw_text(raw);
    assert_eq!(full, text);
    for max in 0..json.len() + 4 {
        let head = raw_text_head(raw, max);
        assert!(full.starts_with(head.as_ref()), "max {max}: {head:?}");
        // Re-encoded, the head is the raw text's first `k` bytes (quote included).
        let enc = serde_json::to_string(head.as_ref()).unwrap();
        let k = enc.len() - 1;
        assert_eq!(&enc[..k], &json[..k], "max {max}");
        if max + 2 >= json.len() {
            assert_eq!(head, full, "max {max}: the whole string fits");
        } else {
            assert!(
                k <= max.max(1) && k + 6 > max,
                "max {max}: covers {k} bytes"
            );
        }
    }
}

#[test]
fn result_prefix_check_reads_only_the_head() {
    let body = format!(
        "   Async agent launched successfully{}",
        "x\\n".repeat(5000)
    );
    let json = format!(r#"{{"type":"tool_result","content":"{body}"}}"#);
    let b: Block<'_> = serde_json::from_str(&json).unwrap();
    assert!(b.result_starts_with(&["Async agent launched"]));
    assert!(!b.result_starts_with(&["launched"]));
    // The raw fast path (plain first byte) and the decode path (escape first).
    for (raw, want) in [
        (r#""The user answered: yes""#, true),
        (r#""The user answ\u0065red: yes""#, true),
        (r#""\nThe user answered: yes""#, true),
        (r#""The user""#, false),
        (r#""the user answered:""#, false),
    ] {
        let json = format!(r#"{{"type":"tool_result","content":{raw}}}"#);
        let b: Block<'_> = serde_json::from_str(&json).unwrap();
        assert_eq!(b.result_starts_with(&["The user answered:"]), want, "{raw}");
    }
    // Leading whitespace longer than the head still decides on the whole text.
    let json = format!(
        r#"{{"type":"tool_result","content":"{}MARK"}}"#,
        " ".repeat(900)
    );
    let b: Block<'_> = serde_json::from_str(&json).unwrap();
    assert!(b.result_starts_with(&["MARK"]));
}
