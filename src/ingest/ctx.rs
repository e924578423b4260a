//! One source being read by an importer: skipping or failing on a bad
//! record, and reading a whole document with the detected importer.

use super::*;

/// One source being read by an importer.
pub(super) struct Ctx<'b, 'c, S> {
    pub(super) batch: &'b mut S,
    pub(super) source: &'c Source,
    pub(super) opts: &'c ReadOptions,
    pub(super) progress: &'c Progress,
    pub(super) skip: &'c mut dyn FnMut(&InputError),
    pub(super) dropped: &'c mut dyn FnMut(&InputError),
}

impl<S: RecordSink> Ctx<'_, '_, S> {
    pub(super) fn keep_going(&self) -> bool {
        self.batch.keep_going()
    }

    /// A bad record: skipped with --keep-going, else the import's error.
    pub(super) fn bad(&mut self, e: InputError) -> Result<()> {
        if self.keep_going() {
            self.batch.skipped();
            (self.skip)(&e);
            Ok(())
        } else {
            Err(e.into())
        }
    }

    /// Reads the whole source as JSON (one document, or JSON Lines) and
    /// maps each value with the given or detected importer.
    /// `bytes` holds what was read already, from line `skipped + 1` on.
    pub(super) fn documents(
        &mut self,
        reader: &mut dyn BufRead,
        mut bytes: Vec<u8>,
        skipped: u64,
        format: Option<Format>,
        rung_why: &str,
    ) -> Result<()> {
        let display = self.source.display.clone();
        let limits = self.opts.limits;
        if !read_whole(reader, &mut bytes, &display, &limits)? {
            return self.bad(too_large(&display, &limits));
        }
        let doc = Doc::starting_after(&bytes, skipped);
        if let Err(e) = read::check_json(&bytes, &limits) {
            let line = doc.line_of(e.offset);
            return self.bad(InputError::at(&display, Some(line), None, e.message));
        }
        let mut format = format;
        let mut spans = otlp::Collector::default();
        for (i, (start, end)) in doc.values().into_iter().enumerate() {
            let line = doc.line_of(start);
            let value: Value = match serde_json::from_slice(&bytes[start..end]) {
                Ok(v) => v,
                Err(e) => {
                    let at = line + e.line().saturating_sub(1) as u64;
                    let what = format!(
                        "invalid JSON at column {}: {}",
                        e.column(),
                        strip_position(&e.to_string())
                    );
                    if format.is_none() && i == 0 {
                        let e = InputError::at(
                            &display,
                            None,
                            None,
                            format!(
                                "matches no known trace format: {rung_why} (rung), and it is not JSON either (line {at}: {what}); every other format is JSON"
                            ),
                        );
                        return self.bad(e);
                    }
                    self.bad(InputError::at(&display, Some(at), None, what))?;
                    continue;
                }
            };
            let f = match format {
                Some(f) => f,
                None => match detect::detect(&value, rung_why) {
                    Ok(Some(f)) => {
                        format = Some(f);
                        f
                    }
                    Ok(None) => continue,
                    Err(why) => return self.bad(InputError::at(&display, None, None, why)),
                },
            };
            let mut out = Out::default();
            // A value is one record, or a list of them.
            let records: Vec<(usize, &Value)> = match &value {
                Value::Array(items) if f.splits(&value) => {
                    let at = doc.items(start);
                    items
                        .iter()
                        .enumerate()
                        .map(|(k, v)| (at.get(k).copied().unwrap_or(start), v))
                        .collect()
                }
                other => vec![(start, other)],
            };
            // A crashed tau-bench run records no conversation to name its
            // environment: it takes its file's.
            let tau_env = match f {
                Format::TauBench => tau_bench::file_environment(records.iter().map(|(_, v)| *v)),
                _ => None,
            };
            for (off, rec) in records {
                let rline = doc.line_of(off);
                let mapped = match f {
                    Format::Otlp => spans.add(&doc, off, rec, &mut out),
                    Format::Langfuse => langfuse::add(&mut spans, &doc, off, rec, &mut out),
                    Format::TauBench => {
                        let lines = doc.item_lines(off, "traj");
                        tau_bench::map(rec, rline, &lines, tau_env.as_deref(), &mut out)
                    }
                    Format::OpenAi => {
                        let at = doc.item_lines(off, openai::list_key(rec));
                        openai::map(rec, rline, &at, &mut out)
                    }
                    Format::Anthropic => {
                        anthropic::map(rec, rline, &doc.item_lines(off, "messages"), &mut out)
                    }
                    Format::SweAgent => {
                        swe_agent::map(rec, rline, &doc.item_lines(off, "history"), &mut out)
                    }
                    Format::OpenAiResponses => responses::map(&doc, off, rec, &mut out),
                    Format::Gemini => gemini::map(&doc, off, rec, &mut out),
                    Format::Inspect => inspect::map(&doc, off, rec, &mut out),
                    Format::Messages => messages::map(rec, rline, &doc.array_lines(off), &mut out),
                    Format::Rung => Err("rung traces stream (read_native)".into()),
                    Format::Bfcl => Err("BFCL files are read together (bfcl::read_all)".into()),
                };
                if let Err(why) = mapped {
                    self.bad(InputError::at(&display, Some(rline), None, why))?;
                }
            }
            self.commit(out, f.drops())?;
        }
        let mut out = Out::default();
        let from = match format {
            Some(Format::Langfuse) => otlp::Source::Langfuse,
            _ => otlp::Source::Otlp,
        };
        spans.finish(from, &mut out);
        self.commit(out, Drops::Counted)
    }

    /// Reads a zipped Inspect log: its header, then each sample, named in
    /// messages as `FILE/samples/NAME.json`.
    /// The archive is read whole, and each entry decompressed, only up to
    /// `--max-line`; an entry's JSON is checked like a line's before it is
    /// parsed.
    pub(super) fn eval_archive(&mut self, reader: &mut dyn BufRead) -> Result<()> {
        let display = self.source.display.clone();
        let limits = self.opts.limits;
        let mut bytes = Vec::new();
        if !read_whole(reader, &mut bytes, &display, &limits)? {
            return self.bad(too_large(&display, &limits));
        }
        let at = |name: &str| format!("{display}/{name}");
        let mut archive = match inspect::Archive::open(&bytes, limits.max_line as u64) {
            Ok(a) => a,
            Err(why) => return self.bad(InputError::at(&display, None, None, why)),
        };
        let Some(header_name) = archive.header_name() else {
            let why = "not an Inspect .eval log: it holds no header.json (nor _journal/start.json)";
            return self.bad(InputError::at(&display, None, None, why));
        };
        let parse = |data: &[u8], name: &str| {
            if let Err(e) = read::check_json(data, &limits) {
                let line = Doc::new(data).line_of(e.offset);
                return Err(InputError::at(&at(name), Some(line), None, e.message));
            }
            serde_json::from_slice::<Value>(data).map_err(|e| {
                InputError::at(
                    &at(name),
                    Some(e.line() as u64),
                    None,
                    format!(
                        "invalid JSON at column {}: {}",
                        e.column(),
                        strip_position(&e.to_string())
                    ),
                )
            })
        };
        let header = match archive
            .read(&header_name)
            .map_err(|why| InputError::at(&display, None, None, why))
        {
            Ok(data) => parse(&data, &header_name),
            Err(e) => Err(e),
        };
        let header = match header {
            Ok(h) => h,
            Err(e) => return self.bad(e),
        };
        if let Some(why) = inspect::check(&header).first() {
            let e = InputError::at(
                &at(&header_name),
                Some(1),
                None,
                format!("not an Inspect log: {why}"),
            );
            return self.bad(e);
        }
        for name in archive.sample_names() {
            let data = match archive.read(&name) {
                Ok(d) => d,
                Err(why) => {
                    self.bad(InputError::at(&display, None, None, why))?;
                    continue;
                }
            };
            let value = match parse(&data, &name) {
                Ok(v) => v,
                Err(e) => {
                    self.bad(e)?;
                    continue;
                }
            };
            let doc = Doc::new(&data);
            let start = doc.skip_ws(0);
            let mut out = Out::default();
            if let Err(why) = inspect::map_sample(&header, &doc, start, &value, &mut out) {
                self.bad(InputError::at(
                    &at(&name),
                    Some(doc.line_of(start)),
                    None,
                    why,
                ))?;
                continue;
            }
            self.commit_as(out, &at(&name), Format::Inspect.drops())?;
        }
        Ok(())
    }

    /// Feeds what an importer produced through validation into the batch.
    pub(super) fn commit(&mut self, out: Out, drops: Drops) -> Result<()> {
        let display = self.source.display.clone();
        self.commit_as(out, &display, drops)
    }

    /// [`Ctx::commit`], naming the records' source `display`.
    fn commit_as(&mut self, out: Out, display: &str, drops: Drops) -> Result<()> {
        let display = display.to_string();
        for d in out.dropped {
            let mut e = InputError {
                path: Some(display.clone()),
                line: Some(d.line),
                record: d.record,
                message: d.message,
            };
            if drops == Drops::Counted || self.keep_going() {
                (self.dropped)(&e);
            } else {
                e.message
                    .push_str(" (--keep-going imports the rest and lists each part it dropped)");
                return Err(e.into());
            }
        }
        for m in out.records {
            let mut value = m.value;
            let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
            let is_decision = ty == "decision";
            if ty == "run"
                && let Some(c) = &self.opts.catalogue
                && let Value::Object(o) = &mut value
            {
                o.entry("catalogue")
                    .or_insert_with(|| Value::String(c.clone()));
            }
            match add_value(self.batch, value, &display, m.line)? {
                Ok(()) => {
                    if is_decision {
                        self.progress.decisions.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Err(mut e) => {
                    if let Some(c) = m.context {
                        e.record = Some(match e.record {
                            Some(r) => format!("{r} ({c})"),
                            None => c,
                        });
                    }
                    self.bad(e)?;
                }
            }
        }
        Ok(())
    }
}
