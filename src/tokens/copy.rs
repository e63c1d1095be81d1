//! One usage copy read into per-field values. Per copy: null/absent → 0;
//! cache_creation is the flat count if > 0 else the 5m+1h split (REC-098);
//! thinking is a subset of output (REC-099); a zeroed replay copy takes its
//! counts from `usage.iterations` (QT-041, REC-034). Copies of one message merge
//! by per-field MAX ([`Vals::max`], REC-020, REC-034).

mod tight;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Per-field values of one message (or a sum of messages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Vals {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_creation: u64,
    #[serde(rename = "cache_creation_5m")]
    pub(crate) cc_5m: u64,
    #[serde(rename = "cache_creation_1h")]
    pub(crate) cc_1h: u64,
    /// A subset of `output`, never added to it (REC-099).
    pub(crate) thinking: u64,
    #[serde(rename = "web_search_requests")]
    pub(crate) web_search: u64,
    #[serde(rename = "web_fetch_requests")]
    pub(crate) web_fetch: u64,
}

impl Vals {
    pub(crate) fn fields(&mut self) -> [&mut u64; 9] {
        [
            &mut self.input,
            &mut self.output,
            &mut self.cache_read,
            &mut self.cache_creation,
            &mut self.cc_5m,
            &mut self.cc_1h,
            &mut self.thinking,
            &mut self.web_search,
            &mut self.web_fetch,
        ]
    }

    /// Write the nine fields in [`Vals::fields`] order (the census cache's
    /// form, shared by every entry that keeps token values).
    pub(crate) fn encode(mut self, e: &mut crate::cache::Enc) {
        for x in self.fields() {
            e.u64(*x);
        }
    }

    /// Read what [`Vals::encode`] wrote.
    pub(crate) fn decode(d: &mut crate::cache::Dec<'_>) -> Option<Vals> {
        let mut v = Vals::default();
        for x in v.fields() {
            *x = d.u64()?;
        }
        Some(v)
    }

    pub(crate) fn max(mut self, mut o: Vals) -> Vals {
        for (a, b) in self.fields().into_iter().zip(o.fields()) {
            *a = (*a).max(*b);
        }
        self
    }

    pub(crate) fn add(&mut self, mut o: Vals) {
        // Saturating: a corrupt count near u64::MAX must not wrap to a small one.
        for (a, b) in self.fields().into_iter().zip(o.fields()) {
            *a = a.saturating_add(*b);
        }
    }
}

/// A per-model row: deduplicated messages, the records they were written as, and
/// the summed values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Row {
    pub(crate) messages: u64,
    pub(crate) records: u64,
    #[serde(flatten)]
    pub(crate) vals: Vals,
}

impl Row {
    pub(crate) fn add(&mut self, o: &Row) {
        self.messages = self.messages.saturating_add(o.messages);
        self.records = self.records.saturating_add(o.records);
        self.vals.add(o.vals);
    }
}

#[derive(Deserialize, Default)]
struct Flat<'a> {
    #[serde(borrow, default)]
    input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_read_input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_creation_input_tokens: Option<&'a RawValue>,
}

impl Flat<'_> {
    fn four(&self) -> [u64; 4] {
        [
            num(self.input_tokens),
            num(self.output_tokens),
            num(self.cache_read_input_tokens),
            num(self.cache_creation_input_tokens),
        ]
    }
}

#[derive(Deserialize)]
struct Usage<'a> {
    #[serde(borrow, default)]
    input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_read_input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_creation_input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_creation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output_tokens_details: Option<&'a RawValue>,
    #[serde(borrow, default)]
    server_tool_use: Option<&'a RawValue>,
    #[serde(borrow, default)]
    iterations: Option<&'a RawValue>,
}

/// A JSON number as a count: null, absent, negative or non-numbers are 0.
fn num(raw: Option<&RawValue>) -> u64 {
    raw.map_or(0, |r| count(r.get()))
}

/// The count a raw JSON value's text stands for (0 unless a positive number).
fn count(text: &str) -> u64 {
    // Claude Code writes whole numbers: up to 15 digits are read exactly as the
    // float reading below reads them, without it (it was most of a copy's cost).
    if (1..=15).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.bytes().fold(0, |n, b| n * 10 + u64::from(b - b'0'));
    }
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map_or(0, |v| v as u64)
}

/// `obj.key` for each of `keys` as a count when `raw` is an object, read by
/// one skim of its fields (a map per call was most of the token cost; a skim
/// per key walked `cache_creation` and `server_tool_use` twice): the last of
/// repeated keys, and 0 for every key when any key is escaped, as the map of
/// borrowed keys this replaces gave.
fn subs<const N: usize>(raw: Option<&str>, keys: [&str; N]) -> [u64; N] {
    let Some(raw) = raw.filter(|r| r.starts_with('{')) else {
        return [0; N];
    };
    tight::subs(raw, keys).unwrap_or_else(|| skim_subs(raw, keys))
}

/// [`subs`] by the general skim.
fn skim_subs<const N: usize>(raw: &str, keys: [&str; N]) -> [u64; N] {
    let mut found = [None; N];
    for kv in crate::scan::json::Fields::new(raw.as_bytes(), 0) {
        let Ok((k, v)) = kv else { return [0; N] };
        if memchr::memchr(b'\\', k).is_some() {
            return [0; N];
        }
        if let Some(i) = keys.iter().position(|key| k == key.as_bytes()) {
            found[i] = Some(v);
        }
    }
    found.map(|v| v.and_then(|v| std::str::from_utf8(v).ok()).map_or(0, count))
}

/// The usage object's fields csift reads, each as its raw JSON text.
#[derive(Debug, Default, PartialEq)]
struct Parts<'a> {
    input: Option<&'a str>,
    output: Option<&'a str>,
    cache_read: Option<&'a str>,
    cache_flat: Option<&'a str>,
    cache_creation: Option<&'a str>,
    output_details: Option<&'a str>,
    server_tool_use: Option<&'a str>,
    iterations: Option<&'a str>,
}

impl<'a> Parts<'a> {
    /// The fields by a skim of the object's top-level keys (the record parse
    /// validated it): `None` where the skim could answer otherwise than
    /// serde's derive, which gets the object then — an escaped key (serde
    /// reads it unescaped) or a known key written twice (serde rejects it).
    fn skim(raw: &'a str) -> Option<Parts<'a>> {
        let mut p = Parts::default();
        for kv in crate::scan::json::Fields::new(raw.as_bytes(), 0) {
            let (k, v) = kv.ok()?;
            if memchr::memchr(b'\\', k).is_some() {
                return None;
            }
            // A value's bytes lie inside `raw` on character boundaries.
            p.put(k, std::str::from_utf8(v).ok()?)?;
        }
        Some(p)
    }

    /// Keep `value` as the field `key` names (a key csift does not read is
    /// passed over; `null` is no value); `None` when the field already has
    /// one (serde's derive refuses a repeated field).
    fn put(&mut self, key: &[u8], value: &'a str) -> Option<()> {
        let slot = match key {
            b"input_tokens" => &mut self.input,
            b"output_tokens" => &mut self.output,
            b"cache_read_input_tokens" => &mut self.cache_read,
            b"cache_creation_input_tokens" => &mut self.cache_flat,
            b"cache_creation" => &mut self.cache_creation,
            b"output_tokens_details" => &mut self.output_details,
            b"server_tool_use" => &mut self.server_tool_use,
            b"iterations" => &mut self.iterations,
            _ => return Some(()),
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(value).filter(|t| *t != "null");
        Some(())
    }

    /// The fields as serde's derive reads them (`None`: not a usage object).
    fn parse(raw: &'a str) -> Option<Parts<'a>> {
        let u: Usage<'a> = serde_json::from_str(raw).ok()?;
        let t = |r: Option<&'a RawValue>| r.map(RawValue::get);
        Some(Parts {
            input: t(u.input_tokens),
            output: t(u.output_tokens),
            cache_read: t(u.cache_read_input_tokens),
            cache_flat: t(u.cache_creation_input_tokens),
            cache_creation: t(u.cache_creation),
            output_details: t(u.output_tokens_details),
            server_tool_use: t(u.server_tool_use),
            iterations: t(u.iterations),
        })
    }
}

/// One copy's effective values, and whether a zeroed copy was recovered from
/// `usage.iterations`. `None` when `raw` is not a usage object.
pub(crate) fn copy_values(raw: &RawValue) -> Option<(Vals, bool)> {
    let raw = raw.get();
    if !raw.starts_with('{') {
        return None;
    }
    let u = Parts::tight(raw)
        .or_else(|| Parts::skim(raw))
        .or_else(|| Parts::parse(raw))?;
    let n = |t: Option<&str>| t.map_or(0, count);
    let [input, output, cache_read, cache_flat] =
        [u.input, u.output, u.cache_read, u.cache_flat].map(n);
    let [cc_5m, cc_1h] = subs(
        u.cache_creation,
        ["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"],
    );
    let [web_search, web_fetch] = subs(
        u.server_tool_use,
        ["web_search_requests", "web_fetch_requests"],
    );
    let mut v = Vals {
        input,
        output,
        cache_read,
        // REC-098: the harness's own rule, flat if > 0 else the nested split.
        cache_creation: if cache_flat > 0 {
            cache_flat
        } else {
            cc_5m.saturating_add(cc_1h)
        },
        cc_5m,
        cc_1h,
        thinking: subs(u.output_details, ["thinking_tokens"])[0],
        web_search,
        web_fetch,
    };
    let mut recovered = false;
    if [input, output, cache_read, cache_flat] == [0; 4] {
        // QT-041 / REC-034: a compaction replay zeroes the flat counts and keeps
        // the real ones in iterations[*].
        if let Some(its) = u
            .iterations
            .and_then(|r| serde_json::from_str::<Vec<Flat<'_>>>(r).ok())
        {
            let mut s = [0u64; 4];
            for it in &its {
                for (a, b) in s.iter_mut().zip(it.four()) {
                    *a = a.saturating_add(b);
                }
            }
            if s != [0; 4] {
                [v.input, v.output, v.cache_read, v.cache_creation] = s;
                recovered = true;
            }
        }
    }
    Some((v, recovered))
}

#[cfg(test)]
mod tests;
