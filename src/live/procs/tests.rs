//! Unit tests of `procs`.

use super::*;

/// REG-010, REG-012, MISC-024: both field orders, a double space, UTC.
#[test]
fn lstart_parses_both_field_orders_reg_012() {
    let a = parse_row_start("Sun Aug 16 09:04:23 2026").unwrap();
    let b = parse_row_start("Sun 16 Aug 09:04:23 2026").unwrap();
    let c = parse_row_start("Wed Sep  2 09:47:54 2026").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.to_string(), "2026-08-16T09:04:23Z");
    assert_eq!(c.to_string(), "2026-09-02T09:47:54Z");
    assert_eq!(parse_row_start("yesterday at noon"), None);
}

/// WIN-007: a digits-only value is a FILETIME.
#[test]
fn filetime_is_read_win_007() {
    let t = parse_row_start("134328101803820142").unwrap();
    assert_eq!(t.as_second(), 13_432_810_180 - FILETIME_UNIX_OFFSET_SECS);
    assert_eq!(filetime(5), None);
}

/// REG-010, REG-013: the guard's three answers on one live pid; WIN-009: no
/// probe on the host is said, never read as dead.
#[test]
fn the_start_guard_matches_skips_or_calls_reuse_reg_010_013() {
    let start = parse_row_start("Sun Aug 16 09:04:23 2026").unwrap();
    let near = Timestamp::from_second(start.as_second() + 2).unwrap();
    let far = Timestamp::from_second(start.as_second() + 3600).unwrap();
    let raw = Some("Sun Aug 16 09:04:23 2026");
    assert_eq!(
        judge(7, raw, Probe::Alive(Some(near))),
        PidCheck::Same { pid: 7 }
    );
    assert!(matches!(
        judge(7, raw, Probe::Alive(Some(far))),
        PidCheck::Reused { .. }
    ));
    assert!(matches!(
        judge(7, raw, Probe::Alive(None)),
        PidCheck::AliveUnchecked { .. }
    ));
    assert!(matches!(
        judge(7, None, Probe::Alive(Some(near))),
        PidCheck::AliveUnchecked { .. }
    ));
    assert!(matches!(
        judge(7, Some("soon"), Probe::Alive(Some(near))),
        PidCheck::UnknownStart { .. }
    ));
    assert_eq!(judge(7, raw, Probe::Gone), PidCheck::Dead { pid: 7 });
    assert_eq!(judge(7, raw, Probe::Unavailable), PidCheck::Unavailable);
    assert_eq!(PidCheck::Unavailable.alive(), None);
}

/// WIN-008: another OS or another Linux pid namespace is foreign.
#[test]
fn another_pid_domain_is_foreign_win_008() {
    assert!(!same_domain("win32:host"));
    if cfg!(target_os = "linux") {
        assert!(same_domain("linux"));
        assert!(!same_domain("darwin"));
        assert!(!same_domain("linux:0000:pid:[1]"));
    }
}

/// REG-010: our own process probes alive with a start `ps` agrees on.
#[cfg(target_os = "linux")]
#[test]
fn own_process_is_alive_with_its_start() {
    let Probe::Alive(Some(t)) = probe(std::process::id()) else {
        panic!("own pid not alive")
    };
    let from_proc = proc_stat(std::process::id()).and_then(|p| p.start).unwrap();
    assert!((t.as_second() - from_proc.as_second()).abs() <= START_TOLERANCE_SECS);
}
