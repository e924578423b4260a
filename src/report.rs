//! Reports (being split: the renderers still live in `report/table.rs`).

mod table;

pub use table::*;
