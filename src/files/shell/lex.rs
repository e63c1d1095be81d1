//! A lexer for the Bash command strings Claude Code stores verbatim in
//! `input.command` (BASH-013): words with their quoting undone, the operators
//! between simple commands, redirections, heredoc bodies and subshell depth.
//!
//! It reads shell syntax, never runs it: expansions (`$VAR`, `$(…)`, globs,
//! `~`, braces) are not evaluated, only noted, so a word that would expand is
//! `dynamic` and stays verbatim. Command substitutions are lexed recursively so
//! a heredoc or a quote inside `$(…)` (the `git commit -m "$(cat <<'EOF' …)"`
//! idiom) cannot derail what follows.

mod redir;

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// Quote removal applied (escapes undone; `$…` kept as written).
    pub(crate) text: String,
    /// The word as written in the command.
    pub(crate) raw: String,
    /// Holds an expansion the shell would evaluate: `$…`, `` `…` ``, an
    /// unquoted glob, brace expansion, or a leading `~`.
    pub(crate) dynamic: bool,
    /// Any part of it was quoted or escaped.
    pub(crate) quoted: bool,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirOp {
    /// `>`, `>|`, `&>`, `N>`.
    Out,
    /// `>>`, `&>>`, `N>>`.
    Append,
    /// `<`.
    In,
    /// `<<` or `<<-`.
    HereDoc,
    /// `<<<`.
    HereString,
    /// `>&N`, `<&N`, `N>&M`: a descriptor duplicated, no file.
    Dup,
    /// `<>`: opened read-write.
    ReadWrite,
}

/// A heredoc's body, read from the lines after its command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HereDoc {
    /// The delimiter was quoted (`<<'EOF'`, `<<"EOF"`, `<<\EOF`): the body is
    /// literal, byte for byte (BASH-013).
    pub(crate) quoted: bool,
    /// `<<-`: leading tabs were stripped from each body line (done here).
    pub(crate) strip_tabs: bool,
    /// Every line up to the delimiter, each newline-terminated, as bash feeds it.
    pub(crate) body: String,
    /// The delimiter line was found; without it bash feeds the rest of the input.
    pub(crate) complete: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redir {
    pub(crate) fd: Option<u32>,
    pub(crate) op: RedirOp,
    /// The file (or descriptor, or heredoc delimiter) word.
    pub(crate) target: Option<Word>,
    pub(crate) heredoc: Option<HereDoc>,
}

/// What joins a simple command to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sep {
    Start,
    And,
    Or,
    Seq,
    Pipe,
}

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) words: Vec<Word>,
    pub(crate) redirs: Vec<Redir>,
    /// The operator before it.
    pub(crate) sep: Sep,
    /// Subshell depth: `( … )` nesting.
    pub(crate) depth: usize,
    /// Part of a pipeline (either side of a `|`): each element runs in a subshell.
    pub(crate) piped: bool,
    /// Followed by `&`: run in the background.
    pub(crate) background: bool,
    /// A subshell closes right after it: the `)` that ends `depth`.
    pub(crate) closes: usize,
}

/// A lexed command string.
#[derive(Debug, Default)]
pub(crate) struct Command {
    pub(crate) segments: Vec<Segment>,
    /// Something could not be read (an unclosed quote or substitution): what
    /// follows it is one word, so callers treat the whole command as opaque.
    pub(crate) unbalanced: bool,
}

/// Lex a whole command string.
pub(crate) fn lex(cmd: &str) -> Command {
    let mut lx = Lexer {
        b: cmd.as_bytes(),
        s: cmd,
        i: 0,
        unbalanced: false,
    };
    let segments = lx.run(false);
    Command {
        segments,
        unbalanced: lx.unbalanced,
    }
}

pub(super) struct Lexer<'a> {
    pub(super) b: &'a [u8],
    pub(super) s: &'a str,
    pub(super) i: usize,
    pub(super) unbalanced: bool,
}

/// A heredoc waiting for its body: (segment, redirection) it belongs to.
struct Pending {
    seg: usize,
    redir: usize,
    delim: String,
    strip_tabs: bool,
}

struct Builder {
    segments: Vec<Segment>,
    cur: Segment,
    depth: usize,
    pending: Vec<Pending>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            segments: Vec::new(),
            cur: empty(Sep::Start, 0),
            depth: 0,
            pending: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.cur.words.is_empty() && self.cur.redirs.is_empty()
    }

    /// End the current simple command; the next is joined by `sep`.
    fn finish(&mut self, sep: Sep) {
        if self.is_empty() {
            // `a && ( b )`, `(a) && b`, `a &&\n b`: an explicit operator before
            // an empty command is the one that joins the next; a newline is not.
            if !self.segments.is_empty() && (sep != Sep::Seq || self.cur.sep == Sep::Start) {
                self.cur.sep = sep;
            }
            self.cur.depth = self.depth;
        } else {
            let cur = std::mem::replace(&mut self.cur, empty(sep, self.depth));
            self.segments.push(cur);
        }
        if sep == Sep::Pipe {
            if let Some(last) = self.segments.last_mut() {
                last.piped = true;
            }
            self.cur.piped = true;
        }
    }
}

fn empty(sep: Sep, depth: usize) -> Segment {
    Segment {
        words: Vec::new(),
        redirs: Vec::new(),
        sep,
        depth,
        piped: false,
        background: false,
        closes: 0,
    }
}

impl Lexer<'_> {
    pub(super) fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// Lex simple commands until the end, or (`nested`) until the `)` that
    /// closes a command substitution, which is consumed.
    pub(super) fn run(&mut self, nested: bool) -> Vec<Segment> {
        let mut bl = Builder::new();
        while self.i < self.b.len() {
            let c = self.b[self.i];
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\\' if self.peek(1) == Some(b'\n') => self.i += 2,
                b'\n' => {
                    self.i += 1;
                    bl.finish(Sep::Seq);
                    self.read_heredocs(&mut bl);
                }
                b'#' => {
                    while self.i < self.b.len() && self.b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b';' | b'&' | b'|' => self.control(&mut bl, c),
                b'(' if bl.is_empty() => {
                    self.i += 1;
                    bl.depth += 1;
                    bl.cur.depth = bl.depth;
                }
                b')' => {
                    self.i += 1;
                    if self.close(&mut bl, nested) {
                        return bl.segments;
                    }
                }
                b'<' | b'>' => self.redirect(&mut bl, None),
                _ => self.word_or_fd(&mut bl),
            }
        }
        if nested {
            self.unbalanced = true;
        }
        bl.finish(Sep::Seq);
        bl.segments
    }

    /// `;`, `&&`, `&`, `&>`, `||`, `|`, `|&`.
    fn control(&mut self, bl: &mut Builder, c: u8) {
        let next = self.peek(1);
        match (c, next) {
            (b';', _) => {
                self.i += 1;
                // `;;` and `;&` end a case branch: a separator all the same.
                while matches!(self.peek(0), Some(b';' | b'&')) {
                    self.i += 1;
                }
                bl.finish(Sep::Seq);
            }
            (b'&', Some(b'&')) => {
                self.i += 2;
                bl.finish(Sep::And);
            }
            (b'&', Some(b'>')) => self.redirect(bl, None),
            (b'&', _) => {
                self.i += 1;
                bl.cur.background = true;
                bl.finish(Sep::Seq);
            }
            (_, Some(b'|')) => {
                self.i += 2;
                bl.finish(Sep::Or);
            }
            _ => {
                self.i += if next == Some(b'&') { 2 } else { 1 };
                bl.finish(Sep::Pipe);
            }
        }
    }

    /// After a `)`: the end of a subshell, or (`nested`, at depth 0) of the
    /// substitution being lexed, which returns `true`.
    fn close(&mut self, bl: &mut Builder, nested: bool) -> bool {
        if bl.depth == 0 {
            if nested {
                bl.finish(Sep::Seq);
            }
            // Otherwise a stray `)` (a `case` pattern): not a subshell end.
            return nested;
        }
        if !bl.is_empty() {
            bl.cur.closes += 1;
            bl.finish(Sep::Seq);
        } else if let Some(last) = bl.segments.last_mut() {
            last.closes += 1;
        }
        bl.depth -= 1;
        bl.cur.depth = bl.depth;
        false
    }

    /// A word, or (`2>file`) the descriptor of a redirection: an unquoted
    /// all-digit word right before `<` or `>`.
    fn word_or_fd(&mut self, bl: &mut Builder) {
        let w = self.word();
        if !w.quoted
            && !w.text.is_empty()
            && w.text.bytes().all(|c| c.is_ascii_digit())
            && matches!(self.peek(0), Some(b'<' | b'>'))
        {
            let fd = w.text.parse().ok();
            self.redirect(bl, fd);
        } else {
            bl.cur.words.push(w);
        }
    }
}
