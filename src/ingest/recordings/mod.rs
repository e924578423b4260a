//! Recorded HTTP bodies, as VCR cassettes hold them once turned into files:
//! each request a model API received and each response it sent, one body
//! per file (OpenAI Chat Completions and Responses, Anthropic Messages,
//! Gemini `generateContent`).
//!
//! Read alone, a request is the conversation so far and a response one
//! turn. Read together, the bodies of one conversation make one run: each
//! response's calls are decisions, answered by the tool results the next
//! request sends (see [`pair`] for how bodies are found to belong
//! together). A recordings index (`index.json`, naming each recording's
//! request and response files) pairs them and is not imported itself.

pub mod body;
mod join;
pub mod pair;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::convo::{Dropped, Mapped, Out};
use super::locate::Doc;
use super::read::{self, Limits};
use super::{
    Progress, ReadOptions, RecordSink, Source, feed, is_trace_file, read_source, read_whole,
    too_large,
};
use crate::error::{InputError, Result};
use body::Api;
use join::Loaded;
use pair::{Pooled, Step};

/// Bodies larger than this are read as files of their own: recorded HTTP
/// bodies are small, and a file is held whole while it is looked at.
const MAX_BODY: u64 = 16 << 20;

/// The most a body may hold to be paired: [`MAX_BODY`], or `--max-line`
/// when that is lower.
fn max_body(limits: &Limits) -> usize {
    limits.max_line.min(MAX_BODY as usize)
}

/// A file's JSON value, when it is a small, plain (not gzip) file holding
/// exactly one within the limits. Read bounded (a file that grew since its
/// size was seen is not read past the limit) and checked before it is
/// parsed; anything else is left to be read on its own, which reports it.
fn read_small(path: &Path, limits: &Limits) -> Option<Value> {
    let max = max_body(limits);
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max as u64 {
        return None;
    }
    let mut bytes = Vec::new();
    let mut file = BufReader::new(std::fs::File::open(path).ok()?);
    if !read::read_document(&mut file, &mut bytes, max).ok()? {
        return None;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    read::check_json(bytes, limits).ok()?;
    serde_json::from_slice(bytes).ok()
}

/// What the sources hold: the bodies to pair, the recordings indexes among
/// them, and the (request, response) pairs those (and any `index.json`
/// beside the bodies) name.
struct Scan {
    pool: Vec<Pooled>,
    indexes: HashSet<usize>,
    index_pairs: Vec<(usize, usize)>,
    /// A file named twice: the later source, and the first.
    again: HashMap<usize, usize>,
}

fn scan(sources: &[Source], opts: &ReadOptions) -> Scan {
    let mut pool = Vec::new();
    let mut indexes = HashSet::new();
    let mut named: Vec<(PathBuf, Vec<(String, String)>)> = Vec::new();
    let mut seen: HashMap<PathBuf, usize> = HashMap::new();
    let mut again = HashMap::new();
    for (i, s) in sources.iter().enumerate() {
        let Some(path) = &s.path else {
            continue;
        };
        if is_trace_file(path) {
            continue;
        }
        let Some(v) = read_small(path, &opts.limits) else {
            continue;
        };
        let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if let Some(&first) = seen.get(&canon) {
            again.insert(i, first);
            continue;
        }
        seen.insert(canon.clone(), i);
        let dir = canon.parent().map(Path::to_path_buf).unwrap_or_default();
        if let Some(pairs) = body::index_pairs(&v) {
            indexes.insert(i);
            named.push((dir, pairs));
        } else if let Some(body) = body::classify(&v, opts.format) {
            pool.push(Pooled {
                src: i,
                path: canon,
                body,
            });
        }
    }
    // An index beside the bodies pairs them even when not named.
    let dirs: BTreeSet<PathBuf> = pool
        .iter()
        .filter_map(|p| p.path.parent().map(Path::to_path_buf))
        .collect();
    for dir in dirs {
        let p = dir.join("index.json");
        if named.iter().any(|(d, _)| *d == dir) || seen.contains_key(&p) {
            continue;
        }
        if let Some(pairs) = read_small(&p, &opts.limits)
            .as_ref()
            .and_then(body::index_pairs)
        {
            named.push((dir, pairs));
        }
    }
    let by_path: HashMap<&Path, usize> = pool
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.as_path(), i))
        .collect();
    let find = |dir: &Path, name: &str| {
        let p = std::fs::canonicalize(dir.join(name)).ok()?;
        by_path.get(p.as_path()).copied()
    };
    let mut index_pairs = Vec::new();
    for (dir, pairs) in &named {
        for (req, resp) in pairs {
            if let (Some(r), Some(s)) = (find(dir, req), find(dir, resp)) {
                index_pairs.push((r, s));
            }
        }
    }
    Scan {
        pool,
        indexes,
        index_pairs,
        again,
    }
}

/// Reads the sources of one import: recorded bodies that belong together
/// as one run per conversation, every other source on its own
/// ([`read_source`]). Returns notes for the import's summary (recordings
/// indexes skipped, bodies joined).
pub fn read_all<S: RecordSink>(
    batch: &mut S,
    sources: &[Source],
    opts: &ReadOptions,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
    dropped: &mut dyn FnMut(&InputError),
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    if opts.format.is_some_and(|f| Api::from_format(f).is_none()) {
        for s in sources {
            read_source(batch, s, opts, progress, skip, dropped)?;
        }
        return Ok(notes);
    }
    let Scan {
        mut pool,
        indexes,
        index_pairs,
        again,
    } = scan(sources, opts);
    let convs: Vec<Vec<Step>> = pair::conversations(&mut pool, &index_pairs)
        .into_iter()
        .filter(|steps| bodies(steps).count() > 1)
        .collect();
    let mut conv_of: HashMap<usize, usize> = HashMap::new();
    for (c, steps) in convs.iter().enumerate() {
        for b in bodies(steps) {
            conv_of.insert(pool[b].src, c);
        }
    }
    let mut done = vec![false; convs.len()];
    for (i, s) in sources.iter().enumerate() {
        // A file named twice is read once when it joined a conversation.
        let first = again.get(&i).copied().unwrap_or(i);
        if first != i && conv_of.contains_key(&first) {
            continue;
        }
        if indexes.contains(&first) {
            if first != i {
                continue;
            }
            notes.push(format!(
                "{}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported",
                crate::text::escape(&s.display)
            ));
            continue;
        }
        match conv_of.get(&i) {
            Some(&c) if !done[c] => {
                done[c] = true;
                let mut r = Reader {
                    batch: &mut *batch,
                    sources,
                    opts,
                    progress,
                    skip: &mut *skip,
                    dropped: &mut *dropped,
                };
                r.conversation(&convs[c], &pool)?;
            }
            Some(_) => {}
            None => read_source(batch, s, opts, progress, skip, dropped)?,
        }
    }
    if !convs.is_empty() {
        let files: usize = convs.iter().map(|c| bodies(c).count()).sum();
        notes.push(format!(
            "read {files} recorded request and response bodies as {} conversation{}, one run each",
            convs.len(),
            if convs.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(notes)
}

/// The bodies of a conversation, in order.
fn bodies(steps: &[Step]) -> impl Iterator<Item = usize> + '_ {
    steps
        .iter()
        .flat_map(|s| s.request.into_iter().chain(s.response))
}

struct Reader<'a, S> {
    batch: &'a mut S,
    sources: &'a [Source],
    opts: &'a ReadOptions,
    progress: &'a Progress,
    skip: &'a mut dyn FnMut(&InputError),
    dropped: &'a mut dyn FnMut(&InputError),
}

impl<S: RecordSink> Reader<'_, S> {
    /// Feeds records or bad records that belong to one source.
    fn feed(&mut self, src: usize, bad: Vec<InputError>, out: Out) -> Result<()> {
        feed(
            self.batch,
            &self.sources[src],
            self.opts,
            self.progress,
            self.skip,
            self.dropped,
            bad,
            out,
        )
    }

    /// Reads one conversation's bodies again, maps them as one run and
    /// feeds each record (and each dropped part) under the file it came
    /// from.
    fn conversation(&mut self, steps: &[Step], pool: &[Pooled]) -> Result<()> {
        // A conversation without bodies has nothing to map.
        let Some(first) = bodies(steps).next() else {
            return Ok(());
        };
        let first_src = pool[first].src;
        let mut loaded = HashMap::new();
        for b in bodies(steps) {
            let src = pool[b].src;
            let source = &self.sources[src];
            // Read again as every source read whole is: bounded by
            // --max-line and checked before it is parsed (the file may
            // have changed since the scan).
            let limits = self.opts.limits;
            let mut opened = super::open(source, self.progress.bytes.clone())?;
            let mut bytes = Vec::new();
            if !read_whole(opened.reader.as_mut(), &mut bytes, &source.display, &limits)? {
                let e = too_large(&source.display, &limits);
                return self.feed(src, vec![e], Out::default());
            }
            if let Err(e) = read::check_json(&bytes, &limits) {
                let line = Doc::new(&bytes).line_of(e.offset);
                let e = InputError::at(&source.display, Some(line), None, e.message);
                return self.feed(src, vec![e], Out::default());
            }
            let side = pool[b].body.side;
            match Loaded::parse(&bytes, pool[b].body.api, side) {
                Some(l) => {
                    loaded.insert(b, l);
                }
                None => {
                    let why =
                        "the file changed while it was imported: it no longer holds one JSON value";
                    let e = InputError::at(&source.display, None, None, why);
                    return self.feed(src, vec![e], Out::default());
                }
            }
        }
        let api = pool[first].body.api;
        let mut out = Out::default();
        if let Err(why) = join::map(api, steps, pool, &loaded, &mut out) {
            let line = loaded[&first].line;
            let e = InputError::at(&self.sources[first_src].display, Some(line), None, why);
            return self.feed(first_src, vec![e], Out::default());
        }
        let at = |line: u64| {
            join::dec(line)
                .filter(|(s, _)| *s < self.sources.len())
                .unwrap_or((first_src, line & u64::from(u32::MAX)))
        };
        let Out { records, dropped } = out;
        for d in dropped {
            let (src, line) = at(d.line);
            let part = Out {
                records: Vec::new(),
                dropped: vec![Dropped { line, ..d }],
            };
            self.feed(src, Vec::new(), part)?;
        }
        for m in records {
            let (src, line) = at(m.line);
            let one = Out {
                records: vec![Mapped { line, ..m }],
                dropped: Vec::new(),
            };
            self.feed(src, Vec::new(), one)?;
        }
        Ok(())
    }
}
