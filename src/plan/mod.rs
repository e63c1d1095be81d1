//! Which plan file a session is bound to, and what happened to it: the engine
//! of `csift plan` (and of status and export, which name a session's plan).
//!
//! Claude Code writes Plan-Mode plans under a plans directory with a random or
//! prompt-seeded name that no session id predicts (PLAN-003/004), so a plan is
//! never derived from anything but the transcript's own binding records:
//! - the LATEST `plan_mode` attachment's `planFilePath` (and `planExists`),
//!   the authoritative binding (PLAN-001/002); else
//! - Claude Code's own fallback: the FIRST record carrying a valid `slug` binds
//!   `<plans-dir>/<slug>.md` (PLAN-005…007, 011), reported `slug-only`; a
//!   session forked at a compaction has no attachment of its own and reaches
//!   it, its slug minted by that compaction (`minted_at_compaction`, PLAN-012/
//!   013, CMP-015). Only a main transcript binds this way.
//!
//! Events ([`events`]): approvals of ExitPlanMode (PLAN-009), rejections with
//! the plan under discussion (PLAN-010), and the bound plan re-injected after a
//! compaction (`plan_file_reference`, PLAN-016). [`audit`] joins plan-file edits
//! against every binding (PLAN-015, 017).

pub(crate) mod audit;
pub(crate) mod events;
pub(crate) mod slug;

use std::path::{Path, PathBuf};

use crate::scan::json::{self, Fields};

/// How the binding was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    PlanMode,
    SlugOnly,
}

impl Source {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Source::PlanMode => "plan_mode",
            Source::SlugOnly => "slug-only",
        }
    }
}

/// A session's plan binding.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) plan_file: String,
    pub(crate) source: Source,
    /// The binding record's line.
    pub(crate) line: usize,
    pub(crate) slug: Option<String>,
    /// The latest attachment's `planExists`, as Claude Code saw it (PLAN-014).
    pub(crate) plan_exists_flag: Option<bool>,
    pub(crate) minted_at_compaction: bool,
}

impl Binding {
    /// Whether the plan file exists now: a binding can precede the file
    /// (PLAN-014), and a plan may have been deleted since.
    pub(crate) fn exists(&self) -> bool {
        Path::new(&self.plan_file).is_file()
    }
}

/// The binding of the transcript `buf`. `home` is the Claude home (default
/// plans directory, user settings); `lane`: a subagent transcript, which binds
/// only through its own `plan_mode` attachment.
pub(crate) fn bind(buf: &[u8], home: &Path, lane: bool) -> Option<Binding> {
    latest_plan_mode(buf).or_else(|| (!lane).then(|| slug_only(buf, home)).flatten())
}

/// The latest `plan_mode` attachment. The token also admits `plan_mode_exit`
/// and `plan_mode_reentry`, dropped by the exact type test (PLAN-001).
fn latest_plan_mode(buf: &[u8]) -> Option<Binding> {
    let mut latest = None;
    for (no, line) in lines_with(buf, b"plan_mode") {
        let mut slug = None;
        let mut att = None;
        for (k, v) in Fields::new(line, 0).map_while(Result::ok) {
            match k {
                b"attachment" => att = Some(v),
                b"slug" => slug = json::string(v).map(|s| s.into_owned()),
                _ => {}
            }
        }
        let Some(att) = att else { continue };
        if json::field(att, b"type").and_then(json::plain_str) != Some("plan_mode") {
            continue;
        }
        let Some(path) = json::field(att, b"planFilePath").and_then(json::string) else {
            continue;
        };
        latest = Some(Binding {
            plan_file: path.into_owned(),
            source: Source::PlanMode,
            line: no,
            slug,
            plan_exists_flag: json::field(att, b"planExists").map(|v| v == b"true"),
            minted_at_compaction: false,
        });
    }
    latest
}

fn slug_only(buf: &[u8], home: &Path) -> Option<Binding> {
    let (line, slug, kind, sub) = slug::first_slug(buf)?;
    if !slug::slug_is_valid(&slug) {
        return None;
    }
    let root = slug::first_cwd(buf).map(PathBuf::from);
    let dir = slug::plans_dir(home, root.as_deref());
    Some(Binding {
        plan_file: dir
            .join(format!("{slug}.md"))
            .to_string_lossy()
            .into_owned(),
        source: Source::SlugOnly,
        line,
        slug: Some(slug),
        plan_exists_flag: None,
        minted_at_compaction: kind == "system" && sub == "compact_boundary",
    })
}

/// The lines holding `needle`, numbered, each once, in file order.
pub(crate) fn lines_with<'a>(
    buf: &'a [u8],
    needle: &'a [u8],
) -> impl Iterator<Item = (usize, &'a [u8])> + 'a {
    let finder = memchr::memmem::Finder::new(needle);
    let mut from = 0;
    let mut no = 1;
    let mut counted = 0;
    std::iter::from_fn(move || {
        let at = from + finder.find(&buf[from..])?;
        let start = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i);
        no += memchr::memchr_iter(b'\n', &buf[counted..start]).count();
        counted = start;
        from = (end + 1).min(buf.len());
        let line = &buf[start..end];
        Some((no, line.strip_suffix(b"\r").unwrap_or(line)))
    })
}

#[cfg(test)]
mod tests;
