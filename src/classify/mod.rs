//! Classification: giving every unit of a record its label from the 33-leaf
//! taxonomy ([`taxonomy`]), deciding which records open a turn ([`turns`]), the
//! per-file facts that needs ([`index`]), the harness markers ([`markers`]), and
//! reading narration from thinking signatures ([`narration`]).

pub mod index;
pub mod markers;
pub mod narration;
pub mod needles;
pub mod taxonomy;
pub mod turns;
pub mod unit;

pub use index::FileIndex;
pub use taxonomy::{Label, LabelSet};
pub use unit::{classify, classify_labels, Unit};
