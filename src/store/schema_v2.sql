-- rung schema, version 2 (format v1.1: expected calls and outputs, derived
-- labels, typed error stages). Documented in docs/schema.md.

-- The decision's fourth part: 'mismatch' when its call differs from the
-- expected call of its tool, else NULL.
ALTER TABLE ladder ADD COLUMN arguments TEXT;
-- A typed error's stage source ('recorded' or the [error_stages] pattern)
-- and the source error (masked, cut to 300 characters).
ALTER TABLE ladder ADD COLUMN error_source TEXT;
ALTER TABLE ladder ADD COLUMN error_detail TEXT;

-- A run's verdict against its expectations; all NULL for a run without any.
ALTER TABLE runs ADD COLUMN as_expected INTEGER;
ALTER TABLE runs ADD COLUMN required_calls INTEGER;
ALTER TABLE runs ADD COLUMN matched_required INTEGER;
ALTER TABLE runs ADD COLUMN judged_calls INTEGER;
ALTER TABLE runs ADD COLUMN matched_calls INTEGER;

-- The matching table of a run with expected calls: one row per expected
-- call judged against a call (matched or mismatched), per expected call
-- never matched (missing, or not_made when it was not required) and per
-- unexpected call; in `seq` order.
CREATE TABLE matching (
    run_id      TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    expected    INTEGER,          -- 1-based index into expected_calls; NULL: unexpected
    tool        TEXT NOT NULL,
    step        INTEGER,          -- the call; NULL for missing and not_made
    status      TEXT NOT NULL,    -- matched | mismatch | missing | not_made | unexpected
    required    INTEGER,
    effect      TEXT,             -- the tool's effect; NULL: unknown
    arguments   TEXT,             -- the expected arguments as JSON, masked
    keys        TEXT,             -- the differing keys, masked: "key: expected …, got …; …"
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- Decisions with their rung and parts, now with the arguments part.
DROP VIEW decision_ladder;
CREATE VIEW decision_ladder AS
SELECT d.run_id, d.step, d.turn, d.phase, d.at,
       COALESCE(d.catalogue, r.catalogue) AS catalogue,
       r.task_id, r.model,
       d.selected, l.rung, l.routing, l.boundary, l.arguments, l.progress, l.violated,
       d.status AS outcome, d.stage, d.reason,
       l.acceptable, l.forbidden, l.label_source
FROM decisions d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id;

-- Everything stored before was classified by rules that counted a decision
-- without a label as passed: classify it all again at the next write.
INSERT OR REPLACE INTO meta (key, value)
SELECT 'reclassify', 'schema 2' WHERE EXISTS (SELECT 1 FROM runs);
