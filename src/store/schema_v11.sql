-- rung schema, version 11: each run's menu budget and findings kept, for
-- `rung report budget` and the findings summary. Documented in
-- docs/schema.md.
--
-- `agg_runs` holds one row per run with a decision or a finding, counted
-- again with the run's findings (src/store/agg/findings.rs: whenever a day
-- of its verdicts is listed in `agg_dirty`, or the run in
-- `agg_finding_runs`). Rung's own, never the source of anything
-- (src/store/agg/runs.rs).
--
-- * `day`: the UTC day (`time_us` / 86400000000 rounded down) of every
--   verdict of the run, -2147483648 when none has a time; NULL when the
--   run is read the long way instead: its verdicts fall on more than one
--   day (a window may cut it), it has none, or a finding of it names a
--   step it has no verdict for, or a stored menu of it cannot be read (the
--   long way names the damaged row).
-- * `model`: the run's model, an `agg_names` id (NULL for none).
-- * `counts`: the run's budget, per catalogue (a `catalogue_ids` id) its
--   turns as `rung report budget` counts them (each turn once: tools
--   visible and definition tokens, each as an ascending list), whether its
--   menu changed and its `menu_changed` findings on that catalogue; then
--   its findings counted by kind (a `finding_kinds` id) and tool (an
--   `agg_names` id, or none). LEB128 varints (the layout is in
--   src/store/agg/runs.rs).

CREATE TABLE agg_runs (
    run_id   TEXT PRIMARY KEY,
    day      INTEGER,
    model    INTEGER,
    counts   BLOB NOT NULL
) WITHOUT ROWID;

-- The runs read the long way (few).
CREATE INDEX agg_runs_long ON agg_runs (run_id) WHERE day IS NULL;

-- The runs of a day, looked up when the day's counts are counted again.
CREATE INDEX agg_runs_day ON agg_runs (day) WHERE day IS NOT NULL;

-- A decision's turn decides which of its run's decisions make a turn.
CREATE TRIGGER agg_decision_turn AFTER UPDATE OF turn ON decision_rows
WHEN OLD.turn IS NOT NEW.turn
BEGIN
    INSERT OR IGNORE INTO agg_finding_runs VALUES (NEW.run_id);
    INSERT OR IGNORE INTO agg_dirty VALUES (-2147483648);
END;
