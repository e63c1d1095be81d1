//! Tests of [`super`]: the fused read against the skim, the plain read and
//! the second parses it replaces, on every line of the sample and public homes.

use super::super::calls::string_contents;
use super::super::calls::Calls;
use super::super::finding::At;
use super::super::refs::Refs;
use super::*;
use crate::loss::skim::skim;

/// What the fused walk read of the message and the result is what the
/// detectors' own parses of the raw values give (the fallback's path);
/// whether the line was fused.
fn same_as_second_parses(c: &Checked<'_>) -> bool {
    let Some(pre) = &c.pre else {
        return false;
    };
    let lite = c.top.message.map(|m| LiteMessage::parse(m).unwrap());
    assert_eq!(format!("{:?}", pre.message), format!("{lite:?}"));
    if let (Some(raw), Some(m)) = (c.top.message, &pre.message) {
        // The answers search that steps over content strings finds what
        // the search of the whole message finds.
        let (mut a, mut b) = (Calls::default(), Calls::default());
        a.answers(raw);
        b.answers_around(raw, string_contents(raw, m));
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
    let obj = c.top.tool_use_result.filter(|r| r.starts_with(b"{"));
    assert_eq!(pre.tur.is_some(), obj.is_some());
    if let (Some(s), Some(raw)) = (&pre.tur, obj) {
        let (mut a, mut b) = (Refs::default(), Refs::default());
        let at = At::new(1, false, None, None);
        assert_eq!(a.tool_use_result(raw, &at), b.tool_use_result_read(s, &at));
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
    let data = c.top.data;
    assert_eq!(pre.data.is_some(), data.is_some());
    if let (Some(s), Some(raw)) = (&pre.data, data) {
        let (mut a, mut b) = (Refs::default(), Refs::default());
        let at = At::new(1, false, None, None);
        a.progress(raw, &at);
        if !s.escaped {
            b.progress_read(s, &at);
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }
    true
}

/// `checked` reads what the skim reads, field for field, on every line of
/// the sample home and the public corpus both accept; and declines what
/// serde declines, so the caller's skim still classifies it.
#[test]
fn checked_reads_what_the_skim_reads() {
    let files = crate::discovery::sample_and_public();
    let (mut same, mut fused) = (0, 0);
    for t in &files {
        let src = crate::scan::Source::open(&t.path).unwrap();
        for line in crate::scan::Lines::new(&src) {
            let (Ok(skimmed), Some(read)) = (skim(line.bytes), checked(line.bytes)) else {
                continue;
            };
            let at = format!("{}:{}", t.path.display(), line.no);
            assert_eq!(format!("{:?}", read.top), format!("{skimmed:?}"), "{at}");
            fused += usize::from(same_as_second_parses(&read));
            same += 1;
        }
    }
    assert!(same > 5_000, "{same} lines compared");
    assert!(fused * 100 > same * 99, "{fused} of {same} lines fused");

    let odd: [&[u8]; 16] = [
        // The message last, the result last, escaped keys around them,
        // whitespace everywhere JSON allows it.
        br#"{"type":"assistant","message" :	{"id":"m","content":[{"type":"text"}]} }"#,
        br#"{"type":"user","message":{"content":"x"},"toolUseResult" : {"agentId":"a","status":"completed"}  }"#,
        br#"{"type":"user","m\u0065ssage":{"content":[]},"toolUseResult":"Error"}"#,
        br#"{"type":"user","message":{"content":[]} , "t\u006folUseResult":{"persistedOutputPath":"/p"},"uuid":"u"}"#,
        br#"{"type":"user","toolUseResult":{"agent\u0049d":"a","status":"completed"},"message":[1,{"a":2}]}"#,
        br#"{"type":"user","toolUseResult":{"agentId":"a","agentId":"b"},"message":"text"}"#,
        br#"{"type":"assistant","message":{"id":"m","id":"n","content":[]},"uuid":"u"}"#,
        br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x\"tool_use_id\": \"t9\" \\"},{"tool_use_id" :"t2","content":[{"type":"text","tool_use_id":"t3"}]},"s",{"content":"\"tool_use_id\":\"t4\"","tool_use_id":"t5"}]}}"#,
        br#"{ "type" : "user", "isMeta": null, "toolUseResult": null, "message": null, "uuid": "a\"b" }"#,
        br#"{"type":"assistant","isSidechain":1,"message":{"id":"m"},"data":"x","agentId":7}"#,
        br#"{"type":"system","subtype":"compact_boundary","isSidechain":"","timestamp":"2026-01-01T00:00:00Z"}"#,
        br#"{}"#,
        // A progress record's data: its agentId read in the walk, escaped
        // (the prefilter's way), refused by the parse; an escaped data key.
        br#"{"type":"progress","data":{"message":{"agentId":"n"},"agentId":"a1"},"uuid":"u"}"#,
        br#"{"type":"progress","data":{"agent\u0049d":"a2","x":[]}}"#,
        br#"{"type":"progress","data":{"agentId":"a3","status":7} }"#,
        br#"{"type":"progress","d\u0061ta":{"agentId":"a4"},"uuid":"u"}"#,
    ];
    // Fused, or read the plain way (an escaped key beside the message, the
    // result or the data, a message LiteMessage refuses).
    let mut fuse = [true; 16];
    for i in [2, 3, 6, 15] {
        fuse[i] = false;
    }
    for (i, l) in odd.iter().enumerate() {
        let read = checked(l).unwrap();
        let f = same_as_second_parses(&read);
        assert_eq!(f, fuse[i], "{i}");
        let text = std::str::from_utf8(l).unwrap();
        let plain = serde_json::from_str::<RawTop<'_>>(text).unwrap().top();
        assert_eq!(format!("{:?}", read.top), format!("{plain:?}"), "{text}");
        // The skim matches keys as written, serde as decoded.
        if !text.contains("\\u") {
            let skimmed = skim(l).unwrap();
            assert_eq!(format!("{:?}", read.top), format!("{skimmed:?}"), "{text}");
        }
    }
    // The answers a tool result gives: keys at any depth, outside strings.
    let c = checked(odd[7]).unwrap();
    let (raw, m) = (c.top.message.unwrap(), c.pre.unwrap().message.unwrap());
    let mut calls = Calls::default();
    calls.answers_around(raw, string_contents(raw, &m));
    let got = format!("{calls:?}");
    assert!(["t1", "t3", "t5"].iter().all(|t| got.contains(t)), "{got}");
    assert!(["t2", "t4", "t9"].iter().all(|t| !got.contains(t)), "{got}");

    let declined: [&[u8]; 6] = [
        br#"{"type":"user","type":"user"}"#,
        br#"[{"type":"user"}]"#,
        br#"{"a":1}{"b":2}"#,
        br#"{"a":"bad \q"}"#,
        br#"{"a":[1 2]}"#,
        b"{\"a\":\"\xff\"}",
    ];
    for l in declined {
        assert!(checked(l).is_none(), "{}", String::from_utf8_lossy(l));
    }
}

/// The fused read driven by the fast reader is the one serde_json drives,
/// on every line of the sample and public homes; at most one line in a
/// thousand is declined (it costs a second walk).
#[test]
fn the_fast_reader_fills_the_fused_read_as_serde_does() {
    let (mut lines, mut declined) = (0, 0);
    for t in &crate::discovery::sample_and_public() {
        let src = crate::scan::Source::open(&t.path).unwrap();
        for line in crate::scan::Lines::new(&src) {
            let Ok(text) = std::str::from_utf8(line.bytes) else {
                continue;
            };
            let mut by_serde = Fused::default();
            let mut de = serde_json::Deserializer::from_str(text);
            let serde_ok = (&mut by_serde)
                .deserialize(&mut de)
                .and_then(|()| de.end())
                .is_ok();
            let mut by_fast = Fused::default();
            let fast_ok = crate::record::fast::seed(text, &mut by_fast).is_some();
            lines += 1;
            if !fast_ok {
                declined += usize::from(serde_ok);
                continue;
            }
            assert!(serde_ok, "fast reads what serde refuses: {text}");
            let show = |c: Option<Checked<'_>>| c.map(|c| format!("{:?} {:?}", c.top, c.pre));
            assert_eq!(
                show(by_fast.checked(text)),
                show(by_serde.checked(text)),
                "{text}"
            );
        }
    }
    assert!(lines > 8_000);
    assert!(declined * 1000 <= lines, "{declined} of {lines} declined");
}
