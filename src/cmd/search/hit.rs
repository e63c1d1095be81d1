//! A search hit as printers take it: the matched unit, its submatches and the
//! exchange it belongs to. Field names are the JSON output's, documented in
//! `csift search --help`.

use serde::Serialize;

pub(crate) use crate::exchange::unit::{Sub, UnitKey, UnitOut};

/// One matched unit and the units that complete its exchange.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) unit: UnitOut,
    pub(crate) exchange: Vec<UnitOut>,
    /// Where the matched unit sits in the printed exchange (0 = first).
    pub(crate) position: usize,
    /// A matched call that no tool_result in its file answers (still running,
    /// interrupted, or never answered: the file cannot tell which).
    pub(crate) unanswered: bool,
    /// A `--count-by` key read from the record or its pairing (`pairing`,
    /// `attachment`), set only when that key is asked for.
    pub(crate) key: Option<String>,
}

impl Hit {
    /// The exchange's identity: its units' keys, in order, so a tool_use hit and
    /// its result hit print once.
    pub(crate) fn exchange_key(&self) -> Vec<UnitKey> {
        let mut all: Vec<_> = self
            .exchange
            .iter()
            .map(UnitOut::key)
            .chain(std::iter::once(self.unit.key()))
            .collect();
        all.sort();
        all
    }
}

#[derive(Serialize)]
pub(crate) struct JsonHit<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    #[serde(flatten)]
    pub(crate) unit: &'a UnitOut,
    pub(crate) exchange: &'a [UnitOut],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) unanswered: bool,
}
