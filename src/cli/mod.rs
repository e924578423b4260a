//! The command line of `cli.md`: argument parsing and one module per
//! subcommand. Exit codes: 0 ok, 1 a `check` bound failed, 2 usage or input
//! error.

pub mod check;
pub mod compare;
pub mod diff;
pub mod explain;
pub mod export;
pub mod import;
pub mod log;
pub mod report;
pub mod serve;
pub mod window;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Format;
use crate::store::Store;

#[derive(Debug, Parser)]
#[command(
    name = "rung",
    version,
    about = "A terminal trace inspector and debugging ladder for tool-using AI agents",
    long_about = "rung loads agent run traces into SQLite and, for every tool-choice decision, names the \
first rung of the ladder that failed (coverage, exposure, discovery, selection, representation, \
schema, semantics, authorization, precondition, execution, progress).\n\n\
`rung PATH...` imports the traces given and opens the TUI on the database.",
    subcommand_precedence_over_arg = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Trace files or folders to import before opening the TUI.
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct Global {
    /// The database file.
    #[arg(long, env = "RUNG_DB", default_value = "./rung.db", global = true)]
    pub db: PathBuf,
    /// A TOML file: [reasons] reason = "stage", abstain = "...", [redact] patterns,
    /// [effects] tool = "read_only" (globs too), [error_stages] regex = "stage".
    /// Kept in the database at import; `rung reclassify --config` applies a new one.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Show secrets in arguments and results instead of masking them.
    #[arg(long, global = true)]
    pub no_redact: bool,
    /// The TUI leaves the mouse to the terminal (no clicks or wheel in
    /// rung; the terminal's own selection works as usual).
    #[arg(long, global = true)]
    pub no_mouse: bool,
    /// No progress display and no summary.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// More detail on stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Append a log of what rung does (commands, imports, timings, errors,
    /// panics) to FILE; nothing is logged without it, and never to the screen.
    #[arg(long, env = "RUNG_LOG", global = true, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// What the log keeps: info (the default), debug, or a filter such as
    /// rung::cli=debug.
    #[arg(long, env = "RUNG_LOG_LEVEL", global = true, value_name = "FILTER")]
    pub log_level: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Import traces (files, folders, .jsonl.gz, or - for stdin).
    Import(import::ImportArgs),
    /// Print a report: ladder | metrics | refusals | confusions | tools | runs | findings |
    /// budget | consistency.
    Report(report::ReportArgs),
    /// The ladder walk for one decision (or every decision of a run), and why
    /// each catalogue tool was visible or hidden.
    Explain(explain::ExplainArgs),
    /// Evaluate metric thresholds; exit 1 when one fails (a CI gate).
    Check(check::CheckArgs),
    /// Menus side by side on the same tasks: paired tests, cells, a verdict,
    /// a CI gate (exit 1 when a candidate fails it).
    #[command(long_about = compare::LONG_ABOUT)]
    Compare(compare::CompareArgs),
    /// Two catalogue versions: tools added, removed, renamed or merged, changed.
    #[command(long_about = diff::LONG_ABOUT)]
    Diff(diff::DiffArgs),
    /// Classify everything stored again (after a new --config).
    Reclassify,
    /// Runs, decisions with their verdicts, refusals, findings and tools as
    /// Parquet files partitioned by day (for DuckDB, ClickHouse, BigQuery, Spark).
    #[command(long_about = export::LONG_ABOUT)]
    Export(export::ExportArgs),
    /// Receive OTLP/HTTP traces (POST /v1/traces, JSON or protobuf) into the
    /// database; each trace is imported once its root span arrives.
    Serve(serve::ServeArgs),
}

/// The report filters shared by `report` and `check`.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Window start: RFC 3339 with offset, or relative (30m, 24h, 7d, 2w).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Window end (exclusive): RFC 3339 with offset, or relative.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only runs of this model (repeatable: any of them).
    #[arg(long, value_name = "MODEL")]
    pub model: Vec<String>,
    /// Only decisions on this catalogue version (repeatable).
    #[arg(long, value_name = "VERSION")]
    pub catalogue: Vec<String>,
    /// Only runs of this task (repeatable).
    #[arg(long, value_name = "TASK")]
    pub task: Vec<String>,
    /// Only decisions in this phase (repeatable).
    #[arg(long, value_name = "PHASE")]
    pub phase: Vec<String>,
    /// Only this run (repeatable).
    #[arg(long, value_name = "RUN")]
    pub run: Vec<String>,
    /// Only runs with this tag (repeatable: all must hold).
    #[arg(long, value_name = "K=V")]
    pub tag: Vec<String>,
}

impl FilterArgs {
    /// The filters given, as flags (`--model m --since 7d`), for the log.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (flag, v) in [("--since", &self.since), ("--until", &self.until)] {
            if let Some(v) = v {
                parts.push(format!("{flag} {v}"));
            }
        }
        for (flag, vs) in [
            ("--model", &self.model),
            ("--catalogue", &self.catalogue),
            ("--task", &self.task),
            ("--phase", &self.phase),
            ("--run", &self.run),
            ("--tag", &self.tag),
        ] {
            parts.extend(vs.iter().map(|v| format!("{flag} {v}")));
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            crate::text::escape(&parts.join(" ")).into_owned()
        }
    }
}

/// Runs the command line and maps errors to exit codes.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = log::init(cli.global.log.as_deref(), cli.global.log_level.as_deref()) {
        return fail(e);
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => fail(e),
    }
}

/// Prints the error (escaped) and exits 2.
fn fail(e: Error) -> ExitCode {
    let msg = e.to_string();
    match e {
        Error::Input(_) => eprintln!("{}", crate::text::escape_multiline(&msg)),
        _ => eprintln!("rung: {}", crate::text::escape_multiline(&msg)),
    }
    ExitCode::from(2)
}

fn run(cli: Cli) -> Result<ExitCode> {
    let g = &cli.global;
    let start = Instant::now();
    let (name, result) = match cli.command {
        Some(Command::Import(args)) => ("import", import::run(g, &args).map(|_| ExitCode::SUCCESS)),
        Some(Command::Report(args)) => ("report", report::run(g, &args).map(|_| ExitCode::SUCCESS)),
        Some(Command::Explain(args)) => {
            ("explain", explain::run(g, &args).map(|_| ExitCode::SUCCESS))
        }
        Some(Command::Check(args)) => ("check", check::run(g, &args)),
        Some(Command::Compare(args)) => ("compare", compare::run(g, &args)),
        Some(Command::Diff(args)) => ("diff", diff::run(g, &args).map(|_| ExitCode::SUCCESS)),
        Some(Command::Export(args)) => ("export", export::run(g, &args).map(|_| ExitCode::SUCCESS)),
        Some(Command::Reclassify) => ("reclassify", reclassify(g).map(|_| ExitCode::SUCCESS)),
        Some(Command::Serve(args)) => ("serve", serve::run(g, &args).map(|_| ExitCode::SUCCESS)),
        None => (
            "open",
            mistyped_command(&cli.paths)
                .and_then(|_| open(g, &cli.paths))
                .map(|_| ExitCode::SUCCESS),
        ),
    };
    let elapsed_ms = log::elapsed_ms(start);
    match &result {
        // Only `check` and `compare --gate` end with another code than 0: 1,
        // a bound or the gate failed.
        Ok(code) => tracing::info!(
            command = name,
            elapsed_ms,
            exit = if *code == ExitCode::SUCCESS { 0 } else { 1 },
            "command done"
        ),
        Err(e) => tracing::error!(
            command = name,
            elapsed_ms,
            exit = 2,
            error = %crate::text::escape_multiline(&e.to_string()),
            "command failed"
        ),
    }
    result
}

/// `rung reprot ladder`: a first path that does not exist and reads like a
/// misspelt command is a usage error that names the command, rather than a
/// file that cannot be read.
fn mistyped_command(paths: &[PathBuf]) -> Result<()> {
    use clap::CommandFactory;
    let Some(first) = paths.first() else {
        return Ok(());
    };
    if first.symlink_metadata().is_ok() {
        return Ok(());
    }
    let word = first.to_string_lossy();
    let cmd = Cli::command();
    let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
    let near = names
        .iter()
        .map(|n| (edit_distance(&word.to_lowercase(), n), *n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min();
    match near {
        Some((_, name)) => Err(Error::usage(format!(
            "{}: no such command or file; did you mean `rung {name}`? (commands: {})",
            crate::text::echo(&word),
            names.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The Levenshtein distance between `a` and `b` (in characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// `rung [PATH...]`: import what is given, then open the TUI.
fn open(g: &Global, paths: &[PathBuf]) -> Result<()> {
    if !paths.is_empty() {
        let args = import::ImportArgs {
            paths: paths.to_vec(),
            format: "auto".to_string(),
            ..Default::default()
        };
        import::run(g, &args)?;
    }
    // The TUI's own requests and errors are for its worker to log.
    tracing::info!(db = %g.db.display(), "tui start");
    let result = crate::tui::run(&crate::tui::Settings {
        db: g.db.clone(),
        no_redact: g.no_redact,
        no_mouse: g.no_mouse,
        config: g.config.clone(),
    });
    tracing::info!(ok = result.is_ok(), "tui end");
    result
}

fn reclassify(g: &Global) -> Result<()> {
    if !g.db.exists() {
        return Err(Error::usage(format!(
            "no database at {}: nothing to reclassify",
            g.db.display()
        )));
    }
    let busy = |e| crate::store::explain_busy(e, &g.db);
    let store = Store::open_rw(&g.db).map_err(busy)?;
    if let Some(path) = &g.config {
        store.set_config(&load_config(path)?).map_err(busy)?;
    }
    let n = crate::store::reclassify_all(&store).map_err(busy)?;
    tracing::info!(runs = n, "reclassified");
    if !g.quiet {
        eprintln!("reclassified {n} runs");
    }
    Ok(())
}

/// Reads a configuration file, its `[keys]` table (the TUI's) checked too,
/// so that a bad one is refused before it is stored.
pub fn load_config(path: &std::path::Path) -> Result<Config> {
    let config = Config::load(path)?;
    crate::tui::keymap_of(&config, path)?;
    Ok(config)
}

/// Opens the database for reading, with the output format's conventions.
pub fn open_read(g: &Global) -> Result<Store> {
    Store::open_ro(&g.db)
}

pub fn print(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The format flag's default and values.
pub fn default_format() -> Format {
    Format::Table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_command_is_named() {
        assert_eq!(edit_distance("reprot", "report"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("explian", "explain"), 2);
        let err = |w: &str| {
            mistyped_command(&[PathBuf::from(w)])
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(
            err("reprot").as_deref(),
            Some(
                "\"reprot\": no such command or file; did you mean `rung report`? (commands: import, report, explain, check, compare, diff, reclassify, export, serve)"
            )
        );
        assert!(err("imprt").unwrap().contains("`rung import`"));
        assert!(err("Explain").unwrap().contains("`rung explain`"));
        assert!(err("compre").unwrap().contains("`rung compare`"));
        // Not like any command: left to the import to say it cannot read it.
        assert_eq!(err("traces/week-47.jsonl"), None);
        assert_eq!(err("zzzzzz"), None);
        // A file that exists is a file, whatever its name.
        assert_eq!(err("Cargo.toml"), None);
    }
}
