//! `csift mcp` over stdio, driven by raw JSON-RPC lines (no client library):
//! the tools listed with their schemas, each tool's answer equal to the CLI's
//! `--format json` for the same arguments on the bundled sample home
//! (tests/mcp_cases.json, shared with the Python SDK client), the budget's
//! cut and its offset, and errors that answer a call while the server keeps
//! serving. The real client (the official MCP Python SDK) runs the same cases
//! in `python_sdk_client_runs_every_tool`.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sample() -> PathBuf {
    root().join("sample/claude-home")
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("csift")
}

/// A running `csift mcp` and its answers, line by line.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(bin())
            .args(["mcp", "--claude-home"])
            .arg(sample())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env(
                "XDG_STATE_HOME",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut s = Server {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "csift-tests", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "csift", "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s
    }

    fn send(&mut self, line: &str) {
        let w = self.stdin.as_mut().unwrap();
        writeln!(w, "{line}").unwrap();
        w.flush().unwrap();
    }

    /// Send a request and wait for the answer with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let req = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&req.to_string());
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("an answer within 60 s");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Closing stdin ends the server; it exits 0.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The CLI's JSON Lines for the same arguments, on the same home.
fn cli_json(args: &[String]) -> Vec<Value> {
    let out = common::csift()
        .args(args)
        .args(["--format", "json", "--claude-home"])
        .arg(sample())
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}");
    common::json_lines(&out.stdout)
}

/// What differs between two runs of the same command: its timing, and the
/// age phrases `status` writes from the clock.
fn steady(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "elapsed_ms")
                .map(|(k, v)| (k.clone(), steady(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(steady).collect()),
        Value::String(s) => {
            let re = regex::Regex::new(r"\(\d+[dhms](\d+[hms])? ago\)").unwrap();
            Value::String(re.replace_all(s, "(… ago)").into_owned())
        }
        v => v.clone(),
    }
}

fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(root().join("tests/mcp_cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn tools_list_every_read_command_with_schemas() {
    let mut s = Server::start();
    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for want in [
        "list_sessions",
        "search",
        "show",
        "verbatim",
        "stats",
        "agents",
        "audit",
        "status",
        "tasks",
        "files",
        "recover",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let search = tools.iter().find(|t| t["name"] == "search").unwrap();
    let props = &search["inputSchema"]["properties"];
    // Same flags, same defaults, enums as enums, lists as arrays.
    assert_eq!(props["context"]["default"], json!(2));
    assert_eq!(props["label"]["type"], "array");
    assert_eq!(props["ignore_case"]["type"], "boolean");
    assert!(props["count_by"]["enum"].as_array().unwrap().len() >= 2);
    assert_eq!(props["max_chars"]["default"], json!(20000));
    // The server fixes form, colour and home: no tool takes them.
    for fixed in ["format", "color", "claude_home"] {
        assert!(props.get(fixed).is_none(), "{fixed} offered");
    }
    let show = tools.iter().find(|t| t["name"] == "show").unwrap();
    assert!(show["inputSchema"]["properties"].get("raw").is_none());
    assert_eq!(search["annotations"]["readOnlyHint"], json!(true));
}

#[test]
fn each_tool_answers_the_clis_json() {
    let mut s = Server::start();
    for case in cases() {
        let tool = case["tool"].as_str().unwrap();
        let mut args = case["args"].clone();
        args["max_chars"] = json!(100_000_000);
        let got = s.call(tool, args);
        let r = &got["result"];
        assert_ne!(r["isError"], json!(true), "{tool}: {got}");
        let sc = &r["structuredContent"];
        let cli: Vec<String> = case["cli"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let want = cli_json(&cli);
        assert!(!want.is_empty(), "{cli:?} printed nothing");
        let objects = sc["objects"].as_array().unwrap();
        assert_eq!(
            objects.iter().map(steady).collect::<Vec<_>>(),
            want.iter().map(steady).collect::<Vec<_>>(),
            "{tool} {cli:?}"
        );
        assert_eq!(sc["total"], json!(want.len()));
        assert_eq!(sc["cut"], Value::Null);
        // The text block is the same objects, as the CLI prints them.
        let text = r["content"][0]["text"].as_str().unwrap();
        let lines: Vec<Value> = text
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), want.len(), "{tool} text");
    }
}

#[test]
fn a_cut_answer_says_what_it_cut_and_the_offset_gets_the_rest() {
    let mut s = Server::start();
    let is_summary = |v: &Value| v["type"] == "summary";
    let all: Vec<Value> = cli_json(&["list".into()])
        .into_iter()
        .filter(|v| !is_summary(v))
        .collect();
    assert!(all.len() >= 4);
    let first = s.call("list_sessions", json!({"max_chars": 1500}));
    let sc = &first["result"]["structuredContent"];
    let returned = sc["returned"].as_u64().unwrap() as usize;
    assert!(returned >= 1 && returned < all.len(), "{sc}");
    let cut = &sc["cut"];
    assert_eq!(cut["objects"], json!(all.len() - returned));
    assert_eq!(cut["next_offset"], json!(returned));
    assert!(cut["how"].as_str().unwrap().contains("offset="));
    let text = first["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("cut at max_chars=1500"), "{text}");
    // Windows from the offsets each answer names cover every object once.
    // Windows from the offsets each answer names cover every object once;
    // the summary object closes each of them.
    let page_objects = |sc: &Value| -> Vec<Value> {
        let objects = sc["objects"].as_array().unwrap();
        assert!(is_summary(objects.last().unwrap()), "{sc}");
        objects.iter().filter(|v| !is_summary(v)).cloned().collect()
    };
    let mut got = page_objects(sc);
    let mut next = cut["next_offset"].clone();
    while let Some(off) = next.as_u64() {
        let page = s.call("list_sessions", json!({"max_chars": 1500, "offset": off}));
        let sc = &page["result"]["structuredContent"];
        got.extend(page_objects(sc));
        next = sc["cut"]["next_offset"].clone();
    }
    assert_eq!(got, all);
}

#[test]
fn the_summary_object_stays_in_every_window() {
    let mut s = Server::start();
    let r = s.call("search", json!({"pattern": "e", "max_chars": 10}));
    let objects = r["result"]["structuredContent"]["objects"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(objects.last().unwrap()["type"], "summary", "{r}");
    assert_eq!(
        objects.len(),
        2,
        "one exchange (over budget, whole) and the summary"
    );
    let notes = r["result"]["structuredContent"]["notes"].to_string();
    assert!(notes.contains("answered whole"), "{notes}");
}

#[test]
fn errors_answer_the_call_and_the_server_keeps_serving() {
    let mut s = Server::start();
    // A command's own error: isError with csift's message.
    let r = s.call("show", json!({"targets": ["@0000dead"]}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("0000dead"));
    // A bad regex, a wrong type, an unknown argument: the same.
    for (tool, args) in [
        ("search", json!({"pattern": "("})),
        ("list_sessions", json!({"max_count": "three"})),
        ("list_sessions", json!({"format": "human"})),
        ("verbatim", json!({"hook_json": true})),
    ] {
        let r = s.call(tool, args.clone());
        assert_eq!(r["result"]["isError"], json!(true), "{tool} {args}: {r}");
    }
    // An unknown tool is a JSON-RPC error.
    let r = s.call("rm_rf", json!({}));
    assert!(r["error"]["code"].is_i64(), "{r}");
    // A line that is not JSON-RPC at all is dropped, not fatal.
    s.send("this is not json {");
    s.send("{\"jsonrpc\":\"2.0\",\"id\":\"x\"}");
    let r = s.call("list_sessions", json!({"max_count": 1}));
    assert_eq!(
        r["result"]["structuredContent"]["returned"],
        json!(1),
        "{r}"
    );
}

#[test]
fn nothing_found_is_an_answer_not_an_error() {
    let mut s = Server::start();
    let r = s.call("search", json!({"pattern": "zz-no-such-text-zz"}));
    assert_ne!(r["result"]["isError"], json!(true));
    let sc = &r["result"]["structuredContent"];
    assert_eq!(sc["exit"], json!(1));
    assert!(sc["notes"].to_string().contains("nothing found"));
}

#[test]
fn recover_of_a_file_no_session_touched_answers_why() {
    // The note went to the server's stderr before: the call answered exit 1
    // with nothing to say why.
    let mut s = Server::start();
    let r = s.call("recover", json!({"file": "/no/such/file-zz.rs"}));
    assert_ne!(r["result"]["isError"], json!(true), "{r}");
    let sc = &r["result"]["structuredContent"];
    assert_eq!(sc["exit"], json!(1), "{r}");
    assert!(
        sc["notes"]
            .to_string()
            .contains("no touch of /no/such/file-zz.rs"),
        "{r}"
    );
}

/// The real client: the official MCP Python SDK (`pip install mcp`, done by
/// .ci/run into a venv it names in CSIFT_MCP_PYTHON) launches `csift mcp`,
/// lists the tools and runs every case against the CLI. Skipped on a
/// developer machine without it; under CI=true a missing SDK fails.
#[test]
fn python_sdk_client_runs_every_tool() {
    let python = match std::env::var_os("CSIFT_MCP_PYTHON") {
        Some(p) => PathBuf::from(p),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI=true and CSIFT_MCP_PYTHON unset: .ci/run installs the MCP Python SDK")
        }
        None => {
            eprintln!("skipped: CSIFT_MCP_PYTHON unset (see .ci/run)");
            return;
        }
    };
    let out = Command::new(python)
        .arg(root().join("tests/mcp_client.py"))
        .arg(bin())
        .arg(sample())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
        )
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    let want = format!("mcp client: {} cases equal", cases().len());
    assert!(said.contains(&want), "{said}");
}
