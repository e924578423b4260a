-- rung schema, version 9: a smaller store, and the Findings screen's counts
-- kept. Documented in docs/schema.md.
--
-- * `finding_rows_catalogue` is gone: nothing reads findings by catalogue
--   through it any more (a catalogue's findings are few, and a tool's are
--   read through `finding_rows_run`).
-- * The names in `agg_tools`, `agg_reasons` and `agg_firsts` (tool names,
--   refusal reasons, task ids) are `agg_names` ids.
-- * `agg_tokens` holds one row per key: its (tokens, decisions) pairs
--   packed in a blob (src/store/agg/tokens.rs), not one row per pair.
-- * `agg_findings` counts the stored findings by run, hour and kind, for
--   the Findings screen (src/store/agg/findings.rs); `agg_finding_runs`
--   lists the runs whose findings were written by hand since.

DROP INDEX finding_rows_catalogue;

-- The names the count tables refer to (never removed; task ids make most of them).
CREATE TABLE agg_names (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO agg_names (name)
    SELECT tool FROM agg_tools UNION SELECT tool FROM agg_reasons
    UNION SELECT reason FROM agg_reasons UNION SELECT task_id FROM agg_firsts
    UNION SELECT selected FROM agg_firsts WHERE typeof(selected) = 'text'
    ORDER BY 1;

ALTER TABLE agg_tools RENAME TO agg_tools_v8;
CREATE TABLE agg_tools (
    key        INTEGER NOT NULL,
    tool       INTEGER NOT NULL,
    visible    INTEGER NOT NULL,
    selected   INTEGER NOT NULL,
    wrongly    INTEGER NOT NULL,
    refused    INTEGER NOT NULL,
    controlled INTEGER NOT NULL,
    PRIMARY KEY (key, tool)
) WITHOUT ROWID;
INSERT INTO agg_tools
    SELECT o.key, n.id, o.visible, o.selected, o.wrongly, o.refused, o.controlled
    FROM agg_tools_v8 o JOIN agg_names n ON n.name = o.tool;
DROP TABLE agg_tools_v8;

ALTER TABLE agg_reasons RENAME TO agg_reasons_v8;
CREATE TABLE agg_reasons (
    key       INTEGER NOT NULL,
    tool      INTEGER NOT NULL,
    reason    INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    PRIMARY KEY (key, tool, reason)
) WITHOUT ROWID;
INSERT INTO agg_reasons
    SELECT o.key, t.id, r.id, o.decisions
    FROM agg_reasons_v8 o JOIN agg_names t ON t.name = o.tool JOIN agg_names r ON r.name = o.reason;
DROP TABLE agg_reasons_v8;

-- `selected` is an `agg_names` id, or -1 for none.
ALTER TABLE agg_firsts RENAME TO agg_firsts_v8;
CREATE TABLE agg_firsts (
    key       INTEGER NOT NULL,
    task_id   INTEGER NOT NULL,
    selected  INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    PRIMARY KEY (key, task_id, selected)
) WITHOUT ROWID;
INSERT INTO agg_firsts
    SELECT o.key, t.id,
           CASE WHEN typeof(o.selected) = 'text'
                THEN (SELECT id FROM agg_names WHERE name = o.selected) ELSE o.selected END,
           o.decisions
    FROM agg_firsts_v8 o JOIN agg_names t ON t.name = o.task_id;
DROP TABLE agg_firsts_v8;

-- Decisions by their definition tokens, one blob per key (the upgrade
-- packs the rows of schema 8 in src/store/mod.rs, then drops them).
ALTER TABLE agg_tokens RENAME TO agg_tokens_v8;
CREATE TABLE agg_tokens (
    key    INTEGER PRIMARY KEY,
    counts BLOB NOT NULL
);

-- Findings by run (a `finding_names` id, -1 for catalogue findings), hour
-- of their time (`time_us` / 3600000000 rounded down; -9223372036854775808
-- for none) and kind (a `finding_kinds` id). A run's rows are counted
-- again whenever a day of its verdicts is listed in `agg_dirty`, or the run
-- in `agg_finding_runs`; catalogue findings at every count.
CREATE TABLE agg_findings (
    run      INTEGER NOT NULL,
    hour     INTEGER NOT NULL,
    kind     INTEGER NOT NULL,
    findings INTEGER NOT NULL,
    PRIMARY KEY (run, hour, kind)
) WITHOUT ROWID;

-- Runs whose findings were written through the `findings` view (by hand:
-- the classifier writes `finding_rows` and lists its runs itself).
CREATE TABLE agg_finding_runs (run_id TEXT PRIMARY KEY) WITHOUT ROWID;

CREATE TRIGGER agg_findings_view_insert INSTEAD OF INSERT ON findings BEGIN
    INSERT OR IGNORE INTO agg_finding_runs SELECT NEW.run_id WHERE NEW.run_id IS NOT NULL;
    INSERT OR IGNORE INTO agg_dirty VALUES (-2147483648);
END;

CREATE TRIGGER agg_findings_view_delete INSTEAD OF DELETE ON findings BEGIN
    INSERT OR IGNORE INTO agg_finding_runs SELECT OLD.run_id WHERE OLD.run_id IS NOT NULL;
    INSERT OR IGNORE INTO agg_dirty VALUES (-2147483648);
END;

CREATE TRIGGER agg_findings_view_update INSTEAD OF UPDATE ON findings BEGIN
    INSERT OR IGNORE INTO agg_finding_runs SELECT OLD.run_id WHERE OLD.run_id IS NOT NULL;
    INSERT OR IGNORE INTO agg_finding_runs SELECT NEW.run_id WHERE NEW.run_id IS NOT NULL;
    INSERT OR IGNORE INTO agg_dirty VALUES (-2147483648);
END;

-- A decision's step decides which of its run's findings are its own.
CREATE TRIGGER agg_decision_step AFTER UPDATE OF step ON decision_rows
WHEN OLD.step IS NOT NEW.step
BEGIN
    INSERT OR IGNORE INTO agg_finding_runs VALUES (OLD.run_id);
    INSERT OR IGNORE INTO agg_finding_runs VALUES (NEW.run_id);
    INSERT OR IGNORE INTO agg_dirty VALUES (-2147483648);
END;
