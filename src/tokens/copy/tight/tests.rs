//! The tight reader against the general skim (and serde's derive behind
//! it) on generated usage objects: wherever it answers, it answers as they
//! do, and it does answer for the shapes Claude Code writes.

use super::super::{skim_subs, Parts};
use super::*;

/// A small deterministic generator (xorshift64*), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

const KEYS: [&str; 12] = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "cache_creation",
    "output_tokens_details",
    "server_tool_use",
    "iterations",
    "service_tier",
    "inference_geo",
    "ephemeral_5m_input_tokens",
    "web_search_requests",
];

const SCALARS: [&str; 14] = [
    "0",
    "7",
    "692",
    "18000",
    "1.5",
    "2e3",
    "-4",
    "null",
    "true",
    "false",
    "123456789012345678",
    "\"standard\"",
    "\"not available\"",
    "\"\"",
];

fn blank(r: &mut Rng, spaced: bool) -> &'static str {
    if spaced && r.one_in(6) {
        [" ", "\n", "\t ", "\r\n"][(r.next() % 4) as usize]
    } else {
        ""
    }
}

fn value(r: &mut Rng, depth: u32, spaced: bool) -> String {
    match r.next() % 6 {
        0 if depth < 2 => object(r, depth + 1, spaced),
        1 if depth < 2 => {
            let n = r.next() % 3;
            let els: Vec<String> = (0..n).map(|_| value(r, depth + 1, spaced)).collect();
            format!("[{}]", els.join(","))
        }
        _ => r.pick(&SCALARS).to_string(),
    }
}

fn object(r: &mut Rng, depth: u32, spaced: bool) -> String {
    let n = r.next() % 6;
    let mut out = String::from("{");
    for i in 0..n {
        if i > 0 {
            out.push_str(blank(r, spaced));
            out.push(',');
        }
        out.push_str(blank(r, spaced));
        let key = r.pick(&KEYS);
        if spaced && r.one_in(20) {
            // An escaped key: `\u0069` is `i`.
            out.push_str(&format!("\"{}\"", key.replacen('i', "\\u0069", 1)));
        } else {
            out.push_str(&format!("\"{key}\""));
        }
        out.push_str(blank(r, spaced));
        out.push(':');
        out.push_str(blank(r, spaced));
        out.push_str(&value(r, depth, spaced));
    }
    out.push_str(blank(r, spaced));
    out.push('}');
    if spaced && r.one_in(15) {
        out = out.replacen("standard", "stan\\\"dard", 1);
    }
    out
}

fn check(raw: &str) -> bool {
    // Only what serde accepts reaches the reader (the record parse validated it).
    if serde_json::from_str::<serde::de::IgnoredAny>(raw).is_err() {
        return false;
    }
    let general = Parts::skim(raw).or_else(|| Parts::parse(raw));
    let Some(tight) = Parts::tight(raw) else {
        return false;
    };
    assert_eq!(Some(&tight), general.as_ref(), "{raw}");
    let keys = [
        "ephemeral_5m_input_tokens",
        "web_search_requests",
        "input_tokens",
    ];
    if let Some(found) = subs(raw, keys) {
        assert_eq!(found, skim_subs(raw, keys), "{raw}");
    }
    true
}

#[test]
fn the_tight_reader_answers_as_the_skim_does_or_not_at_all() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut answered, mut declined) = (0, 0);
    for round in 0..20_000 {
        let raw = object(&mut r, 0, round % 2 == 1);
        if check(&raw) {
            answered += 1;
        } else {
            declined += 1;
        }
    }
    // Both arms ran: most tight objects are answered, spaced ones often not.
    assert!(
        answered > 8_000 && declined > 2_000,
        "{answered} {declined}"
    );
}

/// The shapes Claude Code writes (1.0.x to 2.1.x) are read tight.
#[test]
fn claude_codes_own_usage_objects_are_read_tight() {
    for raw in [
        r#"{"input_tokens":5,"cache_creation_input_tokens":692,"cache_read_input_tokens":18000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":692},"output_tokens":98,"service_tier":"standard","inference_geo":"not_available"}"#,
        r#"{"input_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}"#,
        r#"{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"server_tool_use":{"web_search_requests":2,"web_fetch_requests":0},"iterations":[{"input_tokens":10,"output_tokens":3}],"speed":"standard"}"#,
        "{}",
    ] {
        assert!(check(raw), "{raw}");
    }
    let p = Parts::tight(r#"{"input_tokens":5,"cache_creation":{"ephemeral_1h_input_tokens":692},"output_tokens":null}"#)
        .unwrap();
    assert_eq!(p.input, Some("5"));
    assert_eq!(
        p.cache_creation,
        Some(r#"{"ephemeral_1h_input_tokens":692}"#)
    );
    assert_eq!(p.output, None);
    assert_eq!(
        subs(
            r#"{"ephemeral_5m_input_tokens":3,"ephemeral_5m_input_tokens":4}"#,
            ["ephemeral_5m_input_tokens"]
        ),
        Some([4])
    );
}

/// A blank between tokens, an escape anywhere, or a repeated known key is
/// left to the general skim.
#[test]
fn what_is_not_tight_is_declined() {
    for raw in [
        r#"{ "input_tokens":5}"#,
        r#"{"input_tokens" :5}"#,
        r#"{"input_tokens":5 }"#,
        r#"{"input_tokens":5,"service_tier":"a\"b"}"#,
        r#"{"\u0069nput_tokens":5}"#,
        r#"{"input_tokens":5,"input_tokens":6}"#,
    ] {
        assert_eq!(Parts::tight(raw), None, "{raw}");
    }
    assert_eq!(subs(r#"{"a":1 ,"b":2}"#, ["a"]), None);
}

/// Every usage copy Claude Code wrote in the sample and public homes
/// (1.0.17 to 2.1.x) is read tight, its sub-objects too: the fast path is
/// the path real transcripts take, not a case beside them.
#[test]
fn every_real_usage_copy_is_read_tight() {
    let (mut copies, mut subs_read) = (0, 0);
    for t in crate::discovery::sample_and_public() {
        let Ok(buf) = std::fs::read(&t.path) else {
            continue;
        };
        for l in crate::scan::Lines::new(&buf) {
            let crate::record::Parsed::Record(r) = crate::record::parse_line(&l) else {
                continue;
            };
            let Some(raw) = r.message.as_ref().and_then(|m| m.usage) else {
                continue;
            };
            let raw = raw.get();
            if !raw.starts_with('{') {
                continue;
            }
            let p = Parts::tight(raw);
            assert!(p.is_some(), "{}:{} {raw}", t.path.display(), l.no);
            for sub in p.iter().flat_map(|p| [p.cache_creation, p.server_tool_use]) {
                if let Some(sub) = sub.filter(|s| s.starts_with('{')) {
                    assert!(subs(sub, ["a"]).is_some(), "{sub}");
                    subs_read += 1;
                }
            }
            copies += 1;
        }
    }
    assert!(copies > 3_000 && subs_read > 3_000, "{copies} {subs_read}");
}
