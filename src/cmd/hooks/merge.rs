//! Merge hook entries into a settings file's text without touching anything
//! else: the file is parsed to decide what is missing, then edited as text
//! at the ends of the containers that grow (the root object, its `hooks`
//! object, an event's array), in the file's own indentation. Every byte of
//! the user's other settings and hooks stays as it was; an entry already
//! there (same event, same matcher, same command) is not added again.

use serde_json::Value;

use super::{Entry, Events, Group};

/// The merged text and how many hook entries it added.
pub(crate) struct Merged {
    pub(crate) text: String,
    pub(crate) added: usize,
}

pub(crate) fn merge(old: &str, entries: &[Entry]) -> Result<Merged, String> {
    if old.trim().is_empty() {
        let missing: Vec<Entry> = entries.to_vec();
        let block = (
            Some("hooks".to_string()),
            Ordered::Events(Events::of(&missing)),
        );
        let text = format!("{{\n  {}\n}}\n", fmt_item(&block, "  ", "  "));
        return Ok(Merged {
            text,
            added: missing.len(),
        });
    }
    let doc: Value =
        serde_json::from_str(old).map_err(|e| format!("not valid JSON ({e}); nothing written"))?;
    let Value::Object(root) = &doc else {
        return Err("the settings file is not a JSON object; nothing written".into());
    };
    let hooks = root.get("hooks");
    if hooks.is_some_and(|h| !h.is_object()) {
        return Err("its \"hooks\" is not an object; nothing written".into());
    }
    let missing: Vec<Entry> = entries
        .iter()
        .filter(|e| !present(hooks, e))
        .cloned()
        .collect();
    if missing.is_empty() {
        return Ok(Merged {
            text: old.to_string(),
            added: 0,
        });
    }
    let text = edit(old, hooks.is_some(), &missing)?;
    // The result must parse, and hold what was there plus what was added.
    let check: Value =
        serde_json::from_str(&text).map_err(|e| format!("internal merge error: {e}"))?;
    if missing.iter().any(|e| !present(check.get("hooks"), e)) {
        return Err("internal merge error: an entry is missing after the merge".into());
    }
    Ok(Merged {
        text,
        added: missing.len(),
    })
}

/// Whether `hooks[event]` has a group with this matcher holding this command.
fn present(hooks: Option<&Value>, e: &Entry) -> bool {
    let Some(groups) = hooks.and_then(|h| h.get(e.event)).and_then(Value::as_array) else {
        return false;
    };
    groups.iter().any(|g| {
        let m = g
            .get("matcher")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty());
        m == e.matcher
            && g.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
                hs.iter()
                    .any(|h| h.get("command").and_then(Value::as_str) == Some(&e.command))
            })
    })
}

/// The text edit: add groups to existing event arrays, new events to the
/// hooks object, or the hooks object to the root.
fn edit(old: &str, has_hooks: bool, missing: &[Entry]) -> Result<String, String> {
    let b = old.as_bytes();
    let unit = indent_unit(old);
    let root = container(b, skip_ws(b, 0)).ok_or("unreadable JSON layout")?;
    // (from, to, replacement), applied from the end of the text backwards.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    if !has_hooks {
        let item = (
            Some("hooks".to_string()),
            Ordered::Events(Events::of(missing)),
        );
        edits.push(root.append(old, &[item], &unit));
    } else {
        let hooks = root
            .child("hooks")
            .and_then(|i| container(b, i))
            .ok_or("unreadable hooks layout")?;
        let mut new_events: Vec<Item> = Vec::new();
        for (ev, group) in super::groups(missing) {
            match hooks.child(ev) {
                Some(i) => {
                    let arr = container(b, i).ok_or("an event's hooks are not an array")?;
                    edits.push(arr.append(old, &[(None, Ordered::Group(group))], &unit));
                }
                None => match new_events
                    .iter_mut()
                    .find(|(k, _)| k.as_deref() == Some(ev))
                {
                    Some((_, Ordered::Groups(gs))) => gs.push(group),
                    _ => new_events.push((Some(ev.to_string()), Ordered::Groups(vec![group]))),
                },
            }
        }
        if !new_events.is_empty() {
            edits.push(hooks.append(old, &new_events, &unit));
        }
    }
    edits.sort_by_key(|(at, _, _)| std::cmp::Reverse(*at));
    let mut text = old.to_string();
    for (from, to, s) in edits {
        text.replace_range(from..to, &s);
    }
    Ok(text)
}

/// A child to add: its key (objects) and value.
type Item = (Option<String>, Ordered);

/// What is added, serialised with its keys in Claude Code's order.
enum Ordered {
    Events(Events),
    Groups(Vec<Group>),
    Group(Group),
}

/// `"key": value` or `value`, pretty, later lines prefixed by `indent`.
fn fmt_item((k, v): &Item, unit: &str, indent: &str) -> String {
    let v = match v {
        Ordered::Events(e) => pretty(e, unit, indent),
        Ordered::Groups(g) => pretty(g, unit, indent),
        Ordered::Group(g) => pretty(g, unit, indent),
    };
    match k {
        Some(k) => format!("{}: {v}", serde_json::to_string(k).unwrap_or_default()),
        None => v,
    }
}

/// A value pretty-printed with the file's indent unit, its later lines
/// prefixed by `indent` (its first line goes where the caller puts it).
fn pretty<T: serde::Serialize>(v: &T, unit: &str, indent: &str) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    if v.serialize(&mut ser).is_err() {
        return String::new();
    }
    let s = String::from_utf8_lossy(&buf).into_owned();
    s.replace('\n', &format!("\n{indent}"))
}

/// The file's indentation step: the leading whitespace of its first
/// indented line (two spaces when it has none).
fn indent_unit(text: &str) -> String {
    text.lines()
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|w| !w.is_empty())
        .unwrap_or("  ")
        .to_string()
}

/// An object or array in the text: where it opens and closes, and its
/// children as (key, item start, value start, value end); arrays have no keys.
struct Container {
    open: usize,
    close: usize,
    children: Vec<(Option<String>, usize, usize, usize)>,
}

impl Container {
    /// Where the value of `key` starts (the last one, as JSON parsers read it).
    fn child(&self, key: &str) -> Option<usize> {
        self.children
            .iter()
            .rev()
            .find(|c| c.0.as_deref() == Some(key))
            .map(|c| c.2)
    }

    /// The edit that appends `items` at the end, laid out as the children
    /// already there are (one a line, or all on one line), or, inside an
    /// empty container, one indent step in from its line.
    fn append(&self, text: &str, items: &[Item], unit: &str) -> (usize, usize, String) {
        let fmt = |it: &Item, indent: &str| fmt_item(it, unit, indent);
        let Some(first) = self.children.first() else {
            let outer = line_indent(text, self.open);
            let inner = format!("{outer}{unit}");
            let body: Vec<String> = items
                .iter()
                .map(|i| format!("{inner}{}", fmt(i, &inner)))
                .collect();
            return (
                self.open + 1,
                self.close,
                format!("\n{}\n{outer}", body.join(",\n")),
            );
        };
        let last_end = self.children.last().map_or(first.3, |c| c.3);
        let lead = &text[self.open + 1..first.1];
        let (sep, indent) = match lead.rfind('\n') {
            Some(i) => (format!("\n{}", &lead[i + 1..]), lead[i + 1..].to_string()),
            None => (" ".to_string(), line_indent(text, self.open)),
        };
        let mut s = String::new();
        for it in items {
            s.push(',');
            s.push_str(&sep);
            s.push_str(&fmt(it, &indent));
        }
        (last_end, last_end, s)
    }
}

fn leading_ws(s: &str) -> usize {
    s.len() - s.trim_start().len()
}

/// The leading whitespace of the line that holds byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    line[..leading_ws(line).min(at - start)].to_string()
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The end (exclusive) of the JSON value starting at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => Some(container(b, i)?.close + 1),
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            Some(j)
        }
    }
}

fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// Read the object or array that opens at `i` (the text is valid JSON:
/// serde_json parsed it first).
fn container(b: &[u8], i: usize) -> Option<Container> {
    let is_obj = match *b.get(i)? {
        b'{' => true,
        b'[' => false,
        _ => return None,
    };
    let (close_ch, mut j) = (if is_obj { b'}' } else { b']' }, skip_ws(b, i + 1));
    let mut children = Vec::new();
    while *b.get(j)? != close_ch {
        let item = j;
        let key = if is_obj {
            let end = string_end(b, j)?;
            let k: String = serde_json::from_slice(&b[j..end]).ok()?;
            j = skip_ws(b, end);
            if *b.get(j)? != b':' {
                return None;
            }
            j = skip_ws(b, j + 1);
            Some(k)
        } else {
            None
        };
        let end = value_end(b, j)?;
        children.push((key, item, j, end));
        j = skip_ws(b, end);
        if *b.get(j)? == b',' {
            j = skip_ws(b, j + 1);
        }
    }
    Some(Container {
        open: i,
        close: j,
        children,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(event: &'static str, matcher: Option<&'static str>, cmd: &str) -> Entry {
        Entry {
            event,
            matcher,
            command: cmd.into(),
            timeout: None,
        }
    }

    /// Every shape a hand-kept file has: the merge parses, holds the old
    /// value plus the entries, and a second merge adds nothing.
    #[test]
    fn merges_every_layout_and_is_idempotent() {
        let es = [
            entry("Stop", None, "/bin/csift guard --stop"),
            entry("SessionStart", Some("compact"), "/bin/csift verbatim 1"),
            entry("SessionStart", Some("compact"), "/bin/csift verbatim 2"),
        ];
        for old in [
            "",
            "{}",
            "{ }\n",
            "{\"a\":1}",
            "{\"hooks\":{}}",
            "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
            "{\"hooks\": {\"Stop\": [{\"hooks\": []}]}, \"z\": [1, {\"k\": \"]}\"}]}",
            "{\n    \"hooks\": {\n        \"PreToolUse\": [{\"matcher\": \"x\", \"hooks\": []}]\n    }\n}",
        ] {
            let m = merge(old, &es).unwrap_or_else(|e| panic!("{old:?}: {e}"));
            assert_eq!(m.added, 3, "{old:?}");
            let v: Value = serde_json::from_str(&m.text).unwrap();
            for e in &es {
                assert!(present(v.get("hooks"), e), "{old:?} -> {}", m.text);
            }
            let again = merge(&m.text, &es).unwrap();
            assert_eq!(again.added, 0);
            assert_eq!(again.text, m.text);
        }
    }

    #[test]
    fn an_entry_under_another_matcher_is_not_the_same_entry() {
        let e = entry("SessionStart", Some("compact"), "c");
        let old = r#"{"hooks":{"SessionStart":[{"matcher":"resume","hooks":[{"type":"command","command":"c"}]}]}}"#;
        assert_eq!(merge(old, &[e]).unwrap().added, 1);
    }
}
