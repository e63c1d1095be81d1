//! The fast reader against serde_json: wherever it reads a line, the record
//! is serde_json's to the byte (its `Debug` form, borrowed spans and echo
//! keys included); wherever serde_json refuses a line, it declines.

use super::agree::both;
use super::scan::{string_end, value_end};
use super::*;

/// `text` read both ways agrees; returns whether the fast reader read it.
fn agree(text: &str) -> bool {
    let mut read = false;
    for fused in [false, true] {
        let (fast, serde) = both(text, fused);
        if let Some(f) = &fast {
            assert_eq!(Some(f), serde.as_ref(), "fused {fused}: {text}");
            read = true;
        }
        if serde.is_none() {
            assert!(fast.is_none(), "serde refuses, fast reads: {text}");
        }
    }
    read
}

/// Every line of the sample and public homes: the same record, and at most
/// one line in a thousand declined (a declined line costs a second parse).
#[test]
fn every_real_line_reads_as_serde_reads_it() {
    let (mut lines, mut declined) = (0, 0);
    for t in crate::discovery::sample_and_public() {
        let bytes = std::fs::read(&t.path).unwrap();
        for l in bytes.split(|&c| c == b'\n') {
            let Ok(text) = std::str::from_utf8(l) else {
                continue;
            };
            if !text.trim_start().starts_with('{') {
                continue;
            }
            lines += 1;
            let ok = serde_json::from_str::<Record<'_>>(text).is_ok();
            if !agree(text) && ok {
                declined += 1;
            }
        }
    }
    assert!(lines > 8_000, "{lines} lines");
    assert!(declined * 1000 <= lines, "{declined} of {lines} declined");
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Real lines cut, bytes inserted and removed where the grammar is
/// decided: each mutant is read alike or declined, never read when serde
/// refuses it.
#[test]
fn mutated_lines_read_alike_or_are_declined() {
    let seeds = [
        r#"{"type":"assistant","uuid":"a1","message":{"id":"m","model":"x","content":[{"type":"text","text":"a\"b\\c\n\u00e9\ud83d\ude00"},{"type":"tool_use","id":"t","name":"Read","input":{"p":[1,-2.5e+3,true,null,{"q":"r"}]}}],"usage":{"input_tokens":3}},"isSidechain":false}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x\ty"}],"is_error":true}]},"toolUseResult":{"stdout":"ok","code":0,"a":[]}}"#,
        r#"{"type":"attachment","attachment":{"type":"hook_success","content":"\u001b[1m"},"durationMs":12.5,"timestamp":"2026-01-01T00:00:00Z"}"#,
        r#" {"type":"system","subtype":"x","content":"s","compactMetadata":{},"leafUuid":null} "#,
    ];
    let alphabet: &[u8] = b"\"\\{}[],: \t0-.eE+tfnux\x01\x1f9a/";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut read, mut n) = (0, 0);
    for seed in seeds {
        assert!(agree(seed), "seed not read: {seed}");
        for _ in 0..4000 {
            let mut b = seed.as_bytes().to_vec();
            for _ in 0..1 + rng.below(2) {
                let at = rng.below(b.len() + 1);
                match rng.below(3) {
                    0 if at < b.len() => {
                        b.remove(at);
                    }
                    1 => b.truncate(at),
                    _ => b.insert(at, alphabet[rng.below(alphabet.len())]),
                }
            }
            if let Ok(text) = std::str::from_utf8(&b) {
                n += 1;
                read += usize::from(agree(text));
            }
        }
    }
    // The mutants serde reads are mostly read here too.
    assert!(read * 4 > n, "{read} of {n} read");
}

#[test]
fn escapes_numbers_literals_and_nesting_alike() {
    let rec = |v: &str| format!(r#"{{"type":"user","summary":{v},"data":{v},"x":{v}}}"#);
    for v in [
        r#""\u00e9\u0000\/\b\f\r""#,
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83d\u0041""#,
        r#""\ud83dx""#,
        r#""\uZZZZ""#,
        r#""\u12""#,
        r#""\x""#,
        "\"a\u{1}b\"",
        "\"a\u{7f}b\"",
        r#""ok""#,
        "0",
        "-0",
        "01",
        "-",
        "1.",
        "1.5e",
        "1e+",
        "2E-7",
        "1.0e10",
        "true",
        "tru",
        "nul",
        "null",
        "[]",
        "[1,]",
        "{}",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{1:2}"#,
        "[[[[[[[[]]]]]]]]",
    ] {
        agree(&rec(v));
    }
    let deep = "[".repeat(130) + &"]".repeat(130);
    let deep = format!(r#"{{"type":"user","x":{deep}}}"#);
    assert!(!agree(&deep), "a value nested past 128 is declined");
    assert!(serde_json::from_str::<Record<'_>>(&deep).is_ok());
    // Duplicate known fields, trailing characters, blanks everywhere.
    agree(r#"{"type":"user","type":"user"}"#);
    agree(r#"{"type":"user"} x"#);
    agree("\t{ \"type\" : \"user\" , \"uuid\" :\"u\"\r}\t");
    assert!(agree(r#"{"ty\u0070e":"user"}"#));
    // A key of a map serde_json visits is decoded even when the entry is
    // skipped: a lone surrogate in one is refused (found by a second read).
    // Inside a value skipped whole, neither reader looks at surrogates.
    for key in [r"\ud800", r"a\udc00b", r"\ud83dx", r"\ud83d\u0041"] {
        let line = format!(r#"{{"message":{{"content":{{"{key}":0}}}}}}"#);
        assert!(!agree(&line), "{line}");
        assert!(serde_json::from_str::<Record<'_>>(&line).is_err());
        let skipped = format!(r#"{{"type":"user","x":{{"{key}":0}}}}"#);
        assert!(serde_json::from_str::<Record<'_>>(&skipped).is_ok());
        assert!(agree(&skipped), "{skipped}");
    }
    assert!(agree(r#"{"message":{"content":{"\ud83d\ude00":0}}}"#));
}

/// A string's end is found alike wherever the quote, escape or control
/// character falls in or across the sixteen- and thirty-two-byte blocks.
#[test]
fn string_ends_at_every_offset() {
    for len in 0..100 {
        for at in 0..=len {
            for c in [b'"', b'\\', 0x01, 0x1f, b'x', 0x7f, 0xc3] {
                let mut body = vec![b'a'; len];
                if at < len {
                    body[at] = c;
                }
                let full = [b"\"", &body[..], b"\""].concat();
                // serde's end of the string, whatever follows it.
                let mut it =
                    serde_json::Deserializer::from_slice(&full).into_iter::<de::IgnoredAny>();
                let want = it.next().and_then(Result::ok).map(|_| it.byte_offset());
                let got = string_end(&full, 1).ok().map(|(end, _)| end + 1);
                assert_eq!(got, want, "len {len} at {at} byte {c:#x}");
                assert_eq!(value_end(&full, 0).ok(), want);
            }
        }
    }
}

/// Bodies dense with escapes, quotes and control characters, each cut
/// anywhere across the blocks: the string ends where serde_json's does.
#[test]
fn escape_dense_strings_end_as_serde_ends_them() {
    let parts: [&[u8]; 12] = [
        b"a",
        b"bcdefgh",
        br#"\""#,
        br"\\",
        br"\n",
        br"\u00e9",
        br"\ud83d",
        b"\"",
        b"\x01",
        br"\x",
        br"\u12",
        "é".as_bytes(),
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..20_000 {
        let mut full = b"\"".to_vec();
        for _ in 0..rng.below(40) {
            // Plain text far more often than anything else.
            let k = if rng.below(3) == 0 {
                rng.below(parts.len())
            } else {
                rng.below(2)
            };
            full.extend_from_slice(parts[k]);
        }
        full.push(b'"');
        let mut it = serde_json::Deserializer::from_slice(&full).into_iter::<de::IgnoredAny>();
        let want = it.next().and_then(Result::ok).map(|_| it.byte_offset());
        let got = string_end(&full, 1).ok().map(|(end, _)| end + 1);
        assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&full));
    }
}
