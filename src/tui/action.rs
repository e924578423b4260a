//! What the TUI can be asked to do: keys become `Action`s through the keymap,
//! worker answers arrive as `Action::Loaded`, and `update` applies them.

use super::state::Screen;
use super::worker::Done;

/// What the keyboard (or a worker) can ask for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Quit,
    Help,
    Back,
    Go(Screen),
    NextTab,
    PrevTab,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// A click or the wheel: the selection moves by this many rows.
    MoveBy(isize),
    Enter,
    /// `/`: start typing a fuzzy filter (Runs), a find (Tools, Compare
    /// menus) or a search (every other list, the payload viewer).
    Find,
    /// `n`/`N`: the next (previous) row or line the search matches.
    NextMatch,
    PrevMatch,
    /// `s`: sort by the next column; `S`: reverse the sort.
    Sort,
    Reverse,
    NextFailing,
    PrevFailing,
    ToggleHidden,
    ShowArguments,
    ShowResult,
    ShowRaw,
    ToggleMatrix,
    /// Tool: scroll the pane a line (j/k move the rule cursor).
    ScrollDown,
    ScrollUp,
    /// Refusals: the next (previous) day of the per-day sparkline.
    NextDay,
    PrevDay,
    WeekBack,
    WeekForward,
    ThisWeek,
    LatestWeek,
    EditFilter,
    ClearFilter,
    /// Compare: the selected catalogue becomes the base.
    SetBase,
    /// Compare: the selected catalogue is a candidate, or no longer one.
    ToggleCandidate,
    /// Tools: the selected tool between two catalogue versions.
    Diff,
    /// `y`: the selected row's id to the clipboard.
    Copy,
    /// `Y`: the selected decision's record as JSON to the clipboard.
    CopyRecord,
    /// `e`: the current list to a CSV file.
    Export,
    /// `E`: the current list to a markdown file.
    ExportMarkdown,
    /// Typing: a character, a deletion, the end of typing.
    Type(char),
    Backspace,
    ClearInput,
    Submit,
    Cancel,
    NextField,
    PrevField,
    /// The filter editor: the completion under the cursor into the field.
    Pick,
    Resize(u16, u16),
    Loaded(Box<Done>),
}

impl Action {
    /// How far the action moves a selection in a list of `h` visible rows
    /// (`None`: it is not a movement).
    pub fn delta(&self, h: usize) -> Option<isize> {
        let page = (h.max(2) - 1) as isize;
        Some(match self {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            Action::MoveBy(n) => *n,
            _ => return None,
        })
    }
}
