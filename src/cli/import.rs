//! `rung import`: one batch, one transaction, a progress line on a terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Args;

use super::{Global, log};
use crate::error::{InputError, Result};
use crate::ingest::{self, Progress};
use crate::store::{Batch, ImportOptions, ImportSummary, Store};
use crate::text::{escape, escape_multiline, human_bytes};

#[derive(Debug, Args, Default, Clone)]
pub struct ImportArgs {
    /// Trace files or folders; - for stdin. A folder means its *.jsonl and
    /// *.jsonl.gz files at any depth (for auto and rung); name the format
    /// to read other files from a folder: *.json, *.jsonl and their .gz for
    /// the importers, *.traj for swe-agent, *.eval for inspect. A folder
    /// with none of them is an error (exit 2) that says what it holds.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Skip bad records (each reported with file:line and why) and store the rest.
    #[arg(long)]
    pub keep_going: bool,
    /// A record whose key exists with different content replaces the stored one.
    #[arg(long)]
    pub replace: bool,
    /// The input format: auto (detect each file), rung, otlp, langfuse,
    /// openai, openai-responses, anthropic, gemini, tau-bench, swe-agent, inspect
    /// (.json or zipped .eval logs), messages (a bare list of chat
    /// messages) or bfcl (BFCL's question, possible-answer, result and score
    /// files, read together). See docs/importers.md and docs/bfcl.md.
    #[arg(long, default_value = "auto", value_name = "FORMAT")]
    pub format: String,
    /// Bind the runs read from other formats (OTLP, transcripts, tau-bench,
    /// SWE-agent) that name no catalogue to this catalogue version, given in
    /// rung format in the same import or already stored.
    #[arg(long, value_name = "VERSION")]
    pub catalogue: Option<String>,
    /// The longest line read (default 256MB): a longer one is an error
    /// naming it. Also bounds a file an importer reads whole, and the
    /// memory one record may take once parsed. Sizes: 65536, 64KB, 1GB.
    #[arg(long, value_name = "SIZE", value_parser = ingest::read::parse_size)]
    pub max_line: Option<usize>,
    /// Read files again that this database has imported before with the
    /// same size, modification time and content (.jsonl, .jsonl.gz, .traj
    /// and .eval files are skipped otherwise).
    #[arg(long)]
    pub force: bool,
}

pub fn run(g: &Global, args: &ImportArgs) -> Result<ImportSummary> {
    let format = ingest::parse_format(&args.format)?;
    if let Some(c) = &args.catalogue
        && c.is_empty()
    {
        return Err(crate::error::Error::usage(
            "--catalogue needs a catalogue version",
        ));
    }
    let read = ingest::ReadOptions {
        format,
        catalogue: args.catalogue.clone(),
        limits: ingest::read::Limits {
            max_line: args.max_line.unwrap_or(ingest::read::DEFAULT_MAX_LINE),
        },
    };
    let sources = ingest::expand(&args.paths, format, &mut |w| {
        tracing::warn!(warning = %crate::text::escape(&w), "skipped in a folder");
        if !g.quiet {
            eprintln!("warning: {}", crate::text::escape(&w));
        }
    })?;
    let config = g.config.as_deref().map(super::load_config).transpose()?;
    // A database this import creates is removed again if the import fails.
    let created = !g.db.exists();
    let store = match Store::open_rw(&g.db) {
        Ok(s) => s,
        Err(e) => {
            if created {
                crate::store::remove_if_unused(&g.db);
            }
            return Err(crate::store::explain_busy(e, &g.db));
        }
    };
    // Files imported before, unchanged, are not read again.
    let (sources, fingerprints, unchanged) = unchanged_left_out(args, format, &store, sources)?;
    if created {
        // Nobody can be reading a database this import creates: write it
        // with a rollback journal, so that its pages are written once (not
        // to the WAL and then again into the file); WAL mode is back at
        // the end. When another rung opened it meanwhile, WAL mode stays.
        let _ = store
            .conn
            .query_row("PRAGMA journal_mode = DELETE", [], |r| {
                r.get::<_, String>(0)
            });
    }
    let progress = Arc::new(Progress::default());
    let total: u64 = sources
        .iter()
        .filter_map(|s| s.path.as_ref())
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    progress.total_bytes.store(total, Ordering::Relaxed);
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    tracing::info!(
        sources = sources.len(),
        bytes = total,
        format = %escape_multiline(&args.format),
        keep_going = args.keep_going,
        replace = args.replace,
        catalogue = args.catalogue.as_deref().map(|c| escape_multiline(c).into_owned()),
        "import start"
    );
    // A live bar on a terminal; with -v and no terminal, a line a second
    // (logs, and scripts that want to know the import is under way).
    let terminal = std::io::stderr().is_terminal();
    let mode = match (g.quiet, terminal, g.verbose > 0) {
        (true, _, _) | (false, false, false) => None,
        (false, true, _) => Some(ProgressMode::Bar),
        (false, false, true) => Some(ProgressMode::Lines),
    };
    let bar = mode.map(|m| spawn_progress(progress.clone(), stop.clone(), m));

    let opts = ImportOptions {
        keep_going: args.keep_going,
        replace: args.replace,
    };
    let described: Vec<&str> = sources.iter().map(|s| s.display.as_str()).collect();
    let quiet = g.quiet;
    // The files a skipped record came from: their fingerprints are not
    // recorded, so that the next import reads them again.
    let skipped_in = std::cell::RefCell::new(SkippedIn::default());
    let mut skip = |e: &InputError| {
        skipped_in.borrow_mut().add(e.path.as_deref());
        let e = escape_multiline(&e.to_string()).into_owned();
        tracing::warn!(error = %e, "skipped a bad record");
        eprintln!("skipped: {e}");
    };
    let mut dropped = 0u64;
    let list_drops = g.verbose > 0 || args.keep_going;
    let mut drop_part = |e: &InputError| {
        dropped += 1;
        let e = escape_multiline(&e.to_string()).into_owned();
        tracing::warn!(error = %e, "dropped a part the importer could not map");
        if list_drops {
            eprintln!("dropped: {e}");
        }
    };
    let result = (|| -> Result<(ImportSummary, Vec<String>)> {
        let (mut batch, changed) =
            Batch::begin_with(&store, opts, &described.join("\n"), config.as_ref())?;
        // Said once the import holds the database: a locked one is the
        // only thing said then.
        for file in &unchanged {
            let file = escape(file);
            tracing::info!(source = %file, "unchanged since imported: skipped");
            if !quiet {
                eprintln!(
                    "skipped {file}: imported before, unchanged (same size, modification time and content); --force reads it again"
                );
            }
        }
        if changed {
            tracing::info!("the configuration changed: everything stored is classified again");
        }
        if changed && !quiet {
            eprintln!("the configuration changed: everything stored is classified again");
        }
        if format == Some(ingest::Format::Bfcl) {
            // BFCL's questions, answers and results only make runs together.
            ingest::bfcl::read_all(
                &mut batch,
                &sources,
                &read,
                &progress,
                &mut skip,
                &mut drop_part,
            )?;
            return Ok((batch.finish(&mut skip)?, Vec::new()));
        }
        // Recorded request and response bodies of one conversation are
        // read together; every other source on its own.
        let notes = ingest::recordings::read_all(
            &mut batch,
            &sources,
            &read,
            &progress,
            &mut skip,
            &mut drop_part,
        )?;
        let summary = batch.finish_and_record(&mut skip, &mut |batch| {
            let skipped_in = skipped_in.borrow();
            for (display, path, fp) in &fingerprints {
                if skipped_in.clean(display) {
                    batch.record_source(path, fp)?;
                }
            }
            Ok(())
        })?;
        Ok((summary, notes))
    })();
    stop.store(true, Ordering::Relaxed);
    if let Some(h) = bar {
        let _ = h.join();
    }
    let (summary, notes) = match result {
        Ok(s) => s,
        Err(e) => {
            drop(store);
            if created {
                crate::store::remove_if_unused(&g.db);
            }
            return Err(crate::store::explain_busy(e, &g.db));
        }
    };
    let c = |n: &crate::store::Counts| {
        format!(
            "{} new, {} replaced, {} unchanged",
            n.new, n.replaced, n.unchanged
        )
    };
    tracing::info!(
        catalogues = %c(&summary.catalogues),
        runs = %c(&summary.runs),
        decisions = %c(&summary.decisions),
        cases = %c(&summary.cases),
        skipped = summary.skipped,
        dropped,
        tools_changed = summary.tools_changed,
        reclassified_runs = summary.reclassified_runs,
        unknown_types = summary.unknown_types.len(),
        warnings = summary.warnings.len(),
        elapsed_ms = log::elapsed_ms(start),
        "import end"
    );
    if created {
        let _ = store
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0));
    }
    let _ = store.conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)");
    if !g.quiet {
        report(&summary, sources.len());
        for n in &notes {
            eprintln!("note: {}", escape_multiline(n));
        }
        if dropped > 0 {
            eprintln!(
                "dropped {dropped} part{} the importers could not map ({}); the rest was imported",
                if dropped == 1 { "" } else { "s" },
                if list_drops {
                    "listed above"
                } else {
                    "-v lists each"
                }
            );
        }
    }
    Ok(summary)
}

/// The files that records skipped under `--keep-going` came from.
#[derive(Default)]
struct SkippedIn {
    files: std::collections::HashSet<String>,
    /// A skipped record named no file.
    unnamed: bool,
}

impl SkippedIn {
    fn add(&mut self, path: Option<&str>) {
        match path {
            Some(p) => {
                self.files.insert(p.to_string());
            }
            None => self.unnamed = true,
        }
    }

    /// Whether no skipped record came (or may have come) from `file`.
    fn clean(&self, file: &str) -> bool {
        !self.unnamed && !self.files.contains(file)
    }
}

/// Leaves out the files this database imported before and that have not
/// changed since (same size, modification time and content, read with the
/// same `--format` and `--catalogue`), saying so,
/// unless `--force` or `--replace` (which means to make the stored records
/// the file's); returns the sources to read, the fingerprints of the files
/// among them to record (by the name sources are shown by, and the
/// absolute path), and the files left out. BFCL's files are read together,
/// and recorded request and response bodies (`.json`, `.txt`, ...) may
/// join a conversation: only files read on their own (`.jsonl`,
/// `.jsonl.gz`, `.traj`, `.eval`, named so in lower case as the folder
/// walk and the recordings' scan know them) are skipped.
type Fingerprinted = Vec<(String, String, ingest::fingerprint::Fingerprint)>;

fn unchanged_left_out(
    args: &ImportArgs,
    format: Option<ingest::Format>,
    store: &Store,
    sources: Vec<ingest::Source>,
) -> Result<(Vec<ingest::Source>, Fingerprinted, Vec<String>)> {
    let mut fingerprints = Vec::new();
    let mut unchanged = Vec::new();
    if format == Some(ingest::Format::Bfcl) {
        return Ok((sources, fingerprints, unchanged));
    }
    // What changes the records a file yields besides its content.
    let how = format!(
        "format {}\ncatalogue {:?}",
        args.format.to_ascii_lowercase(),
        args.catalogue
    );
    let mut kept = Vec::with_capacity(sources.len());
    for s in sources {
        let fp = s
            .path
            .as_deref()
            .filter(|p| read_alone(p))
            .and_then(ingest::fingerprint::Fingerprint::of)
            .map(|fp| fp.read_as(&how));
        let Some(fp) = fp else {
            kept.push(s);
            continue;
        };
        if !args.force && !args.replace && crate::store::imported_before(store, &fp)?.is_some() {
            unchanged.push(s.display);
            continue;
        }
        let path = s.path.as_deref().map(|p| {
            std::path::absolute(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string()
        });
        if let Some(path) = path {
            fingerprints.push((s.display.clone(), path, fp));
        }
        kept.push(s);
    }
    Ok((kept, fingerprints, unchanged))
}

/// Whether a file is read on its own (never joined with others).
fn read_alone(p: &std::path::Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str());
    name.is_some_and(|n| ingest::is_trace_file(p) || n.ends_with(".traj") || n.ends_with(".eval"))
}

fn report(s: &ImportSummary, files: usize) {
    let c = |n: &crate::store::Counts, what: &str| {
        let what = if n.new == 1 {
            &what[..what.len() - 1]
        } else {
            what
        };
        let mut t = format!("{} {what}", n.new);
        if n.replaced > 0 {
            t.push_str(&format!(" (+{} replaced)", n.replaced));
        }
        t
    };
    eprintln!(
        "imported {}, {}, {}, {} from {files} file{}",
        c(&s.catalogues, "catalogues"),
        c(&s.runs, "runs"),
        c(&s.decisions, "decisions"),
        c(&s.cases, "cases"),
        if files == 1 { "" } else { "s" }
    );
    let unchanged =
        s.catalogues.unchanged + s.runs.unchanged + s.decisions.unchanged + s.cases.unchanged;
    if unchanged > 0 {
        eprintln!("{unchanged} records were already stored unchanged");
    }
    if s.tools_added_later > 0 {
        eprintln!(
            "{} tool{} added to a catalogue version stored before",
            s.tools_added_later,
            if s.tools_added_later == 1 { "" } else { "s" }
        );
    }
    if s.tools_changed > 0 {
        eprintln!(
            "{} tool definitions changed under an existing catalogue version: kept apart, see `rung report findings`",
            s.tools_changed
        );
    }
    eprintln!(
        "classified {} run{}",
        s.reclassified_runs,
        if s.reclassified_runs == 1 { "" } else { "s" }
    );
    for (ty, (n, first)) in &s.unknown_types {
        eprintln!(
            "note: ignored {n} record{} of unknown type {} (first at {})",
            if *n == 1 { "" } else { "s" },
            crate::text::echo(ty),
            escape_multiline(first)
        );
    }
    for w in &s.warnings {
        eprintln!("warning: {}", escape_multiline(w));
    }
    if s.skipped > 0 {
        eprintln!(
            "skipped {} bad record{}",
            s.skipped,
            if s.skipped == 1 { "" } else { "s" }
        );
    }
}

/// Draws `bytes · decisions · rate` on stderr every 100 ms once the import
/// has taken more than half a second; clears the line at the end.
#[derive(Clone, Copy, PartialEq)]
enum ProgressMode {
    Bar,
    Lines,
}

fn spawn_progress(
    p: Arc<Progress>,
    stop: Arc<AtomicBool>,
    mode: ProgressMode,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let start = Instant::now();
        let mut drawn = false;
        let mut last_line = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if start.elapsed() < Duration::from_millis(500) {
                continue;
            }
            if mode == ProgressMode::Lines {
                if last_line.elapsed() >= Duration::from_secs(1) {
                    last_line = Instant::now();
                    eprintln!(
                        "importing: {} decisions written, {} read",
                        p.decisions.load(Ordering::Relaxed),
                        human_bytes(p.bytes.load(Ordering::Relaxed))
                    );
                }
                continue;
            }
            let bytes = p.bytes.load(Ordering::Relaxed);
            let total = p.total_bytes.load(Ordering::Relaxed);
            let decisions = p.decisions.load(Ordering::Relaxed);
            let rate = decisions as f64 / start.elapsed().as_secs_f64();
            let of = if total > 0 {
                format!(
                    " / {} ({:.0}%)",
                    human_bytes(total),
                    bytes as f64 * 100.0 / total as f64
                )
            } else {
                String::new()
            };
            eprint!(
                "\r\x1b[2Kimporting {}{of} · {decisions} decisions · {rate:.0} decisions/s",
                human_bytes(bytes)
            );
            drawn = true;
        }
        if drawn {
            eprint!("\r\x1b[2K");
        }
    })
}
