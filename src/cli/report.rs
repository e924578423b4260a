//! `rung report KIND`: every report in table, markdown, csv or json.

use std::sync::Arc;
use std::time::Instant;

use clap::{Args, ValueEnum};

use super::{FilterArgs, Global, log, open_read, print, window};
use crate::error::{Error, Result};
use crate::metrics;
use crate::redact::Redactor;
use crate::report::{self, Format};
use crate::store::query;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Ladder,
    Metrics,
    Refusals,
    Confusions,
    Tools,
    Runs,
    Findings,
    /// Per catalogue: tools and definition tokens per turn and per run,
    /// disclosed against flat, and runs whose menu changed mid-run.
    Budget,
    /// Tasks whose first tool varies across trials on one catalogue.
    Consistency,
}

#[derive(Debug, Args)]
#[command(after_long_help = format!("{}\n\n{REPORT_SHAPES}", crate::report::findings::KINDS_HELP))]
pub struct ReportArgs {
    /// Which report.
    #[arg(value_enum)]
    pub kind: Kind,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// findings: list every finding with its detail instead of the summary
    /// by kind and tool (json always lists every finding).
    #[arg(long)]
    pub all: bool,
    /// findings: the summary by kind and tool, in json too
    /// (`{"total": N, "summary": [{kind, tool, findings, runs}]}`).
    #[arg(long, conflicts_with = "all")]
    pub summary: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
}

/// The JSON of the reports added in 1.1 (the others are in cli.md).
const REPORT_SHAPES: &str = "JSON of `report budget`: {\"catalogues\": [by version: {\"catalogue\", \
\"tools\", \"flat_tokens_per_turn\", \"runs\", \"turns\", \"visible_per_turn\": {\"p50\", \"p95\"}, \
\"tokens_per_turn\": {\"p50\", \"p95\"}, \"run_turns\": {\"p50\", \"p95\"}, \"per_run_p50\": \
{\"turns\", \"disclosed\", \"flat\", \"saved\"}, \"per_run_p95\": {...}, \"menu_changed_runs\", \"menu_changed_findings\"}]}. \
A turn counts once however many calls it made; a run's disclosed tokens are the tokens per turn \
at a percentile times the run length at the same percentile; flat is every catalogue tool on \
every turn; saved is 1 - disclosed / flat.\n\n\
JSON of `report consistency`: {\"inconsistent_tasks\": {\"value\", \"numerator\", \"denominator\"}, \
\"tasks\": [most varied first: {\"catalogue\", \"task_id\", \"trials\", \"distinct\", \"top_share\", \
\"choices\": [{\"tool\" (null: no call), \"count\"}]}]}, over the first decision of each run of \
a task with two or more runs on one catalogue.";

pub fn run(g: &Global, args: &ReportArgs) -> Result<()> {
    let start = Instant::now();
    if (args.all || args.summary) && args.kind != Kind::Findings {
        return Err(Error::usage(
            "--all and --summary apply to `rung report findings` only".to_string(),
        ));
    }
    let store = open_read(g)?;
    let conn = &store.conn;
    let config = store.config()?;
    let m = &Redactor::new(&config.redact.patterns, g.no_redact)?;
    let filter = |a: &super::FilterArgs| -> Result<crate::filter::Filter> {
        let f = window::filter(a, false)?;
        window::values_exist(conn, &f, m)?;
        Ok(f)
    };
    let built = match args.kind {
        Kind::Ladder => {
            let f = filter(&args.filter)?;
            report::ladder::build(
                &query::ladder(conn, &f)?,
                &query::boundary_profile(conn, &f)?,
                m,
            )
        }
        Kind::Metrics => {
            let f = filter(&args.filter)?;
            report::metrics::build(&query::metrics(conn, &f)?, m)?
        }
        Kind::Confusions => {
            let f = filter(&args.filter)?;
            report::confusions::build(&query::confusions(conn, &f)?, m)
        }
        Kind::Refusals => {
            let (f, since, until) = window::closed(&args.filter)?;
            window::values_exist(conn, &f, m)?;
            let items = query::refusals(conn, &f)?;
            let runs_affected = metrics::runs_affected(&items, since, until);
            let rep = metrics::refusals(items, since, until);
            report::refusals::build(&rep, runs_affected, m)
        }
        Kind::Tools => {
            let f = filter(&args.filter)?;
            report::tools::build(&query::tools(conn, &f)?, m)
        }
        Kind::Runs => {
            let f = filter(&args.filter)?;
            let n = runs_list(conn, &f, args.format, m)?;
            logged(args, n, start);
            return Ok(());
        }
        Kind::Findings => {
            let f = filter(&args.filter)?;
            // Findings are read in one pass (two for a table) and sorted by
            // SQLite, which spills to a temporary file beyond its cache: a
            // small cache keeps the peak flat however many there are. A
            // second thread sorts the spilled parts (1,000,000 decisions:
            // 1.7 -> 1.4 s, 77 -> 94 MB).
            conn.execute_batch("PRAGMA cache_size = -8192; PRAGMA threads = 2")?;
            let list = args.all || (args.format == Format::Json && !args.summary);
            if list {
                let n = findings_list(conn, &f, args.format, m)?;
                logged(args, n, start);
                return Ok(());
            }
            report::findings::summary(&query::finding_groups(conn, &f)?, m)
        }
        Kind::Consistency => {
            let f = window::filter(&args.filter, false)?;
            window::values_exist(conn, &f, m)?;
            let c = crate::store::consistency::consistency(conn, &f)?;
            let n = consistency_list(&c, args.format, m)?;
            logged(args, n, start);
            return Ok(());
        }
        // A grid per catalogue to read, a line per catalogue as data.
        Kind::Budget => return budget(conn, args, start, m),
    };
    let text = report::render(&built, args.format);
    logged(args, built.rows.len() as u64, start);
    print(&text)
}

/// Prints every finding the filter selects, a finding at a time (a table
/// is measured in a first pass); returns how many.
fn findings_list(
    conn: &rusqlite::Connection,
    f: &query::Filter,
    format: Format,
    m: &Redactor,
) -> Result<u64> {
    use report::findings::{List, Measure, Shown};
    // Every name once: the rows carry ids.
    let names = Arc::new(query::FindingNames::load(conn)?);
    if format == Format::Table
        && let Some(second) = second_reader(conn)
    {
        return table_overlapped(conn, second, f, &names, m);
    }
    let mut measure = Measure::new();
    let total = if format == Format::Table {
        beside(conn, f, &names, false, |s| {
            measure.add_shown(&Shown::stored(s, &names), m);
            Ok(())
        })?;
        measure.count()
    } else if List::needs_total(format) {
        query::count_findings(conn, f)?
    } else {
        // Not read: under a filter, counting would select the findings
        // twice (at 5,000,000 decisions, about 1 s under a tag).
        0
    };
    let mut list = List::new(format, total, Some(&measure), m);
    let mut out = Out::new();
    out.write(&list.head())?;
    beside(conn, f, &names, true, |s| {
        out.add(|text| list.write(&Shown::stored(s, &names), text))
    })?;
    out.write(&list.tail())?;
    out.flush()?;
    Ok(list.written())
}

/// Prints every run the filter selects, a batch at a time: counted first
/// for the summary, then written ([`report::runs::write`]). Returns how
/// many.
fn runs_list(
    conn: &rusqlite::Connection,
    f: &query::Filter,
    format: Format,
    m: &Redactor,
) -> Result<u64> {
    // A decision filter's kept decisions are counted once, for both.
    let kept = query::decisions_kept(conn, f)?;
    let tally = query::run_tally_kept(conn, f, &kept)?;
    let mut out = Out::new();
    report::runs::write(
        &tally,
        &|each| query::for_each_run_kept(conn, f, &kept, each),
        format,
        m,
        &mut |text| out.write(text),
    )?;
    out.flush()?;
    Ok(tally.runs)
}

/// Prints the tasks whose first choice varies, a batch at a time (their
/// text and JSON are never whole in memory); returns how many.
fn consistency_list(
    c: &crate::metrics::consistency::Consistency,
    format: Format,
    m: &Redactor,
) -> Result<u64> {
    let mut out = Out::new();
    report::consistency::write(c, format, m, &mut |text| out.write(text))?;
    out.flush()?;
    Ok(c.varying.len() as u64)
}

/// A second read-only connection to `conn`'s database (none in memory).
fn second_reader(conn: &rusqlite::Connection) -> Option<crate::store::Store> {
    let path = conn.path().filter(|p| !p.is_empty())?;
    crate::store::Store::open_ro(std::path::Path::new(path)).ok()
}

/// The table of every finding, its two passes overlapped: SQLite sorts
/// every finding before it hands out the first in report order, so that
/// sort runs on `second` while the first pass measures the findings on
/// `conn`; the rows are written once the widths are known.
fn table_overlapped(
    conn: &rusqlite::Connection,
    second: crate::store::Store,
    f: &query::Filter,
    names: &Arc<query::FindingNames>,
    m: &Redactor,
) -> Result<u64> {
    use report::findings::{List, Measure, Shown};
    let (send, batches) = std::sync::mpsc::sync_channel::<Vec<query::StoredFinding>>(16);
    let stop = second.conn.get_interrupt_handle();
    std::thread::scope(|scope| {
        let reader =
            scope.spawn(move || -> Result<()> { send_batches(&second.conn, f, names, true, send) });
        let wrote = (|| -> Result<u64> {
            let mut measure = Measure::new();
            beside(conn, f, names, false, |s| {
                measure.add_shown(&Shown::stored(s, names), m);
                Ok(())
            })?;
            let total = measure.count();
            let mut list = List::new(Format::Table, total, Some(&measure), m);
            let mut out = Out::new();
            out.write(&list.head())?;
            for batch in &batches {
                for s in &batch {
                    out.add(|text| list.write(&Shown::stored(s, names), text))?;
                }
            }
            out.write(&list.tail())?;
            out.flush()?;
            Ok(total)
        })();
        if wrote.is_err() {
            // Not worth finishing the sort.
            stop.interrupt();
        }
        drop(batches);
        let read = match reader.join() {
            Ok(read) => read,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // The writer's error is the one to tell.
        let total = wrote?;
        read?;
        Ok(total)
    })
}

/// How much of the list is written to standard output at once.
const CHUNK: usize = 64 * 1024;

/// Findings handed to the second thread at once.
const BATCH: usize = 1024;

/// Reads the findings ([`query::for_each_stored`]) and sends them in
/// batches of [`BATCH`] to the thread that writes them. Should that thread
/// stop, reading stops too; its error is the one to tell.
fn send_batches(
    conn: &rusqlite::Connection,
    f: &query::Filter,
    names: &Arc<query::FindingNames>,
    ordered: bool,
    send: std::sync::mpsc::SyncSender<Vec<query::StoredFinding>>,
) -> Result<()> {
    let mut batch = Vec::with_capacity(BATCH);
    let read = query::for_each_stored(conn, f, names, ordered, |s| {
        batch.push(s);
        if batch.len() == BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            if send.send(full).is_err() {
                return Err(std::io::Error::other("the writer stopped").into());
            }
        }
        Ok(())
    });
    if read.is_ok() && !batch.is_empty() {
        let _ = send.send(batch);
    }
    read
}

/// [`query::for_each_stored`] with `each` called on a second thread, so
/// that SQLite's reading and sorting and the writing of what was read
/// overlap; the findings pass between them in batches, in order.
fn beside(
    conn: &rusqlite::Connection,
    f: &query::Filter,
    names: &Arc<query::FindingNames>,
    ordered: bool,
    mut each: impl FnMut(&query::StoredFinding) -> Result<()> + Send,
) -> Result<()> {
    let (send, batches) = std::sync::mpsc::sync_channel::<Vec<query::StoredFinding>>(16);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> Result<()> {
            for batch in batches {
                for s in &batch {
                    each(s)?;
                }
            }
            Ok(())
        });
        let read = send_batches(conn, f, names, ordered, send);
        let wrote = match writer.join() {
            Ok(wrote) => wrote,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        wrote.and(read)
    })
}

/// Standard output, written [`CHUNK`] bytes of text at a time; a closed
/// pipe (`| head`) ends the writing quietly.
struct Out {
    w: Option<std::io::Stdout>,
    /// What is not written yet (less than [`CHUNK`] between calls).
    text: String,
}

impl Out {
    fn new() -> Out {
        Out {
            w: Some(std::io::stdout()),
            text: String::with_capacity(2 * CHUNK),
        }
    }

    /// Appends what `fill` writes to the text, and writes the text out once
    /// it holds [`CHUNK`] bytes.
    fn add(&mut self, fill: impl FnOnce(&mut String)) -> Result<()> {
        fill(&mut self.text);
        if self.text.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn write(&mut self, s: &str) -> Result<()> {
        self.add(|text| text.push_str(s))
    }

    /// Writes out what is held.
    fn flush(&mut self) -> Result<()> {
        use std::io::Write;
        if let Some(w) = &mut self.w {
            match w.write_all(self.text.as_bytes()).and_then(|()| w.flush()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => self.w = None,
                Err(e) => return Err(e.into()),
            }
        }
        self.text.clear();
        Ok(())
    }
}

/// `rung report budget`: its reading and data layouts differ.
fn budget(
    conn: &rusqlite::Connection,
    args: &ReportArgs,
    start: Instant,
    m: &Redactor,
) -> Result<()> {
    let f = window::filter(&args.filter, false)?;
    window::values_exist(conn, &f, m)?;
    let list = crate::store::budget::budget(conn, &f)?;
    logged(args, list.len() as u64, start);
    print(&report::budget::render(&list, args.format, m))
}

/// Logs a report printed: its kind, format and filter, how many rows, and
/// how long it took.
fn logged(args: &ReportArgs, rows: u64, start: Instant) {
    tracing::info!(
        kind = %format!("{:?}", args.kind).to_lowercase(),
        format = %format!("{:?}", args.format).to_lowercase(),
        filter = %args.filter.describe(),
        rows,
        elapsed_ms = log::elapsed_ms(start),
        "report"
    );
}
