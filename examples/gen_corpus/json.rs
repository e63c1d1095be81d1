//! A tiny insertion-ordered JSON writer plus a deterministic PRNG.
//!
//! Claude Code writes compact JSON with keys in insertion order; `serde_json::Value`
//! (without `preserve_order`) would sort them, so records are written by hand.

/// Append `s` as a JSON string literal (quotes included). Non-ASCII is written raw,
/// as `JSON.stringify` does; control characters are escaped.
pub fn esc(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match rep {
            Some(r) => out.push_str(r),
            None => {
                out.push_str("\\u00");
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A JSON object being written into a `String`.
pub struct Obj<'a> {
    b: &'a mut String,
    first: bool,
}

/// A JSON array being written into a `String`.
pub struct Arr<'a> {
    b: &'a mut String,
    first: bool,
}

/// Write one whole object into `b`.
pub fn obj(b: &mut String, f: impl FnOnce(&mut Obj)) {
    b.push('{');
    let mut o = Obj { b, first: true };
    f(&mut o);
    o.b.push('}');
}

/// Render one object to a fresh `String`.
pub fn render(f: impl FnOnce(&mut Obj)) -> String {
    let mut s = String::new();
    obj(&mut s, f);
    s
}

impl Obj<'_> {
    fn key(&mut self, k: &str) {
        if !self.first {
            self.b.push(',');
        }
        self.first = false;
        self.b.push('"');
        self.b.push_str(k);
        self.b.push_str("\":");
    }
    pub fn s(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        esc(self.b, v);
        self
    }
    pub fn os(&mut self, k: &str, v: Option<&str>) -> &mut Self {
        match v {
            Some(v) => self.s(k, v),
            None => self.null(k),
        }
    }
    pub fn n(&mut self, k: &str, v: i64) -> &mut Self {
        self.key(k);
        self.b.push_str(&v.to_string());
        self
    }
    pub fn t(&mut self, k: &str, v: bool) -> &mut Self {
        self.key(k);
        self.b.push_str(if v { "true" } else { "false" });
        self
    }
    pub fn null(&mut self, k: &str) -> &mut Self {
        self.key(k);
        self.b.push_str("null");
        self
    }
    /// Insert pre-rendered JSON verbatim.
    pub fn raw(&mut self, k: &str, json: &str) -> &mut Self {
        self.key(k);
        self.b.push_str(json);
        self
    }
    pub fn o(&mut self, k: &str, f: impl FnOnce(&mut Obj)) -> &mut Self {
        self.key(k);
        obj(self.b, f);
        self
    }
    pub fn a(&mut self, k: &str, f: impl FnOnce(&mut Arr)) -> &mut Self {
        self.key(k);
        self.b.push('[');
        let mut a = Arr {
            b: &mut *self.b,
            first: true,
        };
        f(&mut a);
        self.b.push(']');
        self
    }
    pub fn strs(&mut self, k: &str, v: &[&str]) -> &mut Self {
        self.a(k, |a| {
            for s in v {
                a.s(s);
            }
        })
    }
}

impl Arr<'_> {
    fn sep(&mut self) {
        if !self.first {
            self.b.push(',');
        }
        self.first = false;
    }
    pub fn s(&mut self, v: &str) -> &mut Self {
        self.sep();
        esc(self.b, v);
        self
    }
    pub fn o(&mut self, f: impl FnOnce(&mut Obj)) -> &mut Self {
        self.sep();
        obj(self.b, f);
        self
    }
}

/// splitmix64: small, fast, deterministic.
#[derive(Clone)]
pub struct Rng(u64);

const B62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// An independent stream derived from this seed and a label.
    pub fn fork(&self, label: u64) -> Rng {
        let mut r = Rng(self.0 ^ label.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next();
        r
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[lo, hi]` (inclusive).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next() % (hi - lo + 1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / ((1u64 << 53) as f64) < p
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
    pub fn uuid(&mut self) -> String {
        let a = self.next();
        let b = self.next();
        let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
        let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    }
    pub fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        while s.len() < n {
            let v = self.next();
            for i in 0..16 {
                if s.len() == n {
                    break;
                }
                s.push(char::from(
                    b"0123456789abcdef"[((v >> (i * 4)) & 15) as usize],
                ));
            }
        }
        s
    }
    pub fn b62(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(B62[(self.next() % 62) as usize]))
            .collect()
    }
    pub fn b64(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        while s.len() < n {
            let v = self.next();
            for i in 0..10 {
                if s.len() == n {
                    break;
                }
                s.push(char::from(B64[((v >> (i * 6)) & 63) as usize]));
            }
        }
        s
    }
}

/// Format epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
pub fn iso_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Claude Code's project directory encoding: every char outside `[A-Za-z0-9]` becomes `-`.
pub fn encode_cwd(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Human byte size as Claude Code renders it in `<persisted-output>` (e.g. `81.1KB`).
pub fn human_size(n: usize) -> String {
    if n < 1024 {
        format!("{n}B")
    } else if n < 1024 * 1024 {
        let k = n as f64 / 1024.0;
        if (k - k.round()).abs() < 0.05 {
            format!("{}KB", k.round())
        } else {
            format!("{k:.1}KB")
        }
    } else {
        format!("{:.1}MB", n as f64 / (1024.0 * 1024.0))
    }
}
