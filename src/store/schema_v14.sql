-- rung schema, version 14: the runs counted by their tags, for the filter
-- bar's completions, and the runs by model with their task and success.
-- Documented in docs/schema.md.
--
-- `agg_tags` holds one row per distinct `runs.tags` text with the number of
-- runs that have it. Runs share few tag sets (16 texts among 500,000 runs
-- in the 5,000,000-decision benchmark), so the filter editor reads a few
-- rows instead of every run (src/store/completion.rs). Kept by the
-- triggers below on every insert, change of `tags` and delete of a run,
-- whoever writes it (an import, `rung reclassify`, `sqlite3`): never out
-- of date, and never the source of anything. A row whose count falls to
-- 0 is removed.

CREATE TABLE agg_tags (
    tags TEXT PRIMARY KEY,
    runs INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO agg_tags (tags, runs)
SELECT tags, count(*) FROM runs WHERE tags IS NOT NULL GROUP BY tags;

CREATE TRIGGER agg_tags_insert AFTER INSERT ON runs
WHEN NEW.tags IS NOT NULL
BEGIN
    INSERT INTO agg_tags (tags, runs) VALUES (NEW.tags, 1)
    ON CONFLICT (tags) DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER agg_tags_update AFTER UPDATE OF tags ON runs
WHEN OLD.tags IS NOT NEW.tags
BEGIN
    UPDATE agg_tags SET runs = runs - 1 WHERE tags = OLD.tags;
    DELETE FROM agg_tags WHERE tags = OLD.tags AND runs <= 0;
    INSERT INTO agg_tags (tags, runs) SELECT NEW.tags, 1 WHERE NEW.tags IS NOT NULL
    ON CONFLICT (tags) DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER agg_tags_delete AFTER DELETE ON runs
WHEN OLD.tags IS NOT NULL
BEGIN
    UPDATE agg_tags SET runs = runs - 1 WHERE tags = OLD.tags;
    DELETE FROM agg_tags WHERE tags = OLD.tags AND runs <= 0;
END;

-- The runs by model hold each run's task and success, as `runs_task`
-- does (schema 12): pass^k under a model filter reads this index alone,
-- instead of a third of the runs' rows (at 5,000,000 decisions, 1.1 s
-- when the file is not in the page cache).
DROP INDEX IF EXISTS runs_model;
CREATE INDEX runs_model ON runs (model, task_id, success);
