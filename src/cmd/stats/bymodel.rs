//! `--by model`: one group per model, holding each message's tokens under the
//! model that wrote it. A transcript that used several models joins the group
//! of each, with that model's tokens, records and messages only; its other
//! counts (lines, turns, units, tools) are the transcript's own, so those
//! columns add up to more than the total when transcripts mix models (the
//! table says so). `<synthetic>` stand-ins group a transcript only when it has
//! no real model.

use std::collections::BTreeSet;

use super::census::Census;
use crate::tokens::book::Book;
use crate::tokens::SYNTHETIC;

/// The groups a transcript joins: `(model, its census and book for that model)`;
/// one `None` group (as the whole transcript) when it names no model at all.
pub(crate) fn split(c: &Census, book: &Book) -> Vec<(Option<String>, Census, Book)> {
    let mut models: BTreeSet<&str> = c.models.keys().map(String::as_str).collect();
    models.extend(book.keyed_models());
    models.extend(book.idless.keys().map(String::as_str));
    if models.len() > 1 {
        models.remove(SYNTHETIC);
    }
    if models.is_empty() {
        return vec![(None, c.clone(), book.only(None))];
    }
    models
        .into_iter()
        .map(|m| {
            let mut mc = c.clone();
            mc.tokens.retain(|k, _| k == m);
            mc.tokens_apart.retain(|k, _| k == m);
            mc.models.retain(|k, _| k == m);
            mc.narration_blocks.retain(|k, _| k == m);
            (Some(m.to_string()), mc, book.only(Some(m)))
        })
        .collect()
}
