//! Drives the app headless over ratatui's `TestBackend`, with the real
//! workers: state tests, snapshot tests and the benchmark feed it keys and
//! read the buffer.

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::action::Action;
use super::state::{App, Options};
use super::theme::Theme;
use super::update::update;
use super::worker::{Answerer, Done, Shared, Workers, answer};
use super::{keymap, views};
use crate::error::Result;
use crate::redact::Redactor;
use crate::store::Store;

pub struct Harness {
    pub app: App,
    pub terminal: Terminal<TestBackend>,
    workers: Workers,
    rx: Receiver<Done>,
}

fn id(d: Done) -> Done {
    d
}

impl Harness {
    /// Opens `db` as `rung` would, with a fixed clock and no colour; the app
    /// is not started (call `start` after the first `draw`).
    pub fn open(db: &Path, now_us: i64, no_redact: bool, w: u16, h: u16) -> Result<Harness> {
        Harness::open_with(db, now_us, no_redact, w, h, Arc::new(answer))
    }

    /// `open` with workers that answer through `answerer` (to make one
    /// fail, block or panic).
    pub fn open_with(
        db: &Path,
        now_us: i64,
        no_redact: bool,
        w: u16,
        h: u16,
        answerer: Answerer,
    ) -> Result<Harness> {
        let store = Store::open_ro(db)?;
        let config = store.config()?;
        drop(store);
        let redactor = Redactor::new(&config.redact.patterns, no_redact)?;
        let (tx, rx) = channel();
        let shared = Shared {
            db: db.to_path_buf(),
            config: Arc::new(config),
            redactor: redactor.clone(),
            chains: Default::default(),
        };
        let workers = Workers::start_with(shared, tx, id, answerer)?;
        let opts = Options {
            now_us,
            theme: Theme { color: false },
            no_redact,
            redactor: Arc::new(redactor),
        };
        Ok(Harness {
            app: App::new(opts, (w, h)),
            terminal: Terminal::new(TestBackend::new(w, h)).expect("test backend"),
            workers,
            rx,
        })
    }

    fn flush(&mut self) {
        for (slot, seq, request) in self.app.outbox.drain(..) {
            self.workers.send(slot, seq, request);
        }
    }

    pub fn start(&mut self) {
        self.app.start();
        self.flush();
    }

    pub fn draw(&mut self) {
        let app = &self.app;
        self.terminal
            .draw(|f| views::draw(f, app))
            .expect("test backend draws");
    }

    /// Applies an action and sends what it asked for.
    pub fn act(&mut self, a: Action) {
        update(&mut self.app, a);
        self.flush();
    }

    pub fn press(&mut self, key: KeyEvent) {
        if let Some(a) = keymap::action(&self.app, key) {
            self.act(a);
        }
    }

    /// A mouse event as the terminal sends it, through the same path as
    /// `rung`'s event loop (the areas of the last `draw`).
    pub fn mouse(&mut self, kind: MouseEventKind, x: u16, y: u16) {
        let ev = MouseEvent {
            kind,
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        };
        for a in super::mouse::actions(&self.app, ev) {
            self.act(a);
        }
    }

    /// A left click at column `x`, row `y`.
    pub fn click(&mut self, x: u16, y: u16) {
        self.mouse(MouseEventKind::Down(MouseButton::Left), x, y);
    }

    /// A notch of the wheel at (`x`, `y`): down (towards the end) or up.
    pub fn wheel(&mut self, x: u16, y: u16, down: bool) {
        let kind = if down {
            MouseEventKind::ScrollDown
        } else {
            MouseEventKind::ScrollUp
        };
        self.mouse(kind, x, y);
    }

    /// Where `text` first shows on the screen (column, row).
    pub fn find(&self, text: &str) -> Option<(u16, u16)> {
        let buf = self.terminal.backend().buffer();
        for y in 0..buf.area.height {
            let mut line = String::new();
            let mut xs = Vec::new();
            for x in 0..buf.area.width {
                let sym = buf[(x, y)].symbol();
                for _ in sym.chars() {
                    xs.push(x);
                }
                line.push_str(sym);
            }
            if let Some(i) = line.find(text) {
                let ci = line[..i].chars().count();
                return Some((xs[ci], y));
            }
        }
        None
    }

    /// Presses keys given as words: `j`, `G`, `Enter`, `Esc`, `Tab`,
    /// `BackTab`, `Up`, `Down`, `Left`, `Right`, `PgDn`, `PgUp`,
    /// `Backspace`, `C-d` (control), separated by spaces.
    pub fn keys(&mut self, spec: &str) {
        for word in spec.split_whitespace() {
            self.press(key(word));
        }
    }

    /// Types text character by character.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.press(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    pub fn resize(&mut self, w: u16, h: u16) {
        self.terminal.backend_mut().resize(w, h);
        self.act(Action::Resize(w, h));
    }

    /// Takes the answers already in; returns how many.
    pub fn pump(&mut self) -> usize {
        let mut n = 0;
        while let Ok(d) = self.rx.try_recv() {
            self.act(Action::Loaded(Box::new(d)));
            n += 1;
        }
        n
    }

    /// Waits until every request has been answered (or `timeout`).
    pub fn settle(&mut self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        loop {
            self.pump();
            if self.app.pending() == 0 {
                return true;
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self.rx.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(d) => self.act(Action::Loaded(Box::new(d))),
                Err(_) => continue,
            }
        }
    }

    /// Settles (10 s at most) and draws.
    pub fn settle_draw(&mut self) {
        self.settle(Duration::from_secs(10));
        self.draw();
    }

    /// The screen as text, one line per row.
    pub fn text(&self) -> String {
        let buf = self.terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..buf.area.height {
            let mut line = String::new();
            for x in 0..buf.area.width {
                line.push_str(buf[(x, y)].symbol());
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// A key from its word (see [`Harness::keys`]). A word no key has fails
/// the test that wrote it.
#[allow(
    clippy::panic,
    reason = "test support: a misspelt key word must fail the test loudly"
)]
pub fn key(word: &str) -> KeyEvent {
    let mut chars = word.chars();
    let (one, two, three, four) = (chars.next(), chars.next(), chars.next(), chars.next());
    let code = match word {
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "BackTab" => KeyCode::BackTab,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PgDn" => KeyCode::PageDown,
        "PgUp" => KeyCode::PageUp,
        "Backspace" => KeyCode::Backspace,
        "Space" => KeyCode::Char(' '),
        _ => match (one, two, three, four) {
            (Some(c), None, _, _) => KeyCode::Char(c),
            (Some('C'), Some('-'), Some(c), None) if c.is_ascii() => {
                return KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
            }
            _ => panic!("unknown key word {word:?}"),
        },
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}
