//! The screens: the tabs and the drill-downs, their titles, number keys
//! and which tab each belongs to.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Screen {
    Ladder,
    Runs,
    Run,
    Refusals,
    Confusions,
    Tools,
    /// A tool's definition and visibility audit (from Tools).
    Tool,
    /// A list of decisions (from a rung, a refusal reason or a cell).
    Decisions,
    /// Findings per kind, this window and the one before.
    Findings,
    /// One kind's findings (from Findings).
    FindingList,
    /// Menus side by side on the same tasks.
    Compare,
    /// One tool between two catalogue versions (from Tools).
    ToolDiff,
}

impl Screen {
    /// The screens of the tab bar, in number-key order.
    pub const TABS: [Screen; 8] = [
        Screen::Ladder,
        Screen::Runs,
        Screen::Run,
        Screen::Refusals,
        Screen::Confusions,
        Screen::Tools,
        Screen::Findings,
        Screen::Compare,
    ];

    /// The number key of a tab.
    pub fn number(self) -> Option<u8> {
        Some(match self {
            Screen::Ladder => 1,
            Screen::Runs => 2,
            Screen::Run => 3,
            Screen::Refusals => 4,
            Screen::Confusions => 5,
            Screen::Tools => 6,
            Screen::Findings => 7,
            Screen::Compare => 8,
            _ => return None,
        })
    }

    pub fn title(self) -> &'static str {
        match self {
            Screen::Ladder => "Ladder",
            Screen::Runs => "Runs",
            Screen::Run => "Run",
            Screen::Refusals => "Refusals",
            Screen::Confusions => "Confusions",
            Screen::Tools => "Tools",
            Screen::Tool => "Tool",
            Screen::Decisions => "Decisions",
            Screen::Findings => "Findings",
            Screen::FindingList => "Kind",
            Screen::Compare => "Compare",
            Screen::ToolDiff => "Tool diff",
        }
    }

    /// The tab a screen belongs to.
    pub fn tab(self) -> Screen {
        match self {
            Screen::Tool | Screen::ToolDiff => Screen::Tools,
            Screen::Decisions => Screen::Ladder,
            Screen::FindingList => Screen::Findings,
            s => s,
        }
    }
}
