//! `csift search` on a tool call's input: the call's text is its name and its
//! input JSON (REC-037), and a pattern written the way the command or code reads
//! (with real quotes, backslashes and newlines) also finds it, on the input with
//! its strings decoded. The public corpus's Bash commands are the ground truth.

use crate::common;

use common::{corpus, json_lines, Home, Session};
use serde_json::{json, Value};

fn matches(v: &[Value]) -> Vec<&Value> {
    v.iter().filter(|x| x["type"] == "match").collect()
}

fn home() -> Home {
    let mut s = Session::new("ab12cd34-0000-4000-8000-000000000002", "/w/proj");
    s.user("commit it");
    s.tool_use(
        "m1",
        "toolu_1",
        "Bash",
        json!({"command": "git commit -m \"fix: a\\b\"", "description": "Commit"}),
    );
    s.tool_result("toolu_1", "[main 1a2b3c] fix", false, None);
    s.tool_use(
        "m2",
        "toolu_2",
        "Write",
        json!({"file_path": "/w/proj/m.rs", "content": "fn main() {\n    println!(\"hi\");\n}\n"}),
    );
    s.tool_result("toolu_2", "File created", false, None);
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    home
}

fn search(home: &Home, args: &[&str]) -> Vec<Value> {
    let out = home
        .cmd()
        .arg("search")
        .args(args)
        .args(["--format", "json", "--no-exchange"])
        .output()
        .unwrap();
    json_lines(&out.stdout)
}

/// REC-037: a pattern with real quotes finds the call on its decoded input;
/// the text is the decoded one, flagged, and the submatch points into it.
#[test]
fn a_quoted_command_is_found_as_it_reads_rec_037() {
    let h = home();
    let v = search(&h, &["-F", r#"commit -m "fix: a\b""#]);
    let m = matches(&v);
    assert_eq!(m.len(), 1, "{v:?}");
    assert_eq!(m[0]["input_decoded"], true);
    let text = m[0]["text"].as_str().unwrap();
    let sub = &m[0]["submatches"][0];
    let (a, b) = (
        sub["start"].as_u64().unwrap() as usize,
        sub["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&text[a..b], r#"commit -m "fix: a\b""#);
    assert!(text.starts_with(r#"Bash {"command":"git commit"#), "{text}");
}

/// REC-037: the raw JSON form still matches first and is shown as JSON.
#[test]
fn the_raw_json_form_still_matches_first_rec_037() {
    let h = home();
    let v = search(&h, &["-F", "-e", r#"-m \"fix"#]);
    let m = matches(&v);
    assert_eq!(m.len(), 1, "{v:?}");
    assert!(m[0].get("input_decoded").is_none());
    let text = m[0]["text"].as_str().unwrap();
    assert!(text.contains(r#"\"fix: a\\b\""#), "{text}");
}

/// Code in a Write's content reads with real newlines, so `^` anchors a line
/// of the file and a quoted string in it is found; a pattern matching only the
/// JSON-escaped form of nothing finds nothing.
#[test]
fn written_code_is_found_line_by_line() {
    let h = home();
    let m = search(&h, &[r#"^\s+println!\("hi"\);$"#]);
    let m = matches(&m);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["tool_name"], "Write");
    assert_eq!(m[0]["input_decoded"], true);
    let n = search(&h, &["-F", r#"println!("bye")"#]);
    assert!(matches(&n).is_empty());
    // The human form prints the decoded text too.
    let out = h
        .cmd()
        .args(["search", "-F", r#"println!("hi")"#, "--color", "never"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("    println!(\"hi\");\n"), "{s}");
}

/// As in ripgrep, `-e` takes a pattern that starts with a dash.
#[test]
fn dash_e_takes_a_pattern_starting_with_a_dash() {
    let h = home();
    let m = search(&h, &["-e", "-m \"fix"]);
    assert_eq!(matches(&m).len(), 1);
}

/// REC-037 on real bytes: every public Bash command holding a quote or a
/// backslash is found by a 30-character piece of it around the first one,
/// written as the command reads.
#[test]
fn every_public_quoted_bash_command_is_found_rec_037() {
    let Some(root) = corpus() else { return };
    let mut cases = 0;
    for f in common::transcripts(&root) {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let Ok(r) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let Some(blocks) = r["message"]["content"].as_array() else {
                continue;
            };
            for b in blocks {
                if b["type"] != "tool_use" || b["name"] != "Bash" {
                    continue;
                }
                let Some(cmd) = b["input"]["command"].as_str() else {
                    continue;
                };
                let Some(at) = cmd.find(['"', '\\']) else {
                    continue;
                };
                let chars: Vec<(usize, char)> = cmd.char_indices().collect();
                let k = chars.iter().position(|&(o, _)| o == at).unwrap();
                let lo = chars[k.saturating_sub(15)].0;
                let hi = chars.get(k + 15).map_or(cmd.len(), |c| c.0);
                let piece = cmd[lo..hi].lines().next().unwrap_or("");
                if !piece.contains(['"', '\\']) {
                    continue;
                }
                cases += 1;
                let out = common::csift()
                    .args([
                        "search",
                        "-F",
                        "-s",
                        "-t",
                        "agent.tool.use",
                        "--no-exchange",
                    ])
                    .args(["--format", "json", "-e", piece])
                    .arg(&f)
                    .output()
                    .unwrap();
                let found = matches(&json_lines(&out.stdout))
                    .iter()
                    .any(|m| m["line"] == i + 1);
                assert!(found, "{}:{} not found by {piece:?}", f.display(), i + 1);
            }
        }
    }
    assert!(cases >= 150, "only {cases} quoted commands in the corpus");
}
