//! `rung report consistency`: the tasks whose first tool varies across
//! their trials on one catalogue, most varied first, with each first tool
//! and how often it was chosen. JSON: `{"inconsistent_tasks": rate,
//! "tasks": [{catalogue, task_id, trials, distinct, top_share, choices:
//! [{tool, count}]}]}`.

use crate::redact::{MaskedValue, Redactor};
use serde_json::json;

use super::Format;
use super::model::{Cell, Column, Empty, Prose, Report, Shape};
use super::stream::Stream;
use crate::error::Result;
use crate::metrics::consistency::{Choice, Consistency, TaskChoices};

/// `search_confluence 3, search_sharepoint 2` (no call as `(no call)`).
fn choices_text(v: &[Choice]) -> String {
    v.iter()
        .map(|c| format!("{} {}", c.tool.as_deref().unwrap_or("(no call)"), c.count))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn build(c: &Consistency, red: &Redactor) -> Report {
    let mut r = template(c);
    for t in &c.varying {
        r.row(cells(t, red));
    }
    r.json = Some(red.mask_value(&json!({
        "inconsistent_tasks": c.rate,
        "tasks": c.varying.iter().map(json_task).collect::<Vec<_>>(),
    })));
    r
}

/// The report without its rows (and without its JSON): columns, summary
/// and empty line.
pub fn template(c: &Consistency) -> Report {
    let mut r = Report::new(
        "First choices that vary across trials",
        Shape::List("tasks"),
        vec![
            Column::new("catalogue", "catalogue").none("—").flex(),
            Column::new("task_id", "task").flex(),
            Column::new("trials", "trials").right(),
            Column::new("distinct", "distinct")
                .right()
                .in_table(super::model::Place::Hidden),
            Column::new("top_share", "top share")
                .table_header("top")
                .right(),
            Column::new("choices", "first tools chosen").data_only(),
            Column::new("chosen", "first tools chosen (times)")
                .reading_only()
                .flex(),
        ],
    );
    let rate = &c.rate;
    r.summary.push(Prose::both(format!(
        "{} of {} tasks with two or more trials on one catalogue start differently across \
         their trials (inconsistent_tasks{}).",
        rate.numerator,
        rate.denominator,
        rate.value
            .map(|v| format!(" {}", super::model::percent(v)))
            .unwrap_or_default()
    )));
    r.empty = Some(Empty {
        text: "Every task with two or more trials starts the same way each time.",
        whole: false,
    });
    r
}

/// A task's row.
pub fn cells(t: &TaskChoices, red: &Redactor) -> Vec<Cell> {
    vec![
        Cell::opt_text(red, t.catalogue.as_deref()),
        Cell::text(red, &t.task_id),
        Cell::Count(t.trials),
        Cell::Count(t.distinct()),
        Cell::Share(t.top_share()),
        Cell::json(red, &json!(t.choices)),
        Cell::text(red, &choices_text(&t.choices)),
    ]
}

/// The JSON around the tasks, with none (see `report::stream`).
pub fn json_empty(c: &Consistency, red: &Redactor) -> MaskedValue {
    red.mask_value(&json!({"inconsistent_tasks": c.rate, "tasks": []}))
}

/// A task's JSON, masked as it is inside the whole report's.
pub fn json_row(t: &TaskChoices, red: &Redactor) -> MaskedValue {
    red.mask_value(&json_task(t))
}

fn json_task(t: &TaskChoices) -> serde_json::Value {
    json!({
        "catalogue": t.catalogue,
        "task_id": t.task_id,
        "trials": t.trials,
        "distinct": t.distinct(),
        "top_share": t.top_share(),
        "choices": t.choices,
    })
}

/// The report in `format`, a batch of tasks at a time: `write` is given
/// the text in pieces (never the whole listing at once), the tasks'
/// rendered on two threads ([`super::parallel::ordered`]).
pub fn write(
    c: &Consistency,
    format: Format,
    red: &Redactor,
    write: &mut (dyn FnMut(&str) -> Result<()> + Send),
) -> Result<()> {
    if c.varying.is_empty() {
        return write(&super::render(&build(c, red), format));
    }
    let template = template(c);
    let natural = if format == Format::Table {
        Stream::measure_all(
            &template,
            |sink| batches(c, sink),
            |(_, batch), add| batch.iter().for_each(|t| add(&cells(t, red))),
        )?
    } else {
        Stream::natural(&template)
    };
    let stream = Stream::new(&template, format, &natural);
    if format == Format::Json {
        write(&Stream::json_head(json_empty(c, red).get()))?;
    } else {
        write(&stream.head())?;
    }
    stream.write_all(
        |sink| batches(c, sink),
        |batch, s, text| {
            for t in batch {
                if format == Format::Json {
                    s.json_row(json_row(t, red).get(), text);
                } else {
                    s.row(None, &cells(t, red), text);
                }
            }
        },
        &mut *write,
    )?;
    write(&stream.tail())
}

/// The varying tasks in batches, each after how many tasks it comes.
fn batches<'c>(
    c: &'c Consistency,
    sink: &mut dyn FnMut((u64, &'c [TaskChoices])) -> Result<()>,
) -> Result<()> {
    for (i, batch) in c.varying.chunks(super::parallel::BATCH).enumerate() {
        sink(((i * super::parallel::BATCH) as u64, batch))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::consistency::{FirstChoice, consistency};

    #[test]
    fn written_a_task_at_a_time_as_the_whole_report_in_every_format() {
        let red = Redactor::default();
        let first = |cat: Option<&str>, task: &str, sel: Option<&str>, n: u64| {
            (
                FirstChoice {
                    catalogue: cat.map(str::to_string),
                    task_id: task.to_string(),
                    selected: sel.map(str::to_string),
                },
                n,
            )
        };
        let varied = consistency(vec![
            first(Some("cat|1"), "t1", Some("a"), 2),
            first(Some("cat|1"), "t1", Some("b\u{1b}"), 1),
            first(Some("cat|1"), "t2", Some("a"), 1),
            first(Some("cat|1"), "t2", None, 1),
            first(Some("cat|1"), "t2", Some("=c"), 1),
            first(None, &"long task ".repeat(10), Some("a"), 1),
            first(None, &"long task ".repeat(10), Some("b"), 1),
            first(Some("cat|1"), "t3", Some("a"), 2),
        ]);
        let same = consistency(vec![first(Some("c"), "t", Some("a"), 2)]);
        assert_eq!(varied.varying.len(), 3);
        // 1,100 varying tasks: three batches rendered apart, the widest
        // task id in the last.
        let many = consistency((0..1100).flat_map(|i| {
            let task = if i == 1099 {
                format!("t{i:04}-{}", "w".repeat(30))
            } else {
                format!("t{i:04}")
            };
            [
                first(Some("c"), &task, Some("a"), 1 + i % 3),
                first(Some("c"), &task, Some("b"), 1),
            ]
        }));
        assert_eq!(many.varying.len(), 1100);
        for c in [&varied, &same, &many] {
            for format in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
                let whole = super::super::render(&build(c, &red), format);
                let mut text = String::new();
                write(c, format, &red, &mut |s| {
                    text.push_str(s);
                    Ok(())
                })
                .unwrap();
                assert_eq!(text, whole, "{format:?}");
            }
        }
    }
}
