//! Time: parsing record timestamps (ISO 8601 UTC, REC-*: many lines have none),
//! `--since/--until` values (absolute or relative like `2d`), and rendering a
//! timestamp in local time beside UTC.

use std::path::Path;

use jiff::{tz::TimeZone, Timestamp, ToSpan};

use crate::error::{Error, Result};

mod stamp;

/// The system's time zone, looked up once per process: jiff's lookup cost
/// about 11 µs a call, and `status` made three calls a row (a fiftieth of its
/// time). A zone configured anew while a long `mcp` or `wait` runs is seen by
/// the next run; the zone's own rules (daylight saving) apply throughout.
pub(crate) fn system_zone() -> TimeZone {
    static ZONE: std::sync::OnceLock<TimeZone> = std::sync::OnceLock::new();
    ZONE.get_or_init(|| localtime().unwrap_or_else(TimeZone::system))
        .clone()
}

/// Where jiff reads the system zone from.
const LOCALTIME: &str = "/etc/localtime";
/// The first directory jiff's zone database searches.
const ZONEINFO: &str = "/usr/share/zoneinfo/";

/// The common case of the system zone, read as jiff would read it but without
/// its database: with `TZ` and `TZDIR` unset, jiff takes the zone's name from
/// `/etc/localtime`'s link into the zoneinfo directory and loads that name's
/// file from its database, which it first builds by walking every file under
/// `/usr/share/zoneinfo` (1,800 of them: half a millisecond of every command
/// that prints a local time). A link into that directory is read here as
/// the same file under the same name. Anything else (`TZ` set, no link, a
/// link elsewhere) is `None`, and goes to jiff.
fn localtime() -> Option<TimeZone> {
    if std::env::var_os("TZ").is_some() || std::env::var_os("TZDIR").is_some() {
        return None;
    }
    let target = std::fs::read_link(LOCALTIME).ok()?;
    let name = target.to_str()?.strip_prefix(ZONEINFO)?;
    // jiff's database leaves these trees out, and reads such a zone unnamed.
    if name.starts_with("posix/") || name.starts_with("right/") {
        return None;
    }
    let bytes = std::fs::read(Path::new(ZONEINFO).join(name)).ok()?;
    TimeZone::tzif(name, &bytes).ok()
}

/// Parse a record's `timestamp`; `None` for absent or unparseable values.
/// Claude Code's own form is read directly ([`stamp`]), any other by jiff.
pub(crate) fn parse_ts(s: &str) -> Option<Timestamp> {
    stamp::claude_form(s).or_else(|| s.parse::<Timestamp>().ok())
}

/// A `--since`/`--until` value: an RFC 3339 timestamp, a date (`2026-09-01`: the
/// start of that local day, or with `end` its last instant, so `--since D
/// --until D` is the whole day), a local date and time, or a relative age
/// (`90m`, `12h`, `2d`, `3w`) counted back from now.
pub(crate) fn parse_bound(s: &str, now: Timestamp, end: bool) -> Result<Timestamp> {
    let s = s.trim();
    if let Ok(t) = s.parse::<Timestamp>() {
        return Ok(t);
    }
    // A time zone named in brackets (`2026-02-12T20:00[Europe/Paris]`): a civil
    // parse would drop the annotation and read the time in $TZ.
    if s.contains('[') {
        return s
            .parse::<jiff::Zoned>()
            .map(|z| z.timestamp())
            .map_err(|_| bad(s));
    }
    // jiff reads a date out of a date-and-time string by dropping the time, so
    // a value with a time part must never reach the date branch.
    let has_time = s.contains(['T', 't', ' ']);
    if has_time {
        if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
            if let Ok(z) = dt.to_zoned(system_zone()) {
                return Ok(z.timestamp());
            }
        }
        return Err(bad(s));
    }
    if let Ok(d) = s.parse::<jiff::civil::Date>() {
        let day = if end { d.tomorrow().ok() } else { Some(d) };
        if let Some(z) = day.and_then(|d| d.to_zoned(system_zone()).ok()) {
            let t = z.timestamp();
            return Ok(if end {
                t.checked_sub(1.nanosecond()).unwrap_or(t)
            } else {
                t
            });
        }
    }
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: i64 = num.parse().map_err(|_| bad(s))?;
    let per = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad(s)),
    };
    // An age past what a time can hold is an error, never a wrap or a panic
    // (a Span of over 631 billion seconds panics; a SignedDuration does not).
    let secs = n.checked_mul(per).ok_or_else(|| bad(s))?;
    now.checked_sub(jiff::SignedDuration::from_secs(secs))
        .map_err(|_| bad(s))
}

fn bad(s: &str) -> Error {
    Error::Usage(format!(
        "cannot read time `{s}`: use RFC 3339 (2026-09-01T12:00:00Z), a local date and time (2026-09-01T12:00), a date (2026-09-01) or an age (90m, 12h, 2d, 3w)"
    ))
}

/// A `[since, until]` window; either side open.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Window {
    pub(crate) since: Option<Timestamp>,
    pub(crate) until: Option<Timestamp>,
}

impl Window {
    pub(crate) fn parse(since: Option<&str>, until: Option<&str>) -> Result<Window> {
        let now = Timestamp::now();
        let w = Window {
            since: since.map(|s| parse_bound(s, now, false)).transpose()?,
            until: until.map(|s| parse_bound(s, now, true)).transpose()?,
        };
        if let (Some(a), Some(b)) = (w.since, w.until) {
            if a > b {
                return Err(Error::Usage(format!(
                    "--since ({}) is after --until ({}): nothing can match",
                    utc(a),
                    utc(b)
                )));
            }
        }
        Ok(w)
    }

    pub(crate) fn is_open(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether `t` lies inside. A unit without a timestamp is kept only when the
    /// window is open: csift cannot place it in time.
    pub(crate) fn contains(&self, t: Option<Timestamp>) -> bool {
        match t {
            None => self.is_open(),
            Some(t) => self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t <= u),
        }
    }

    /// Whether a span `[first, last]` overlaps the window.
    pub(crate) fn overlaps(&self, first: Option<Timestamp>, last: Option<Timestamp>) -> bool {
        if self.is_open() {
            return true;
        }
        let (Some(first), Some(last)) = (first.or(last), last.or(first)) else {
            return false;
        };
        self.since.is_none_or(|s| last >= s) && self.until.is_none_or(|u| first <= u)
    }
}

/// `2026-09-01 14:03` in the system time zone.
pub(crate) fn local(t: Timestamp) -> String {
    local_in(t, &system_zone())
}

/// [`local`] in `tz`, which a caller printing many times looks up once (the
/// system zone's lookup and `strftime` were most of a listing's per-row
/// time). Years 0 to 9999 are written directly, as `strftime` writes them.
pub(crate) fn local_in(t: Timestamp, tz: &TimeZone) -> String {
    let mut out = String::with_capacity(16);
    push_local_in(&mut out, t, tz);
    out
}

/// [`local_in`], appended to `out` (a listing writes thousands).
pub(crate) fn push_local_in(out: &mut String, t: Timestamp, tz: &TimeZone) {
    if !push_civil(out, tz.to_datetime(t), ' ', false) {
        let z = t.to_zoned(tz.clone());
        out.push_str(&z.strftime("%Y-%m-%d %H:%M").to_string());
    }
}

/// `2026-09-01T04:03:00Z`, second precision.
pub(crate) fn utc(t: Timestamp) -> String {
    let mut out = String::with_capacity(20);
    push_utc(&mut out, t);
    out
}

/// [`utc`], appended to `out`.
pub(crate) fn push_utc(out: &mut String, t: Timestamp) {
    if push_civil(out, TimeZone::UTC.to_datetime(t), 'T', true) {
        out.push('Z');
    } else {
        out.push_str(&t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    }
}

/// `YYYY-MM-DD{sep}HH:MM`, with `:SS` under `seconds`, written directly for
/// a year from 0 to 9999 (as `strftime` writes it); any other year writes
/// nothing and is `false`, for the caller's `strftime`.
fn push_civil(out: &mut String, d: jiff::civil::DateTime, sep: char, seconds: bool) -> bool {
    if !(0..=9999).contains(&d.year()) {
        return false;
    }
    push_date(out, d.date());
    out.push(sep);
    push_2(out, d.hour());
    out.push(':');
    push_2(out, d.minute());
    if seconds {
        out.push(':');
        push_2(out, d.second());
    }
    true
}

/// `YYYY-MM-DD` of a year from 0 to 9999.
fn push_date(out: &mut String, d: jiff::civil::Date) {
    let y = d.year().unsigned_abs();
    push_2(out, (y / 100) as i8);
    push_2(out, (y % 100) as i8);
    out.push('-');
    push_2(out, d.month());
    out.push('-');
    push_2(out, d.day());
}

/// Two digits of a value from 0 to 99.
fn push_2(out: &mut String, v: i8) {
    let v = v.unsigned_abs();
    out.push(char::from(b'0' + v / 10 % 10));
    out.push(char::from(b'0' + v % 10));
}

/// `2026-09-01T04:03:00.748Z`: in the form Claude Code writes (JavaScript's
/// `toISOString`, always three fraction digits, REC-005), so a time printed
/// for a machine joins and sorts as a string with the records' own; a finer
/// time keeps its digits. It bounds a window exactly, so a `--until` copied
/// from it keeps that record.
pub(crate) fn utc_exact(t: Timestamp) -> String {
    let nanos = t.subsec_nanosecond();
    if nanos >= 0 && nanos % 1_000_000 == 0 {
        format!(
            "{}.{:03}Z",
            t.strftime("%Y-%m-%dT%H:%M:%S"),
            nanos / 1_000_000
        )
    } else {
        t.to_string()
    }
}

/// `3h12m`, `45s`, `2d4h`.
pub(crate) fn duration(secs: i64) -> String {
    let mut out = String::with_capacity(8);
    push_duration(&mut out, secs);
    out
}

/// [`duration`], appended to `out`.
pub(crate) fn push_duration(out: &mut String, secs: i64) {
    use std::fmt::Write as _;
    let s = secs.max(0);
    let (big, unit, small, small_unit) = match s {
        0..=59 => {
            let _ = write!(out, "{s}s");
            return;
        }
        60..=3599 => (s / 60, 'm', s % 60, 's'),
        3600..=86_399 => (s / 3600, 'h', (s % 3600) / 60, 'm'),
        _ => (s / 86_400, 'd', (s % 86_400) / 3600, 'h'),
    };
    let _ = write!(out, "{big}");
    out.push(unit);
    push_2(out, small as i8);
    out.push(small_unit);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct forms write what `strftime` writes, in and around the
    /// years they take, in zones east and west of UTC.
    #[test]
    fn direct_forms_match_strftime() {
        let zones = [
            TimeZone::UTC,
            TimeZone::fixed(jiff::tz::offset(-7)),
            TimeZone::fixed(jiff::tz::offset(13)),
        ];
        let times = [
            "2026-09-01T04:03:09.748Z",
            "1970-01-01T00:00:00Z",
            "0000-01-01T00:30:00Z",
            "0009-12-31T23:59:59Z",
            "0010-02-03T04:05:06Z",
            "0099-11-30T19:09:59Z",
            "0100-01-01T00:00:00Z",
            "0999-12-31T23:59:59Z",
            "1000-01-01T10:10:10Z",
            "9999-12-30T00:00:00Z",
            "-000001-06-01T12:00:00Z",
        ];
        for t in times {
            let t: Timestamp = t.parse().unwrap();
            assert_eq!(utc(t), t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(), "{t}");
            for tz in &zones {
                let want = t.to_zoned(tz.clone()).strftime("%Y-%m-%d %H:%M");
                assert_eq!(local_in(t, tz), want.to_string(), "{t} {tz:?}");
            }
        }
    }

    /// The zone read past jiff's database is the one jiff's own lookup of
    /// the system zone gives: the same name, and every offset weekly over two
    /// centuries (where this machine's zone is a link into the zoneinfo
    /// directory and `TZ` is unset; elsewhere jiff is used, and there is
    /// nothing to compare).
    #[test]
    fn the_system_zone_read_directly_is_the_one_jiff_loads() {
        let Some(ours) = localtime() else { return };
        let theirs = TimeZone::system();
        assert_eq!(ours.iana_name(), theirs.iana_name());
        let mut t: Timestamp = "1900-01-01T00:00:00Z".parse().unwrap();
        let end: Timestamp = "2100-01-01T00:00:00Z".parse().unwrap();
        while t < end {
            assert_eq!(ours.to_offset(t), theirs.to_offset(t), "{t}");
            t = t
                .checked_add(jiff::SignedDuration::from_hours(24 * 7 + 5))
                .unwrap();
        }
    }

    #[test]
    fn parses_record_timestamps() {
        assert!(parse_ts("2026-06-07T05:43:00.000Z").is_some());
        assert!(parse_ts("not a time").is_none());
    }

    /// REC-005: machine times print as Claude Code writes them, three fraction
    /// digits always, so they join and sort as strings with the records' own.
    #[test]
    fn exact_times_print_as_claude_code_writes_them_rec_005() {
        for s in [
            "2026-02-15T09:39:02.650Z",
            "2026-03-01T10:00:00.000Z",
            "2026-03-01T10:00:00.500Z",
        ] {
            assert_eq!(utc_exact(parse_ts(s).unwrap()), s);
        }
        assert_eq!(
            utc_exact(parse_ts("2026-03-01T10:00:00.123456Z").unwrap()),
            "2026-03-01T10:00:00.123456Z"
        );
    }

    /// An age too large for a time is a usage error: `7305000d` panicked in
    /// jiff's Span, `9223372036854775807d` wrapped to a day in the future.
    #[test]
    fn an_age_past_any_time_is_an_error() {
        let now: Timestamp = "2026-09-10T00:00:00Z".parse().unwrap();
        for age in [
            "7305000d",
            "9999999999h",
            "99999999999m",
            "9223372036854775807d",
            "99999999999999999999s",
        ] {
            assert!(parse_bound(age, now, false).is_err(), "{age}");
        }
        assert!(parse_bound("7000d", now, false).is_ok());
    }

    #[test]
    fn relative_bounds() {
        let now: Timestamp = "2026-09-10T00:00:00Z".parse().unwrap();
        assert_eq!(
            parse_bound("2d", now, false).unwrap(),
            "2026-09-08T00:00:00Z".parse().unwrap()
        );
        assert_eq!(
            parse_bound("90m", now, false).unwrap(),
            "2026-09-09T22:30:00Z".parse().unwrap()
        );
        assert!(parse_bound("2x", now, false).is_err());
        assert!(parse_bound("2026-09-01", now, false).is_ok());
    }

    /// A date given to `--until` ends with its day, so one date on both sides is
    /// that whole day (it was local midnight, and a one-day window was empty).
    #[test]
    fn a_date_until_covers_its_whole_day() {
        let now: Timestamp = "2026-09-10T00:00:00Z".parse().unwrap();
        let start = parse_bound("2026-02-26", now, false).unwrap();
        let end = parse_bound("2026-02-26", now, true).unwrap();
        let day = (end - start).total(jiff::Unit::Hour).unwrap();
        assert!((22.9..25.0).contains(&day), "{day} hours"); // DST days included
        let w = Window {
            since: Some(start),
            until: Some(end),
        };
        assert!(w.contains(Some(start)));
        assert!(w.contains(Some(end)));
        assert!(w.contains(start.checked_add(12.hours()).ok()));
        assert!(!w.contains(end.checked_add(1.nanosecond()).ok()));
        // Times and ages are exact on either side.
        let t = "2026-02-26T10:00:00Z";
        assert_eq!(
            parse_bound(t, now, true).unwrap(),
            parse_bound(t, now, false).unwrap()
        );
        assert_eq!(
            parse_bound("2d", now, true).unwrap(),
            parse_bound("2d", now, false).unwrap()
        );
    }

    #[test]
    fn a_local_date_and_time_keeps_its_time() {
        let now: Timestamp = "2026-09-10T00:00:00Z".parse().unwrap();
        let day = parse_bound("2026-02-12", now, false).unwrap();
        let expect = "2026-02-12T20:00:00"
            .parse::<jiff::civil::DateTime>()
            .unwrap()
            .to_zoned(system_zone())
            .unwrap()
            .timestamp();
        for v in [
            "2026-02-12T20:00:00",
            "2026-02-12 20:00",
            "2026-02-12t20:00",
        ] {
            for end in [false, true] {
                let t = parse_bound(v, now, end).unwrap();
                assert_eq!(t, expect, "{v} end={end}");
                assert_ne!(t, day, "{v}: the time part was dropped");
            }
        }
        // A bracketed zone is that zone's time, not $TZ's.
        let paris = parse_bound("2026-02-12T20:00[Europe/Paris]", now, false).unwrap();
        assert_eq!(paris, "2026-02-12T19:00:00Z".parse::<Timestamp>().unwrap());
        assert!(parse_bound("2026-02-12T20:00[No/Such_Zone]", now, false).is_err());
        // A reversed window written with local times is caught too.
        let e = Window::parse(Some("2026-02-12T20:00:00"), Some("2026-02-12T19:00:00"));
        assert!(e.is_err());
        assert!(parse_bound("2026-02-12T25:00", now, false).is_err());
    }

    #[test]
    fn a_reversed_window_is_an_error() {
        let e = Window::parse(Some("2026-03-01"), Some("2026-01-01")).unwrap_err();
        assert!(e.to_string().contains("is after --until"), "{e}");
        assert!(Window::parse(Some("2026-03-01"), Some("2026-03-01")).is_ok());
    }

    #[test]
    fn window_membership() {
        let w = Window {
            since: parse_ts("2026-01-01T00:00:00Z"),
            until: None,
        };
        assert!(w.contains(parse_ts("2026-02-01T00:00:00Z")));
        assert!(!w.contains(parse_ts("2025-02-01T00:00:00Z")));
        assert!(!w.contains(None));
        assert!(Window::default().contains(None));
    }

    #[test]
    fn durations() {
        assert_eq!(duration(45), "45s");
        assert_eq!(duration(3725), "1h02m");
        assert_eq!(duration(90_000), "1d01h");
        assert_eq!(duration(-5), "0s");
        // The digits pushed one by one, against the formatted forms.
        let formatted = |s: i64| match s {
            0..=59 => format!("{s}s"),
            60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
            3600..=86_399 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
            _ => format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3600),
        };
        let edges = (0..200_000)
            .step_by(7)
            .chain([59, 60, 3599, 3600, 86_399, 86_400, i64::MAX]);
        for s in edges {
            assert_eq!(duration(s), formatted(s), "{s}");
        }
    }
}
