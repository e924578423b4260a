//! The statements an import runs for every decision, prepared once and
//! kept for the batch: the connection's statement cache would look each one
//! up by its text (hashing it) and put it back on every use.

use rusqlite::{Connection, Statement};

use crate::error::Result;

/// Which kept statement (an index into [`Held`]): the insert of a row of
/// this table.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Hot {
    DecisionRow,
    Payload,
    LadderRow,
}

const HOT: usize = 3;

/// Statements kept for one batch (or classification pass) on `conn`.
pub(crate) struct Held<'c> {
    conn: &'c Connection,
    stmts: [Option<Statement<'c>>; HOT],
}

impl<'c> Held<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Held<'c> {
        Held {
            conn,
            stmts: [None, None, None],
        }
    }

    /// The statement `which`, prepared from `sql` on first use (`sql` is
    /// the same text every time for the same `which`).
    pub(crate) fn get(&mut self, which: Hot, sql: &str) -> Result<&mut Statement<'c>> {
        let slot = &mut self.stmts[which as usize];
        match slot {
            Some(stmt) => Ok(stmt),
            None => Ok(slot.insert(self.conn.prepare(sql)?)),
        }
    }
}
