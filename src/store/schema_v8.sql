-- rung schema, version 8: counts kept for the screens. Documented in
-- docs/schema.md.
--
-- The `agg_*` tables hold the stored verdicts counted by day, catalogue,
-- phase and model (`agg_keys`), so that the Ladder and the Tools screen
-- read a few thousand rows instead of every decision. They are rung's own:
-- rebuilt from `ladder_rows`, `decision_rows` and `runs` for the days a
-- write touched (src/store/agg), never the source of anything.
--
-- A key is one day (`whole` = 0; `day` NULL for decisions without a time)
-- or all days (`whole` = 1, `day` NULL) of one catalogue id, phase and
-- model. The count tables have the key and their own columns; a NULL
-- boundary or retrieval_k is stored as -1 and -9223372036854775808.

CREATE TABLE agg_keys (
    id        INTEGER PRIMARY KEY,
    whole     INTEGER NOT NULL,
    day       INTEGER,
    catalogue INTEGER,
    phase     TEXT,
    model     TEXT
);
CREATE INDEX agg_keys_day ON agg_keys (whole, day);

-- Decisions by rung, boundary (spelled) and whether labelled.
CREATE TABLE agg_rungs (
    key       INTEGER NOT NULL,
    rung      TEXT NOT NULL,
    boundary  NOT NULL,
    labelled  INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    PRIMARY KEY (key, rung, boundary, labelled)
) WITHOUT ROWID;

-- The metrics' tallies by retrieval k: for each metric, the decisions
-- in its denominator (`_of`) and in its numerator.
CREATE TABLE agg_tallies (
    key         INTEGER NOT NULL,
    retrieval_k INTEGER NOT NULL,
    decisions   INTEGER NOT NULL,
    coverage_of INTEGER NOT NULL,
    coverage INTEGER NOT NULL,
    exposure_of INTEGER NOT NULL,
    exposure INTEGER NOT NULL,
    recall_of INTEGER NOT NULL,
    recall INTEGER NOT NULL,
    selection_of INTEGER NOT NULL,
    selection INTEGER NOT NULL,
    abstention_of INTEGER NOT NULL,
    abstention INTEGER NOT NULL,
    no_call_of INTEGER NOT NULL,
    no_call INTEGER NOT NULL,
    violation_of INTEGER NOT NULL,
    violation INTEGER NOT NULL,
    first_call_of INTEGER NOT NULL,
    first_call INTEGER NOT NULL,
    recovery_of INTEGER NOT NULL,
    recovery INTEGER NOT NULL,
    PRIMARY KEY (key, retrieval_k)
) WITHOUT ROWID;

-- Decisions by their definition tokens.
CREATE TABLE agg_tokens (
    key       INTEGER NOT NULL,
    tokens    INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    PRIMARY KEY (key, tokens)
) WITHOUT ROWID;

-- Per tool name: decisions it was visible to (retrieved), selected,
-- selected wrongly (rung selection), selected and refused, and decisions
-- whose trusted controls name it.
CREATE TABLE agg_tools (
    key        INTEGER NOT NULL,
    tool       TEXT NOT NULL,
    visible    INTEGER NOT NULL,
    selected   INTEGER NOT NULL,
    wrongly    INTEGER NOT NULL,
    refused    INTEGER NOT NULL,
    controlled INTEGER NOT NULL,
    PRIMARY KEY (key, tool)
) WITHOUT ROWID;

-- Refusals of a selected tool by reason ('' for none).
CREATE TABLE agg_reasons (
    key       INTEGER NOT NULL,
    tool      TEXT NOT NULL,
    reason    TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    PRIMARY KEY (key, tool, reason)
) WITHOUT ROWID;

-- Each run's first decision by its task and selected tool (-1: none):
-- selection consistency across trials.
CREATE TABLE agg_firsts (
    key       INTEGER NOT NULL,
    task_id   TEXT NOT NULL,
    selected  NOT NULL,
    decisions INTEGER NOT NULL,
    PRIMARY KEY (key, task_id, selected)
) WITHOUT ROWID;

-- The days whose counts are out of date (-2147483648: no time). Readers
-- count the long way while any is listed; an import or classification
-- lists the days of the runs it classified and rebuilds them before it
-- commits. The triggers list what other writes change (a verdict
-- updated or deleted, a decision's run, phase, selected tool or outcome, a
-- run's model); new verdicts are listed by the import that writes them
-- (a trigger per inserted row would cost the import more than the counts).
CREATE TABLE agg_dirty (day INTEGER PRIMARY KEY);

-- A verdict inserted through the `ladder` view (by hand: the classifier
-- writes `ladder_rows`).
CREATE TRIGGER agg_ladder_view_insert INSTEAD OF INSERT ON ladder BEGIN
    INSERT OR IGNORE INTO agg_dirty VALUES (CASE WHEN NEW.time_us IS NULL THEN -2147483648
        WHEN NEW.time_us >= 0 THEN NEW.time_us / 86400000000
        ELSE (NEW.time_us + 1) / 86400000000 - 1 END);
END;

CREATE TRIGGER agg_ladder_delete AFTER DELETE ON ladder_rows BEGIN
    INSERT OR IGNORE INTO agg_dirty VALUES (CASE WHEN OLD.time_us IS NULL THEN -2147483648
        WHEN OLD.time_us >= 0 THEN OLD.time_us / 86400000000
        ELSE (OLD.time_us + 1) / 86400000000 - 1 END);
END;

CREATE TRIGGER agg_ladder_update AFTER UPDATE ON ladder_rows BEGIN
    INSERT OR IGNORE INTO agg_dirty VALUES (CASE WHEN OLD.time_us IS NULL THEN -2147483648
        WHEN OLD.time_us >= 0 THEN OLD.time_us / 86400000000
        ELSE (OLD.time_us + 1) / 86400000000 - 1 END);
    INSERT OR IGNORE INTO agg_dirty VALUES (CASE WHEN NEW.time_us IS NULL THEN -2147483648
        WHEN NEW.time_us >= 0 THEN NEW.time_us / 86400000000
        ELSE (NEW.time_us + 1) / 86400000000 - 1 END);
END;

-- What a verdict is counted under but the decision or its run holds.
CREATE TRIGGER agg_decision_update AFTER UPDATE OF run_id, phase, selected, status, reason
ON decision_rows
WHEN OLD.run_id IS NOT NEW.run_id OR OLD.phase IS NOT NEW.phase
     OR OLD.selected IS NOT NEW.selected OR OLD.status IS NOT NEW.status
     OR OLD.reason IS NOT NEW.reason
BEGIN
    INSERT OR IGNORE INTO agg_dirty
    SELECT CASE WHEN l.time_us IS NULL THEN -2147483648
        WHEN l.time_us >= 0 THEN l.time_us / 86400000000
        ELSE (l.time_us + 1) / 86400000000 - 1 END
    FROM ladder_rows l WHERE l.decision_id = NEW.id;
END;

CREATE TRIGGER agg_decision_delete AFTER DELETE ON decision_rows BEGIN
    INSERT OR IGNORE INTO agg_dirty
    SELECT CASE WHEN l.time_us IS NULL THEN -2147483648
        WHEN l.time_us >= 0 THEN l.time_us / 86400000000
        ELSE (l.time_us + 1) / 86400000000 - 1 END
    FROM ladder_rows l WHERE l.decision_id = OLD.id;
END;

CREATE TRIGGER agg_run_update AFTER UPDATE OF model, run_id ON runs
WHEN OLD.model IS NOT NEW.model OR OLD.run_id IS NOT NEW.run_id
BEGIN
    INSERT OR IGNORE INTO agg_dirty
    SELECT DISTINCT CASE WHEN l.time_us IS NULL THEN -2147483648
        WHEN l.time_us >= 0 THEN l.time_us / 86400000000
        ELSE (l.time_us + 1) / 86400000000 - 1 END
    FROM ladder_rows l
    WHERE l.decision_id IN (SELECT id FROM decision_rows WHERE run_id IN (OLD.run_id, NEW.run_id));
END;

CREATE TRIGGER agg_run_delete AFTER DELETE ON runs BEGIN
    INSERT OR IGNORE INTO agg_dirty
    SELECT DISTINCT CASE WHEN l.time_us IS NULL THEN -2147483648
        WHEN l.time_us >= 0 THEN l.time_us / 86400000000
        ELSE (l.time_us + 1) / 86400000000 - 1 END
    FROM ladder_rows l
    WHERE l.decision_id IN (SELECT id FROM decision_rows WHERE run_id = OLD.run_id);
END;

-- Every stored day, built by the upgrade (src/store/agg).
INSERT OR IGNORE INTO agg_dirty
SELECT DISTINCT CASE WHEN time_us IS NULL THEN -2147483648
    WHEN time_us >= 0 THEN time_us / 86400000000
    ELSE (time_us + 1) / 86400000000 - 1 END
FROM ladder_rows;
