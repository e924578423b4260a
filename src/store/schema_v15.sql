-- rung schema, version 15: the counts kept for the screens say which of
-- their verdicts have no run. Documented in docs/schema.md.
--
-- `agg_keys.runless` is 1 for the verdicts whose decision or run is not
-- stored (a row deleted with `sqlite3`): counted with no model, they are
-- in every count without a run-level filter and in none with one. Where
-- no key is runless, a tag that every stored run has keeps every verdict,
-- and the counts answer it as if it were not given (src/store/agg/read.rs).
ALTER TABLE agg_keys ADD COLUMN runless INTEGER NOT NULL DEFAULT 0;

-- A key with no model may hold such verdicts: its day is counted again by
-- the upgrade (src/store/mod.rs), which splits them off.
INSERT OR IGNORE INTO agg_dirty
SELECT DISTINCT CASE WHEN day IS NULL THEN -2147483648 ELSE day END
FROM agg_keys WHERE whole = 0 AND model IS NULL;
