//! Claude Code's own timestamp form, `2026-03-11T00:36:47.078Z` (UTC,
//! milliseconds, JavaScript's `toISOString`: REC-005), read directly: jiff's
//! general RFC 3339 parser was about 1.5% of a census, which reads one per
//! record. The same instant jiff reads (a test compares them); any other form,
//! or a field out of range, is left to jiff.

use std::cell::Cell;

use jiff::Timestamp;

/// The instant of `s` when it is written in Claude Code's form exactly.
pub(super) fn claude_form(s: &str) -> Option<Timestamp> {
    let b: &[u8; 24] = s.as_bytes().try_into().ok()?;
    let seps = [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
        (23, b'Z'),
    ];
    if seps.iter().any(|&(i, c)| b[i] != c) {
        return None;
    }
    let digit = |i: usize| -> Option<i64> {
        let d = b[i].wrapping_sub(b'0');
        (d < 10).then_some(i64::from(d))
    };
    let two = |i: usize| Some(digit(i)? * 10 + digit(i + 1)?);
    let date: [u8; 10] = b[..10].try_into().ok()?;
    let days = match LAST_DAY.with(Cell::get) {
        (last, days) if last == date => days,
        _ => {
            let year = two(0)? * 100 + two(2)?;
            let (month, day) = (two(5)?, two(8)?);
            if !(1..=12).contains(&month) || day < 1 || day > month_days(year, month) {
                return None;
            }
            let days = days_since_epoch(year, month, day);
            LAST_DAY.with(|c| c.set((date, days)));
            days
        }
    };
    let (hour, minute, second) = (two(11)?, two(14)?, two(17)?);
    let milli = digit(20)? * 100 + two(21)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second;
    Timestamp::new(secs, i32::try_from(milli * 1_000_000).ok()?).ok()
}

thread_local! {
    /// The date this thread read last and its days since the epoch: a
    /// transcript's records are written in time order, most of a file's on
    /// a few days, and the date's digits, checks and day count were half of
    /// a read (1.3% of stats' instructions). No date read holds zero bytes,
    /// so the first value never matches.
    static LAST_DAY: Cell<([u8; 10], i64)> = const { Cell::new(([0; 10], 0)) };
}

fn month_days(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
/// `days_from_civil`).
fn days_since_epoch(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jiff(s: &str) -> Option<Timestamp> {
        s.parse::<Timestamp>().ok()
    }

    /// Every day from 1600 to 2400 at a few times of day, and odd values:
    /// read as jiff reads them, or left to jiff.
    #[test]
    fn reads_what_jiff_reads() {
        let mut n = 0;
        for year in 1600..2400 {
            for month in 1..=12 {
                for day in [1, 15, 28, 29, 30, 31] {
                    for t in ["00:00:00.000", "12:34:56.789", "23:59:59.999"] {
                        let s = format!("{year:04}-{month:02}-{day:02}T{t}Z");
                        let got = claude_form(&s);
                        assert_eq!(got, jiff(&s), "{s}");
                        n += usize::from(got.is_some());
                    }
                }
            }
        }
        assert!(n > 30_000);
        for s in [
            "2026-02-29T00:00:00.000Z",
            "2024-02-29T10:00:00.000Z",
            "2026-13-01T00:00:00.000Z",
            "2026-00-01T00:00:00.000Z",
            "2026-01-00T00:00:00.000Z",
            "2026-01-01T24:00:00.000Z",
            "2026-01-01T23:60:00.000Z",
            "2026-12-31T23:59:60.000Z",
            "2026-01-01t00:00:00.000Z",
            "2026-01-01T00:00:00.000z",
            "2026-01-01T00:00:00.00Z",
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00.000+00:00",
            "2026-01-01T0a:00:00.000Z",
            "+026-01-01T00:00:00.000Z",
            "0000-01-01T00:00:00.000Z",
        ] {
            let got = claude_form(s);
            assert!(got.is_none() || got == jiff(s), "{s}");
            assert_eq!(super::super::parse_ts(s), jiff(s), "{s}");
        }
        assert!(claude_form("2024-02-29T10:00:00.000Z").is_some());
    }

    /// REC-005 on real bytes: every `"timestamp"` of the sample and public
    /// transcripts (Claude Code 1.0.17 to 2.1.x) is in the form read directly,
    /// and reads as the instant jiff reads.
    #[test]
    fn real_timestamps_take_the_direct_read_rec_005() {
        let key = br#""timestamp":""#;
        let (mut direct, mut all) = (0, 0);
        for t in crate::discovery::sample_and_public() {
            let buf = std::fs::read(&t.path).unwrap();
            for at in memchr::memmem::find_iter(&buf, key) {
                let v = &buf[at + key.len()..];
                let Some(end) = memchr::memchr(b'"', v) else {
                    continue;
                };
                let s = std::str::from_utf8(&v[..end]).unwrap();
                all += 1;
                let got = claude_form(s);
                direct += usize::from(got.is_some());
                assert!(got.is_none() || got == jiff(s), "{s}");
            }
        }
        assert!(all > 5_000, "{all}");
        assert_eq!(direct, all, "timestamps not in Claude Code's form");
    }
}
