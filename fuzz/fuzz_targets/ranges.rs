//! The `--line LIST` / `--turn RANGE` parsers of `csift show` and their resolution
//! against a transcript's extent: no panic, and a resolved range always lies
//! inside `lo..=hi`, a single address names exactly one position.
#![no_main]

use csift::cmd::show::address::{self, Spec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let lo = usize::from(data[0] & 1);
    let hi = usize::from(u16::from_le_bytes([data[1], data[2]]));
    let hi = if data[3] & 0x80 != 0 {
        u32::MAX as usize
    } else {
        hi
    };
    let text = String::from_utf8_lossy(&data[4..]);
    let values: Vec<String> = text.split('\n').map(str::to_string).collect();
    let Ok(items) = address::parse(&values) else {
        return;
    };
    for item in &items {
        assert!(!item.token.is_empty());
        if let Some(r) = address::resolve(item, lo, hi) {
            assert!(
                *r.start() >= lo && *r.end() <= hi && r.start() <= r.end(),
                "{item:?} {lo} {hi} -> {r:?}"
            );
            if matches!(item.spec, Spec::One(_)) {
                assert_eq!(r.start(), r.end());
            }
        }
    }
});
