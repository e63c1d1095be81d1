//! Printing the pricing table in use (`usage --pricing-table`): a table, or
//! with `--format json` one line in the shape `--pricing FILE` reads.

use std::io::{self, Write};

use super::print::n;
use crate::output::sanitize::one_line;
use crate::output::{json_line, Style};
use crate::tokens::pricing::Pricer;

/// The table in use: JSON in the `--pricing FILE` shape, or a table.
pub(crate) fn pricing<W: Write>(w: &mut W, st: Style, p: &Pricer, json: bool) -> io::Result<()> {
    if json {
        return json_line(w, &p.table);
    }
    let t = &p.table;
    writeln!(
        w,
        "{}prices checked {} ({}){}",
        st.head, t.checked, t.unit, st.reset
    )?;
    writeln!(
        w,
        "{:<22} {:>10} {:>8} {:>8} {:>10} {:>8} {:>8}  LONG CONTEXT",
        "MODEL", "FROM", "INPUT", "OUTPUT", "CACHE_READ", "CW_5M", "CW_1H"
    )?;
    for m in &t.models {
        let r = &m.rates;
        let long = m.long_context.map_or(String::new(), |l| {
            format!(
                "above {}: {} / {} / {} / {} / {}",
                n(l.above),
                l.rates.input,
                l.rates.output,
                l.rates.cache_read,
                l.rates.cache_write_5m,
                l.rates.cache_write_1h
            )
        });
        let origin = if m.origin == "compiled" {
            String::new()
        } else {
            format!("  (from {})", one_line(&m.origin))
        };
        writeln!(
            w,
            "{:<22} {:>10} {:>8} {:>8} {:>10} {:>8} {:>8}  {long}{origin}",
            one_line(&m.model),
            m.from.as_deref().unwrap_or("-"),
            r.input,
            r.output,
            r.cache_read,
            r.cache_write_5m,
            r.cache_write_1h
        )?;
    }
    writeln!(w, "{}source: {}{}", st.dim, one_line(&t.source), st.reset)
}
