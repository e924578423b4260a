-- rung schema, version 13: the runs as the Runs screen lists them, in an
-- index of their own. Documented in docs/schema.md.
--
-- * `runs_sort` holds every column the Runs screen shows and sorts by,
--   and the goal its fuzzy filter matches (a page by run id is a range of
--   it; the filter reads it in its order). A run's goal is stored twice.
--   No index can order runs by those keys (they read NULL as a value), so
--   a page sorted by any of them reads every run; this index lets it read
--   a few tens of bytes a run instead of the whole row (goal, source,
--   tags, controls: about 400 bytes), which is most of the wait when the
--   file is not in the page cache (at 5,000,000 decisions, 70 MB instead
--   of the 197 MB the runs table takes).
-- * Decisions' `record_hash` is written as the first 16 bytes of its
--   SHA-256 from this version on (the 32 of earlier versions are kept and
--   compared whole): src/store/import/identity.rs.

-- Led by the run id, so that a scan meets the runs in run id order, not
-- in the order of the key sorted by: the rows nearest a run, or the first
-- of a sort, are then kept with few changes (met in the key's own order,
-- one direction would replace a kept row at every row read).
CREATE INDEX runs_sort ON runs (run_id, task_id, trial, model, catalogue, decisions,
    first_failed_rung, success, harm, as_expected, goal);
