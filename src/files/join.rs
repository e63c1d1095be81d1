//! The join: each call with its result (by `tool_use_id`, REC-075) becomes
//! touches. The echo decides the kind — create only when `type == "create"`
//! (REC-055/071/086), a Read full only when it covers the file uncapped
//! (REC-042…051, FH-026, FH-040, FH-043) — and an errored result makes a
//! structured call `failed`: it never landed (REC-074, FH-011, SUB-032).
//! Content evidence ([`super::evidence`]) is decoded only for the paths
//! `recover` asks about.

use serde_json::value::RawValue;

use super::calls::Names;
use super::calls::{place, Call, Intake, Outcome, Target};
use super::echo::{self, Echo, Evidence, Facts};
use super::evidence::{cat, evidence};
use super::place::{self, Kept, What};
use super::shell::Act;
use super::{Class, Kind, Shared, Touch};

/// Which paths get content evidence (recover), if any.
pub(crate) type Want<'w> = Option<&'w (dyn Fn(&str) -> bool + Sync)>;

impl Intake<'_> {
    /// Every touch of the file, in call order, with evidence for `want`ed
    /// paths, kept as places in `base` (the file's bytes) where it can be.
    pub(crate) fn finish(mut self, want: Want<'_>, base: &[u8]) -> Vec<Touch> {
        let mut out = Vec::with_capacity(self.calls.len() + self.direct.len());
        let calls = std::mem::take(&mut self.calls);
        let mut names = std::mem::take(&mut self.names);
        for call in &calls {
            let outcome = call.id.as_deref().and_then(|id| self.outcomes.get(id));
            let truncated = call
                .id
                .as_deref()
                .is_some_and(|id| self.truncated.contains(id));
            let mut sub = 0u32;
            let mut push = |mut t: Touch| {
                t.sub = sub;
                sub += 1;
                out.push(t);
            };
            match &call.target {
                Target::File { path, class, input } => {
                    let ctx = (base, want);
                    for t in structured(call, path, *class, input, outcome, truncated, ctx) {
                        push(t);
                    }
                }
                Target::Bash(a) => {
                    for t in bash(call, a, outcome, (base, want), &mut names) {
                        push(t);
                    }
                }
                Target::PowerShell => push(touch(
                    call,
                    names.intern("powershell"),
                    Class::Marker,
                    Kind::Opaque,
                    outcome,
                )),
            }
        }
        let mut direct = std::mem::take(&mut self.direct);
        if want.is_some() {
            for (i, raw) in &self.snippets {
                if let Some(t) = direct.get_mut(*i) {
                    if want.is_some_and(|w| w(&t.path)) {
                        let text = echo::string(Some(raw)).unwrap_or_default();
                        t.evidence = Some(Box::new(Kept::Now(Evidence::Snippet {
                            lines: echo::gutter_lines(&text),
                        })));
                    }
                }
            }
        }
        out.extend(direct);
        out
    }
}

fn touch(
    call: &Call<'_>,
    path: Shared,
    class: Class,
    kind: Kind,
    outcome: Option<&Outcome<'_>>,
) -> Touch {
    Touch {
        path,
        class,
        kind,
        tool: call.tool,
        agent_id: call.agent.clone(),
        line: call.line,
        sub: 0,
        turn: call.turn,
        ts: call.ts.clone(),
        landed: outcome
            .and_then(|o| o.ts.clone())
            .or_else(|| call.ts.clone()),
        evidence: None,
    }
}

fn structured(
    call: &Call<'_>,
    path: &Shared,
    class: Class,
    input: &RawValue,
    outcome: Option<&Outcome<'_>>,
    truncated: bool,
    (base, want): (&[u8], Want<'_>),
) -> Vec<Touch> {
    if outcome.is_some_and(|o| o.error) {
        return vec![touch(call, path.clone(), class, Kind::Failed, outcome)];
    }
    let echo = outcome.and_then(|o| o.echo).and_then(Echo::parse);
    let facts = facts(outcome, echo.as_ref());
    let kind = match call.tool {
        "Read" => read_kind(facts.as_ref(), truncated),
        "Write" => match facts.as_ref().and_then(|f| f.kind.as_deref()) {
            Some("create") => Kind::Create,
            Some("update") => Kind::Update,
            _ => Kind::Write,
        },
        "Edit" => Kind::Edit,
        "MultiEdit" => Kind::MultiEdit,
        _ => Kind::NotebookEdit,
    };
    let mut t = touch(call, path.clone(), class, kind, outcome);
    if want.is_some_and(|w| w(path)) {
        t.evidence = kept(
            call.tool,
            kind,
            outcome.and_then(|o| o.echo),
            echo.as_ref(),
            input,
            base,
        )
        .map(Box::new);
    }
    let stale = facts.as_ref().is_some_and(|f| f.stale);
    let mut out = vec![t];
    if stale {
        // FH-006, FH-035: the edit applied to a file that had drifted on disk.
        out.push(touch(
            call,
            path.clone(),
            class,
            Kind::StaleRecovered,
            outcome,
        ));
    }
    out
}

/// A structured call's evidence as a place in `base` (read again and decoded
/// by [`decode`] at the replay), or decoded now when its bytes are not the
/// file's own; `None` where [`evidence`] has none whatever the echo holds.
fn kept(
    tool: &'static str,
    kind: Kind,
    raw_echo: Option<&RawValue>,
    echo: Option<&Echo<'_>>,
    input: &RawValue,
    base: &[u8],
) -> Option<Kept> {
    if tool == "Read" && (echo.is_none() || matches!(kind, Kind::ReadUnchanged | Kind::ReadOther)) {
        return None;
    }
    let what = What::Structured { tool, kind };
    match place::place(base, what, raw_echo, Some(input)) {
        Some(p) => Some(Kept::At(p)),
        None => evidence(tool, kind, echo, input).map(Kept::Now),
    }
}

/// An outcome's echo facts: skimmed already, or read from the parsed echo.
fn facts(outcome: Option<&Outcome<'_>>, echo: Option<&Echo<'_>>) -> Option<Facts> {
    outcome
        .and_then(|o| o.facts.clone())
        .or_else(|| echo.map(Facts::of))
}

/// A Read's kind from its echo (REC-043: six variants; FH-026…FH-048).
fn read_kind(facts: Option<&Facts>, truncated: bool) -> Kind {
    let Some(f) = facts else { return Kind::Read };
    if !f.file {
        return Kind::ReadOther;
    }
    match f.kind.as_deref() {
        Some("file_unchanged") => return Kind::ReadUnchanged,
        Some("image" | "pdf" | "parts" | "notebook") => return Kind::ReadOther,
        _ => {}
    }
    if !f.content {
        return Kind::ReadOther;
    }
    if truncated || f.truncated {
        return Kind::ReadTruncated;
    }
    match (f.start, f.num, f.total) {
        (Some(1), Some(n), Some(t)) if n >= t => Kind::ReadFull,
        _ => Kind::ReadPartial,
    }
}

/// The touches of one Bash call: its ops, its markers, and the files its
/// result's stale hint names (FH-005).
fn bash(
    call: &Call<'_>,
    a: &super::shell::Analysis,
    outcome: Option<&Outcome<'_>>,
    (base, want): (&[u8], Want<'_>),
    names: &mut Names,
) -> Vec<Touch> {
    let mut out = Vec::new();
    let echo = outcome.and_then(|o| o.echo).and_then(Echo::parse);
    for (i, op) in a.ops.iter().enumerate() {
        let kind = match op.act {
            Act::Read => Kind::BashRead,
            Act::Write => Kind::BashWrite,
            Act::Append => Kind::BashAppend,
            Act::Delete => Kind::BashDelete,
            Act::MoveFrom => Kind::BashMoveFrom,
            Act::MoveTo => Kind::BashMoveTo,
            Act::CopyTo => Kind::BashCopyTo,
            Act::Touch => Kind::BashTouch,
        };
        let mut t = touch(call, names.intern(&op.path), op.class, kind, outcome);
        if want.is_some_and(|w| w(&op.path)) {
            t.evidence = bash_evidence(a, i, op, outcome, echo.as_ref(), base).map(Box::new);
        }
        out.push(t);
    }
    for m in &a.markers {
        out.push(touch(
            call,
            names.intern(m),
            Class::Marker,
            Kind::Opaque,
            outcome,
        ));
    }
    if let (Some(o), Some(f)) = (outcome, facts(outcome, echo.as_ref())) {
        if let Some(hint) = f.hint {
            for p in echo::hint_paths(&hint) {
                let (path, class) = place(&p, o.cwd.as_deref());
                let mut t = touch(
                    call,
                    names.intern(&path),
                    class,
                    Kind::HintModified,
                    outcome,
                );
                t.line = o.line;
                t.turn = o.turn;
                t.ts = o.ts.clone();
                out.push(t);
            }
        }
    }
    out
}

/// A heredoc write's bytes, or a clean `cat` read's stdout (BASH-010/011/012/025:
/// a positively clean result — no error, empty stderr, not interrupted, not
/// persisted elsewhere, not backgrounded).
fn bash_evidence(
    a: &super::shell::Analysis,
    i: usize,
    op: &super::shell::ShellOp,
    outcome: Option<&Outcome<'_>>,
    echo: Option<&Echo<'_>>,
    base: &[u8],
) -> Option<Kept> {
    if let Some(c) = &op.content {
        // A write whose command failed may not have happened as written.
        if outcome.is_some_and(|o| o.error) {
            return None;
        }
        return Some(Kept::Now(match op.act {
            Act::Append => Evidence::Append { content: c.clone() },
            _ => Evidence::Write { content: c.clone() },
        }));
    }
    if a.cat != Some(i) || outcome.is_none_or(|o| o.error) {
        return None;
    }
    echo?;
    match place::place(base, What::Cat, outcome.and_then(|o| o.echo), None) {
        Some(p) => Some(Kept::At(p)),
        None => cat(echo).map(Kept::Now),
    }
}
