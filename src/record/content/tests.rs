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

/// What `result_starts_with` answers by a decode, the answer
/// `raw_starts_with` must give whenever it gives one.
fn decoded_starts_with(raw: &RawValue, prefixes: &[&str]) -> bool {
    let t = raw_text(raw);
    prefixes.iter().any(|p| t.trim_start().starts_with(p))
}

/// The raw-byte decision agrees with the decode on odd strings: whitespace
/// written raw or escaped, an escape inside a marker, a text shorter than
/// one, non-ASCII and other escapes first (left to the decode).
#[test]
fn raw_prefix_decision_agrees_with_the_decode() {
    let markers: [&[&str]; 4] = [
        &crate::classify::markers::AUQ_MARKERS,
        &[crate::classify::markers::REJ_MARKER],
        &["The user answered:", ""],
        &[" lead", "x"],
    ];
    let raws = [
        r#""The user answered: yes""#,
        r#""   \n\t\r The user answered: yes""#,
        r#""\nThe user answ\u0065red: yes""#,
        r#""The user answ\nred""#,
        r#""The user""#,
        r#""""#,
        r#""   ""#,
        r#""\f The user answered:""#,
        r#""\u0020The user answered:""#,
        r#"" \u00a0The user answered:""#,
        "\"\u{a0}The user answered:\"",
        r#""\\The user answered:""#,
        r#""x\"y""#,
        r#"" lead""#,
        r#""User has answered your questions: a""#,
        r#""The user doesn't want to proceed with this tool use. To tell you how to proceed, the user said:\nno""#,
        r#""     1→fn main() {}""#,
    ];
    let mut decided = 0;
    for raw in raws {
        let r: &RawValue = serde_json::from_str(raw).unwrap();
        for m in markers {
            let want = decoded_starts_with(r, m);
            if let Some(got) = raw_starts_with(raw.as_bytes(), m) {
                assert_eq!(got, want, "{raw} {m:?}");
                decided += 1;
            }
            let json = format!(r#"{{"type":"tool_result","content":{raw}}}"#);
            let b: Block<'_> = serde_json::from_str(&json).unwrap();
            assert_eq!(b.result_starts_with(m), want, "{raw} {m:?}");
        }
    }
    assert!(decided > 40, "{decided}");
}

/// On every tool_result of the sample home and the public corpus, the
/// marker checks the turn rules and classify make answer as the decode does.
#[test]
fn raw_prefix_decision_agrees_on_the_homes() {
    use crate::classify::markers as mk;
    let files = crate::discovery::sample_and_public();
    let sets: [&[&str]; 5] = [
        &mk::AUQ_MARKERS,
        &[mk::REJ_MARKER],
        &[mk::ASYNC_ACK],
        &[mk::INTERRUPT_TOOL, mk::INTERRUPT_USER],
        &["     1"],
    ];
    let (mut results, mut decided) = (0, 0);
    for t in &files {
        let src = crate::scan::Source::open(&t.path).unwrap();
        for line in crate::scan::Lines::new(&src) {
            for (_, r) in crate::record::line_records(&line) {
                for b in r.blocks().iter().filter(|b| b.kind() == "tool_result") {
                    let Some(raw) = b.content else { continue };
                    results += 1;
                    for m in sets {
                        let want = decoded_starts_with(raw, m);
                        assert_eq!(b.result_starts_with(m), want, "{}", raw.get());
                        if let Some(got) = raw_starts_with(raw.get().as_bytes(), m) {
                            assert_eq!(got, want, "{}", raw.get());
                            decided += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(results > 1_000, "{results} results");
    // Arrays and the odd escape aside, the raw bytes decide.
    assert!(
        decided * 10 > results * 5 * 9,
        "{decided} of {}",
        results * 5
    );
}
