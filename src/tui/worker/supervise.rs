//! A panic while answering a request becomes an error answer that the
//! screen shows, instead of a worker thread that dies and leaves "loading…"
//! on screen for good. The panic hook keeps quiet about these panics: the
//! hook `ratatui::init` installs would restore the terminal under the
//! running TUI, and the default one would print over it.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// This thread is inside `catch`.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where the last caught panic happened (`file:line`).
    static PANICKED_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs (once) a panic hook that records where a panic inside `catch`
/// happened and hands every other panic to the hook installed before it.
/// Install it after `ratatui::init`, so that a panic elsewhere still
/// restores the terminal.
pub fn install_hook() {
    HOOK.call_once(|| {
        let before = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                PANICKED_AT.with(|p| *p.borrow_mut() = at);
            } else {
                before(info);
            }
        }));
    });
}

/// Runs `f`; a panic becomes its message and place.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    CATCHING.with(|c| c.set(true));
    // The worker's state is its read-only connection; a statement a panic
    // interrupts is finalized as it unwinds, so the connection stays usable.
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(false));
    result.map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        match PANICKED_AT.with(|p| p.borrow_mut().take()) {
            Some(at) => format!("internal error: {what} (at {at}; please report it)"),
            None => format!("internal error: {what} (please report it)"),
        }
    })
}
