//! Styles. With `NO_COLOR` set, no colour is used: selection and emphasis
//! stay visible through reverse video and bold.

use ratatui::style::{Color, Modifier, Style};

use crate::model::Rung;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn header(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn key(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn good(&self) -> Style {
        self.fg(Color::Green)
    }

    pub fn bad(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn warn(&self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn bar(&self) -> Style {
        self.fg(Color::Blue)
    }

    /// The count `Enter` drills into, within a selected row.
    pub fn focus(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// Text a search matched.
    pub fn matched(&self) -> Style {
        self.fg(Color::Magenta)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    pub fn focus_border(&self) -> Style {
        self.fg(Color::Cyan)
    }

    pub fn tab(&self, active: bool) -> Style {
        if active {
            self.fg(Color::Cyan)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            Style::new()
        }
    }

    /// The colour of a rung: routing failures red, boundary failures
    /// yellow, execution magenta, progress blue, passed green.
    pub fn rung(&self, rung: Rung) -> Style {
        let c = match rung {
            Rung::Coverage | Rung::Exposure | Rung::Discovery | Rung::Selection => Color::Red,
            Rung::Representation
            | Rung::Schema
            | Rung::Semantics
            | Rung::Authorization
            | Rung::Precondition
            | Rung::Unclassified => Color::Yellow,
            Rung::Execution => Color::Magenta,
            Rung::Progress => Color::Blue,
            Rung::Passed => Color::Green,
            Rung::Unlabelled => Color::Gray,
        };
        self.fg(c)
    }

    /// The colour of a stage named like its rung (a refusal's stage); a
    /// name no rung has is grey.
    pub fn rung_named(&self, name: &str) -> Style {
        match Rung::parse(name) {
            Some(r) => self.rung(r),
            None => self.fg(Color::Gray),
        }
    }
}
