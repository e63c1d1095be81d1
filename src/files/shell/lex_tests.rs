//! The lexer's tests.

use super::lex::*;

fn words(c: &Command) -> Vec<Vec<String>> {
    c.segments
        .iter()
        .map(|s| s.words.iter().map(|w| w.text.clone()).collect())
        .collect()
}

#[test]
fn operators_split_simple_commands() {
    let c = lex("cd /a && cat 'x y'.txt; rm -f b || echo no | tee c &");
    assert_eq!(
        words(&c),
        vec![
            vec!["cd", "/a"],
            vec!["cat", "x y.txt"],
            vec!["rm", "-f", "b"],
            vec!["echo", "no"],
            vec!["tee", "c"]
        ]
    );
    let seps: Vec<Sep> = c.segments.iter().map(|s| s.sep).collect();
    assert_eq!(
        seps,
        vec![Sep::Start, Sep::And, Sep::Seq, Sep::Or, Sep::Pipe]
    );
    assert!(c.segments[3].piped && c.segments[4].piped && c.segments[4].background);
}

#[test]
fn quoting_and_expansions() {
    let c = lex(r#"cat "$HOME/a" a\ b '$x' ~/f *.rs "plain" x{a,b}"#);
    let w = &c.segments[0].words;
    assert_eq!(w[1].text, "$HOME/a");
    assert!(w[1].dynamic);
    assert_eq!(w[2].text, "a b");
    assert!(!w[2].dynamic);
    assert_eq!(w[3].text, "$x");
    assert!(!w[3].dynamic, "single quotes are literal");
    assert!(w[4].dynamic, "tilde");
    assert!(w[5].dynamic, "glob");
    assert!(!w[6].dynamic && w[6].quoted);
    assert!(w[7].dynamic, "brace expansion");
}

#[test]
fn redirections_and_descriptors() {
    let c = lex("make 2>err.log >out.txt 2>&1 >>app.log < in.txt &>all");
    let r = &c.segments[0].redirs;
    assert_eq!(r[0].fd, Some(2));
    assert_eq!(r[0].op, RedirOp::Out);
    assert_eq!(r[0].target.as_ref().unwrap().text, "err.log");
    assert_eq!(r[1].op, RedirOp::Out);
    assert_eq!(r[2].op, RedirOp::Dup);
    assert_eq!(r[3].op, RedirOp::Append);
    assert_eq!(r[4].op, RedirOp::In);
    assert_eq!(r[5].op, RedirOp::Out);
    assert_eq!(c.segments[0].words.len(), 1);
}

/// BASH-013: a quoted-delimiter heredoc's body is byte-exact, `$` and all.
#[test]
fn heredoc_bodies_are_read_verbatim() {
    let c = lex("cat > f.txt <<'EOF'\nline $x `y` \\z\n\tindented\nEOF\necho done");
    let h = c.segments[0].redirs[1].heredoc.clone().unwrap();
    assert!(h.quoted && h.complete);
    assert_eq!(h.body, "line $x `y` \\z\n\tindented\n");
    assert_eq!(words(&c)[1], vec!["echo", "done"]);
    let c = lex("cat <<-EOF >g\n\t\tone\n\tEOF\n");
    let h = c.segments[0].redirs[0].heredoc.clone().unwrap();
    assert!(!h.quoted && h.complete && h.strip_tabs);
    assert_eq!(h.body, "one\n");
    let c = lex("cat > h <<'EOF'\nno end");
    assert!(!c.segments[0].redirs[1].heredoc.as_ref().unwrap().complete);
}

/// A heredoc and an apostrophe inside `$(…)` do not swallow the rest.
#[test]
fn substitutions_are_lexed_recursively() {
    let c = lex("git commit -m \"$(cat <<'EOF'\nFix: don't crash\nEOF\n)\" && rm x");
    assert!(!c.unbalanced);
    assert_eq!(words(&c)[1], vec!["rm", "x"]);
    assert!(c.segments[0].words[3].dynamic);
}

#[test]
fn subshells_have_depth() {
    let c = lex("(cd sub && cat a) && cat b");
    assert_eq!(c.segments[0].depth, 1);
    assert_eq!(c.segments[1].depth, 1);
    assert_eq!(c.segments[1].closes, 1);
    assert_eq!(c.segments[2].depth, 0);
    assert_eq!(c.segments[2].sep, Sep::And);
}

#[test]
fn comments_and_continuations() {
    let c = lex("rm a \\\n  b # rm c\ncat d");
    assert_eq!(words(&c), vec![vec!["rm", "a", "b"], vec!["cat", "d"]]);
    assert!(lex("echo 'open").unbalanced);
}
