//! Tests of the command analysis and the verb table.

use super::lex::lex;
use super::verbs::{effect, Act};
use super::*;

fn ops(cmd: &str, cwd: &str) -> Vec<(Act, String, Class)> {
    analyze(cmd, Some(cwd))
        .ops
        .into_iter()
        .map(|o| (o.act, o.path, o.class))
        .collect()
}

/// BASH-023: the four resolution classes.
#[test]
fn resolution_classes() {
    let got = ops("rm /abs/a rel/b $OUT/c && cd sub && rm d", "/proj");
    assert_eq!(
        got,
        vec![
            (Act::Delete, "/abs/a".into(), Class::Absolute),
            (Act::Delete, "/proj/rel/b".into(), Class::CwdJoined),
            (Act::Delete, "$OUT/c".into(), Class::Unresolved),
            (Act::Delete, "/proj/sub/d".into(), Class::CdTracked),
        ]
    );
    // No cwd on the record: a relative operand cannot be placed.
    assert_eq!(analyze("rm x", None).ops[0].class, Class::Unresolved);
    // cd to a place no one can tell.
    assert_eq!(ops("cd $D && rm x", "/p")[0].2, Class::Unresolved);
    // cd to the record's own directory changes nothing.
    assert_eq!(ops("cd /proj && rm x", "/proj")[0].2, Class::CwdJoined);
}

/// A `cd` inside `( … )` or a pipeline does not outlive it.
#[test]
fn subshell_and_pipeline_cd_do_not_persist() {
    let got = ops("(cd sub && rm a) && rm b", "/p");
    assert_eq!(got[0].1, "/p/sub/a");
    assert_eq!(got[1], (Act::Delete, "/p/b".into(), Class::CwdJoined));
    let got = ops("cd sub | true; rm c", "/p");
    assert_eq!(got[0].1, "/p/c");
}

#[test]
fn redirections_write_and_devices_do_not() {
    let got = ops("make > build.log 2>/dev/null < in.txt", "/p");
    assert_eq!(
        got,
        vec![
            (Act::Write, "/p/build.log".into(), Class::CwdJoined),
            (Act::Read, "/p/in.txt".into(), Class::CwdJoined),
        ]
    );
}

/// BASH-013/014: a literal heredoc into cat/tee is content; an interpreter
/// heredoc is not.
#[test]
fn heredoc_content_only_via_cat_or_tee() {
    let a = analyze("cat > out.txt <<'EOF'\nhello $x\nEOF", Some("/p"));
    assert_eq!(a.ops[0].content.as_deref(), Some("hello $x\n"));
    let a = analyze("tee -a log.txt <<EOF\nplain\nEOF", Some("/p"));
    assert_eq!(
        (a.ops[0].act, a.ops[0].content.as_deref()),
        (Act::Append, Some("plain\n"))
    );
    let a = analyze("cat > out.txt <<EOF\nhello $x\nEOF", Some("/p"));
    assert_eq!(a.ops[0].content, None, "unquoted with an expansion");
    let a = analyze("python3 - <<'EOF' > out.txt\nprint(1)\nEOF", Some("/p"));
    assert_eq!(a.ops[0].content, None);
    assert_eq!(a.markers, vec!["interp:python"]);
}

/// BASH-019/FH-012: a lone `cat FILE`, after cds only, is a read of the file.
#[test]
fn a_lone_cat_after_cds_is_the_file() {
    let a = analyze("cd sub && cat notes.txt", Some("/p"));
    let i = a.cat.unwrap();
    assert_eq!(a.ops[i].path, "/p/sub/notes.txt");
    assert_eq!(a.ops[i].class, Class::CdTracked);
    for cmd in [
        "cat a b",
        "cat a | head",
        "cat -n a",
        "cat a > b",
        "cat a && ls",
        "cat $F",
    ] {
        assert_eq!(analyze(cmd, Some("/p")).cat, None, "{cmd}");
    }
}

#[test]
fn wrappers_and_keywords_are_stripped() {
    let got = ops(
        "sudo -u root rm a; FOO=1 env BAR=2 rm b; if true; then rm c; fi",
        "/p",
    );
    let paths: Vec<&str> = got.iter().map(|g| g.1.as_str()).collect();
    assert_eq!(paths, vec!["/p/a", "/p/b", "/p/c"]);
    assert!(ops("for f in *.txt; do rm \"$f\"; done", "/p")[0].2 == Class::Unresolved);
}

fn eff(cmd: &str) -> (Vec<(Act, String)>, Option<String>) {
    let c = lex(cmd);
    let s = &c.segments[0];
    let e = effect(&s.words[0].text, &s.words[1..]);
    (
        e.operands
            .iter()
            .map(|o| (o.act, o.word.text.clone()))
            .collect(),
        e.marker,
    )
}

#[test]
fn reads_writes_and_moves() {
    assert_eq!(
        eff("cat -n a b").0,
        vec![(Act::Read, "a".into()), (Act::Read, "b".into())]
    );
    assert_eq!(eff("head -n 20 f").0, vec![(Act::Read, "f".into())]);
    assert_eq!(
        eff("rm -rf x y").0,
        vec![(Act::Delete, "x".into()), (Act::Delete, "y".into())]
    );
    assert_eq!(
        eff("mv a b dir/").0,
        vec![
            (Act::MoveFrom, "a".into()),
            (Act::MoveFrom, "b".into()),
            (Act::MoveTo, "dir/".into())
        ]
    );
    assert_eq!(
        eff("cp -t d a").0,
        vec![(Act::Read, "a".into()), (Act::CopyTo, "d".into())]
    );
    assert_eq!(eff("tee -a log").0, vec![(Act::Append, "log".into())]);
    assert_eq!(
        eff("jq --arg a b '.x' f.json").0,
        vec![(Act::Read, "f.json".into())]
    );
}

/// BASH-024: `sed -i` edits in place (never an anchor); plain sed reads.
#[test]
fn sed_in_place_and_not() {
    assert_eq!(eff("sed -i 's/a/b/' f").0, vec![(Act::Write, "f".into())]);
    assert_eq!(
        eff("sed -i.bak -e 's/a/b/' f g").0,
        vec![(Act::Write, "f".into()), (Act::Write, "g".into())]
    );
    assert_eq!(eff("sed -n '1,5p' f").0, vec![(Act::Read, "f".into())]);
}

/// BASH-020: commands that mutate unnamed files are class markers.
#[test]
fn class_markers() {
    assert_eq!(eff("cargo fmt --all").1.as_deref(), Some("fmt:cargo"));
    assert_eq!(eff("npm install").1.as_deref(), Some("pkg:npm"));
    assert_eq!(eff("tar xzf a.tgz").1.as_deref(), Some("extract:tar"));
    assert_eq!(eff("python3 script.py").1.as_deref(), Some("interp:python"));
    assert_eq!(eff("git checkout main").1.as_deref(), Some("git:checkout"));
    assert_eq!(
        eff("git rm -r old.rs").0,
        vec![(Act::Delete, "old.rs".into())]
    );
    assert_eq!(
        eff("git mv a.rs b.rs").0,
        vec![(Act::MoveFrom, "a.rs".into()), (Act::MoveTo, "b.rs".into())]
    );
    assert_eq!(
        eff("git checkout -- x.rs").0,
        vec![(Act::Write, "x.rs".into())]
    );
    assert_eq!(eff("git rm --cached f").1, None);
    assert_eq!(eff("git status").1, None);
    assert_eq!(eff("mise run fmt").1.as_deref(), Some("fmt:mise"));
    assert_eq!(eff("make test").1, None);
    assert_eq!(eff("cargo test").1, None);
    assert_eq!(eff("python3 --version").1, None);
    // A formatter that names its file writes it.
    assert_eq!(
        eff("rustfmt src/main.rs").0,
        vec![(Act::Write, "src/main.rs".into())]
    );
    assert_eq!(eff("black .").1.as_deref(), Some("fmt:black"));
}
