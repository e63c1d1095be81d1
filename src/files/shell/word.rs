//! Reading one shell word: quotes undone, escapes applied, expansions noted
//! (never evaluated) so a word that would expand is `dynamic` and kept as
//! written. Command substitutions are lexed as commands of their own, so a
//! quote or a heredoc inside `$(…)` cannot swallow what follows.

use super::lex::{Lexer, Word};

impl Lexer<'_> {
    /// Read one word (the caller saw a non-blank, non-operator byte).
    pub(super) fn word(&mut self) -> Word {
        let start = self.i;
        let mut w = Word {
            text: String::new(),
            raw: String::new(),
            dynamic: false,
            quoted: false,
        };
        let mut lit_start = self.i;
        // Unquoted text, for the glob / brace / tilde judgement once whole.
        let mut unquoted = String::new();
        while self.i < self.b.len() {
            let c = self.b[self.i];
            let special = match c {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' | b'\r' => break,
                b'<' | b'>' if self.peek(1) != Some(b'(') => break,
                b'(' | b'<' | b'>' | b'\'' | b'"' | b'\\' | b'$' | b'`' => true,
                _ => false,
            };
            if !special {
                self.i += 1;
                continue;
            }
            w.text.push_str(&self.s[lit_start..self.i]);
            unquoted.push_str(&self.s[lit_start..self.i]);
            self.construct(c, &mut w);
            lit_start = self.i;
        }
        w.text.push_str(&self.s[lit_start..self.i]);
        unquoted.push_str(&self.s[lit_start..self.i]);
        if has_glob(&unquoted) || (unquoted.starts_with('~') && !quoted_at_start(self.s, start)) {
            w.dynamic = true;
        }
        w.raw = self.s[start..self.i].to_string();
        w
    }

    /// One quoting or expansion construct starting at byte `c`.
    fn construct(&mut self, c: u8, w: &mut Word) {
        match c {
            // `>(…)` / `<(…)`; an `(` inside a word is extglob or a function
            // definition: opaque either way.
            b'(' | b'<' | b'>' => {
                self.i += if c == b'(' { 1 } else { 2 };
                self.skip_substitution();
                w.dynamic = true;
            }
            b'\'' => {
                w.quoted = true;
                self.i += 1;
                match memchr::memchr(b'\'', &self.b[self.i..]) {
                    Some(n) => {
                        w.text.push_str(&self.s[self.i..self.i + n]);
                        self.i += n + 1;
                    }
                    None => {
                        w.text.push_str(&self.s[self.i..]);
                        self.i = self.b.len();
                        self.unbalanced = true;
                    }
                }
            }
            b'"' => {
                w.quoted = true;
                self.i += 1;
                w.dynamic |= self.double_quoted(&mut w.text);
            }
            b'\\' => {
                w.quoted = true;
                if self.peek(1) == Some(b'\n') {
                    self.i += 2;
                } else if let Some(ch) = self.s[self.i + 1..].chars().next() {
                    w.text.push(ch);
                    self.i += 1 + ch.len_utf8();
                } else {
                    self.i += 1;
                }
            }
            b'$' => self.dollar(&mut w.text, &mut w.dynamic),
            _ => {
                w.dynamic = true;
                self.backtick(&mut w.text);
            }
        }
    }

    /// Inside `"…"` (opening quote consumed): append the text, return whether
    /// it holds an expansion.
    fn double_quoted(&mut self, text: &mut String) -> bool {
        let mut dynamic = false;
        let mut lit = self.i;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'"' => {
                    text.push_str(&self.s[lit..self.i]);
                    self.i += 1;
                    return dynamic;
                }
                b'\\' => {
                    text.push_str(&self.s[lit..self.i]);
                    match self.peek(1) {
                        Some(b'$' | b'`' | b'"' | b'\\') => {
                            text.push(self.b[self.i + 1] as char);
                            self.i += 2;
                        }
                        Some(b'\n') => self.i += 2,
                        _ => {
                            text.push('\\');
                            self.i += 1;
                        }
                    }
                    lit = self.i;
                }
                b'$' => {
                    text.push_str(&self.s[lit..self.i]);
                    self.dollar(text, &mut dynamic);
                    lit = self.i;
                }
                b'`' => {
                    text.push_str(&self.s[lit..self.i]);
                    dynamic = true;
                    self.backtick(text);
                    lit = self.i;
                }
                _ => self.i += 1,
            }
        }
        text.push_str(&self.s[lit..]);
        self.unbalanced = true;
        dynamic
    }

    /// At a `$`: an expansion (kept as written) or a literal dollar.
    fn dollar(&mut self, text: &mut String, dynamic: &mut bool) {
        let start = self.i;
        match self.peek(1) {
            Some(b'(') => {
                self.i += 2;
                self.skip_substitution();
                *dynamic = true;
            }
            Some(b'{') => {
                self.i += 2;
                let mut depth = 1;
                while self.i < self.b.len() && depth > 0 {
                    match self.b[self.i] {
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        _ => {}
                    }
                    self.i += 1;
                }
                if depth > 0 {
                    self.unbalanced = true;
                }
                *dynamic = true;
            }
            Some(b'\'') => {
                // $'…': ANSI-C quoting; its escapes are not decoded here.
                self.i += 2;
                while self.i < self.b.len() && self.b[self.i] != b'\'' {
                    self.i += if self.b[self.i] == b'\\' { 2 } else { 1 };
                }
                self.i = (self.i + 1).min(self.b.len());
                *dynamic = true;
            }
            Some(c) if c.is_ascii_alphanumeric() || b"_@*#?$!-".contains(&c) => {
                self.i += 2;
                if c.is_ascii_alphabetic() || c == b'_' {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                    {
                        self.i += 1;
                    }
                }
                *dynamic = true;
            }
            _ => self.i += 1,
        }
        text.push_str(&self.s[start..self.i.min(self.b.len())]);
    }

    fn backtick(&mut self, text: &mut String) {
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() && self.b[self.i] != b'`' {
            self.i += if self.b[self.i] == b'\\' { 2 } else { 1 };
        }
        if self.i >= self.b.len() {
            self.unbalanced = true;
            self.i = self.b.len();
        } else {
            self.i += 1;
        }
        text.push_str(&self.s[start..self.i]);
    }

    /// After `$(`, `<(`, `>(` or a word's `(`: skip to the matching `)` by
    /// lexing the inside as commands (quotes, heredocs, nesting all handled).
    fn skip_substitution(&mut self) {
        let _inner = self.run(true);
    }
}

/// Unquoted characters that would glob or brace-expand.
fn has_glob(s: &str) -> bool {
    if s.contains(['*', '?']) {
        return true;
    }
    if let Some(o) = s.find('[') {
        if s[o + 1..].contains(']') {
            return true;
        }
    }
    if let Some(o) = s.find('{') {
        if let Some(c) = s[o..].find('}') {
            let inner = &s[o + 1..o + c];
            return inner.contains(',') || inner.contains("..");
        }
    }
    false
}

/// Whether the word starting at `start` opens with a quote (so `~` is literal).
fn quoted_at_start(s: &str, start: usize) -> bool {
    matches!(s.as_bytes().get(start), Some(b'\'' | b'"' | b'\\'))
}
