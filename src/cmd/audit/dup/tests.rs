//! Unit tests of `dup`.

use super::*;

/// REC-038: the slug and zeroed-usage tests read a re-spaced copy the same.
#[test]
fn slug_and_zero_usage_read_either_spacing_rec_038() {
    let compact = br#"{"uuid":"u1","slug":"x-y","a":1}"#;
    let spaced = br#"{"uuid": "u1", "slug": "x-y", "a": 1}"#;
    assert_eq!(without_slug(compact), br#"{"uuid":"u1","a":1}"#.to_vec());
    assert_eq!(without_slug(spaced), br#"{"uuid": "u1", "a": 1}"#.to_vec());
    assert!(zero_usage(br#"{"input_tokens":0,"output_tokens":0}"#));
    assert!(zero_usage(br#"{"input_tokens": 0, "output_tokens": 0}"#));
    assert!(!zero_usage(br#"{"input_tokens": 0, "output_tokens": 5}"#));
    assert!(!zero_usage(br#"{"input_tokens": 10, "output_tokens": 0}"#));
}

#[test]
fn classifies_repeats_rec_091() {
    classifies_repeats_in(Dups::default());
}

/// A table reserved from the file's length holds a line per 2 KB without
/// growing, and finds the same repeats as one grown from empty.
#[test]
fn a_table_reserved_from_the_length_finds_the_same_repeats() {
    let d = Dups::for_len(2048 * 1000);
    assert!(d.seen.capacity() >= 1000, "{}", d.seen.capacity());
    assert!(d.firsts.capacity() >= 1000, "{}", d.firsts.capacity());
    assert!(d.log.is_none());
    classifies_repeats_in(d);
    classifies_repeats_in(Dups::for_len(0));
}

fn classifies_repeats_in(mut d: Dups) {
    let buf = b"{\"uuid\":\"u1\",\"a\":1}\n{\"uuid\":\"u2\"}\n{\"uuid\":\"u1\",\"a\":1}\n{\"uuid\":\"u1\",\"slug\":\"x-y\",\"a\":1}\n";
    let mut start = 0;
    for (i, l) in buf.split(|&b| b == b'\n').enumerate().take(4) {
        let u = &buf[start + 9..start + 11];
        let at = At {
            line: i + 1,
            ..At::default()
        };
        d.uuid((buf, 0), u, (i + 1, start, start + l.len()), || at);
        start += l.len() + 1;
    }
    let ctx = FileCtx {
        file: "f".into(),
        session_id: "s".into(),
        is_lane: false,
    };
    let mut out = Vec::new();
    d.findings(&ctx, buf, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].line, 3);
    assert!(
        out[0].detail.contains("byte-identical"),
        "{}",
        out[0].detail
    );
    assert!(out[1].detail.contains("plus slug"), "{}", out[1].detail);
}
