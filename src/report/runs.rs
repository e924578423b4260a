//! `rung report runs`: each run with its decisions, first failed rung and
//! outcome. Tables say model and catalogue once above each stretch of runs
//! that share them, to fit; markdown has every column.

use super::model::{Cell, Column, Empty, Groups, Place, Prose, Report, Shape, count, opt_or};
use crate::model::Rung;
use crate::store::query::RunRow;

pub fn build(list: &[RunRow]) -> Report {
    // Tables and markdown show the verdict against expectations only when
    // some run has expectations; CSV and JSON always carry the key.
    let with_expectations = list.iter().filter(|r| r.as_expected.is_some()).count();
    let mut as_expected = Column::new("as_expected", "as expected").none("-");
    if with_expectations == 0 {
        as_expected.markdown = false;
        as_expected = as_expected.in_table(Place::Hidden);
    }
    let mut r = Report::new(
        "Runs",
        Shape::List("runs"),
        vec![
            Column::new("run_id", "run"),
            Column::new("task_id", "task").none("-").flex(),
            Column::new("trial", "trial").right().none("-"),
            Column::new("model", "model")
                .none("-")
                .in_table(Place::Hidden),
            Column::new("catalogue", "catalogue")
                .none("-")
                .in_table(Place::Hidden),
            Column::new("decisions", "decisions").right(),
            Column::new("first_failed_rung", "first failed").none("-"),
            Column::new("success", "success").none("-"),
            Column::new("harm", "harm").none("-"),
            as_expected,
        ],
    );
    let mut sections = Vec::new();
    let mut group: Option<(&Option<String>, &Option<String>)> = None;
    for (i, run) in list.iter().enumerate() {
        let key = (&run.model, &run.catalogue);
        if group != Some(key) {
            sections.push((
                i,
                format!(
                    "model {} · catalogue {}",
                    opt_or(run.model.as_deref(), "-"),
                    opt_or(run.catalogue.as_deref(), "-")
                ),
            ));
            group = Some(key);
        }
        r.row(vec![
            Cell::text(&run.run_id),
            Cell::opt_text(run.task_id.as_deref()),
            Cell::opt_int(run.trial),
            Cell::opt_text(run.model.as_deref()),
            Cell::opt_text(run.catalogue.as_deref()),
            Cell::Count(run.decisions),
            Cell::opt_text(run.first_failed_rung.map(Rung::as_str)),
            Cell::opt_bool(run.success),
            Cell::opt_bool(run.harm),
            Cell::opt_bool(run.as_expected),
        ]);
    }
    r.groups = Groups::Sections(sections);
    r.empty = Some(Empty {
        text: "No runs.",
        whole: true,
    });
    let succeeded = list.iter().filter(|r| r.success == Some(true)).count();
    let failed = list.iter().filter(|r| r.success == Some(false)).count();
    let harmful = list.iter().filter(|r| r.harm == Some(true)).count();
    let with_rung = list
        .iter()
        .filter(|r| r.first_failed_rung.is_some())
        .count();
    r.summary.push(Prose::both(format!(
        "{}: {succeeded} succeeded, {failed} failed, {harmful} harmful; \
         {with_rung} reached a failed rung.",
        count(list.len() as u64, "run", "runs")
    )));
    if with_expectations > 0 {
        let as_expected = list.iter().filter(|r| r.as_expected == Some(true)).count();
        r.summary.push(Prose::both(format!(
            "{as_expected} of {} with expectations went as expected.",
            count(with_expectations as u64, "run", "runs")
        )));
    }
    r
}
