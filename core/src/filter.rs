//! The report filters of `cli.md`, shared by the reports, `check` and the
//! TUI's filter bar. Plain data: the store turns a filter into SQL.

/// Which decisions (or runs) enter a count. Values of one flag are
/// alternatives; different flags must all hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Window start, UTC microseconds (inclusive).
    pub since: Option<i64>,
    /// Window end, UTC microseconds (exclusive).
    pub until: Option<i64>,
    pub models: Vec<String>,
    pub catalogues: Vec<String>,
    pub tasks: Vec<String>,
    pub phases: Vec<String>,
    pub runs: Vec<String>,
    pub tags: Vec<(String, String)>,
}

impl Filter {
    /// True when no filter is set.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Whether a time window (`since`, `until`) is set.
    pub fn has_window(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// The same filter without its time window.
    pub fn without_window(&self) -> Filter {
        Filter {
            since: None,
            until: None,
            ..self.clone()
        }
    }

    /// Whether any filter constrains decisions rather than runs.
    pub fn has_decision_filter(&self) -> bool {
        self.since.is_some()
            || self.until.is_some()
            || !self.phases.is_empty()
            || !self.catalogues.is_empty()
    }

    /// The same filter without the filters about a decision's run (model,
    /// task, run id, tag).
    pub fn without_run_filters(&self) -> Filter {
        Filter {
            models: Vec::new(),
            tasks: Vec::new(),
            runs: Vec::new(),
            tags: Vec::new(),
            ..self.clone()
        }
    }

    /// Whether any filter is about the run a decision belongs to (model,
    /// task, run id, tag).
    pub fn has_run_filter(&self) -> bool {
        !(self.models.is_empty()
            && self.tasks.is_empty()
            && self.runs.is_empty()
            && self.tags.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_flags_are_about_decisions_and_which_about_runs() {
        let empty = Filter::default();
        assert!(empty.is_empty());
        assert!(!empty.has_decision_filter() && !empty.has_run_filter());

        let phase = Filter {
            phases: vec!["act".into()],
            ..Filter::default()
        };
        assert!(phase.has_decision_filter() && !phase.has_run_filter());

        let tag = Filter {
            tags: vec![("suite".into(), "m18".into())],
            ..Filter::default()
        };
        assert!(!tag.has_decision_filter() && tag.has_run_filter());

        let windowed = Filter {
            since: Some(10),
            until: Some(20),
            models: vec!["m".into()],
            ..Filter::default()
        };
        assert!(windowed.has_decision_filter());
        let unwindowed = windowed.without_window();
        assert_eq!((unwindowed.since, unwindowed.until), (None, None));
        assert_eq!(unwindowed.models, vec!["m"]);
        assert!(!unwindowed.has_decision_filter());
    }
}
