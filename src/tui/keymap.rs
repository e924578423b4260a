//! Keys to actions. Each screen lists its bindings once, as (keys, what it
//! does, action); the keymap, the bottom bar and the `?` help all read those
//! lists, so the help can never disagree with the keys. A [`Keymap`] (the
//! configuration's `[keys]` table, checked at start) rebinds actions by
//! name; the lists are read through it, so the help shows the keys in force.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
pub use super::keys::{ACTIONS, Bound, Keymap, action_name, parse_key, spell};
use super::state::{App, Screen};

/// One key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    C(char),
    Code(KeyCode),
    Ctrl(char),
}

/// Keys, what they do, and the action they send.
#[derive(Debug, Clone)]
pub struct Binding {
    /// How the help spells the keys; empty: a twin of the binding before it,
    /// not listed on its own.
    pub label: &'static str,
    pub what: &'static str,
    pub keys: &'static [K],
    pub action: Action,
}

const fn b(label: &'static str, what: &'static str, keys: &'static [K], action: Action) -> Binding {
    Binding {
        label,
        what,
        keys,
        action,
    }
}

use K::{C, Code, Ctrl};

const MOVE: &[Binding] = &[
    b("j/k", "move", &[C('j'), Code(KeyCode::Down)], Action::Down),
    b("", "", &[C('k'), Code(KeyCode::Up)], Action::Up),
    b(
        "g/G",
        "top/bottom",
        &[C('g'), Code(KeyCode::Home)],
        Action::Top,
    ),
    b("", "", &[C('G'), Code(KeyCode::End)], Action::Bottom),
    b(
        "C-d/C-u",
        "page down/up",
        &[Ctrl('d'), Code(KeyCode::PageDown)],
        Action::PageDown,
    ),
    b("", "", &[Ctrl('u'), Code(KeyCode::PageUp)], Action::PageUp),
];

const GLOBAL: &[Binding] = &[
    b("1-8", "screens", &[C('1')], Action::Go(Screen::Ladder)),
    b("", "", &[C('2')], Action::Go(Screen::Runs)),
    b("", "", &[C('3')], Action::Go(Screen::Run)),
    b("", "", &[C('4')], Action::Go(Screen::Refusals)),
    b("", "", &[C('5')], Action::Go(Screen::Confusions)),
    b("", "", &[C('6')], Action::Go(Screen::Tools)),
    b("", "", &[C('7')], Action::Go(Screen::Findings)),
    b("", "", &[C('8')], Action::Go(Screen::Compare)),
    b("Tab", "next screen", &[Code(KeyCode::Tab)], Action::NextTab),
    b("", "", &[Code(KeyCode::BackTab)], Action::PrevTab),
    b("y/Y", "copy id/record", &[C('y')], Action::Copy),
    b("", "", &[C('Y')], Action::CopyRecord),
    b("e/E", "export CSV/markdown", &[C('e')], Action::Export),
    b("", "", &[C('E')], Action::ExportMarkdown),
    b("f", "filter", &[C('f')], Action::EditFilter),
    b("F", "clear filter", &[C('F')], Action::ClearFilter),
    b("Esc", "back", &[Code(KeyCode::Esc)], Action::Back),
    b("?", "help", &[C('?')], Action::Help),
    b("q", "quit", &[C('q'), Ctrl('c')], Action::Quit),
];

/// `s`/`S` on a table.
const SORT: Binding = b("s/S", "sort/reverse", &[C('s')], Action::Sort);
const REVERSE: Binding = b("", "", &[C('S')], Action::Reverse);

/// `n`/`N` after a search.
const NEXT_MATCH: Binding = b("n/N", "next/prev match", &[C('n')], Action::NextMatch);
const PREV_MATCH: Binding = b("", "", &[C('N')], Action::PrevMatch);

const LADDER: &[Binding] = &[
    b(
        "Enter",
        "decisions behind count",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b(
        "h/l",
        "rung/boundary count",
        &[C('h'), Code(KeyCode::Left)],
        Action::Left,
    ),
    b("", "", &[C('l'), Code(KeyCode::Right)], Action::Right),
    b("/", "search", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const RUNS: &[Binding] = &[
    b("Enter", "open run", &[Code(KeyCode::Enter)], Action::Enter),
    b("/", "fuzzy filter", &[C('/')], Action::Find),
    b("s", "sort column", &[C('s')], Action::Sort),
    b("S", "reverse sort", &[C('S')], Action::Reverse),
    NEXT_MATCH,
    PREV_MATCH,
];

const RUN: &[Binding] = &[
    b("n/N", "next failing/match", &[C('n')], Action::NextFailing),
    b("", "", &[C('N')], Action::PrevFailing),
    b(
        "Enter/l",
        "detail pane",
        &[Code(KeyCode::Enter), C('l'), Code(KeyCode::Right)],
        Action::Right,
    ),
    b(
        "h",
        "timeline",
        &[C('h'), Code(KeyCode::Left)],
        Action::Left,
    ),
    b("v", "hidden tools", &[C('v')], Action::ToggleHidden),
    b("a", "arguments", &[C('a')], Action::ShowArguments),
    b("r", "result", &[C('r')], Action::ShowResult),
    b("o", "raw output", &[C('o')], Action::ShowRaw),
    b("/", "search timeline/viewer", &[C('/')], Action::Find),
    SORT,
    REVERSE,
];

const REFUSALS: &[Binding] = &[
    b(
        "Enter",
        "decisions behind reason",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b(
        "[/]",
        "week back/forward",
        &[C('['), Code(KeyCode::Left), C('h')],
        Action::WeekBack,
    ),
    b(
        "",
        "",
        &[C(']'), Code(KeyCode::Right), C('l')],
        Action::WeekForward,
    ),
    b("t", "this week", &[C('t')], Action::ThisWeek),
    b("L", "latest refusals", &[C('L')], Action::LatestWeek),
    b(
        "d/D",
        "day (Enter: its refusals)",
        &[C('d')],
        Action::NextDay,
    ),
    b("", "", &[C('D')], Action::PrevDay),
    b("/", "search", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const CONFUSIONS: &[Binding] = &[
    b(
        "Enter",
        "decisions in cell",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b("m", "matrix/list", &[C('m')], Action::ToggleMatrix),
    b(
        "h/l",
        "matrix column",
        &[C('h'), Code(KeyCode::Left)],
        Action::Left,
    ),
    b("", "", &[C('l'), Code(KeyCode::Right)], Action::Right),
    b("/", "search", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const TOOLS: &[Binding] = &[
    b(
        "Enter",
        "why visible?",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b("/", "find", &[C('/')], Action::Find),
    b(
        "h/l",
        "tool/count column",
        &[C('h'), Code(KeyCode::Left)],
        Action::Left,
    ),
    b("", "", &[C('l'), Code(KeyCode::Right)], Action::Right),
    b("d", "diff versions", &[C('d')], Action::Diff),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const COMPARE: &[Binding] = &[
    b(
        "Enter",
        "attempts in cell",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b(
        "h/l",
        "menus/cells",
        &[C('h'), Code(KeyCode::Left)],
        Action::Left,
    ),
    b("", "", &[C('l'), Code(KeyCode::Right)], Action::Right),
    b("b", "base", &[C('b')], Action::SetBase),
    b("Space", "candidate", &[C(' ')], Action::ToggleCandidate),
    b("/", "find menu/search cells", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const TOOL_DIFF: &[Binding] = &[b(
    "j/k",
    "scroll",
    &[C('j'), Code(KeyCode::Down)],
    Action::Down,
)];

const TOOL: &[Binding] = &[
    b(
        "Enter",
        "decisions behind rule",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b("j/k", "rule", &[C('j'), Code(KeyCode::Down)], Action::Down),
    b("", "", &[C('k'), Code(KeyCode::Up)], Action::Up),
    b("J/K", "scroll", &[C('J')], Action::ScrollDown),
    b("", "", &[C('K')], Action::ScrollUp),
    b(
        "C-d/C-u",
        "page down/up",
        &[Ctrl('d'), Code(KeyCode::PageDown)],
        Action::PageDown,
    ),
    b("", "", &[Ctrl('u'), Code(KeyCode::PageUp)], Action::PageUp),
    b("g", "top", &[C('g'), Code(KeyCode::Home)], Action::Top),
    b("d", "diff versions", &[C('d')], Action::Diff),
    b("/", "search rules", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const DECISIONS: &[Binding] = &[
    b(
        "Enter",
        "open at decision",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b("/", "search", &[C('/')], Action::Find),
    b("s", "sort column", &[C('s')], Action::Sort),
    b("S", "reverse sort", &[C('S')], Action::Reverse),
    NEXT_MATCH,
    PREV_MATCH,
];

const FINDINGS: &[Binding] = &[
    b(
        "Enter",
        "findings of kind",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b(
        "[/]",
        "week back/forward",
        &[C('['), Code(KeyCode::Left), C('h')],
        Action::WeekBack,
    ),
    b(
        "",
        "",
        &[C(']'), Code(KeyCode::Right), C('l')],
        Action::WeekForward,
    ),
    b("t", "this week", &[C('t')], Action::ThisWeek),
    b("/", "search", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

const FINDING_LIST: &[Binding] = &[
    b(
        "Enter",
        "open at decision",
        &[Code(KeyCode::Enter)],
        Action::Enter,
    ),
    b("/", "search", &[C('/')], Action::Find),
    NEXT_MATCH,
    PREV_MATCH,
    SORT,
    REVERSE,
];

/// Keys while typing a fuzzy filter or a find.
pub const TYPING: &[Binding] = &[
    b(
        "Enter",
        "open the selected match",
        &[Code(KeyCode::Enter)],
        Action::Submit,
    ),
    b("Esc", "clear filter", &[Code(KeyCode::Esc)], Action::Cancel),
    b("↑/↓", "move", &[Code(KeyCode::Down)], Action::Down),
    b("", "", &[Code(KeyCode::Up)], Action::Up),
    b("C-u", "clear input", &[Ctrl('u')], Action::ClearInput),
    b("", "", &[Code(KeyCode::Backspace)], Action::Backspace),
    b("", "", &[Ctrl('c')], Action::Quit),
];

/// Keys in the filter editor.
pub const FORM: &[Binding] = &[
    b("Enter", "apply", &[Code(KeyCode::Enter)], Action::Submit),
    b("Esc", "cancel", &[Code(KeyCode::Esc)], Action::Cancel),
    b(
        "Tab/↓",
        "next field",
        &[Code(KeyCode::Tab), Code(KeyCode::Down)],
        Action::NextField,
    ),
    b(
        "",
        "",
        &[Code(KeyCode::BackTab), Code(KeyCode::Up)],
        Action::PrevField,
    ),
    b("C-u", "clear field", &[Ctrl('u')], Action::ClearInput),
    b("", "", &[Code(KeyCode::Backspace)], Action::Backspace),
    b("", "", &[Ctrl('c')], Action::Quit),
];

/// Keys in the filter editor while its completions show (before the
/// editor's own).
pub const COMPLETING: &[Binding] = &[
    b("Tab", "pick", &[Code(KeyCode::Tab)], Action::Pick),
    b("↑/↓", "choose", &[Code(KeyCode::Down)], Action::Down),
    b("", "", &[Code(KeyCode::Up)], Action::Up),
];

/// The bindings of a screen, most specific first (without the global ones).
pub fn screen_bindings(screen: Screen) -> Vec<&'static Binding> {
    let own: &[Binding] = match screen {
        Screen::Ladder => LADDER,
        Screen::Runs => RUNS,
        Screen::Run => RUN,
        Screen::Refusals => REFUSALS,
        Screen::Confusions => CONFUSIONS,
        Screen::Tools => TOOLS,
        Screen::Tool => TOOL,
        Screen::Decisions => DECISIONS,
        Screen::Findings => FINDINGS,
        Screen::FindingList => FINDING_LIST,
        Screen::Compare => COMPARE,
        Screen::ToolDiff => TOOL_DIFF,
    };
    let mut v: Vec<&Binding> = own.iter().collect();
    if !matches!(screen, Screen::Tool | Screen::ToolDiff) {
        v.extend(MOVE.iter());
    }
    v
}

/// Every screen, for the checks of a `[keys]` table.
const SCREENS: [Screen; 12] = [
    Screen::Ladder,
    Screen::Runs,
    Screen::Run,
    Screen::Refusals,
    Screen::Confusions,
    Screen::Tools,
    Screen::Tool,
    Screen::Decisions,
    Screen::Findings,
    Screen::FindingList,
    Screen::Compare,
    Screen::ToolDiff,
];

/// The contexts a key is looked up in, each with its bindings in lookup
/// order: every screen (its own keys, then the global ones), a find being
/// typed, the filter editor.
pub(super) fn contexts() -> Vec<(String, Vec<&'static Binding>)> {
    let mut v: Vec<(String, Vec<&'static Binding>)> = SCREENS
        .iter()
        .map(|s| {
            let mut b = screen_bindings(*s);
            b.extend(GLOBAL.iter());
            (format!("the {} screen", s.title()), b)
        })
        .collect();
    v.push(("a find being typed".into(), TYPING.iter().collect()));
    v.push(("the filter editor".into(), FORM.iter().collect()));
    // (They stand before the editor's own keys while they show: Tab picks
    // there instead of moving to the next field.)
    v.push((
        "the filter editor's completions".into(),
        COMPLETING.iter().collect(),
    ));
    v
}

/// Every binding in force now, in lookup order.
pub fn bindings(app: &App) -> Vec<Bound> {
    if app.editing_filter {
        let mut v: Vec<&'static Binding> = Vec::new();
        if !app.popup().is_empty() {
            v.extend(COMPLETING.iter());
        }
        v.extend(FORM.iter());
        return app.keys.resolve(&v, true);
    }
    if app.is_typing() {
        return app.keys.resolve(&TYPING.iter().collect::<Vec<_>>(), true);
    }
    let mut v = screen_bindings(app.screen);
    v.extend(GLOBAL.iter());
    app.keys.resolve(&v, false)
}

fn matches(k: K, key: &KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match k {
        K::C(c) => !ctrl && key.code == KeyCode::Char(c),
        K::Ctrl(c) => ctrl && key.code == KeyCode::Char(c),
        K::Code(code) => key.code == code,
    }
}

/// The action a key sends now, if any.
pub fn action(app: &App, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    // The help says "any other key closes" when it scrolls: the keys that
    // move scroll it, every other key closes it, and only that (`q` closes the help, not
    // the app).
    if app.help && !app.editing_filter {
        if app.help_max.get() == 0 {
            // All of it is in sight: nothing to scroll.
            return Some(Action::Help);
        }
        let moves = [
            Action::Up,
            Action::Down,
            Action::PageUp,
            Action::PageDown,
            Action::Top,
            Action::Bottom,
        ];
        return Some(
            bindings(app)
                .into_iter()
                .find(|b| b.keys.iter().any(|k| matches(*k, &key)))
                .map(|b| b.action)
                .filter(|a| moves.contains(a))
                .unwrap_or(Action::Help),
        );
    }
    for bind in bindings(app) {
        if bind.keys.iter().any(|k| matches(*k, &key)) {
            return Some(bind.action);
        }
    }
    // Typing: every other printable character is text.
    if app.is_typing()
        && !ctrl
        && let KeyCode::Char(c) = key.code
    {
        return Some(Action::Type(c));
    }
    None
}

/// Keys as the help spells them, and what they do.
pub type Pair = (String, &'static str);

/// The (keys, what) pairs of the bottom bar and the help, twins left out.
pub fn help_pairs(list: &[Bound]) -> Vec<(String, &'static str)> {
    list.iter()
        .filter(|b| !b.label.is_empty())
        .map(|b| (b.label.clone(), b.what))
        .collect()
}

/// The pairs of the bottom bar: the screen's own keys (as far as they
/// fit), and the ones always shown (help and quit).
pub fn bar_pairs(app: &App) -> (Vec<Pair>, Vec<Pair>) {
    if app.editing_filter || app.is_typing() {
        let mut rows = bindings(app);
        // While the completions show, Tab and ↓ are theirs.
        if rows.first().is_some_and(|b| b.action == Action::Pick) {
            rows.retain(|b| b.action != Action::NextField);
        }
        return (help_pairs(&rows), Vec::new());
    }
    let shown = |b: &Bound| !b.label.is_empty();
    let own_rows = app.keys.resolve(&screen_bindings(app.screen), false);
    // The bar leaves out paging and top/bottom (`g/G`: top with its twin
    // bottom); the help has them.
    let mut own: Vec<(String, &'static str)> = own_rows
        .iter()
        .enumerate()
        .filter(|(i, b)| {
            let top_bottom = b.action == Action::Top
                && own_rows
                    .get(i + 1)
                    .is_some_and(|n| n.label.is_empty() && n.action == Action::Bottom);
            // n/N only while a search is in force (it moves between its matches).
            let idle_match = b.what == NEXT_MATCH.what && !app.searching();
            shown(b) && b.action != Action::PageDown && !top_bottom && !idle_match
        })
        .map(|(_, b)| (b.label.clone(), b.what))
        .collect();
    let global = app.keys.resolve(&GLOBAL.iter().collect::<Vec<_>>(), false);
    let pick = |want: &[Action]| -> Vec<(String, &'static str)> {
        global
            .iter()
            .filter(|b| shown(b) && want.contains(&b.action))
            .map(|b| (b.label.clone(), b.what))
            .collect()
    };
    own.extend(pick(&[Action::EditFilter, Action::Back]));
    (own, pick(&[Action::Help, Action::Quit]))
}

/// The global bindings, for the help.
pub fn global_pairs(app: &App) -> Vec<(String, &'static str)> {
    help_pairs(&app.keys.resolve(&GLOBAL.iter().collect::<Vec<_>>(), false))
}

/// The screen's own bindings, for the help.
pub fn screen_pairs(app: &App) -> Vec<(String, &'static str)> {
    help_pairs(&app.keys.resolve(&screen_bindings(app.screen), false))
}

/// The keys of a find being typed, for the help.
pub fn typing_pairs(app: &App) -> Vec<(String, &'static str)> {
    help_pairs(&app.keys.resolve(&TYPING.iter().collect::<Vec<_>>(), true))
}

/// The keys of the filter editor, for its footer.
pub fn form_pairs(app: &App) -> Vec<(String, &'static str)> {
    help_pairs(&app.keys.resolve(&FORM.iter().collect::<Vec<_>>(), true))
}

/// How the key of an action of the filter editor is spelt now.
pub fn form_key(app: &App, action: &Action) -> String {
    let rows: Vec<&'static Binding> = COMPLETING.iter().chain(FORM.iter()).collect();
    app.keys.label_of(&rows, true, action)
}

/// How the key of a global action is spelt now (the filter bar's hints).
pub fn global_key(app: &App, action: &Action) -> String {
    app.keys
        .label_of(&GLOBAL.iter().collect::<Vec<_>>(), false, action)
}
