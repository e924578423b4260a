//! The mouse: a click or the wheel becomes the actions the keys send. The
//! views record, as they draw, what each area of the frame does when
//! clicked ([`Hits`]); a click looks its place up in the last frame's, so
//! there is no second layout to keep in step with the drawing.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::action::Action;
use super::state::App;

/// Rows the wheel scrolls a notch.
pub const WHEEL: isize = 3;

/// What the last frame's areas do when clicked: the actions a click sends,
/// the latest recorded (drawn on top) first.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Hits {
    areas: Vec<(Rect, Vec<Action>)>,
    /// Panes the wheel scrolls after these actions (the one that focuses
    /// the pane); elsewhere it scrolls what has the focus.
    wheel: Vec<(Rect, Vec<Action>)>,
}

impl Hits {
    pub fn clear(&mut self) {
        self.areas.clear();
        self.wheel.clear();
    }

    /// The wheel over `area` sends `pre`, then scrolls.
    pub fn add_wheel(&mut self, area: Rect, pre: Vec<Action>) {
        self.wheel.push((area, pre));
    }

    fn wheel_at(&self, x: u16, y: u16) -> Vec<Action> {
        self.wheel
            .iter()
            .rev()
            .find(|(r, _)| r.contains(Position::new(x, y)))
            .map(|(_, a)| a.clone())
            .unwrap_or_default()
    }

    /// A click in `area` sends `actions`.
    pub fn add(&mut self, area: Rect, actions: Vec<Action>) {
        if area.width > 0 && area.height > 0 {
            self.areas.push((area, actions));
        }
    }

    /// The actions of a click at (`x`, `y`), if anything is there.
    pub fn at(&self, x: u16, y: u16) -> Option<&[Action]> {
        self.areas
            .iter()
            .rev()
            .find(|(r, _)| r.contains(Position::new(x, y)))
            .map(|(_, a)| a.as_slice())
    }
}

/// The actions a mouse event sends now.
pub fn actions(app: &App, ev: MouseEvent) -> Vec<Action> {
    match ev.kind {
        MouseEventKind::Down(MouseButton::Left) => {
            // As a key: a click closes the help and does nothing else.
            if app.help && !app.editing_filter {
                return vec![Action::Help];
            }
            if app.editing_filter {
                return Vec::new();
            }
            app.hits
                .borrow()
                .at(ev.column, ev.row)
                .map(<[Action]>::to_vec)
                .unwrap_or_default()
        }
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp
            if app.help && !app.editing_filter =>
        {
            // The wheel scrolls the help.
            vec![Action::MoveBy(if ev.kind == MouseEventKind::ScrollDown {
                WHEEL
            } else {
                -WHEEL
            })]
        }
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp if !app.editing_filter => {
            let mut acts = app.hits.borrow().wheel_at(ev.column, ev.row);
            let d = if ev.kind == MouseEventKind::ScrollDown {
                WHEEL
            } else {
                -WHEEL
            };
            acts.push(Action::MoveBy(d));
            acts
        }
        _ => Vec::new(),
    }
}

/// The Down or Up presses that move a rule cursor from `from` to `to`.
pub fn to_rule(from: usize, to: usize) -> Vec<Action> {
    if to >= from {
        vec![Action::Down; to - from]
    } else {
        vec![Action::Up; from - to]
    }
}

/// The Left or Right presses that move a column cursor from `from` to `to`.
pub fn to_column(from: usize, to: usize) -> Vec<Action> {
    if to >= from {
        vec![Action::Right; to - from]
    } else {
        vec![Action::Left; from - to]
    }
}
