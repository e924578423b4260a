//! The Tools screen (tool usage with a fuzzy find; Enter: why is it
//! visible?) and the Tool screen it opens (definition and visibility
//! audit, scrolled).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::decisions;
use crate::store::browse::{Drill, ToolCount};
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::Cursor;
use crate::tui::state::{App, Screen, ToolState};
use crate::tui::worker::{Request, Slot, ToolRow};

/// The count columns `h`/`l` move over, after the tool's own (0).
const COUNTS: [ToolCount; 3] = [ToolCount::Visible, ToolCount::Selected, ToolCount::Refused];

pub(super) fn ensure(app: &mut App) {
    if app.tools.data.wants() {
        app.tools.data.begin();
        app.request(Slot::Tools, Request::Tools(app.filter.clone()));
    }
}

pub(super) fn take(app: &mut App, t: Vec<ToolRow>) {
    app.tools.data.set(t);
    super::table::apply(app, super::table::Table::Tools, super::table::Op::Refresh);
    find(app);
}

/// Matches the typed find against the tools' names, families and
/// catalogues, best first.
pub(super) fn find(app: &mut App) {
    let Some(data) = &app.tools.data.value else {
        return;
    };
    let pattern = app.tools.find.trim();
    if pattern.is_empty() {
        app.tools.matches = None;
    } else {
        let matcher = SkimMatcherV2::default().smart_case();
        let mut scored: Vec<(i64, usize)> = data
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let u = &t.usage;
                [&u.name, &u.family, &u.catalogue]
                    .iter()
                    .filter_map(|s| matcher.fuzzy_match(s, pattern))
                    .max()
                    .map(|s| (s, i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        app.tools.matches = Some(scored.into_iter().map(|(_, i)| i).collect());
    }
    app.tools.cursor = Cursor::default();
}

/// Esc with a find in force clears it.
pub(super) fn back(app: &mut App) -> bool {
    if app.tools.matches.is_none() {
        return false;
    }
    app.tools.find.clear();
    find(app);
    true
}

pub(super) fn act(app: &mut App, action: Action) {
    let h = app.height(layout::List::Tools);
    let len = app.tools.len();
    if let Some(d) = action.delta(h) {
        app.tools.cursor.move_by(d, len, h);
    } else if action == Action::Left {
        app.tools.col = app.tools.col.saturating_sub(1);
    } else if action == Action::Right {
        app.tools.col = (app.tools.col + 1).min(COUNTS.len());
    } else if action == Action::Enter && app.tools.col > 0 {
        let rows = app.tool_rows();
        if let (Some(&i), Some(data)) = (rows.get(app.tools.cursor.sel), &app.tools.data.value) {
            let u = &data[i].usage;
            let which = COUNTS[app.tools.col - 1];
            let count = match which {
                ToolCount::Visible => u.visible,
                ToolCount::Selected => u.selected,
                ToolCount::Refused => u.refused,
            };
            let title = match which {
                ToolCount::Visible => format!("decision{{s}} {} was visible to", u.name),
                ToolCount::Selected => format!("decision{{s}} that selected {}", u.name),
                ToolCount::Refused => format!("refused call{{s}} of {}", u.name),
            };
            let set = Drill::Tool {
                catalogue: u.catalogue.clone(),
                name: u.name.clone(),
                count: which,
            };
            decisions::open(app, set, Some(count), title);
        }
    } else if action == Action::Find {
        app.tools.typing = true;
    } else if action == Action::Diff {
        let rows = app.tool_rows();
        if let (Some(&i), Some(data)) = (rows.get(app.tools.cursor.sel), &app.tools.data.value) {
            let u = &data[i].usage;
            let (catalogue, name) = (u.catalogue.clone(), u.name.clone());
            super::compare::open_tool_diff(app, catalogue, name);
        }
    } else if action == Action::Enter {
        let rows = app.tool_rows();
        if let (Some(&i), Some(data)) = (rows.get(app.tools.cursor.sel), &app.tools.data.value) {
            let u = &data[i].usage;
            app.tool = ToolState {
                catalogue: u.catalogue.clone(),
                name: u.name.clone(),
                ..Default::default()
            };
            app.go(Screen::Tool);
        }
    }
}

pub(super) fn ensure_tool(app: &mut App) {
    let (catalogue, name) = (app.tool.catalogue.clone(), app.tool.name.clone());
    if app.tool.def.wants() {
        app.tool.def.begin();
        app.request(
            Slot::ToolDef,
            Request::ToolDef {
                catalogue: catalogue.clone(),
                name: name.clone(),
            },
        );
    }
    if app.tool.audit.wants() {
        app.tool.audit.begin();
        app.request(
            Slot::ToolAudit,
            Request::ToolAudit {
                filter: app.filter.clone(),
                catalogue,
                name,
            },
        );
    }
}

pub(super) fn act_tool(app: &mut App, action: Action) {
    let page = app.height(layout::List::Detail) as u16;
    let rules = app
        .tool
        .audit
        .value
        .as_ref()
        .map(|a| a.rules.len())
        .unwrap_or(0);
    if action == Action::Enter {
        let Some(a) = &app.tool.audit.value else {
            return;
        };
        if let Some(rc) = a.rules.get(app.tool.view.at(app.tool.rule)) {
            let title = format!(
                "decision{{s}} where {} was {} by the {} rule",
                app.tool.name,
                if rc.visible { "visible" } else { "hidden" },
                rc.rule
            );
            let set = Drill::Rule {
                catalogue: app.tool.catalogue.clone(),
                name: app.tool.name.clone(),
                visible: rc.visible,
                rule: rc.rule.clone(),
                decisions: Some(rc.decisions),
            };
            let count = rc.decisions;
            decisions::open(app, set, Some(count), title);
        }
        return;
    }
    let s = &mut app.tool.scroll;
    match action {
        Action::Down if rules > 0 => app.tool.rule = (app.tool.rule + 1).min(rules - 1),
        Action::Up if rules > 0 => app.tool.rule = app.tool.rule.saturating_sub(1),
        Action::ScrollDown => *s = s.saturating_add(1),
        Action::ScrollUp => *s = s.saturating_sub(1),
        Action::Down => *s = s.saturating_add(1),
        Action::Up => *s = s.saturating_sub(1),
        Action::PageDown => *s = s.saturating_add(page),
        Action::PageUp => *s = s.saturating_sub(page),
        Action::MoveBy(n) => *s = s.saturating_add_signed(n as i16),
        Action::Top => *s = 0,
        // The tool shown, against the nearest other version (a find's
        // Enter lands here, so `d` works here as on the list).
        Action::Diff => {
            let (catalogue, name) = (app.tool.catalogue.clone(), app.tool.name.clone());
            super::compare::open_tool_diff(app, catalogue, name);
        }
        _ => {}
    }
}
