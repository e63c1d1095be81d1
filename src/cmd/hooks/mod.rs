//! `csift hooks print|install`: the settings.json hooks block that wires
//! csift into Claude Code, printed, or merged into a settings file the user
//! names. The block: the guard arms (PostToolUse matcher ".*" and Stop, as
//! `csift guard --print-settings` prints them) and the SessionStart
//! re-injection after a compaction (matcher "compact", one `verbatim
//! --hook-json` per slice: Claude Code runs same-event hooks concurrently and
//! joins their outputs as they finish, MISC-013, so each slice is a hook of
//! its own and `--ordered` makes each print after the one before it;
//! SessionStart's matcher is tested against the start's source, and
//! "compact" is one of its five values, MISC-027, which `--hook-source
//! compact` checks again). Every command is the
//! running binary's absolute path: a hook runs in the session's cwd.

mod diff;
mod merge;
mod record;

use std::io::Write;
use std::path::Path;

use crate::cli::extra::{HookSelect, HooksAction, HooksArgs, HooksInstallArgs};
use crate::error::{Error, Result};
use crate::output::{Format, Out};

use super::Exit;

/// One hook entry: the event, its matcher (none: every firing), the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) event: &'static str,
    pub(crate) matcher: Option<&'static str>,
    pub(crate) command: String,
    pub(crate) timeout: Option<u64>,
}

/// A hook as Claude Code reads it, keys in the order its docs write them.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Hook {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<u64>,
}

/// A matcher group: the matcher (none: every firing) and its hooks.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Group {
    #[serde(skip_serializing_if = "Option::is_none")]
    matcher: Option<&'static str>,
    hooks: Vec<Hook>,
}

/// `{event: [group, …], …}` in first-seen event order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Events(pub(crate) Vec<(&'static str, Vec<Group>)>);

impl serde::Serialize for Events {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (ev, groups) in &self.0 {
            m.serialize_entry(ev, groups)?;
        }
        m.end()
    }
}

impl Events {
    pub(crate) fn of(entries: &[Entry]) -> Events {
        let mut ev = Events::default();
        for (e, g) in groups(entries) {
            match ev.0.iter_mut().find(|(k, _)| *k == e) {
                Some((_, gs)) => gs.push(g),
                None => ev.0.push((e, vec![g])),
            }
        }
        ev
    }
}

pub(crate) fn run(args: &HooksArgs, out: &mut Out) -> Result<Exit> {
    // The recorder runs as a hook: it needs no binary path and never fails.
    if let HooksAction::Record(r) = &args.action {
        return Ok(record::run(r));
    }
    let exe = exe()?;
    match &args.action {
        HooksAction::Print(p) => {
            let block = Block {
                hooks: Events::of(&entries(&p.select, &exe)),
            };
            if p.format == Format::Json {
                out.json(&block)?;
            } else {
                let text = serde_json::to_string_pretty(&block).map_err(std::io::Error::from)?;
                writeln!(out, "{text}")?;
            }
            Ok(Exit::Found)
        }
        HooksAction::Install(i) => install(i, &entries(&i.select, &exe), out),
        HooksAction::Record(r) => Ok(record::run(r)),
    }
}

/// The running binary, absolute and quoted for a shell command line.
fn exe() -> Result<String> {
    let exe = std::env::current_exe().map_err(|e| Error::io("the running csift binary", e))?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    Ok(crate::output::sanitize::shell_word(&exe.to_string_lossy()).into_owned())
}

/// The entries a selection asks for (none selected: all).
pub(crate) fn entries(sel: &HookSelect, exe: &str) -> Vec<Entry> {
    let all = !sel.guard && !sel.verbatim && !sel.record;
    let mut v = Vec::new();
    if all || sel.guard {
        v.push(Entry {
            event: "PostToolUse",
            matcher: Some(".*"),
            command: format!("{exe} guard --post"),
            timeout: Some(10),
        });
        v.push(Entry {
            event: "Stop",
            matcher: None,
            command: format!("{exe} guard --stop"),
            timeout: Some(10),
        });
    }
    if all || sel.record {
        // The elicitation recorder's five events (ELI-015, ELI-023).
        use crate::elicitation::record::{COMMAND, HOOKS, TIMEOUT_SECS};
        for (event, matcher) in HOOKS {
            v.push(Entry {
                event,
                matcher,
                command: format!("{exe} {COMMAND}"),
                timeout: Some(TIMEOUT_SECS.into()),
            });
        }
    }
    if all || sel.verbatim {
        let n = sel.slices;
        for i in 1..=n {
            v.push(Entry {
                event: "SessionStart",
                matcher: Some("compact"),
                command: format!(
                    "{exe} verbatim --hook-json --hook-source compact --ordered --slices {n} --slice {i} --window 9000"
                ),
                timeout: Some(30),
            });
        }
    }
    v
}

/// Entries as groups: one group per (event, matcher), in first-seen order.
pub(crate) fn groups(entries: &[Entry]) -> Vec<(&'static str, Group)> {
    let mut out: Vec<(&'static str, Group)> = Vec::new();
    for e in entries {
        let hook = Hook {
            kind: "command",
            command: e.command.clone(),
            timeout: e.timeout,
        };
        match out
            .iter_mut()
            .find(|(ev, g)| *ev == e.event && g.matcher == e.matcher)
        {
            Some((_, g)) => g.hooks.push(hook),
            None => out.push((
                e.event,
                Group {
                    matcher: e.matcher,
                    hooks: vec![hook],
                },
            )),
        }
    }
    out
}

/// `{"hooks": {event: [group, …]}}`.
#[derive(serde::Serialize)]
struct Block {
    hooks: Events,
}

/// Merge into the named file: the diff always, the write only with --yes.
fn install(args: &HooksInstallArgs, entries: &[Entry], out: &mut Out) -> Result<Exit> {
    let path = args.settings.as_path();
    let old = match std::fs::read(path) {
        Ok(b) => Some(
            String::from_utf8(b)
                .map_err(|_| Error::Usage(format!("{}: not UTF-8 text", path.display())))?,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(path, e)),
    };
    let merged = merge::merge(old.as_deref().unwrap_or(""), entries)
        .map_err(|m| Error::Usage(format!("{}: {m}", path.display())))?;
    let say = |s: String| crate::output::to_stderr(&crate::output::sanitize::clean(&s));
    if merged.added == 0 {
        say(format!(
            "csift: {}: nothing to change ({} entries already there)",
            path.display(),
            entries.len()
        ));
        return Ok(Exit::Found);
    }
    let old_text = old.as_deref().unwrap_or("");
    diff::unified(out, old_text, &merged.text, &path.display().to_string())?;
    out.flush()?;
    if !args.yes {
        say(format!(
            "csift: {}: {} entries to add; not written (run again with --yes)",
            path.display(),
            merged.added
        ));
        return Ok(Exit::NotFound);
    }
    let bak = write_atomic(path, old.is_some(), &merged.text)?;
    let kept = bak.map_or(String::new(), |b| {
        format!("; the former file is {}", b.display())
    });
    say(format!(
        "csift: {}: {} entries added{kept}",
        path.display(),
        merged.added
    ));
    Ok(Exit::Found)
}

/// Replace `path` atomically: a temporary file beside it, synced, then
/// renamed over it; the former content copied to `<path>.bak` first. A
/// symlinked settings file is written through to its target.
fn write_atomic(path: &Path, existed: bool, text: &str) -> Result<Option<std::path::PathBuf>> {
    let target = if existed {
        std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?
    } else {
        path.to_path_buf()
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into());
    let tmp = dir.join(format!(".{name}.csift-{}.tmp", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        if existed {
            f.set_permissions(std::fs::metadata(&target)?.permissions())?;
        }
        f.sync_all()
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(&tmp, e));
    }
    let bak = if existed {
        let bak = dir.join(format!("{name}.bak"));
        std::fs::copy(&target, &bak).map_err(|e| Error::io(&bak, e))?;
        Some(bak)
    } else {
        None
    };
    std::fs::rename(&tmp, &target).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(&target, e)
    })?;
    Ok(bak)
}
