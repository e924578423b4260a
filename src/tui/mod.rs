//! The terminal UI: `rung [PATH...]` opens it on the database. One state
//! (`App`, in `state/`), one `Action` enum (`action`), one `update`
//! (`update/`, a module per screen); keys become actions through the
//! `keymap`; drawing (`views/`) is a pure function of the state; the
//! `worker`s own read-only SQLite connections and answer tagged requests.

pub mod action;
pub mod harness;
pub mod keymap;
pub mod keys;
pub mod layout;
pub mod mouse;
pub mod paged;
pub mod payload;
pub mod state;
pub mod theme;
pub mod update;
pub mod views;
pub mod worker;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

use ratatui::crossterm::event::{self, Event};

pub use action::Action;
pub use state::{App, Options, Screen};
pub use update::update;
use worker::{Done, Shared, Workers};

use crate::error::{Error, Result};
use crate::redact::Redactor;
use crate::store::Store;

/// What the event loop waits for: the terminal or a worker.
enum Msg {
    Term(Event),
    Done(Box<Done>),
    /// Another connection wrote to the database (`rung serve`).
    DbChanged,
}

/// How often the TUI asks whether the database changed.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Tells the event loop when another connection commits to the database:
/// one cheap `data_version` query a second on a connection of its own.
fn watch(db: &std::path::Path, tx: std::sync::mpsc::Sender<Msg>) -> Result<()> {
    let mut w = crate::store::ChangeWatch::open(db)?;
    std::thread::Builder::new()
        .name("rung-watch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(WATCH_EVERY);
                match w.changed() {
                    Ok(false) => {}
                    Ok(true) => {
                        if tx.send(Msg::DbChanged).is_err() {
                            break;
                        }
                    }
                    // The file went away or is unreadable: stop watching;
                    // the workers' own errors show on screen.
                    Err(_) => break,
                }
            }
        })?;
    Ok(())
}

fn wrap(d: Done) -> Msg {
    Msg::Done(Box::new(d))
}

/// What the TUI is opened on; the command line fills it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The database file.
    pub db: PathBuf,
    /// Show secrets in arguments and results instead of masking them.
    pub no_redact: bool,
    /// Leave the mouse to the terminal (`--no-mouse`): no capture.
    pub no_mouse: bool,
    /// The configuration file given on the command line (`--config`): its
    /// `[keys]` table wins over the one stored at import.
    pub config: Option<PathBuf>,
}

/// The options and worker setup for a database, read before the terminal
/// changes so that a bad database is reported as a plain error.
pub fn prepare(settings: &Settings) -> Result<(Shared, Options, keymap::Keymap)> {
    let store = Store::open_ro(&settings.db)?;
    let config = store.config()?;
    drop(store);
    // A bad `[keys]` table stops here, before the terminal changes, with
    // the file, the table and the entry named (exit 2).
    let keys = match &settings.config {
        Some(path) => keymap_of(&crate::config::Config::load(path)?, path)?,
        None => keymap::Keymap::from_table(&config.keys).map_err(|m| {
            Error::usage(format!(
                "the stored configuration: {m}; store a good one with `rung --config FILE reclassify`"
            ))
        })?,
    };
    let redactor = Redactor::new(&config.redact.patterns, settings.no_redact)?;
    let now = crate::window::now()?;
    Ok((
        Shared {
            db: settings.db.clone(),
            config: Arc::new(config),
            redactor: redactor.clone(),
            chains: Default::default(),
        },
        Options {
            now_us: now.timestamp_micros(),
            theme: theme::Theme::from_env(),
            no_redact: settings.no_redact,
            redactor: Arc::new(redactor),
        },
        keys,
    ))
}

/// The keys of a configuration file's `[keys]` table, or an error naming
/// the file, the table and the entry.
pub fn keymap_of(config: &crate::config::Config, path: &std::path::Path) -> Result<keymap::Keymap> {
    keymap::Keymap::from_table(&config.keys).map_err(|m| {
        Error::Input(crate::error::InputError::at(
            &path.display().to_string(),
            None,
            None,
            m,
        ))
    })
}

pub fn run(settings: &Settings) -> Result<()> {
    let (shared, opts, keys) = prepare(settings)?;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(Error::usage(
            "the TUI needs a terminal; for scripts use `rung report KIND` or `rung explain RUN`",
        ));
    }
    let (tx, rx) = channel::<Msg>();
    watch(&settings.db, tx.clone())?;
    // init installs a panic hook that restores the terminal first; the
    // workers' hook, installed after it, keeps the panics they catch from
    // reaching it.
    let mut terminal = ratatui::init();
    let mouse = !settings.no_mouse;
    if mouse {
        mouse_capture(true);
        // Runs before init's hook (which leaves raw mode and the alternate
        // screen): a panic gives the mouse back to the terminal too.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            mouse_capture(false);
            hook(info);
        }));
    }
    let result = Workers::start(shared, tx.clone(), wrap)
        .and_then(|workers| event_loop(&mut terminal, opts, keys, &workers, tx, rx));
    if mouse {
        mouse_capture(false);
    }
    ratatui::restore();
    result
}

/// Turns the terminal's mouse reporting on or off (a failure leaves the
/// mouse to the terminal, which is no worse than `--no-mouse`).
fn mouse_capture(on: bool) {
    use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
    use ratatui::crossterm::execute;
    let mut out = std::io::stdout();
    let _ = if on {
        execute!(out, EnableMouseCapture)
    } else {
        execute!(out, DisableMouseCapture)
    };
}

fn flush(app: &mut App, workers: &Workers) {
    for (slot, seq, request) in app.outbox.drain(..) {
        workers.send(slot, seq, request);
    }
    if let Some(text) = app.clip.take() {
        use std::io::Write;
        let mut out = std::io::stdout();
        // A failed write only loses the copy; the key bar already said
        // that OSC 52 may not reach a clipboard.
        let _ = out.write_all(osc52(&text).as_bytes());
        let _ = out.flush();
    }
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// Standard base64 with padding (RFC 4648).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    opts: Options,
    keys: keymap::Keymap,
    workers: &Workers,
    tx: std::sync::mpsc::Sender<Msg>,
    rx: Receiver<Msg>,
) -> Result<()> {
    let size = terminal.size()?;
    let mut app = App::new(opts, (size.width, size.height));
    app.keys = Arc::new(keys);
    // The first frame comes before the first query.
    terminal.draw(|f| views::draw(f, &app))?;
    app.start();
    flush(&mut app, workers);
    std::thread::Builder::new()
        .name("rung-input".into())
        .spawn(move || {
            while let Ok(ev) = event::read() {
                // The pointer moving (mouse capture reports every motion)
                // asks for nothing: no message, no frame.
                if let Event::Mouse(m) = &ev
                    && matches!(
                        m.kind,
                        event::MouseEventKind::Moved | event::MouseEventKind::Drag(_)
                    )
                {
                    continue;
                }
                if tx.send(Msg::Term(ev)).is_err() {
                    break;
                }
            }
        })?;
    while let Ok(first) = rx.recv() {
        let mut msg = Some(first);
        // Take everything already waiting before drawing again.
        while let Some(m) = msg {
            handle(&mut app, m);
            if app.quit {
                return Ok(());
            }
            msg = rx.try_recv().ok();
        }
        flush(&mut app, workers);
        terminal.draw(|f| views::draw(f, &app))?;
    }
    Ok(())
}

fn handle(app: &mut App, msg: Msg) {
    match msg {
        Msg::Done(d) => update(app, Action::Loaded(d)),
        Msg::Term(Event::Key(k)) => {
            if let Some(a) = keymap::action(app, k) {
                update(app, a);
            }
        }
        Msg::Term(Event::Mouse(m)) => {
            for a in mouse::actions(app, m) {
                update(app, a);
            }
        }
        Msg::Term(Event::Resize(w, h)) => update(app, Action::Resize(w, h)),
        Msg::DbChanged => app.data_changed(),
        Msg::Term(_) => {}
    }
}
