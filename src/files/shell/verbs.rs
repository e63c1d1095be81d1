//! The verb table: what a simple command does to the files it names. Each verb
//! reads its own flags (which take a value, which switch mode) so operands are
//! told from option values. Commands that mutate files they never name
//! (formatters, package managers, extractors, interpreters, tree-changing git)
//! become class markers (`fmt:cargo`, `pkg:npm`, …; BASH-020): never resolved,
//! never joined to a path, only counted.

use super::lex::Word;

/// What a verb does to one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    Read,
    /// Written whole or modified in place.
    Write,
    Append,
    Delete,
    /// Moved away (`mv` source).
    MoveFrom,
    /// Moved here (`mv` destination).
    MoveTo,
    /// Copied here (`cp`/`install` destination).
    CopyTo,
    Touch,
}

/// One operand a verb acts on.
#[derive(Debug, Clone)]
pub(crate) struct Operand<'w> {
    pub(crate) act: Act,
    pub(crate) word: &'w Word,
}

/// What one simple command does.
#[derive(Debug, Default)]
pub(crate) struct Effect<'w> {
    pub(crate) operands: Vec<Operand<'w>>,
    /// A class marker (`fmt:cargo`) when the command mutates files it does not name.
    pub(crate) marker: Option<String>,
    /// The command writes its stdin to its Write operands (`tee`), or its stdin
    /// to its stdout (`cat` with no operand): a heredoc on it is file content.
    pub(crate) stdin_to_out: bool,
}

/// Options that take two values (`jq --arg NAME VALUE`).
const TWO_VALUES: &[&str] = &["--arg", "--argjson", "--slurpfile", "--rawfile"];

/// Words of `args` that are operands, given the flags that take a value.
/// `--` ends options; a lone `-` is stdin, not a file.
pub(super) fn operands<'w>(args: &'w [Word], takes_value: &[&str]) -> Vec<&'w Word> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut opts = true;
    while i < args.len() {
        let t = args[i].text.as_str();
        if opts && t == "--" {
            opts = false;
        } else if opts && t.starts_with('-') && t.len() > 1 && !args[i].quoted {
            let name = t.split('=').next().unwrap_or(t);
            if !t.contains('=') && TWO_VALUES.contains(&name) {
                i += 2;
            } else if !t.contains('=') && takes_value.contains(&name) {
                i += 1;
            }
        } else if t != "-" {
            out.push(&args[i]);
        }
        i += 1;
    }
    out
}

pub(super) fn has_flag(args: &[Word], short: char, long: &str) -> bool {
    args.iter().any(|w| {
        let t = w.text.as_str();
        t == long
            || t.starts_with(&format!("{long}="))
            || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains(short))
    })
}

fn acts<'w>(words: Vec<&'w Word>, act: Act) -> Vec<Operand<'w>> {
    words
        .into_iter()
        .map(|word| Operand { act, word })
        .collect()
}

/// Verbs whose every operand is acted on the same way: the act, and the
/// options that take a value.
fn simple(name: &str) -> Option<(Act, &'static [&'static str])> {
    Some(match name {
        "cat" | "nl" | "less" | "more" | "wc" | "strings" | "md5sum" | "sha1sum" | "sha256sum"
        | "md5" | "file" | "tac" | "rev" | "column" | "base64" => (Act::Read, &[]),
        "bat" | "batcat" => (
            Act::Read,
            &[
                "-l",
                "--language",
                "-r",
                "--line-range",
                "--style",
                "--theme",
            ],
        ),
        "shasum" => (Act::Read, &["-a", "--algorithm"]),
        "diff" | "cmp" => (
            Act::Read,
            &["-U", "-L", "--label", "-I", "-x", "-X", "-i", "-n"],
        ),
        "xxd" | "hexdump" | "od" => (
            Act::Read,
            &[
                "-l", "-c", "-s", "-o", "-n", "-e", "-t", "-N", "-j", "-A", "-g",
            ],
        ),
        "head" | "tail" => (
            Act::Read,
            &["-n", "-c", "--lines", "--bytes", "-s", "--pid"],
        ),
        "sort" | "uniq" | "cut" | "paste" | "join" | "comm" | "fold" | "expand" | "unexpand" => (
            Act::Read,
            &[
                "-o", "-k", "-t", "-d", "-f", "-c", "-w", "-s", "-S", "-T", "--output",
            ],
        ),
        "rm" | "unlink" | "shred" => (Act::Delete, &["-n", "--iterations"]),
        "touch" => (Act::Touch, &["-d", "-t", "-r", "--date", "--reference"]),
        "truncate" => (Act::Write, &["-s", "--size", "-r", "--reference"]),
        _ => return None,
    })
}

/// The effect of the simple command `name args…` (wrappers already stripped).
pub(crate) fn effect<'w>(name: &str, args: &'w [Word]) -> Effect<'w> {
    if let Some((act, takes)) = simple(name) {
        return simple_effect(name, args, act, takes);
    }
    let mut e = Effect::default();
    match name {
        "jq" | "awk" | "gawk" => e.operands = program_inputs(args),
        "tee" => {
            let act = if has_flag(args, 'a', "--append") {
                Act::Append
            } else {
                Act::Write
            };
            e.operands = acts(operands(args, &[]), act);
            e.stdin_to_out = true;
        }
        "mv" | "cp" | "install" | "ln" | "rsync" => e.operands = transfer(name, args),
        "sed" => e.operands = sed(args),
        "perl" | "ruby" if edits_in_place(args) => e.operands = in_place(args),
        "dd" => e.operands = dd(args),
        "git" => git(args, &mut e),
        _ => e.marker = super::markers::marker(name, args),
    }
    // A formatter that names its files writes them (BASH-020); one that
    // names none is a marker.
    if e.operands.is_empty() && e.marker.is_none() {
        if let Some(ops) = super::markers::formatter_operands(name, args) {
            if ops.is_empty() {
                e.marker = Some(format!("fmt:{name}"));
            } else {
                e.operands = acts(ops, Act::Write);
            }
        }
    }
    e
}

/// A verb of the [`simple`] table: every operand acted on as `act`; `cat`
/// with none copies its stdin out, and `sort -o FILE` writes FILE.
fn simple_effect<'w>(name: &str, args: &'w [Word], act: Act, takes: &[&str]) -> Effect<'w> {
    let ops = operands(args, takes);
    let mut e = Effect {
        stdin_to_out: name == "cat" && ops.is_empty(),
        operands: acts(ops, act),
        marker: None,
    };
    if let Some(out) = option_value(args, &["-o", "--output"]).filter(|_| name == "sort") {
        e.operands.push(Operand {
            act: Act::Write,
            word: out,
        });
    }
    e
}

/// `jq`/`awk` read their operands; the program comes first unless it is
/// read from a file (-f).
fn program_inputs(args: &[Word]) -> Vec<Operand<'_>> {
    let ops = operands(args, &["-f", "-F", "-v", "--indent"]);
    let from_file = args
        .iter()
        .any(|w| w.text == "-f" || w.text == "--from-file");
    acts(
        ops.into_iter().skip(usize::from(!from_file)).collect(),
        Act::Read,
    )
}

/// `perl -i` / `ruby -i` (also `-pi`, `-ni`): an in-place edit.
fn edits_in_place(args: &[Word]) -> bool {
    args.iter()
        .any(|w| ["-i", "-pi", "-ni"].iter().any(|f| w.text.starts_with(f)))
}

/// An in-place edit writes its operands; the first is the script unless it
/// came with `-e`.
fn in_place(args: &[Word]) -> Vec<Operand<'_>> {
    let ops = operands(args, &["-e", "-E", "-I", "-M", "-l", "-0"]);
    let scripted = args
        .iter()
        .any(|w| w.text.starts_with('-') && w.text.contains('e'));
    acts(
        ops.into_iter().skip(usize::from(!scripted)).collect(),
        Act::Write,
    )
}

/// `dd if=IN of=OUT`: reads IN, writes OUT.
fn dd(args: &[Word]) -> Vec<Operand<'_>> {
    args.iter()
        .filter_map(|w| {
            let act = if w.text.starts_with("of=") {
                Act::Write
            } else if w.text.starts_with("if=") {
                Act::Read
            } else {
                return None;
            };
            Some(Operand { act, word: w })
        })
        .collect()
}

/// `git rm`/`git mv` name their files; `git checkout -- F` / `git restore F`
/// rewrite the files they name; other tree-changing subcommands are markers.
fn git<'w>(args: &'w [Word], e: &mut Effect<'w>) {
    let Some(i) = args.iter().position(|w| !w.text.starts_with('-')) else {
        return;
    };
    let rest = &args[i + 1..];
    match args[i].text.as_str() {
        "rm" if !rest.iter().any(|w| w.text == "--cached") => {
            e.operands = acts(operands(rest, &[]), Act::Delete);
        }
        // Only the index changes.
        "rm" => return,
        "mv" => e.operands = transfer("mv", rest),
        "restore" if !rest.iter().any(|w| w.text == "--staged" || w.text == "-S") => {
            e.operands = acts(operands(rest, &["-s", "--source"]), Act::Write);
        }
        "checkout" if rest.iter().any(|w| w.text == "--") => {
            let after = rest
                .iter()
                .position(|w| w.text == "--")
                .map_or(rest.len(), |p| p + 1);
            e.operands = acts(rest[after..].iter().collect(), Act::Write);
        }
        _ => {}
    }
    if e.operands.is_empty() {
        e.marker = super::markers::marker("git", args);
    }
}

/// The value of the first of `names` given as `-o X`, `-oX` or `--output=X`.
fn option_value<'w>(args: &'w [Word], names: &[&str]) -> Option<&'w Word> {
    let i = args.iter().position(|w| names.contains(&w.text.as_str()))?;
    args.get(i + 1)
}

/// `mv`/`cp`/`install`/`ln`/`rsync`: the last operand (or `-t DIR`) is the
/// destination, the others the sources.
fn transfer<'w>(name: &str, args: &'w [Word]) -> Vec<Operand<'w>> {
    let mut ops = operands(
        args,
        &[
            "-t",
            "--target-directory",
            "-S",
            "--suffix",
            "-m",
            "--mode",
            "-o",
            "-g",
            "--owner",
            "--group",
            "-e",
        ],
    );
    let target = option_value(args, &["-t", "--target-directory"]);
    let dest = match target {
        Some(t) => Some(t),
        None if ops.len() >= 2 => ops.pop(),
        None => None,
    };
    let (from, to) = match name {
        "mv" => (Act::MoveFrom, Act::MoveTo),
        "ln" => (Act::Read, Act::Write),
        _ => (Act::Read, Act::CopyTo),
    };
    let mut out = acts(ops, from);
    if let Some(d) = dest {
        out.push(Operand { act: to, word: d });
    }
    out
}

/// `sed -i … FILE…` edits in place; plain `sed … FILE…` reads (BASH-024: no
/// `sed -i` is ever a content anchor).
fn sed(args: &[Word]) -> Vec<Operand<'_>> {
    let in_place = args.iter().any(|w| {
        let t = w.text.as_str();
        t.starts_with("-i")
            || t.starts_with("--in-place")
            || (t.len() > 1
                && !t.starts_with("--")
                && t.starts_with('-')
                && t[1..].bytes().all(|c| c.is_ascii_alphabetic())
                && t.contains('i'))
    });
    let scripted = args
        .iter()
        .any(|w| matches!(w.text.as_str(), "-e" | "-f" | "--expression" | "--file"));
    let mut ops = operands(
        args,
        &["-e", "-f", "--expression", "--file", "-l", "--line-length"],
    );
    if !scripted && !ops.is_empty() {
        ops.remove(0);
    }
    acts(ops, if in_place { Act::Write } else { Act::Read })
}
