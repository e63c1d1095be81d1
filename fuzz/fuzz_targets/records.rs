//! The line framer, record parser, file index and classifier over arbitrary bytes:
//! what every command does to a transcript. Checks the framer's invariants (lines
//! tile the buffer, numbers are consecutive, `count` agrees), that every line is a
//! record or a named malformation, that turn numbers are monotone, and that
//! sanitised unit text never carries terminal control bytes.
#![no_main]

use csift::classify::{classify, FileIndex};
use csift::output::sanitize;
use csift::record::{parse_line, Parsed};
use csift::scan::{self, Lines};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lane = data.first().is_some_and(|b| b & 1 == 1);
    let idx = FileIndex::build(data, lane);
    let mut expect_no = 1;
    let mut expect_off = 0;
    let mut last_turn = 0;
    for line in Lines::new(data) {
        assert_eq!(line.no, expect_no);
        assert_eq!(line.offset, expect_off);
        let end = line.offset + line.bytes.len();
        assert!(end <= data.len());
        assert_eq!(&data[line.offset..end], line.bytes);
        expect_off = memchr_next(data, line.offset);
        assert_eq!(
            line.terminated,
            expect_off <= data.len() && data[..expect_off].ends_with(b"\n")
        );
        expect_no += 1;
        if let Some(t) = idx.turn(line.no) {
            assert!(
                t >= last_turn,
                "turn numbers go backwards at line {}",
                line.no
            );
            last_turn = t;
        }
        match parse_line(&line) {
            Parsed::Record(r) => {
                let mut units = Vec::new();
                classify(&r, line.no, &idx, &mut units);
                for u in &units {
                    let c = sanitize::clean(&u.text);
                    assert!(
                        !c.chars()
                            .any(|ch| ch.is_control() && ch != '\n' && ch != '\t'),
                        "control character survives clean()"
                    );
                    let one = sanitize::one_line(&u.text);
                    assert!(!one.contains('\n'));
                }
            }
            Parsed::Malformed(m) => {
                assert_eq!(m.line, line.no);
                assert!(!m.kind.name().is_empty());
            }
        }
    }
    assert_eq!(expect_no - 1, scan::lines::count(data));
    assert!(idx.turns() <= expect_no);
});

/// Offset just past the line starting at `off` (past its newline, or the end).
fn memchr_next(data: &[u8], off: usize) -> usize {
    match data[off..].iter().position(|&b| b == b'\n') {
        Some(i) => off + i + 1,
        None => data.len(),
    }
}
