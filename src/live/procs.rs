//! Is a registry row's process still the one that wrote it? A pid is alive and
//! the same process when its real start matches the row's `procStart` within
//! ±2 s (REG-010); a live pid with another start is a reused pid, as dead as an
//! absent one (REG-013).
//!
//! - The start comes from `ps -o lstart= -p PID` run exactly as Claude Code runs
//!   it, with `LC_ALL=C TZ=UTC` (REG-010), and is parsed in both field orders a
//!   `ps` can print (REG-012, MISC-024). busybox `ps` rejects those flags and
//!   fails for a live pid as for a dead one (REG-011, MISC-023), so when `ps`
//!   fails, Linux's `/proc/<pid>/stat` answers: the start in clock ticks since
//!   boot plus `btime` from `/proc/stat`, and a zombie (`Z`) or dead (`X`)
//!   state is an exited process.
//! - The row's value is `procStartFt ?? procStart`: a digits-only value is a
//!   Windows FILETIME (100 ns ticks since 1601), anything else the asctime form
//!   (WIN-007). A form csift cannot read is not guessed at.
//! - A row written in another pid domain (another machine, OS or pid
//!   namespace: `pidDomain`, WIN-008) is never probed: its pid means nothing here.
//! - Where no probe exists (WIN-009) the answer says so.

use jiff::Timestamp;

use super::registry::Row;

/// Seconds either way within which two starts name the same process (REG-010).
pub(crate) const START_TOLERANCE_SECS: i64 = 2;

/// One probe of a pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// No such process (or an exited one not yet reaped).
    Gone,
    /// Alive; its start when one of the probes could read it.
    Alive(Option<Timestamp>),
    /// No probe works on this host.
    Unavailable,
}

/// What csift concludes about a row's process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PidCheck {
    /// Alive, and the start matched the row's.
    Same { pid: u32 },
    /// Alive, but whether it is the same process is unchecked (`why`).
    AliveUnchecked { pid: u32, why: String },
    /// Alive, but the row's `procStart` is in a form csift cannot read.
    UnknownStart { pid: u32, raw: String },
    /// No such process.
    Dead { pid: u32 },
    /// A live process with another start: the pid was reused (REG-013).
    Reused {
        pid: u32,
        row: Timestamp,
        actual: Timestamp,
    },
    /// Written in another pid domain: not probed (WIN-008).
    Foreign { domain: String },
    /// The row's pid is not a number.
    BadPid { raw: String },
    /// No probe works here (WIN-009).
    Unavailable,
}

impl PidCheck {
    /// `true` alive, `false` dead or reused, `None` undecided.
    pub(crate) fn alive(&self) -> Option<bool> {
        match self {
            PidCheck::Same { .. } | PidCheck::AliveUnchecked { .. } => Some(true),
            PidCheck::Dead { .. } | PidCheck::Reused { .. } => Some(false),
            _ => None,
        }
    }

    /// One evidence line, e.g. `pid 4123 alive (procStart matches)`.
    pub(crate) fn evidence(&self) -> String {
        match self {
            PidCheck::Same { pid } => format!("pid {pid} alive (procStart matches)"),
            PidCheck::AliveUnchecked { pid, why } => {
                format!("pid {pid} alive (pid only: {why}; the pid-reuse guard was skipped)")
            }
            PidCheck::UnknownStart { pid, raw } => format!(
                "pid {pid} alive, but the row's procStart {raw:?} is in a form csift cannot \
                 read: whether it is the same process cannot be checked"
            ),
            PidCheck::Dead { pid } => format!("pid {pid} not running"),
            PidCheck::Reused { pid, row, actual } => format!(
                "pid {pid} belongs to another process (started {}, the row's started {}): \
                 the pid was reused",
                crate::timefmt::utc(*actual),
                crate::timefmt::utc(*row)
            ),
            PidCheck::Foreign { domain } => format!(
                "row written in another pid domain ({domain}): its pid means nothing here, \
                 not probed"
            ),
            PidCheck::BadPid { raw } => {
                format!("the row's pid {raw} is not a number: the process cannot be probed")
            }
            PidCheck::Unavailable => {
                "no process probe works on this host: pid liveness cannot be checked".to_string()
            }
        }
    }
}

/// Check a row's process: domain, then the probe, then the start guard.
pub(crate) fn check(row: &Row) -> PidCheck {
    let Some(pid) = row.pid else {
        return PidCheck::BadPid {
            raw: row.pid_raw.clone().unwrap_or_default(),
        };
    };
    if let Some(d) = row.pid_domain.as_deref() {
        if !same_domain(d) {
            return PidCheck::Foreign {
                domain: d.to_string(),
            };
        }
    }
    judge(pid, row.proc_start.as_deref(), probe(pid))
}

/// The start guard applied to one probe result.
pub(crate) fn judge(pid: u32, proc_start: Option<&str>, probe: Probe) -> PidCheck {
    match probe {
        Probe::Gone => PidCheck::Dead { pid },
        Probe::Unavailable => PidCheck::Unavailable,
        Probe::Alive(actual) => {
            let Some(raw) = proc_start.map(str::trim).filter(|s| !s.is_empty()) else {
                return PidCheck::AliveUnchecked {
                    pid,
                    why: "the row has no procStart".into(),
                };
            };
            let Some(row) = parse_row_start(raw) else {
                return PidCheck::UnknownStart {
                    pid,
                    raw: raw.to_string(),
                };
            };
            match actual {
                None => PidCheck::AliveUnchecked {
                    pid,
                    why: "its start time could not be read".into(),
                },
                Some(act) if (row.as_second() - act.as_second()).abs() <= START_TOLERANCE_SECS => {
                    PidCheck::Same { pid }
                }
                Some(act) => PidCheck::Reused {
                    pid,
                    row,
                    actual: act,
                },
            }
        }
    }
}

/// The row's start: a FILETIME (digits only) or an asctime string in UTC, in
/// either field order (REG-010/012, WIN-007).
pub(crate) fn parse_row_start(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return filetime(s.parse::<u64>().ok()?);
    }
    parse_lstart(s, jiff::tz::TimeZone::UTC)
}

/// `Sun Aug 16 09:04:23 2026` or `Sun 16 Aug 09:04:23 2026` in zone `tz`.
pub(crate) fn parse_lstart(s: &str, tz: jiff::tz::TimeZone) -> Option<Timestamp> {
    // `%e` pads the day with a space, so a day-first rendering can carry two.
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    ["%a %b %d %H:%M:%S %Y", "%a %d %b %H:%M:%S %Y"]
        .iter()
        .find_map(|fmt| jiff::fmt::strtime::parse(fmt, &s).ok())
        .and_then(|bd| bd.to_datetime().ok())
        .and_then(|dt| dt.to_zoned(tz.clone()).ok())
        .map(|z| z.timestamp())
}

/// Seconds from 1601-01-01 to 1970-01-01.
const FILETIME_UNIX_OFFSET_SECS: i64 = 11_644_473_600;

/// A Windows FILETIME as an instant; `None` for a value before 1970.
pub(crate) fn filetime(ticks: u64) -> Option<Timestamp> {
    let secs = i64::try_from(ticks / 10_000_000).ok()? - FILETIME_UNIX_OFFSET_SECS;
    if secs < 0 {
        return None;
    }
    let nanos = i32::try_from((ticks % 10_000_000) * 100).ok()?;
    Timestamp::new(secs, nanos).ok()
}

/// Whether a row's `pidDomain` names the pid space csift runs in. The head
/// (`darwin`, `linux`, `win32`) must match; a Linux row's full form
/// `linux:<machine-id>:<pid namespace>` must match both parts where csift can
/// read its own (WIN-008).
pub(crate) fn same_domain(domain: &str) -> bool {
    let mut parts = domain.splitn(3, ':');
    let head = parts.next().unwrap_or(domain);
    if head != local_head() {
        return false;
    }
    #[cfg(target_os = "linux")]
    if let (Some(mid), Some(ns)) = (parts.next(), parts.next()) {
        let own_mid = std::fs::read_to_string("/etc/machine-id").map(|s| s.trim().to_string());
        let own_ns =
            std::fs::read_link("/proc/self/ns/pid").map(|p| p.to_string_lossy().into_owned());
        if let (Ok(m), Ok(n)) = (own_mid, own_ns) {
            return m == mid && n == ns;
        }
    }
    true
}

fn local_head() -> &'static str {
    if cfg!(target_os = "macos") {
        "darwin"
    } else if cfg!(target_os = "linux") {
        "linux"
    } else if cfg!(windows) {
        "win32"
    } else {
        std::env::consts::OS
    }
}

/// Whether a process with `pid` is there and has not exited, by the cheapest
/// look the host offers (`/proc`, else a signal-0 `kill`); no `ps` is run.
#[cfg(unix)]
pub(crate) fn exists(pid: u32) -> bool {
    if std::path::Path::new("/proc/self/stat").exists() {
        return proc_stat(pid).is_some_and(|p| !p.exited);
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 checks for the process only; nothing is delivered.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
pub(crate) fn exists(_pid: u32) -> bool {
    false
}

/// Probe a pid: `ps` as Claude Code runs it, else `/proc`.
#[cfg(unix)]
pub(crate) fn probe(pid: u32) -> Probe {
    let out = std::process::Command::new("ps")
        .args(["-o", "lstart=", "-p", &pid.to_string()])
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let text = out
        .as_ref()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    // A zombie still answers `ps`: `/proc` says it has exited.
    if let Some(p) = proc_stat(pid) {
        if p.exited {
            return Probe::Gone;
        }
        if text.is_empty() {
            return Probe::Alive(p.start);
        }
    }
    if text.is_empty() {
        // `ps` failed or printed nothing, and `/proc` has no such pid (or there is
        // no `/proc`, as on macOS where `ps` is reliable).
        return match out {
            Ok(_) => Probe::Gone,
            Err(_) if std::path::Path::new("/proc/self/stat").exists() => Probe::Gone,
            Err(_) => Probe::Unavailable,
        };
    }
    Probe::Alive(parse_lstart(&text, jiff::tz::TimeZone::UTC))
}

#[cfg(not(unix))]
pub(crate) fn probe(_pid: u32) -> Probe {
    Probe::Unavailable
}

/// What `/proc/<pid>/stat` says: whether the process has exited, and its start.
#[cfg(unix)]
#[derive(Debug, Clone, Copy)]
struct ProcStat {
    exited: bool,
    start: Option<Timestamp>,
}

/// Linux clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on
/// every architecture Claude Code ships for).
#[cfg(unix)]
const USER_HZ: u64 = 100;

#[cfg(unix)]
fn proc_stat(pid: u32) -> Option<ProcStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?;
    let exited = matches!(*state, "Z" | "X" | "x");
    // Field 22 of the stat line (`starttime`) is the 20th after the name.
    let ticks: u64 = fields.get(19)?.parse().ok()?;
    let start = boot_time().and_then(|bt| {
        let secs = i64::try_from(bt + ticks / USER_HZ).ok()?;
        Timestamp::from_second(secs).ok()
    });
    Some(ProcStat { exited, start })
}

#[cfg(unix)]
fn boot_time() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

#[cfg(test)]
mod tests;
