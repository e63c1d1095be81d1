//! Unit tests of `copy`.

use super::*;

fn raw(s: &str) -> Box<RawValue> {
    RawValue::from_string(s.to_string()).unwrap()
}

fn vals(s: &str) -> (Vals, bool) {
    copy_values(&raw(s)).unwrap()
}

#[test]
fn cache_creation_flat_else_split_rec_098() {
    let (v, _) = vals(
        r#"{"input_tokens":1,"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}"#,
    );
    // QT-038: the flat field missed a cache write the split carries: the split sum.
    assert_eq!(v.cache_creation, 7);
    let (v, _) = vals(
        r#"{"cache_creation_input_tokens":10,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}"#,
    );
    // QT-038: where the flat field is set it is kept, never summed with the split.
    assert_eq!((v.cache_creation, v.cc_5m, v.cc_1h), (10, 3, 4));
}

/// The sub-object skim answers as the map it replaced: the last of repeated
/// keys, 0 for a non-number, and 0 for every key when one key is escaped.
#[test]
fn sub_object_counts_read_as_a_map_would() {
    let (v, _) = vals(
        r#"{"output_tokens":9,"output_tokens_details":{"thinking_tokens":2,"thinking_tokens":5},"server_tool_use":{"web_search_requests":"3","web_fetch_requests":1.0}}"#,
    );
    // REC-097: the three nested shapes, read by their sub-keys.
    assert_eq!((v.thinking, v.web_search, v.web_fetch), (5, 0, 1));
    let (v, _) = vals(
        r#"{"output_tokens":9,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_\u0031h_input_tokens":4}}"#,
    );
    assert_eq!((v.cc_5m, v.cc_1h, v.cache_creation), (0, 0, 0));
    let m: std::collections::HashMap<&str, &RawValue> =
        serde_json::from_str(r#"{"a":1,"a":2}"#).unwrap();
    assert_eq!(m["a"].get(), "2", "the map keeps the last copy");
}

/// The skim reads a usage object as serde's derive does, and hands the
/// object to serde where it could not: an escaped key, a repeated key.
#[test]
fn the_skim_reads_usage_as_serde_does() {
    let cases = [
        r#"{"input_tokens":3,"output_tokens":1404,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}"#,
        r#"{ "input_tokens" : 3 , "output_tokens":null, "cache_creation" : {"ephemeral_5m_input_tokens":2} }"#,
        r#"{"other":{"input_tokens":99},"output_tokens":[1],"server_tool_use":{"web_search_requests":2}}"#,
        r#"{"input_tokens":0,"output_tokens":0,"iterations":null}"#,
        r#"{"input_tokens":0,"output_tokens":0,"iterations":[{"output_tokens":9}]}"#,
        r#"{"output_tokens":5,"output_tokens":6}"#,
        r#"{"input_tokens":1,"input\u005ftokens":2}"#,
        r#"{"out\u0070ut_tokens":8}"#,
        r#"{"x":1,"x":2,"output_tokens":3}"#,
        r#"{}"#,
    ];
    for c in cases {
        let serde = Parts::parse(c);
        match Parts::skim(c) {
            Some(skim) => assert_eq!(Some(skim), serde, "{c}"),
            None => assert!(
                c.contains('\\') || c.matches("output_tokens").count() > 1,
                "{c}"
            ),
        }
    }
    assert_eq!(
        Parts::parse(r#"{"output_tokens":5,"output_tokens":6}"#),
        None
    );
    assert_eq!(Parts::skim(r#"{"x":1,"x":2}"#), Some(Parts::default()));
}

/// The digit fast path reads a count as the float reading does.
#[test]
fn whole_numbers_read_as_the_float_reading_reads_them() {
    let slow = |t: &str| {
        t.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .map_or(0, |v| v as u64)
    };
    for t in [
        "0",
        "7",
        "007",
        "1404",
        "999999999999999",
        "9999999999999999",
        "12345678901234567890",
        "1e3",
        "1.5",
        "-3",
        "",
        "null",
    ] {
        assert_eq!(count(t), slow(t), "{t}");
    }
}

#[test]
fn nulls_and_junk_are_zero_qt_036_qt_037() {
    let (v, r) = vals(
        r#"{"input_tokens":null,"output_tokens":"7","cache_read_input_tokens":-3,"output_tokens_details":null}"#,
    );
    // REC-096: the usage keys' values are numbers; nulls and junk read as 0.
    assert_eq!(v, Vals::default());
    assert!(!r);
    let (v, _) = vals(r#"{"output_tokens":50,"output_tokens_details":{"thinking_tokens":20}}"#);
    // QT-039: thinking is a subset of output, not added to it.
    assert_eq!((v.output, v.thinking), (50, 20), "thinking is a subset");
}

#[test]
fn zeroed_replay_recovered_from_iterations_qt_041() {
    let (v, r) = vals(
        r#"{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"iterations":[{"input_tokens":5,"output_tokens":900,"cache_read_input_tokens":1000,"cache_creation_input_tokens":30}]}"#,
    );
    assert!(r);
    assert_eq!(
        (v.input, v.output, v.cache_read, v.cache_creation),
        (5, 900, 1000, 30)
    );
    // A non-zero copy keeps its own counts even with iterations.
    let (v, r) = vals(r#"{"output_tokens":4,"iterations":[{"output_tokens":900}]}"#);
    assert!(!r);
    assert_eq!(v.output, 4);
}
