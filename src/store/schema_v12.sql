-- rung schema, version 12: the confusion cells kept, for the Ladder
-- screen's confusion panel and `rung report confusions`. Documented in
-- docs/schema.md.
--
-- * `agg_confusions` counts, per `agg_keys` key, the SELECTION failures
--   by their acceptable list (an `agg_names` id naming the list's JSON
--   text: its names sorted by code point, each once) and the tool selected
--   instead (an `agg_names` id; -1 for none). Counted with the other
--   tables whenever a day is listed in `agg_dirty`; the upgrade counts
--   every stored day again (src/store/mod.rs).

CREATE TABLE agg_confusions (
    key        INTEGER NOT NULL,
    acceptable INTEGER NOT NULL,
    selected   INTEGER NOT NULL,
    decisions  INTEGER NOT NULL,
    PRIMARY KEY (key, acceptable, selected)
) WITHOUT ROWID;

-- The runs by task hold each run's success too, and the runs with
-- expectations have an index of their own, so that `rung report metrics`
-- (pass^k, the expectation metrics) reads a few megabytes instead of every
-- run's row (hundreds of megabytes at millions of decisions, read from
-- disk when the file is not in the page cache).
DROP INDEX runs_task;
CREATE INDEX runs_task ON runs (task_id, success);
CREATE INDEX runs_expected ON runs (as_expected) WHERE as_expected IS NOT NULL;
