//! The lexer's redirections: an operator and its target word (`>`, `>>`,
//! `&>`, `2>&1`, `<<<` …), and the bodies of the heredocs a command line
//! opened (`<<EOF`, `<<-EOF` stripping leading tabs), read from the next line.

use super::{Builder, HereDoc, Lexer, Pending, Redir, RedirOp};

impl Lexer<'_> {
    pub(super) fn redirect(&mut self, bl: &mut Builder, fd: Option<u32>) {
        let rest = &self.b[self.i..];
        let (op, len, strip) = if rest.starts_with(b"&>>") {
            (RedirOp::Append, 3, false)
        } else if rest.starts_with(b"&>") {
            (RedirOp::Out, 2, false)
        } else if rest.starts_with(b"<<<") {
            (RedirOp::HereString, 3, false)
        } else if rest.starts_with(b"<<-") {
            (RedirOp::HereDoc, 3, true)
        } else if rest.starts_with(b"<<") {
            (RedirOp::HereDoc, 2, false)
        } else if rest.starts_with(b"<>") {
            (RedirOp::ReadWrite, 2, false)
        } else if rest.starts_with(b">>") {
            (RedirOp::Append, 2, false)
        } else if rest.starts_with(b">|") {
            (RedirOp::Out, 2, false)
        } else if rest.starts_with(b">&") || rest.starts_with(b"<&") {
            (RedirOp::Dup, 2, false)
        } else if rest.starts_with(b">(") || rest.starts_with(b"<(") {
            // Process substitution: a word of its own, never a file.
            let w = self.word();
            bl.cur.words.push(w);
            return;
        } else if rest.starts_with(b">") {
            (RedirOp::Out, 1, false)
        } else {
            (RedirOp::In, 1, false)
        };
        self.i += len;
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        // `>& file` with a non-number is bash's `&>`: both streams to a file.
        let target = match self.peek(0) {
            Some(b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>') | None => None,
            _ => Some(self.word()),
        };
        let op = match (op, &target) {
            (RedirOp::Dup, Some(t))
                if !t.text.bytes().all(|c| c.is_ascii_digit()) && t.text != "-" =>
            {
                RedirOp::Out
            }
            (op, _) => op,
        };
        let heredoc = (op == RedirOp::HereDoc).then(|| HereDoc {
            quoted: target.as_ref().is_some_and(|t| t.quoted),
            strip_tabs: strip,
            body: String::new(),
            complete: false,
        });
        if op == RedirOp::HereDoc {
            if let Some(t) = &target {
                bl.pending.push(Pending {
                    seg: bl.segments.len(),
                    redir: bl.cur.redirs.len(),
                    delim: t.text.clone(),
                    strip_tabs: strip,
                });
            }
        }
        bl.cur.redirs.push(Redir {
            fd,
            op,
            target,
            heredoc,
        });
    }

    /// At the start of a line after a command line: read the bodies of the
    /// heredocs that line opened, in order.
    pub(super) fn read_heredocs(&mut self, bl: &mut Builder) {
        for p in std::mem::take(&mut bl.pending) {
            let mut body = String::new();
            let mut complete = false;
            while self.i < self.b.len() {
                let end =
                    memchr::memchr(b'\n', &self.b[self.i..]).map_or(self.b.len(), |n| self.i + n);
                let line = &self.s[self.i..end];
                self.i = (end + 1).min(self.b.len());
                let line = if p.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if line == p.delim {
                    complete = true;
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if let Some(r) = bl
                .segments
                .get_mut(p.seg)
                .and_then(|s| s.redirs.get_mut(p.redir))
            {
                if let Some(h) = &mut r.heredoc {
                    h.body = body;
                    h.complete = complete;
                }
            }
        }
    }
}
