//! `rung report findings`: by default a summary of the stored findings by
//! kind and tool ([`summary`]); with `--all`, every finding about the
//! filtered decisions and their catalogues ([`List`], streamed a finding
//! at a time so memory does not grow with their number). A table leaves the
//! task out (its run names it) and prints each detail whole under its row.
//!
//! `--format json` prints the full list whatever the flags (the spec's
//! `{"findings": [...]}`); the summary is json only with `--summary`.

use super::model::{Cell, Column, Empty, Place, Prose, Report, Shape, count};
use super::table::{Natural, WIDTH, line, rule, wrap};
use super::{Format, csv, json, markdown};
use crate::store::query::{FindingGroup, FindingRow};
use crate::text::safe_json;

/// `rung report --help`: what each finding kind says, one line each, with
/// the fields it carries (every finding has `kind` and `detail`).
pub const KINDS_HELP: &str = "\
Finding kinds (`rung report findings`; each has kind and detail, plus the fields named):
  exposure_mismatch    catalogue task_id run_id step tool: the recorded menu disagrees with the catalogue and policy
  hidden_proposal      catalogue task_id run_id step tool: a tool not on the visible menu was selected
  description_drift    catalogue tool: a tool re-imported under the same version with another definition hash
  catalogue_conflict   catalogue tool: family, effect, open_world or idempotent changed under the same version
  control_impostor     catalogue tool: family control, but no decision on the catalogue trusts it
  invalid_control      catalogue tool: trusted as a control, but not family control, effect none, closed-world
  unclassified_reason  catalogue task_id run_id step tool: a refusal whose reason no stage maps
  label_conflict       catalogue task_id run_id step: an inline label differs from the case that matches too
  missing_call         catalogue task_id run_id tool: a required expected call was never made
  argument_mismatch    catalogue task_id run_id step tool: a call's arguments differ from its expected call's
  unexpected_call      catalogue task_id run_id step tool: a write no expected call accounts for
  missing_output       catalogue task_id run_id: no answer contains an expected output
  schema_violation     catalogue task_id run_id step tool: a call's arguments fail its tool's input schema (each failing path)
  unsourced_id         catalogue task_id run_id step tool: a write carries an id no earlier result or lookup returned, not in the goal or scope
  id_from_description  catalogue task_id run_id step tool: that id appears in a visible tool's description, hints or schema
  announced_no_call    catalogue task_id run_id step [tool]: an answer announces an action or writes a call as text, no call
  write_under_inform   catalogue task_id run_id step tool: a write executed in a run whose intent is inform
  menu_changed         catalogue task_id run_id step: the visible menu changed within the run (first change's step)
  repeated_call        catalogue task_id run_id step tool: the same call again after its answer was already known

By default `report findings` prints a summary by kind and tool; --all lists every finding
with its detail. --format json always prints the full list ({\"findings\": [...]}), and the
summary with --summary. docs/findings.md has the rules of each kind.";

/// The columns of the full list.
fn columns() -> Vec<Column> {
    vec![
        Column::new("kind", "kind"),
        Column::new("catalogue", "catalogue").none("-").flex(),
        Column::new("task_id", "task")
            .none("-")
            .in_table(Place::Hidden),
        Column::new("run_id", "run").none("-").flex(),
        Column::new("step", "step").right().none("-"),
        Column::new("tool", "tool").none("-").flex(),
        // The detail is the point: whole, under its row.
        Column::new("detail", "detail").in_table(Place::Note),
    ]
}

fn cells(f: &FindingRow) -> Vec<Cell> {
    vec![
        Cell::text(&f.kind),
        Cell::opt_text(f.catalogue.as_deref()),
        Cell::opt_text(f.task_id.as_deref()),
        Cell::opt_text(f.run_id.as_deref()),
        Cell::opt_int(f.step),
        Cell::opt_text(f.tool.as_deref()),
        Cell::text(&f.detail),
    ]
}

fn total_prose(n: u64) -> String {
    count(n, "finding", "findings")
}

const EMPTY: &str = "No findings.";

/// Every finding as one report model, for a list already in memory (the
/// command line streams the same output with [`List`]).
pub fn build(list: &[FindingRow]) -> Report {
    let mut r = Report::new("Findings", Shape::List("findings"), columns());
    for f in list {
        r.row(cells(f));
    }
    r.empty = Some(Empty {
        text: EMPTY,
        whole: true,
    });
    r.summary.push(Prose::both(total_prose(list.len() as u64)));
    r
}

/// The table's column widths, measured over every finding first (a first
/// pass over the findings in any order).
pub struct Measure {
    natural: Natural,
    n: u64,
}

impl Default for Measure {
    fn default() -> Self {
        Measure::new()
    }
}

impl Measure {
    pub fn new() -> Measure {
        let headers: Vec<String> = grid_columns()
            .iter()
            .map(|(_, c)| c.table_heading().to_string())
            .collect();
        Measure {
            natural: Natural::new(&headers),
            n: 0,
        }
    }

    pub fn add(&mut self, f: &FindingRow) {
        let cells = cells(f);
        let read: Vec<String> = grid_columns()
            .iter()
            .map(|(i, c)| c.read(&cells[*i]))
            .collect();
        self.natural.add(&read);
        self.n += 1;
    }

    pub fn count(&self) -> u64 {
        self.n
    }
}

/// The columns the table's grid shows, with their index.
fn grid_columns() -> Vec<(usize, Column)> {
    columns()
        .into_iter()
        .enumerate()
        .filter(|(_, c)| c.table == Place::Column)
        .collect()
}

/// The full list written a finding at a time: [`List::head`], then
/// [`List::row`] for each finding in report order, then [`List::tail`].
/// The text is exactly what [`build`] renders in the same format.
pub struct List {
    format: Format,
    columns: Vec<Column>,
    total: u64,
    /// Table: the grid's columns, widths and alignment.
    grid: Vec<(usize, Column)>,
    widths: Vec<usize>,
    right: Vec<bool>,
    written: u64,
}

impl List {
    /// `total`: how many findings follow; `measure`: their table widths
    /// (needed for the table format only).
    pub fn new(format: Format, total: u64, measure: Option<&Measure>) -> List {
        let grid = grid_columns();
        let flex: Vec<bool> = grid.iter().map(|(_, c)| c.flex).collect();
        let right: Vec<bool> = grid.iter().map(|(_, c)| c.right).collect();
        let widths = match measure {
            Some(m) => m.natural.fit(&flex),
            None => Measure::new().natural.fit(&flex),
        };
        List {
            format,
            columns: columns(),
            total,
            grid,
            widths,
            right,
            written: 0,
        }
    }

    /// What comes before the first finding.
    pub fn head(&self) -> String {
        let empty = self.total == 0;
        match self.format {
            Format::Table if empty => format!("{EMPTY}\n"),
            Format::Table => {
                let headers: Vec<String> = self
                    .grid
                    .iter()
                    .map(|(_, c)| c.table_heading().to_string())
                    .collect();
                let mut out = wrap(&total_prose(self.total), WIDTH, "");
                out.push('\n');
                out.push_str(&line(&headers, &self.widths, &self.right));
                out.push_str(&rule(&self.widths, &self.right));
                out
            }
            Format::Markdown if empty => format!("## Findings\n\n{}", markdown::prose(EMPTY)),
            Format::Markdown => {
                let shown: Vec<&Column> = self.columns.iter().filter(|c| c.markdown).collect();
                let mut out = format!(
                    "## Findings\n\n{}\n|",
                    markdown::prose(&total_prose(self.total))
                );
                for c in &shown {
                    out.push_str(&format!(" {} |", markdown::cell(&c.header)));
                }
                out.push_str("\n|");
                for c in &shown {
                    out.push_str(if c.right { " ---: |" } else { " --- |" });
                }
                out.push('\n');
                out
            }
            Format::Csv => {
                let headers: Vec<String> = self
                    .columns
                    .iter()
                    .filter(|c| c.csv)
                    .map(|c| csv::field(&Cell::text(c.key)))
                    .collect();
                format!("{}\r\n", headers.join(","))
            }
            Format::Json if empty => "{\n  \"findings\": []\n}\n".to_string(),
            Format::Json => "{\n  \"findings\": [".to_string(),
        }
    }

    /// One finding.
    pub fn row(&mut self, f: &FindingRow) -> String {
        let cells = cells(f);
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            Format::Table => {
                let shown: Vec<String> =
                    self.grid.iter().map(|(i, c)| c.read(&cells[*i])).collect();
                let mut out = line(&shown, &self.widths, &self.right);
                // The detail column, wrapped under the row.
                if let Some(note) = self.columns.iter().position(|c| c.table == Place::Note) {
                    out.push_str(&wrap(&self.columns[note].read(&cells[note]), WIDTH, "    "));
                }
                out
            }
            Format::Markdown => {
                let mut out = String::from("|");
                for (c, cell) in self.columns.iter().zip(&cells) {
                    if c.markdown {
                        out.push_str(&format!(" {} |", markdown::cell(&c.read(cell))));
                    }
                }
                out.push('\n');
                out
            }
            Format::Csv => {
                let fields: Vec<String> = self
                    .columns
                    .iter()
                    .zip(&cells)
                    .filter(|(c, _)| c.csv)
                    .map(|(_, cell)| csv::field(cell))
                    .collect();
                format!("{}\r\n", fields.join(","))
            }
            Format::Json => {
                let obj: serde_json::Map<String, serde_json::Value> = self
                    .columns
                    .iter()
                    .zip(&cells)
                    .filter(|(c, _)| c.json)
                    .map(|(c, cell)| (c.key.to_string(), json::value(cell)))
                    .collect();
                let pretty = format!("{:#}", serde_json::Value::Object(obj));
                let mut out = String::from(if first { "\n" } else { ",\n" });
                for (i, l) in pretty.lines().enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push_str("    ");
                    out.push_str(l);
                }
                safe_json(out)
            }
        }
    }

    /// What comes after the last finding.
    pub fn tail(&self) -> String {
        match self.format {
            Format::Json if self.total > 0 => "\n  ]\n}\n".to_string(),
            _ => String::new(),
        }
    }
}

/// The summary: findings and runs per (kind, tool), with the total.
pub fn summary(groups: &[FindingGroup]) -> Report {
    let mut r = Report::new(
        "Findings by kind and tool",
        Shape::List("summary"),
        vec![
            Column::new("kind", "kind"),
            Column::new("tool", "tool").none("-").flex(),
            Column::new("findings", "findings").right(),
            Column::new("runs", "runs").right(),
        ],
    );
    let total: u64 = groups.iter().map(|g| g.findings).sum();
    for g in groups {
        r.row(vec![
            Cell::text(&g.kind),
            Cell::opt_text(g.tool.as_deref()),
            Cell::Count(g.findings),
            Cell::Count(g.runs),
        ]);
    }
    r.head.push(("total", Cell::Count(total)));
    r.empty = Some(Empty {
        text: EMPTY,
        whole: true,
    });
    let kinds = {
        let mut k: Vec<&str> = groups.iter().map(|g| g.kind.as_str()).collect();
        k.dedup();
        k.len() as u64
    };
    r.summary.push(Prose::both(format!(
        "{} of {}.",
        total_prose(total),
        count(kinds, "kind", "kinds")
    )));
    r.notes.push(Prose::both(
        "`rung report findings --all` lists each finding with its detail.".to_string(),
    ));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::render;

    fn row(
        kind: &str,
        run: Option<&str>,
        step: Option<i64>,
        tool: Option<&str>,
        detail: &str,
    ) -> FindingRow {
        FindingRow {
            kind: kind.into(),
            catalogue: Some("cat-1".into()),
            task_id: run.map(|_| "task-1".into()),
            run_id: run.map(str::to_string),
            step,
            tool: tool.map(str::to_string),
            detail: detail.into(),
        }
    }

    fn streamed(list: &[FindingRow], format: Format) -> String {
        let mut m = Measure::new();
        // The measuring pass may see the findings in any order.
        for f in list.iter().rev() {
            m.add(f);
        }
        let mut l = List::new(format, m.count(), Some(&m));
        let mut out = l.head();
        for f in list {
            out.push_str(&l.row(f));
        }
        out.push_str(&l.tail());
        out
    }

    /// The streamed list is byte for byte what the whole report renders,
    /// in every format, empty or not, with text that needs escaping.
    #[test]
    fn the_streamed_list_is_the_report_rendered_whole() {
        let long = "word ".repeat(40);
        let lists = [
            vec![],
            vec![row(
                "unsourced_id",
                Some("r-1"),
                Some(3),
                Some("cancel"),
                "cancel (mutating) was called with \"sub_31\"",
            )],
            vec![
                row(
                    "description_drift",
                    None,
                    None,
                    Some("search"),
                    "hash a → b",
                ),
                row(
                    "menu_changed",
                    Some("run-with-a-rather-long-identifier-0001"),
                    Some(12),
                    None,
                    long.trim(),
                ),
                row(
                    "repeated_call",
                    Some("r|2"),
                    Some(2),
                    Some("=cmd\u{1b}[2J"),
                    "line\nbreak, \"quoted\" <b>[x](y)</b>",
                ),
            ],
        ];
        for list in &lists {
            for format in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
                assert_eq!(
                    streamed(list, format),
                    render(&build(list), format),
                    "{format:?} with {} findings",
                    list.len()
                );
            }
        }
    }

    #[test]
    fn the_summary_counts_by_kind_and_tool() {
        let groups = vec![
            FindingGroup {
                kind: "announced_no_call".into(),
                tool: None,
                findings: 5,
                runs: 5,
            },
            FindingGroup {
                kind: "announced_no_call".into(),
                tool: Some("search_customers".into()),
                findings: 1,
                runs: 1,
            },
            FindingGroup {
                kind: "unsourced_id".into(),
                tool: Some("cancel_subscription".into()),
                findings: 12,
                runs: 11,
            },
        ];
        let r = summary(&groups);
        assert_eq!(
            render(&r, Format::Table),
            "18 findings of 2 kinds.\n\n\
             kind               tool                 findings  runs\n\
             ─────────────────  ───────────────────  ────────  ────\n\
             announced_no_call  -                           5     5\n\
             announced_no_call  search_customers            1     1\n\
             unsourced_id       cancel_subscription        12    11\n\
             \n`rung report findings --all` lists each finding with its detail.\n"
        );
        assert_eq!(
            json::to_value(&r),
            serde_json::json!({"total": 18, "summary": [
                {"kind": "announced_no_call", "tool": null, "findings": 5, "runs": 5},
                {"kind": "announced_no_call", "tool": "search_customers", "findings": 1, "runs": 1},
                {"kind": "unsourced_id", "tool": "cancel_subscription", "findings": 12, "runs": 11},
            ]})
        );
        assert_eq!(
            render(&r, Format::Csv),
            "kind,tool,findings,runs\r\nannounced_no_call,,5,5\r\nannounced_no_call,search_customers,1,1\r\nunsourced_id,cancel_subscription,12,11\r\n"
        );
        assert_eq!(render(&summary(&[]), Format::Table), "No findings.\n");
    }
}
