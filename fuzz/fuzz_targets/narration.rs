//! The thinking-signature narration decoder (NAR-002…008) over arbitrary strings:
//! no panic, and `is_narration` agrees with the decoded tag.
#![no_main]

use csift::classify::narration;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let tag = narration::signature_tag(&s);
    if narration::is_narration(&s) {
        assert_eq!(tag.as_deref(), Some(&b"narration"[..]));
    }
    if let Some(raw) = narration::base64_decode(&s) {
        assert!(raw.len() <= s.len());
    }
    // The same bytes as base64, so the protobuf walk sees arbitrary messages too.
    let b64 = encode(data);
    let tag = narration::signature_tag(&b64);
    assert_eq!(
        narration::is_narration(&b64),
        tag.as_deref() == Some(&b"narration"[..]) && gate(&b64)
    );
    assert_eq!(narration::base64_decode(&b64).as_deref(), Some(data));
});

fn gate(s: &str) -> bool {
    ["bmFycmF0aW9u", "5hcnJhdGlv", "uYXJyYXRp"]
        .iter()
        .any(|n| s.contains(n))
}

fn encode(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}
