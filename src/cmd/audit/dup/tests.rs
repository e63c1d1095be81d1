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

/// Lines kept in batches ([`Dups::uuid_batched`]) fold as one at a time
/// would: the same findings (place, time, version, sidechain, class) and
/// the same table, over more lines than a batch holds, with repeats of each
/// class, a collision-free mix of lanes, and a record whose time lies
/// outside the buffer (taken at once, between batched lines).
#[test]
fn batched_lines_fold_as_one_at_a_time() {
    let mut text = String::new();
    for i in 0..70 {
        let u = i % 13; // a uuid comes back within a batch and across them
        let slug = if i % 7 == 3 { ",\"slug\":\"x-y\"" } else { "" };
        let v = if i % 5 == 0 { i } else { 0 };
        text.push_str(&format!(
            "{{\"uuid\":\"u{u:02}\",\"timestamp\":\"2026-03-0{}T00:00:{:02}Z\",\"version\":\"2.1.{v}\"{slug}}}\n",
            i % 9,
            i % 60
        ));
    }
    let buf = text.as_bytes();
    let outside = b"2026-01-01T00:00:00Z".to_vec();
    let (mut one, mut batched) = (Dups::for_len(buf.len()), Dups::for_len(buf.len()));
    let mut start = 0;
    for (i, l) in buf.split(|&b| b == b'\n').enumerate().take(70) {
        let u = &buf[start + 9..start + 12];
        let ts = &buf[start + 27..start + 47];
        let ts = if i % 11 == 6 { &outside[..] } else { ts };
        let vat = start + 60;
        let ver = Some(&buf[vat..vat + 5]);
        let (side, place) = (i % 3 == 0, (i + 1, start, start + l.len()));
        one.uuid((buf, 0), u, place, || At::new(i + 1, side, Some(ts), ver));
        batched.uuid_batched((buf, 0), u, place, (side, Some(ts), ver));
        if i == 40 {
            one.boundary(i + 1);
            batched.boundary(i + 1);
        }
        start += l.len() + 1;
    }
    batched.flush((buf, 0));
    let ctx = FileCtx {
        file: "f".into(),
        session_id: "s".into(),
        is_lane: false,
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    one.findings(&ctx, buf, &mut a);
    batched.findings(&ctx, buf, &mut b);
    assert_eq!(a.len(), 57);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    let (mut ea, mut eb) = (Enc::default(), Enc::default());
    one.encode(&mut ea);
    batched.encode(&mut eb);
    assert_eq!(ea.buf, eb.buf);
}
