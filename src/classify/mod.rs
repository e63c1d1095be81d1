//! Classification: giving every unit of a record its label from the 33-leaf
//! taxonomy ([`taxonomy`]), deciding which records open a turn ([`turns`]), and
//! reading narration from thinking signatures ([`narration`]).

pub mod taxonomy;
pub mod turns;

pub use taxonomy::{Label, LabelSet};
