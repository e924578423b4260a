//! The screens: the seven tabs and the three drill-downs, their titles and
//! which tab each belongs to.

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
}

impl Screen {
    /// The screens of the tab bar, in number-key order.
    pub const TABS: [Screen; 7] = [
        Screen::Ladder,
        Screen::Runs,
        Screen::Run,
        Screen::Refusals,
        Screen::Confusions,
        Screen::Tools,
        Screen::Findings,
    ];

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
        }
    }

    /// The tab a screen belongs to.
    pub fn tab(self) -> Screen {
        match self {
            Screen::Tool => Screen::Tools,
            Screen::Decisions => Screen::Ladder,
            Screen::FindingList => Screen::Findings,
            s => s,
        }
    }
}
