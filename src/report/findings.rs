//! `rung report findings`: by default a summary of the stored findings by
//! kind and tool ([`summary`]); with `--all`, every finding about the
//! filtered decisions and their catalogues ([`List`], streamed a finding
//! at a time so memory does not grow with their number). A table leaves the
//! task out (its run names it) and prints each detail whole under its row.
//!
//! `--format json` prints the full list whatever the flags (the spec's
//! `{"findings": [...]}`); the summary is json only with `--summary`.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::model::{Cell, Column, Empty, Place, Prose, Report, Shape, count};
use super::table::{Natural, WIDTH, line, line_into, rule, wrap};
use super::{Format, csv, json, markdown};
use crate::redact::Redactor;
use crate::store::query::{FindingGroup, FindingNames, FindingRow, StoredFinding};
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

/// A finding's cells, every text masked by `m`.
fn cells(f: &FindingRow, m: &Redactor) -> Vec<Cell> {
    vec![
        Cell::text(m, &f.kind),
        Cell::opt_text(m, f.catalogue.as_deref()),
        Cell::opt_text(m, f.task_id.as_deref()),
        Cell::opt_text(m, f.run_id.as_deref()),
        Cell::opt_int(f.step),
        Cell::opt_text(m, f.tool.as_deref()),
        Cell::text(m, &f.detail),
    ]
}

fn total_prose(n: u64) -> String {
    count(n, "finding", "findings")
}

const EMPTY: &str = "No findings.";

/// Every finding as one report model, for a list already in memory (the
/// command line streams the same output with [`List`]).
pub fn build(list: &[FindingRow], m: &Redactor) -> Report {
    let mut r = Report::new("Findings", Shape::List("findings"), columns());
    for f in list {
        r.row(cells(f, m));
    }
    r.empty = Some(Empty {
        text: EMPTY,
        whole: true,
    });
    r.summary.push(Prose::both(total_prose(list.len() as u64)));
    r
}

/// The columns that hold a name, in [`Shown::names`]' order (kind,
/// catalogue, task_id, run_id, tool), and those of the step and detail.
const NAMED: [usize; 5] = [0, 1, 2, 3, 5];
const STEP: usize = 4;
const DETAIL: usize = 6;

/// A finding as the list shows it: its kind, catalogue, task, run and tool
/// (each with the id it is remembered by, when it has one: the same id is
/// masked and escaped once), its step and detail.
pub struct Shown<'a> {
    pub names: [(Option<i64>, Option<&'a str>); 5],
    pub step: Option<i64>,
    pub detail: Detail<'a>,
}

/// A finding's detail: its text, or as stored (spelt out only when its
/// cell is not remembered already).
pub enum Detail<'a> {
    Text(&'a str),
    Stored(&'a StoredFinding, &'a FindingNames),
}

impl<'a> Shown<'a> {
    pub fn row(f: &'a FindingRow) -> Shown<'a> {
        Shown {
            names: [
                (None, Some(f.kind.as_str())),
                (None, f.catalogue.as_deref()),
                (None, f.task_id.as_deref()),
                (None, f.run_id.as_deref()),
                (None, f.tool.as_deref()),
            ],
            step: f.step,
            detail: Detail::Text(&f.detail),
        }
    }

    /// A stored finding, its names remembered by their ids.
    pub fn stored(f: &'a StoredFinding, n: &'a FindingNames) -> Shown<'a> {
        Shown {
            names: [
                (Some(f.kind), Some(n.kind(f.kind))),
                (f.catalogue, n.catalogue(f.catalogue)),
                (f.task_id, n.name(f.task_id)),
                (f.run_id, n.name(f.run_id)),
                (f.tool, n.name(f.tool)),
            ],
            step: f.step,
            detail: Detail::Stored(f, n),
        }
    }
}

/// Slots of the cache of each named column (an id keeps the slot of its
/// value modulo this): the list is sorted by kind, catalogue, task and run,
/// so a name comes back in the next rows, and tools are few.
const SLOTS: usize = 1024;

/// Each cell of a finding as one format writes it (a table: as it reads),
/// the names' cells remembered by id (with their width, in a table).
struct Cells {
    format: Format,
    columns: Vec<Column>,
    redactor: Redactor,
    cache: Vec<Vec<Option<(i64, String, usize)>>>,
    /// Details by their text's hash (many findings share one: a tool's
    /// schema violations), each with its cell.
    details: FxHashMap<String, String>,
    /// The key of the last detail.
    key: String,
}

/// Details remembered at most (then forgotten, and remembered anew).
const DETAILS: usize = 16 * 1024;

impl Cells {
    fn new(format: Format, m: &Redactor) -> Cells {
        Cells {
            format,
            columns: columns(),
            redactor: m.clone(),
            cache: vec![vec![None; SLOTS]; NAMED.len()],
            details: FxHashMap::default(),
            key: String::new(),
        }
    }

    /// Column `col`'s cell as the format writes it.
    fn render(&self, col: usize, cell: &Cell) -> String {
        match self.format {
            // Escaped for a terminal as the whole text would be (the rest
            // of the JSON is plain ASCII).
            Format::Json => safe_json(json::value(cell).to_string()),
            Format::Csv => csv::field(cell),
            Format::Markdown => markdown::cell(&self.columns[col].read(cell)),
            // A note is wrapped under its row.
            Format::Table if self.columns[col].table == Place::Note => {
                wrap(&self.columns[col].read(cell), WIDTH, "    ")
            }
            Format::Table => self.columns[col].read(cell),
        }
    }

    fn text(&self, col: usize, s: Option<&str>) -> String {
        self.render(col, &Cell::opt_text(&self.redactor, s))
    }

    /// A cell's width in a table (the other formats do not align).
    fn width(&self, cell: &str) -> usize {
        match self.format {
            Format::Table => crate::text::width(cell),
            _ => 0,
        }
    }

    /// Renders the names of `f` not remembered yet (those with an id into
    /// the cache, the others into `own`); returns which were rendered now
    /// (a name remembered was rendered, and measured, before).
    fn names(&mut self, f: &Shown, own: &mut [Option<(String, usize)>; 5]) -> [bool; 5] {
        let mut fresh = [false; 5];
        for (i, (id, name)) in f.names.iter().enumerate() {
            let col = NAMED[i];
            // A column a table does not show (the task) is not rendered.
            if self.format == Format::Table && self.columns[col].table == Place::Hidden {
                continue;
            }
            match id {
                Some(id) => {
                    let slot = id.rem_euclid(SLOTS as i64) as usize;
                    if !matches!(&self.cache[i][slot], Some((at, _, _)) if at == id) {
                        let text = self.text(col, *name);
                        let w = self.width(&text);
                        self.cache[i][slot] = Some((*id, text, w));
                        fresh[i] = true;
                    }
                }
                None => {
                    let text = self.text(col, *name);
                    let w = self.width(&text);
                    own[i] = Some((text, w));
                    fresh[i] = true;
                }
            }
        }
        fresh
    }

    /// The `i`th name of `f` (of [`NAMED`]) after [`Cells::names`].
    fn name<'s>(
        &'s self,
        f: &Shown,
        own: &'s [Option<(String, usize)>; 5],
        i: usize,
    ) -> (&'s str, usize) {
        match (&own[i], f.names[i].0) {
            (Some((s, w)), _) => (s, *w),
            (None, Some(id)) => self.cache[i][id.rem_euclid(SLOTS as i64) as usize]
                .as_ref()
                .filter(|(at, _, _)| *at == id)
                .map_or(("", 0), |(_, s, w)| (s, *w)),
            (None, None) => ("", 0),
        }
    }

    /// Remembers the cell of `f`'s detail, by what says it whole (the
    /// text; a packed detail as stored, with its tool), in `self.key`.
    fn detail(&mut self, f: &Shown) {
        use std::fmt::Write;
        self.key.clear();
        match f.detail {
            Detail::Stored(s, _) if s.packed => {
                let _ = write!(self.key, "p{:?}:", s.tool);
                self.key.push_str(&s.detail);
            }
            Detail::Stored(s, _) => {
                self.key.push('t');
                self.key.push_str(&s.detail);
            }
            Detail::Text(t) => {
                self.key.push('t');
                self.key.push_str(t);
            }
        }
        if self.details.contains_key(&self.key) {
            return;
        }
        if self.details.len() >= DETAILS {
            self.details.clear();
        }
        let text = match f.detail {
            Detail::Text(t) => Cow::Borrowed(t),
            Detail::Stored(s, n) => s.detail(n),
        };
        let cell = self.text(DETAIL, Some(&text));
        self.details.insert(self.key.clone(), cell);
    }

    /// Calls `g` with the finding's seven cells, in [`columns`]' order
    /// (the detail's empty unless `detail`), each with its width in a
    /// table (the detail's is not measured).
    fn with<R>(&mut self, f: &Shown, detail: bool, g: impl FnOnce(&[(&str, usize); 7]) -> R) -> R {
        let mut own: [Option<(String, usize)>; 5] = Default::default();
        self.names(f, &mut own);
        let step = self.render(STEP, &Cell::opt_int(f.step));
        let step_w = self.width(&step);
        let detail = if detail {
            self.detail(f);
            self.details.get(&self.key).map_or("", String::as_str)
        } else {
            ""
        };
        let name = |i: usize| self.name(f, &own, i);
        g(&[
            name(0),
            name(1),
            name(2),
            name(3),
            (&step, step_w),
            name(4),
            (detail, 0),
        ])
    }
}

/// The table's column widths, measured over every finding first (a first
/// pass over the findings in any order). A name is measured when it is
/// rendered (a name remembered by its id has been measured already), a
/// step by the smallest and largest steps (the widest of those between).
pub struct Measure {
    natural: Natural,
    /// Each grid column's column (of [`columns`]).
    grid: Vec<usize>,
    n: u64,
    /// The smallest and largest step, and whether a finding had none.
    steps: Option<(i64, i64)>,
    no_step: bool,
    cells: Option<Cells>,
}

impl Default for Measure {
    fn default() -> Self {
        Measure::new()
    }
}

impl Measure {
    pub fn new() -> Measure {
        let grid = grid_columns();
        let headers: Vec<String> = grid
            .iter()
            .map(|(_, c)| c.table_heading().to_string())
            .collect();
        Measure {
            natural: Natural::new(&headers),
            grid: grid.iter().map(|(i, _)| *i).collect(),
            n: 0,
            steps: None,
            no_step: false,
            cells: None,
        }
    }

    /// One finding, its texts masked by `m` as [`List::row`] will show them.
    pub fn add(&mut self, f: &FindingRow, m: &Redactor) {
        self.add_shown(&Shown::row(f), m)
    }

    /// [`Measure::add`] of a finding as shown.
    pub fn add_shown(&mut self, f: &Shown, m: &Redactor) {
        let cells = self
            .cells
            .get_or_insert_with(|| Cells::new(Format::Table, m));
        let mut own: [Option<(String, usize)>; 5] = Default::default();
        let fresh = cells.names(f, &mut own);
        for (g, col) in self.grid.iter().enumerate() {
            if let Some(i) = NAMED.iter().position(|c| c == col)
                && fresh[i]
            {
                self.natural.add_width(g, cells.name(f, &own, i).1);
            }
        }
        match f.step {
            Some(s) => {
                let (lo, hi) = self.steps.get_or_insert((s, s));
                *lo = (*lo).min(s);
                *hi = (*hi).max(s);
            }
            None => self.no_step = true,
        }
        self.n += 1;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// The widths, fitted (as [`Natural::fit`]).
    fn fit(&self, flex: &[bool]) -> Vec<usize> {
        let mut natural = self.natural.clone();
        if let Some(g) = self.grid.iter().position(|c| *c == STEP) {
            let column = &columns()[STEP];
            let mut steps: Vec<Option<i64>> = Vec::new();
            if let Some((lo, hi)) = self.steps {
                steps.extend([Some(lo), Some(hi)]);
            }
            if self.no_step {
                steps.push(None);
            }
            for s in steps {
                natural.add_width(g, crate::text::width(&column.read(&Cell::opt_int(s))));
            }
        }
        natural.fit(flex)
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
/// [`List::row`] (or [`List::write`]) for each finding in report order,
/// then [`List::tail`]. The text is exactly what [`build`] renders in the
/// same format.
pub struct List {
    format: Format,
    columns: Vec<Column>,
    total: u64,
    /// Table: the grid's columns, widths and alignment.
    grid: Vec<(usize, Column)>,
    widths: Vec<usize>,
    right: Vec<bool>,
    /// JSON: the columns in the order of their keys (as serde_json writes
    /// an object).
    json_keys: Vec<usize>,
    /// Table: the column written under its row.
    note: Option<usize>,
    written: u64,
    /// Each finding's cells.
    cells: Cells,
}

impl List {
    /// `total`: how many findings follow (read by the table and markdown
    /// heads only: JSON and CSV are written without a count, see
    /// [`List::needs_total`]); `measure`: their table widths (needed for
    /// the table format only).
    pub fn new(format: Format, total: u64, measure: Option<&Measure>, m: &Redactor) -> List {
        let grid = grid_columns();
        let flex: Vec<bool> = grid.iter().map(|(_, c)| c.flex).collect();
        let right: Vec<bool> = grid.iter().map(|(_, c)| c.right).collect();
        let widths = match measure {
            Some(m) => m.fit(&flex),
            None => Measure::new().fit(&flex),
        };
        let columns = columns();
        let mut json_keys: Vec<usize> = (0..columns.len()).filter(|i| columns[*i].json).collect();
        json_keys.sort_by_key(|i| columns[*i].key);
        let note = columns.iter().position(|c| c.table == Place::Note);
        List {
            format,
            columns,
            total,
            grid,
            widths,
            right,
            note,
            json_keys,
            written: 0,
            cells: Cells::new(format, m),
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
                    .map(|c| csv::field(&Cell::ours(c.key)))
                    .collect();
                format!("{}\r\n", headers.join(","))
            }
            // Opened by the first finding, or closed empty by the tail:
            // JSON needs no count first.
            Format::Json => String::new(),
        }
    }

    /// One finding.
    pub fn row(&mut self, f: &FindingRow) -> String {
        let mut out = String::new();
        self.write(&Shown::row(f), &mut out);
        out
    }

    /// One finding, added to `out`.
    pub fn write(&mut self, f: &Shown, out: &mut String) {
        let first = self.written == 0;
        self.written += 1;
        let (format, columns) = (self.format, &self.columns);
        let (grid, widths, right, keys) = (&self.grid, &self.widths, &self.right, &self.json_keys);
        let note = self.note;
        self.cells.with(f, true, |cells| match format {
            Format::Table => {
                let mut shown = [("", 0); 7];
                for (g, (i, _)) in grid.iter().enumerate() {
                    shown[g] = cells[*i];
                }
                line_into(out, &shown[..grid.len()], widths, right);
                // The detail column, wrapped under the row.
                if let Some(note) = note {
                    out.push_str(cells[note].0);
                }
            }
            Format::Markdown => {
                out.push('|');
                for (c, (cell, _)) in columns.iter().zip(cells) {
                    if c.markdown {
                        out.push(' ');
                        out.push_str(cell);
                        out.push_str(" |");
                    }
                }
                out.push('\n');
            }
            Format::Csv => {
                let mut sep = "";
                for (c, (cell, _)) in columns.iter().zip(cells) {
                    if c.csv {
                        out.push_str(sep);
                        out.push_str(cell);
                        sep = ",";
                    }
                }
                out.push_str("\r\n");
            }
            // serde_json's pretty object, indented as an item of the list.
            Format::Json => {
                out.push_str(if first {
                    "{\n  \"findings\": [\n"
                } else {
                    ",\n"
                });
                for (n, i) in keys.iter().enumerate() {
                    out.push_str(if n == 0 {
                        "    {\n      \""
                    } else {
                        ",\n      \""
                    });
                    out.push_str(columns[*i].key);
                    out.push_str("\": ");
                    out.push_str(cells[*i].0);
                }
                out.push_str("\n    }");
            }
        })
    }

    /// Whether [`List::head`] reads the total: not for JSON and CSV, so
    /// their findings are selected once, not counted first.
    pub fn needs_total(format: Format) -> bool {
        matches!(format, Format::Table | Format::Markdown)
    }

    /// How many findings were written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// What comes after the last finding.
    pub fn tail(&self) -> String {
        match self.format {
            Format::Json if self.written == 0 => "{\n  \"findings\": []\n}\n".to_string(),
            Format::Json => "\n  ]\n}\n".to_string(),
            _ => String::new(),
        }
    }
}

/// The summary: findings and runs per (kind, tool), with the total.
pub fn summary(groups: &[FindingGroup], m: &Redactor) -> Report {
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
            Cell::text(m, &g.kind),
            Cell::opt_text(m, g.tool.as_deref()),
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
        let red = Redactor::default();
        let mut m = Measure::new();
        // The measuring pass may see the findings in any order.
        for f in list.iter().rev() {
            m.add(f, &red);
        }
        // JSON and CSV are written without a count (the CLI passes 0).
        let total = if List::needs_total(format) {
            m.count()
        } else {
            0
        };
        let mut l = List::new(format, total, Some(&m), &red);
        let mut out = l.head();
        for f in list {
            out.push_str(&l.row(f));
        }
        out.push_str(&l.tail());
        out
    }

    /// The streamed list is byte for byte what the whole report renders,
    /// in every format, empty or not, with text that needs escaping and a
    /// secret that needs masking.
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
                    "line\nbreak, \"quoted\" <b>[x](y)</b> sk-proj-4f9aQ2xLk81abcdEFGH",
                ),
            ],
        ];
        for list in &lists {
            for format in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
                let text = streamed(list, format);
                assert_eq!(
                    text,
                    render(&build(list, &Redactor::default()), format),
                    "{format:?} with {} findings",
                    list.len()
                );
                assert!(!text.contains("4f9aQ2x"), "{text}");
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
        let r = summary(&groups, &Redactor::default());
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
        assert_eq!(
            render(&summary(&[], &Redactor::default()), Format::Table),
            "No findings.\n"
        );
    }
}
