//! What a Bash command does to files, read lexically from `input.command`.
//!
//! Claude Code spawns a fresh shell per call in a tracked directory stamped on
//! every record as `cwd` (BASH-001), read off the TOOL_USE record (BASH-007:
//! the result record can already carry the post-command directory). Inside one
//! command a `cd` is followed lexically, never across calls (BASH-002/003/005:
//! the harness decides what persists). Every operand gets its resolution class
//! (BASH-023): `absolute` as typed, `cwd-joined` onto the record cwd,
//! `cd-tracked` after an in-command `cd` (an inference: that the cd
//! succeeded), or `unresolved` (an expansion, `~`, or no directory known),
//! kept verbatim. Commands that mutate files they never name are class markers
//! (BASH-020). PowerShell is never parsed here (WIN-005).
//!
//! Two content shapes are recognised for `recover` (BASH-010…014, 019, 024):
//! a literal heredoc fed to `cat`/`tee` is the written file's bytes, and a lone
//! `cat FILE` (after `cd`s only) is a read whose stdout is the file.

pub(crate) mod lex;
#[cfg(test)]
mod lex_tests;
mod markers;
#[cfg(test)]
mod tests;
pub(crate) mod verbs;
mod word;

use super::path::{is_absolute, join, normalize};
use super::Class;
use lex::{RedirOp, Segment, Sep, Word};
pub(crate) use verbs::Act;

/// One file a command acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellOp {
    pub(crate) act: Act,
    /// Resolved (normalised) when the class is not `unresolved`; verbatim otherwise.
    pub(crate) path: String,
    pub(crate) class: Class,
    /// The bytes written, when a literal heredoc fed `cat >FILE` / `tee FILE`.
    pub(crate) content: Option<String>,
}

/// Everything read from one command.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Analysis {
    pub(crate) ops: Vec<ShellOp>,
    /// Class markers (`fmt:cargo`, `git:checkout`, …), in command order.
    pub(crate) markers: Vec<String>,
    /// Index into `ops` of a lone `cat FILE` whose stdout is the file.
    pub(crate) cat: Option<usize>,
    /// The lexer met an unclosed quote or substitution.
    pub(crate) unbalanced: bool,
}

/// The directory operands resolve against at one point of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dir {
    /// The record's own cwd: no `cd` has moved it (or moved it to itself).
    Record(String),
    /// Moved by an in-command `cd`.
    Tracked(String),
    /// Moved somewhere no one can tell (`cd $X`, `cd -`, `popd`), or no cwd.
    Unknown,
}

/// Analyse `command`, run from `cwd` (the tool_use record's `cwd`, BASH-007).
pub(crate) fn analyze(command: &str, cwd: Option<&str>) -> Analysis {
    let lexed = lex::lex(command);
    let start = match cwd {
        Some(c) if is_absolute(c) => Dir::Record(normalize(c)),
        _ => Dir::Unknown,
    };
    let record = cwd.map(normalize);
    let mut out = Analysis {
        unbalanced: lexed.unbalanced,
        ..Analysis::default()
    };
    let mut dir = start;
    let mut stack: Vec<Dir> = Vec::new();
    let mut depth = 0;
    let mut others = 0usize;
    let mut cat_candidate: Option<usize> = None;
    let mut chain_ok = true;
    for seg in &lexed.segments {
        while depth < seg.depth {
            stack.push(dir.clone());
            depth += 1;
        }
        if !matches!(seg.sep, Sep::Start | Sep::And | Sep::Seq) || seg.piped || seg.background {
            chain_ok = false;
        }
        let words = strip_prefixes(&seg.words);
        let name = words.first().map(|w| base_name(&w.text)).unwrap_or("");
        let is_cd = matches!(name, "cd" | "pushd" | "popd" | "chdir");
        if is_cd {
            if !seg.piped && !seg.background {
                dir = change_dir(&dir, name, &words[1..], record.as_deref());
            }
            if !seg.redirs.is_empty() {
                chain_ok = false;
            }
        } else if !words.is_empty() || !seg.redirs.is_empty() {
            others += 1;
            let before = out.ops.len();
            segment_ops(seg, words, &dir, &mut out);
            if name == "cat"
                && seg.redirs.is_empty()
                && out.ops.len() == before + 1
                && words[1..]
                    .iter()
                    .all(|w| !w.text.starts_with('-') || w.text == "--")
            {
                cat_candidate = Some(before);
            }
        }
        for _ in 0..seg.closes.min(depth) {
            dir = stack.pop().unwrap_or(Dir::Unknown);
            depth -= 1;
        }
        // A `(` that no segment follows still nests what comes after it.
        if seg.depth < depth {
            while depth > seg.depth {
                dir = stack.pop().unwrap_or(Dir::Unknown);
                depth -= 1;
            }
        }
    }
    if others == 1 && chain_ok && !lexed.unbalanced {
        out.cat = cat_candidate.filter(|&i| out.ops[i].class != Class::Unresolved);
    }
    out
}

/// The words after keywords, assignments and wrappers (`sudo`, `env`, `time`…).
fn strip_prefixes(words: &[Word]) -> &[Word] {
    let mut w = words;
    loop {
        let Some(first) = w.first() else { return w };
        let t = first.text.as_str();
        let keyword = !first.quoted
            && matches!(
                t,
                "if" | "then"
                    | "else"
                    | "elif"
                    | "do"
                    | "while"
                    | "until"
                    | "!"
                    | "{"
                    | "}"
                    | "fi"
                    | "done"
                    | "esac"
                    | "time"
                    | "exec"
                    | "command"
                    | "builtin"
                    | "nohup"
            );
        if keyword {
            w = &w[1..];
            continue;
        }
        if matches!(t, "for" | "case" | "select" | "function") && !first.quoted {
            return &[];
        }
        if is_assignment(first) {
            w = &w[1..];
            continue;
        }
        match base_name(t) {
            "sudo" | "doas" => {
                w = skip_options(&w[1..], &["-u", "-g", "-C", "-D", "-h", "-p", "-U"]);
            }
            "env" => {
                w = skip_options(&w[1..], &["-u", "-C", "-S"]);
                while w.first().is_some_and(is_assignment) {
                    w = &w[1..];
                }
            }
            "nice" | "ionice" | "stdbuf" | "caffeinate" | "chronic" => {
                w = skip_options(&w[1..], &["-n", "-c", "-i", "-o", "-e"]);
            }
            "timeout" | "gtimeout" => {
                w = skip_options(&w[1..], &["-s", "-k", "--signal", "--kill-after"]);
                w = w.get(1..).unwrap_or(&[]);
            }
            _ => return w,
        }
    }
}

fn skip_options<'w>(mut w: &'w [Word], takes_value: &[&str]) -> &'w [Word] {
    while let Some(f) = w.first() {
        if !f.text.starts_with('-') || f.text == "-" {
            break;
        }
        let skip = if takes_value.contains(&f.text.as_str()) {
            2
        } else {
            1
        };
        w = w.get(skip..).unwrap_or(&[]);
    }
    w
}

fn is_assignment(w: &Word) -> bool {
    let t = w.raw.as_str();
    match t.find('=') {
        Some(eq) if eq > 0 => {
            let name = &t[..eq];
            name.bytes()
                .enumerate()
                .all(|(i, c)| c == b'_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
        }
        _ => false,
    }
}

fn base_name(t: &str) -> &str {
    t.rsplit('/').next().unwrap_or(t)
}

/// The directory after `cd`/`pushd`/`popd` with `args`.
fn change_dir(dir: &Dir, name: &str, args: &[Word], record: Option<&str>) -> Dir {
    if name == "popd" {
        return Dir::Unknown;
    }
    let target = args
        .iter()
        .find(|w| !(w.text.starts_with('-') && w.text.len() > 1 && !w.quoted));
    let Some(t) = target else {
        return Dir::Unknown; // `cd` alone goes home; `pushd` alone swaps.
    };
    if t.dynamic || t.text.is_empty() || t.text == "-" {
        return Dir::Unknown;
    }
    let new = if is_absolute(&t.text) {
        normalize(&t.text)
    } else {
        match dir {
            Dir::Record(d) | Dir::Tracked(d) => join(d, &t.text),
            Dir::Unknown => return Dir::Unknown,
        }
    };
    // A cd to where the shell already is resolves the same either way.
    if Some(new.as_str()) == record {
        Dir::Record(new)
    } else {
        Dir::Tracked(new)
    }
}

/// A path operand's resolution (BASH-023). `None` for a device or stdin.
fn resolve(word: &Word, text: &str, dir: &Dir) -> Option<(String, Class)> {
    if text.is_empty() || text == "-" || is_device(text) {
        return None;
    }
    if word.dynamic {
        return Some((word.raw.clone(), Class::Unresolved));
    }
    if is_absolute(text) {
        return Some((normalize(text), Class::Absolute));
    }
    Some(match dir {
        Dir::Record(d) => (join(d, text), Class::CwdJoined),
        Dir::Tracked(d) => (join(d, text), Class::CdTracked),
        Dir::Unknown => (text.to_string(), Class::Unresolved),
    })
}

fn is_device(p: &str) -> bool {
    p == "/dev/null"
        || p == "/dev/stdout"
        || p == "/dev/stderr"
        || p == "/dev/tty"
        || p.starts_with("/dev/fd/")
}

/// The ops and markers of one simple command.
fn segment_ops(seg: &Segment, words: &[Word], dir: &Dir, out: &mut Analysis) {
    let name = words.first().map(|w| base_name(&w.text)).unwrap_or("");
    let args = words.get(1..).unwrap_or(&[]);
    let effect = if words.first().is_some_and(|w| w.dynamic) {
        verbs::Effect::default()
    } else {
        verbs::effect(name, args)
    };
    // A literal heredoc on a command that copies stdin to a file is content.
    let heredoc = seg.redirs.iter().find_map(|r| {
        let h = r.heredoc.as_ref()?;
        let literal = h.quoted || !h.body.contains(['$', '`', '\\']);
        (h.complete && literal).then(|| h.body.clone())
    });
    let content = heredoc.filter(|_| effect.stdin_to_out);
    for o in &effect.operands {
        let text = match name {
            "dd" => o.word.text.split_once('=').map_or("", |(_, v)| v),
            _ => o.word.text.as_str(),
        };
        if let Some((path, class)) = resolve(o.word, text, dir) {
            let content = match o.act {
                Act::Write | Act::Append if name == "tee" => content.clone(),
                _ => None,
            };
            out.ops.push(ShellOp {
                act: o.act,
                path,
                class,
                content,
            });
        }
    }
    for r in &seg.redirs {
        let act = match r.op {
            RedirOp::Out => Act::Write,
            RedirOp::Append => Act::Append,
            RedirOp::In => Act::Read,
            RedirOp::ReadWrite => Act::Write,
            RedirOp::HereDoc | RedirOp::HereString | RedirOp::Dup => continue,
        };
        let Some(t) = &r.target else { continue };
        if let Some((path, class)) = resolve(t, &t.text, dir) {
            // Only stdout carries cat's copy of the heredoc; `2>` does not.
            let content = match act {
                Act::Write | Act::Append if name == "cat" && r.fd.is_none_or(|fd| fd == 1) => {
                    content.clone()
                }
                _ => None,
            };
            out.ops.push(ShellOp {
                act,
                path,
                class,
                content,
            });
        }
    }
    if let Some(m) = effect.marker {
        out.markers.push(m);
    }
}
