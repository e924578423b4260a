//! Keys as data: the name of every action a `[keys]` table can rebind,
//! how keys are written there and shown in the help, and the [`Keymap`]
//! that lays a table over the keymap's default bindings (checked at start:
//! an unknown action, a key that does not parse, two actions on one key).

use ratatui::crossterm::event::KeyCode;

use super::action::Action;
use super::keymap::{Binding, K, contexts};
use super::state::Screen;

/// A binding as it is in force: the table's row with the keys the
/// configuration gave its action.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// How the help spells the keys (empty: a twin of the one before).
    pub label: String,
    pub what: &'static str,
    pub keys: Vec<K>,
    pub action: Action,
}

/// The name a `[keys]` table calls each action by.
pub const ACTIONS: &[(&str, Action)] = &[
    ("quit", Action::Quit),
    ("help", Action::Help),
    ("back", Action::Back),
    ("go_ladder", Action::Go(Screen::Ladder)),
    ("go_runs", Action::Go(Screen::Runs)),
    ("go_run", Action::Go(Screen::Run)),
    ("go_refusals", Action::Go(Screen::Refusals)),
    ("go_confusions", Action::Go(Screen::Confusions)),
    ("go_tools", Action::Go(Screen::Tools)),
    ("go_findings", Action::Go(Screen::Findings)),
    ("go_compare", Action::Go(Screen::Compare)),
    ("next_tab", Action::NextTab),
    ("prev_tab", Action::PrevTab),
    ("up", Action::Up),
    ("down", Action::Down),
    ("left", Action::Left),
    ("right", Action::Right),
    ("page_up", Action::PageUp),
    ("page_down", Action::PageDown),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("enter", Action::Enter),
    ("search", Action::Find),
    ("sort", Action::Sort),
    ("reverse", Action::Reverse),
    ("next_failing", Action::NextFailing),
    ("prev_failing", Action::PrevFailing),
    ("hidden_tools", Action::ToggleHidden),
    ("arguments", Action::ShowArguments),
    ("result", Action::ShowResult),
    ("raw", Action::ShowRaw),
    ("matrix", Action::ToggleMatrix),
    ("scroll_down", Action::ScrollDown),
    ("scroll_up", Action::ScrollUp),
    ("next_day", Action::NextDay),
    ("prev_day", Action::PrevDay),
    ("week_back", Action::WeekBack),
    ("week_forward", Action::WeekForward),
    ("this_week", Action::ThisWeek),
    ("latest_week", Action::LatestWeek),
    ("filter", Action::EditFilter),
    ("clear_filter", Action::ClearFilter),
    ("set_base", Action::SetBase),
    ("candidate", Action::ToggleCandidate),
    ("diff", Action::Diff),
    ("copy", Action::Copy),
    ("copy_record", Action::CopyRecord),
    ("export", Action::Export),
    ("export_markdown", Action::ExportMarkdown),
    ("next_match", Action::NextMatch),
    ("prev_match", Action::PrevMatch),
    ("submit", Action::Submit),
    ("cancel", Action::Cancel),
    ("clear_input", Action::ClearInput),
    ("backspace", Action::Backspace),
    ("next_field", Action::NextField),
    ("prev_field", Action::PrevField),
    ("pick", Action::Pick),
];

/// Actions of the typing contexts (a find, the filter editor): only these
/// are rebound there, so that rebinding `down` to a letter never takes
/// that letter from what is typed.
const TYPING_ACTIONS: &[&str] = &[
    "submit",
    "cancel",
    "clear_input",
    "backspace",
    "next_field",
    "prev_field",
    "pick",
];

/// The `[keys]` name of an action (`None`: not bindable).
pub fn action_name(a: &Action) -> Option<&'static str> {
    ACTIONS.iter().find(|(_, x)| x == a).map(|(n, _)| *n)
}

/// Keys rebound by the configuration's `[keys]` table: action name → keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Keymap {
    over: Vec<(&'static str, Vec<K>)>,
}

/// How a key is written in a `[keys]` table and shown in the help.
pub fn spell(k: K) -> String {
    match k {
        K::C(' ') => "Space".into(),
        K::C(c) => c.to_string(),
        K::Ctrl(c) => format!("C-{c}"),
        K::Code(code) => match code {
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Backspace => "Bksp".into(),
            KeyCode::Delete => "Del".into(),
            KeyCode::Insert => "Ins".into(),
            KeyCode::F(n) => format!("F{n}"),
            KeyCode::Char(c) => c.to_string(),
            other => format!("{other:?}"),
        },
    }
}

/// A key as a `[keys]` table writes it: one character (`Q`, `/`), `ctrl-`
/// and a character (`ctrl-f`), or a name (`enter`, `esc`, `tab`,
/// `shift-tab`, `up`, `down`, `left`, `right`, `pageup`, `pagedown`,
/// `home`, `end`, `backspace`, `delete`, `insert`, `space`, `f1`..`f12`),
/// names in any case.
pub fn parse_key(s: &str) -> Option<K> {
    let mut chars = s.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return (!c.is_control()).then_some(K::C(c));
    }
    let lower = s.to_ascii_lowercase();
    if let Some(rest) = lower
        .strip_prefix("ctrl-")
        .or_else(|| lower.strip_prefix("c-"))
    {
        let mut r = rest.chars();
        return match (r.next(), r.next()) {
            (Some(c), None) if c.is_ascii_graphic() => Some(K::Ctrl(c)),
            _ => None,
        };
    }
    let code = match lower.as_str() {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "shift-tab" | "backtab" => KeyCode::BackTab,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "backspace" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "space" => return Some(K::C(' ')),
        f if f.len() >= 2 && f.starts_with('f') => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return None,
        },
        _ => return None,
    };
    Some(K::Code(code))
}

impl Keymap {
    /// The keymap of a `[keys]` table (`action = "key"` or `action =
    /// ["key", ...]`), or what is wrong with it, naming the table and the
    /// entry: an unknown action, a key that does not parse, a printable key
    /// for an action used while typing, or a key that two actions would
    /// share in one context.
    pub fn from_table(table: &crate::config::OrderedTable) -> Result<Keymap, String> {
        let mut over = Vec::new();
        for (name, value) in &table.0 {
            let entry = || format!("[keys] {name} = {value}");
            let Some(&(known, _)) = ACTIONS.iter().find(|(n, _)| *n == name.as_str()) else {
                let names: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "{}: no action is called {name:?}; the actions are {}",
                    entry(),
                    names.join(", ")
                ));
            };
            let words: Vec<&str> = match value {
                serde_json::Value::String(s) => vec![s.as_str()],
                serde_json::Value::Array(a) if !a.is_empty() => {
                    let mut v = Vec::new();
                    for w in a {
                        match w.as_str() {
                            Some(s) => v.push(s),
                            None => return Err(format!("{}: a key is a string", entry())),
                        }
                    }
                    v
                }
                _ => {
                    return Err(format!(
                        "{}: give a key as a string, or several as an array of strings",
                        entry()
                    ));
                }
            };
            let mut keys = Vec::new();
            for w in words {
                let k = parse_key(w).ok_or_else(|| {
                    format!(
                        "{}: {w:?} is not a key (write one character, ctrl-x, or a name: \
                         enter, esc, tab, shift-tab, up, down, left, right, pageup, pagedown, \
                         home, end, backspace, delete, insert, space, f1..f12)",
                        entry()
                    )
                })?;
                if TYPING_ACTIONS.contains(&known) && matches!(k, K::C(_)) {
                    return Err(format!(
                        "{}: {w:?} would be typed as text; {known} needs a named or ctrl- key",
                        entry()
                    ));
                }
                keys.push(k);
            }
            over.retain(|(n, _)| *n != known);
            over.push((known, keys));
        }
        let map = Keymap { over };
        map.check()?;
        Ok(map)
    }

    /// Two actions on one key in one context: an error naming the rebound
    /// entry.
    fn check(&self) -> Result<(), String> {
        for (ctx, rows) in contexts() {
            let typing = ctx.starts_with("a find") || ctx.starts_with("the filter editor");
            let bound = self.resolve(&rows, typing);
            for (i, a) in bound.iter().enumerate() {
                for b in &bound[..i] {
                    if a.action == b.action {
                        continue;
                    }
                    let Some(k) = a.keys.iter().find(|k| b.keys.contains(k)) else {
                        continue;
                    };
                    // Name the entry that made the clash (a default row
                    // against a rebound one, or two rebound ones).
                    let name = |x: &Bound| action_name(&x.action).filter(|n| self.rebinds(n));
                    let (this, other) = match (name(a), name(b)) {
                        (Some(n), _) => (n, b),
                        (None, Some(n)) => (n, a),
                        (None, None) => continue,
                    };
                    let other_name = action_name(&other.action).unwrap_or(other.what);
                    return Err(format!(
                        "[keys] {this}: the key {} is also {other_name}'s on {ctx}; \
                         rebind {other_name} too, or choose another key",
                        spell(*k)
                    ));
                }
            }
        }
        Ok(())
    }

    fn rebinds(&self, name: &str) -> bool {
        self.over.iter().any(|(n, _)| *n == name)
    }

    /// The keys `b` has in force (`None`: its table's own).
    fn keys_of(&self, b: &Binding, typing: bool) -> Option<&[K]> {
        let name = action_name(&b.action)?;
        if typing && !TYPING_ACTIONS.contains(&name) {
            return None;
        }
        self.over
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k.as_slice())
    }

    /// Rows of a table as they are in force. A label stays as written
    /// unless a key of its group (the row and its twins) was rebound; then
    /// it is spelt from the first key of each row the label named (`j/k`:
    /// down and up; `C-u`: clear, not its twin Backspace) and of each
    /// rebound row (all rows when the label names none of them: `1-8`).
    pub fn resolve(&self, rows: &[&'static Binding], typing: bool) -> Vec<Bound> {
        let mut out: Vec<Bound> = Vec::with_capacity(rows.len());
        // Per row of `out`: its table row, and whether it was rebound.
        let mut how: Vec<(&'static Binding, bool)> = Vec::with_capacity(rows.len());
        let relabel = |out: &mut [Bound], how: &[(&'static Binding, bool)]| {
            let Some((head, _)) = how.first() else {
                return;
            };
            if !how.iter().any(|(_, r)| *r) {
                return;
            }
            let parts: Vec<&str> = head.label.split('/').collect();
            let named = |b: &Binding| {
                b.keys
                    .first()
                    .is_some_and(|k| parts.contains(&spell(*k).as_str()))
            };
            let any_named = how.iter().any(|(b, _)| named(b));
            out[0].label = out
                .iter()
                .zip(how)
                .filter(|(_, (b, rebound))| *rebound || !any_named || named(b))
                .filter_map(|(x, _)| x.keys.first().map(|k| spell(*k)))
                .collect::<Vec<_>>()
                .join("/");
        };
        let mut start = 0;
        for b in rows {
            if !b.label.is_empty() {
                relabel(&mut out[start..], &how[start..]);
                start = out.len();
            }
            let (keys, rebound) = match self.keys_of(b, typing) {
                Some(k) => (k.to_vec(), true),
                None => (b.keys.to_vec(), false),
            };
            out.push(Bound {
                label: b.label.to_string(),
                what: b.what,
                keys,
                action: b.action.clone(),
            });
            how.push((b, rebound));
        }
        relabel(&mut out[start..], &how[start..]);
        out
    }

    /// The keys of `action` as the help spells them, first binding found in
    /// `rows` (the bars of the filter use it).
    pub fn label_of(&self, rows: &[&'static Binding], typing: bool, action: &Action) -> String {
        self.resolve(rows, typing)
            .into_iter()
            .find(|b| &b.action == action)
            .and_then(|b| b.keys.first().map(|k| spell(*k)))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OrderedTable;

    fn table(entries: &[(&str, serde_json::Value)]) -> OrderedTable {
        OrderedTable(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn every_bound_action_has_a_name_and_no_default_key_sends_two() {
        for (ctx, rows) in contexts() {
            let mut seen: Vec<(K, &Action)> = Vec::new();
            for b in &rows {
                assert!(
                    action_name(&b.action).is_some(),
                    "{:?} on {ctx} has no [keys] name",
                    b.action
                );
                for k in b.keys {
                    if let Some((_, other)) = seen.iter().find(|(x, _)| x == k) {
                        // The first binding wins: a later one on the same
                        // key would be dead, and the help would lie.
                        assert_eq!(*other, &b.action, "{} on {ctx}", spell(*k));
                    }
                    seen.push((*k, &b.action));
                }
            }
        }
    }

    #[test]
    fn keys_are_written_as_characters_ctrl_or_names() {
        assert_eq!(parse_key("Q"), Some(K::C('Q')));
        assert_eq!(parse_key("/"), Some(K::C('/')));
        assert_eq!(parse_key("ctrl-f"), Some(K::Ctrl('f')));
        assert_eq!(parse_key("Ctrl-F"), Some(K::Ctrl('f')));
        assert_eq!(parse_key("enter"), Some(K::Code(KeyCode::Enter)));
        assert_eq!(parse_key("Shift-Tab"), Some(K::Code(KeyCode::BackTab)));
        assert_eq!(parse_key("space"), Some(K::C(' ')));
        assert_eq!(parse_key("f5"), Some(K::Code(KeyCode::F(5))));
        for bad in ["", "ctrl-", "ctrl-ab", "f13", "hyper-x", "\u{1b}"] {
            assert_eq!(parse_key(bad), None, "{bad:?}");
        }
        assert_eq!(spell(K::Ctrl('f')), "C-f");
        assert_eq!(spell(K::Code(KeyCode::PageDown)), "PgDn");
    }

    #[test]
    fn a_rebound_action_answers_to_its_new_key_and_is_spelt_so() {
        let map = Keymap::from_table(&table(&[
            ("quit", "Q".into()),
            ("search", "ctrl-f".into()),
            ("down", serde_json::json!(["z", "down"])),
        ]))
        .unwrap();
        let global: Vec<&'static Binding> = contexts()
            .into_iter()
            .find(|(c, _)| c == "the Runs screen")
            .unwrap()
            .1;
        let bound = map.resolve(&global, false);
        let of = |a: Action| bound.iter().find(|b| b.action == a).unwrap().clone();
        assert_eq!(of(Action::Quit).keys, vec![K::C('Q')]);
        assert_eq!(of(Action::Quit).label, "Q");
        assert_eq!(of(Action::Find).keys, vec![K::Ctrl('f')]);
        assert_eq!(of(Action::Find).label, "C-f");
        // A group is spelt from its first keys: down (z) and its twin up (k).
        assert_eq!(of(Action::Down).label, "z/k");
        assert_eq!(of(Action::Up).label, "");
        // Untouched groups keep their written labels.
        assert_eq!(of(Action::Top).label, "g/G");
    }

    #[test]
    fn a_bad_keys_table_names_the_entry() {
        let err = |entries: &[(&str, serde_json::Value)]| {
            Keymap::from_table(&table(entries)).unwrap_err()
        };
        assert!(err(&[("quitt", "Q".into())]).starts_with(
            "[keys] quitt = \"Q\": no action is called \"quitt\"; the actions are quit, help, back,"
        ));
        assert_eq!(
            err(&[("quit", "ctrl-".into())]),
            "[keys] quit = \"ctrl-\": \"ctrl-\" is not a key (write one character, ctrl-x, or a name: enter, esc, tab, shift-tab, up, down, left, right, pageup, pagedown, home, end, backspace, delete, insert, space, f1..f12)"
        );
        assert_eq!(
            err(&[("quit", 3.into())]),
            "[keys] quit = 3: give a key as a string, or several as an array of strings"
        );
        assert_eq!(
            err(&[("sort", "/".into())]),
            "[keys] sort: the key / is also search's on the Ladder screen; rebind search too, or choose another key"
        );
        assert_eq!(
            err(&[("quit", "f".into())]),
            "[keys] quit: the key f is also filter's on the Ladder screen; rebind filter too, or choose another key"
        );
        assert_eq!(
            err(&[("submit", "x".into())]),
            "[keys] submit = \"x\": \"x\" would be typed as text; submit needs a named or ctrl- key"
        );
        // Moving the other action away too is fine.
        assert!(
            Keymap::from_table(&table(&[("quit", "f".into()), ("filter", "ctrl-f".into())]))
                .is_ok()
        );
    }
}
