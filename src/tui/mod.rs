//! The terminal UI (not built yet): until it is, opening rung prints the
//! ladder report of the database.

use crate::cli::Global;
use crate::error::Result;

pub fn run(g: &Global) -> Result<()> {
    let store = crate::store::Store::open_ro(&g.db)?;
    let f = crate::store::query::Filter::default();
    let text = crate::report::ladder(
        &crate::store::query::ladder(&store.conn, &f)?,
        &crate::store::query::boundary_profile(&store.conn, &f)?,
        crate::report::Format::Table,
    );
    crate::cli::print(&text)
}
