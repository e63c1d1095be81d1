//! Classification: giving every unit of a record its label from the 33-leaf
//! taxonomy ([`taxonomy`]), deciding which records open a turn ([`turns`]), the
//! per-file facts that needs ([`index`]), the harness markers ([`markers`]), and
//! reading narration from thinking signatures ([`narration`]).

pub(crate) mod index;
pub(crate) mod markers;
pub mod narration;
pub(crate) mod needles;
#[cfg(test)]
mod pins;
pub(crate) mod sidechain;
pub(crate) mod taxonomy;
pub(crate) mod turns;
pub(crate) mod unit;

pub use index::FileIndex;
pub(crate) use taxonomy::{Label, LabelSet};
pub use unit::{classify, classify_labels, Unit};
