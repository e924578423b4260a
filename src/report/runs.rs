//! `rung report runs`: each run with its decisions, first failed rung and
//! outcome. Tables say model and catalogue once above each stretch of runs
//! that share them, to fit; markdown has every column. Built whole
//! ([`build`]) or a batch at a time ([`write`]) for a listing that need
//! not fit in memory.

use super::Format;
use super::model::{Cell, Column, Empty, Groups, Place, Prose, Report, Shape, count, opt_or};
use super::stream::Stream;
use crate::error::Result;
use crate::model::Rung;
use crate::redact::Redactor;
use crate::store::query::{RunRow, RunTally};

pub fn build(list: &[RunRow], m: &Redactor) -> Report {
    let mut tally = RunTally::default();
    for run in list {
        tally.add(run);
    }
    let mut r = template(&tally);
    let mut sections = Vec::new();
    let mut labels = Labels::default();
    for (i, run) in list.iter().enumerate() {
        if let Some(label) = labels.next(run, m) {
            sections.push((i, label));
        }
        r.row(cells(run, m));
    }
    r.groups = Groups::Sections(sections);
    r
}

/// The report without its rows: columns, summary and empty line.
pub fn template(t: &RunTally) -> Report {
    // Tables and markdown show the verdict against expectations only when
    // some run has expectations; CSV and JSON always carry the key.
    let mut as_expected = Column::new("as_expected", "as expected").none("-");
    if t.with_expectations == 0 {
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
    r.empty = Some(Empty {
        text: "No runs.",
        whole: true,
    });
    r.summary.push(Prose::both(format!(
        "{}: {} succeeded, {} failed, {} harmful; {} reached a failed rung.",
        count(t.runs, "run", "runs"),
        t.succeeded,
        t.failed,
        t.harmful,
        t.with_rung
    )));
    if t.with_expectations > 0 {
        r.summary.push(Prose::both(format!(
            "{} of {} with expectations went as expected.",
            t.as_expected,
            count(t.with_expectations, "run", "runs")
        )));
    }
    r
}

/// Each run that `read` hands over (in the order listed; a table reads
/// them twice, its columns measured first), written a batch at a time:
/// `write` is given the text in pieces. The runs are read on this thread
/// and their rows rendered on two others ([`super::parallel::ordered`]);
/// the text is [`build`]'s rendered whole.
pub fn write(
    tally: &RunTally,
    read: &ReadRuns,
    format: Format,
    m: &Redactor,
    write: &mut (dyn FnMut(&str) -> Result<()> + Send),
) -> Result<()> {
    let template = template(tally);
    if tally.runs == 0 {
        return write(&super::render(&template, format));
    }
    let natural = if format == Format::Table {
        Stream::measure_all(
            &template,
            |sink| batches(read, m, sink),
            |(_, batch): Batch, add| batch.iter().for_each(|(_, run)| add(&cells(run, m))),
        )?
    } else {
        Stream::natural(&template)
    };
    let stream = Stream::new(&template, format, &natural);
    write(&stream.head())?;
    stream.write_all(
        |sink| batches(read, m, sink),
        |batch, s, text| {
            for (label, run) in &batch {
                s.row(label.as_deref(), &cells(run, m), text);
            }
        },
        &mut *write,
    )?;
    write(&stream.tail())
}

/// Reads the runs to list, handing each to the function given, in order.
pub type ReadRuns<'r> = dyn Fn(&mut dyn FnMut(RunRow) -> Result<()>) -> Result<()> + 'r;

/// Runs in the order listed, each with the label above it if it starts a
/// stretch; after how many runs they come.
type Batch = (u64, Vec<(Option<String>, RunRow)>);

/// The runs `read` hands over, in batches.
fn batches(read: &ReadRuns, m: &Redactor, sink: &mut dyn FnMut(Batch) -> Result<()>) -> Result<()> {
    use super::parallel::BATCH;
    let mut labels = Labels::default();
    let (mut first, mut read_so_far) = (0u64, 0u64);
    let mut batch = Vec::with_capacity(BATCH);
    read(&mut |run| {
        batch.push((labels.next(&run, m), run));
        read_so_far += 1;
        if batch.len() == BATCH {
            sink((
                first,
                std::mem::replace(&mut batch, Vec::with_capacity(BATCH)),
            ))?;
            first = read_so_far;
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        sink((first, batch))?;
    }
    Ok(())
}

/// The label a table shows above each stretch of runs with the same model
/// and catalogue.
#[derive(Debug, Clone, Default)]
pub struct Labels {
    last: Option<(Option<String>, Option<String>)>,
}

impl Labels {
    /// The label above `run`, when it starts a stretch.
    pub fn next(&mut self, run: &RunRow, m: &Redactor) -> Option<String> {
        let same = self
            .last
            .as_ref()
            .is_some_and(|(model, cat)| *model == run.model && *cat == run.catalogue);
        if same {
            return None;
        }
        self.last = Some((run.model.clone(), run.catalogue.clone()));
        Some(format!(
            "model {} · catalogue {}",
            opt_or(m, run.model.as_deref(), "-"),
            opt_or(m, run.catalogue.as_deref(), "-")
        ))
    }
}

/// A run's row.
pub fn cells(run: &RunRow, m: &Redactor) -> Vec<Cell> {
    vec![
        Cell::text(m, &run.run_id),
        Cell::opt_text(m, run.task_id.as_deref()),
        Cell::opt_int(run.trial),
        Cell::opt_text(m, run.model.as_deref()),
        Cell::opt_text(m, run.catalogue.as_deref()),
        Cell::Count(run.decisions),
        Cell::opt_text(m, run.first_failed_rung.map(Rung::as_str)),
        Cell::opt_bool(run.success),
        Cell::opt_bool(run.harm),
        Cell::opt_bool(run.as_expected),
    ]
}
