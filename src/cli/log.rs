//! The log file: with `--log FILE` (or `RUNG_LOG=FILE`) rung appends what it
//! did, as `tracing` events, to that file and never to the screen; without
//! either nothing is logged. `--log-level` (or `RUNG_LOG_LEVEL`) takes an
//! `EnvFilter` directive: `debug`, `rung=trace`, `info,rung::cli=debug`.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use tracing_subscriber::EnvFilter;

use crate::error::{Error, Result};
use crate::text::escape_multiline;

/// The level when none is given: commands, imports and panics.
pub const DEFAULT_LEVEL: &str = "info";

/// Starts logging to `path`, if given; also logs panics on any thread.
pub fn init(path: Option<&Path>, level: Option<&str>) -> Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    let level = level.unwrap_or(DEFAULT_LEVEL);
    let filter = EnvFilter::try_new(level).map_err(|e| {
        Error::usage(format!(
            "--log-level {level:?} is not a log filter ({e}); e.g. info, debug, rung=trace"
        ))
    })?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::usage(format!("cannot open the log file {}: {e}", path.display())))?;
    tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| Error::usage(format!("cannot start the log: {e}")))?;
    log_panics();
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        args = %escape_multiline(&format!("{:?}", std::env::args_os().skip(1).collect::<Vec<_>>())),
        "rung started"
    );
    Ok(())
}

/// A panic anywhere (a worker thread's too) goes to the log, then to the
/// hook that was there before (which prints it, as without a log).
fn log_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current();
        tracing::error!(
            thread = thread.name().unwrap_or("unnamed"),
            backtrace = %std::backtrace::Backtrace::force_capture(),
            "panic: {}",
            escape_multiline(&info.to_string())
        );
        previous(info);
    }));
}

/// Milliseconds since `start`, for the events' `elapsed_ms`.
pub fn elapsed_ms(start: Instant) -> u64 {
    start.elapsed().as_millis().try_into().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A log writer into memory.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_panic_is_logged_with_its_thread_and_message_escaped() {
        let buf = Buffer::default();
        let w = buf.clone();
        log_panics();
        // A named thread, as the TUI's worker is, with the log as its
        // dispatcher (the global one is the binary's to set).
        let caught = std::thread::Builder::new()
            .name("worker".into())
            .spawn(move || {
                let subscriber = tracing_subscriber::fmt()
                    .with_writer(move || w.clone())
                    .with_ansi(false)
                    .finish();
                tracing::subscriber::with_default(subscriber, || {
                    std::panic::catch_unwind(|| panic!("boom \u{1b}[2J")).is_err()
                })
            })
            .unwrap()
            .join()
            .unwrap();
        // Back to the default hook for the other tests.
        let _ = std::panic::take_hook();
        assert!(caught);
        let log = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(log.contains("ERROR"), "{log}");
        assert!(log.contains("panic: panicked at src/cli/log.rs:"), "{log}");
        assert!(log.contains("boom \\x1b[2J"), "{log}");
        assert!(log.contains("thread=\"worker\""), "{log}");
        assert!(!log.contains('\u{1b}'), "{log}");
    }
}
