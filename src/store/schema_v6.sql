-- rung schema, version 6: the classifier's verdicts, compact. Documented in
-- docs/schema.md.
--
-- `ladder_rows` holds only what the classifier derives: what the decision
-- holds (its run, step, turn, phase, selected tool and status) is read
-- from `decision_rows`; the catalogue is a `catalogue_ids` id; the
-- label's lists and the controls are `ladder_lists` ids; `reason`
-- is NULL where it is the decision's (X'' where the decision has one and
-- the verdict none); `routing`, `boundary`, `progress`, `arguments` and
-- `label_source` are small integers (their place in the lists below; a
-- text written by hand is kept as text). `ladder` is a view with the
-- columns and values of the table it replaces, and takes INSERT, UPDATE
-- and DELETE.

CREATE TABLE ladder_rows (
    decision_id       INTEGER PRIMARY KEY,
    catalogue         INTEGER,
    time_us           INTEGER,
    reason            TEXT,
    rung              TEXT NOT NULL,
    routing,
    boundary,
    progress,
    arguments,
    label_source,
    violated          INTEGER NOT NULL,
    acceptable,
    forbidden,
    in_registry       INTEGER,
    in_exposed        INTEGER,
    in_retrieved      INTEGER,
    selected_ok       INTEGER,
    retrieval_k       INTEGER,
    is_first          INTEGER NOT NULL,
    recovered         INTEGER,
    abstain_expected  INTEGER NOT NULL,
    abstained         INTEGER NOT NULL,
    no_call_expected  INTEGER NOT NULL,
    controls          NOT NULL,
    retrieved         TEXT NOT NULL,
    definition_tokens INTEGER,
    error_source      TEXT,
    error_detail      TEXT
);

-- The label's lists and the controls, each distinct text once.
CREATE TABLE ladder_lists (
    id   INTEGER PRIMARY KEY,
    body TEXT NOT NULL UNIQUE
);

INSERT OR IGNORE INTO catalogue_ids (version)
    SELECT catalogue FROM ladder WHERE catalogue IS NOT NULL
    GROUP BY catalogue ORDER BY min(decision_id);
INSERT OR IGNORE INTO ladder_lists (body)
    SELECT v FROM (SELECT decision_id AS i, 0 AS o, controls AS v FROM ladder
                   UNION ALL SELECT decision_id, 1, acceptable FROM ladder
                   UNION ALL SELECT decision_id, 2, forbidden FROM ladder)
    WHERE v IS NOT NULL GROUP BY v ORDER BY min(i * 3 + o);

INSERT INTO ladder_rows
SELECT l.decision_id,
       (SELECT id FROM catalogue_ids WHERE version = l.catalogue),
       l.time_us,
       CASE WHEN l.reason IS d.reason THEN NULL WHEN l.reason IS NULL THEN X'' ELSE l.reason END,
       l.rung,
       CASE l.routing WHEN 'coverage' THEN 0 WHEN 'exposure' THEN 1 WHEN 'discovery' THEN 2
            WHEN 'selection' THEN 3 WHEN 'unlabelled' THEN 4 ELSE l.routing END,
       CASE l.boundary WHEN 'representation' THEN 0 WHEN 'schema' THEN 1 WHEN 'semantics' THEN 2
            WHEN 'authorization' THEN 3 WHEN 'precondition' THEN 4 WHEN 'unclassified' THEN 5
            WHEN 'execution' THEN 6 ELSE l.boundary END,
       CASE l.progress WHEN 'advanced' THEN 0 WHEN 'none' THEN 1 WHEN 'regressed' THEN 2
            ELSE l.progress END,
       CASE l.arguments WHEN 'mismatch' THEN 0 ELSE l.arguments END,
       CASE l.label_source WHEN 'inline' THEN 0 WHEN 'case' THEN 1 WHEN 'derived' THEN 2
            ELSE l.label_source END,
       l.violated, (SELECT id FROM ladder_lists WHERE body = l.acceptable),
       (SELECT id FROM ladder_lists WHERE body = l.forbidden), l.in_registry, l.in_exposed,
       l.in_retrieved, l.selected_ok, l.retrieval_k, l.is_first, l.recovered,
       l.abstain_expected, l.abstained, l.no_call_expected,
       (SELECT id FROM ladder_lists WHERE body = l.controls), l.retrieved,
       l.definition_tokens, l.error_source, l.error_detail
FROM ladder l JOIN decision_rows d ON d.id = l.decision_id
ORDER BY l.decision_id;

-- The views that read `ladder` are made again over the view below.
DROP VIEW decision_ladder;
DROP VIEW refusals;
DROP TABLE ladder;
CREATE INDEX ladder_rung ON ladder_rows (rung);
CREATE INDEX ladder_time ON ladder_rows (time_us);

-- The verdicts alone, spelled out (what reports that count verdicts read:
-- no decision is looked up).
CREATE VIEW ladder_verdicts AS
SELECT l.decision_id, (SELECT version FROM catalogue_ids WHERE id = l.catalogue) AS catalogue,
       l.time_us, l.rung,
       CASE l.routing WHEN 0 THEN 'coverage' WHEN 1 THEN 'exposure' WHEN 2 THEN 'discovery'
            WHEN 3 THEN 'selection' WHEN 4 THEN 'unlabelled' ELSE l.routing END AS routing,
       CASE l.boundary WHEN 0 THEN 'representation' WHEN 1 THEN 'schema'
            WHEN 2 THEN 'semantics' WHEN 3 THEN 'authorization' WHEN 4 THEN 'precondition'
            WHEN 5 THEN 'unclassified' WHEN 6 THEN 'execution' ELSE l.boundary END AS boundary,
       CASE l.progress WHEN 0 THEN 'advanced' WHEN 1 THEN 'none' WHEN 2 THEN 'regressed'
            ELSE l.progress END AS progress,
       l.violated,
       CASE l.label_source WHEN 0 THEN 'inline' WHEN 1 THEN 'case' WHEN 2 THEN 'derived'
            ELSE l.label_source END AS label_source,
       CASE WHEN typeof(l.acceptable) = 'integer'
            THEN (SELECT body FROM ladder_lists WHERE id = l.acceptable)
            ELSE l.acceptable END AS acceptable,
       CASE WHEN typeof(l.forbidden) = 'integer'
            THEN (SELECT body FROM ladder_lists WHERE id = l.forbidden)
            ELSE l.forbidden END AS forbidden,
       l.in_registry, l.in_exposed, l.in_retrieved, l.selected_ok,
       l.retrieval_k, l.is_first, l.recovered, l.abstain_expected, l.abstained,
       l.no_call_expected,
       CASE WHEN typeof(l.controls) = 'integer'
            THEN (SELECT body FROM ladder_lists WHERE id = l.controls)
            ELSE l.controls END AS controls,
       l.retrieved, l.definition_tokens,
       CASE l.arguments WHEN 0 THEN 'mismatch' ELSE l.arguments END AS arguments,
       l.error_source, l.error_detail
FROM ladder_rows l;

-- The verdicts with the columns (and values) of schema 5's table.
CREATE VIEW ladder AS
SELECT l.decision_id, d.run_id, d.step, COALESCE(d.turn, d.step) AS turn,
       c.version AS catalogue, d.phase, l.time_us, d.selected, d.status,
       CASE WHEN l.reason IS NULL THEN d.reason WHEN l.reason = X'' THEN NULL
            ELSE l.reason END AS reason,
       l.rung,
       CASE l.routing WHEN 0 THEN 'coverage' WHEN 1 THEN 'exposure' WHEN 2 THEN 'discovery'
            WHEN 3 THEN 'selection' WHEN 4 THEN 'unlabelled' ELSE l.routing END AS routing,
       CASE l.boundary WHEN 0 THEN 'representation' WHEN 1 THEN 'schema'
            WHEN 2 THEN 'semantics' WHEN 3 THEN 'authorization' WHEN 4 THEN 'precondition'
            WHEN 5 THEN 'unclassified' WHEN 6 THEN 'execution' ELSE l.boundary END AS boundary,
       CASE l.progress WHEN 0 THEN 'advanced' WHEN 1 THEN 'none' WHEN 2 THEN 'regressed'
            ELSE l.progress END AS progress,
       l.violated,
       CASE l.label_source WHEN 0 THEN 'inline' WHEN 1 THEN 'case' WHEN 2 THEN 'derived'
            ELSE l.label_source END AS label_source,
       CASE WHEN typeof(l.acceptable) = 'integer'
            THEN (SELECT body FROM ladder_lists WHERE id = l.acceptable)
            ELSE l.acceptable END AS acceptable,
       CASE WHEN typeof(l.forbidden) = 'integer'
            THEN (SELECT body FROM ladder_lists WHERE id = l.forbidden)
            ELSE l.forbidden END AS forbidden,
       l.in_registry, l.in_exposed, l.in_retrieved, l.selected_ok,
       l.retrieval_k, l.is_first, l.recovered, l.abstain_expected, l.abstained,
       l.no_call_expected,
       CASE WHEN typeof(l.controls) = 'integer'
            THEN (SELECT body FROM ladder_lists WHERE id = l.controls)
            ELSE l.controls END AS controls,
       l.retrieved, l.definition_tokens,
       CASE l.arguments WHEN 0 THEN 'mismatch' ELSE l.arguments END AS arguments,
       l.error_source, l.error_detail
FROM ladder_rows l
LEFT JOIN decision_rows d ON d.id = l.decision_id
LEFT JOIN catalogue_ids c ON c.id = l.catalogue;

-- Writing through the view: the verdict's own columns are stored as the
-- view reads them back; the columns the decision holds (run_id, step,
-- turn, phase, selected, status) are the decision's and not written.
CREATE TRIGGER ladder_insert INSTEAD OF INSERT ON ladder BEGIN
    INSERT OR IGNORE INTO catalogue_ids (version)
        SELECT NEW.catalogue WHERE NEW.catalogue IS NOT NULL;
    INSERT OR IGNORE INTO ladder_lists (body) SELECT NEW.controls WHERE NEW.controls IS NOT NULL;
    INSERT OR IGNORE INTO ladder_lists (body)
        SELECT NEW.acceptable WHERE NEW.acceptable IS NOT NULL;
    INSERT OR IGNORE INTO ladder_lists (body) SELECT NEW.forbidden WHERE NEW.forbidden IS NOT NULL;
    INSERT INTO ladder_rows (decision_id, catalogue, time_us, reason, rung, routing, boundary,
        progress, arguments, label_source, violated, acceptable, forbidden, in_registry,
        in_exposed, in_retrieved, selected_ok, retrieval_k, is_first, recovered,
        abstain_expected, abstained, no_call_expected, controls, retrieved, definition_tokens,
        error_source, error_detail)
    VALUES (NEW.decision_id, (SELECT id FROM catalogue_ids WHERE version = NEW.catalogue),
        NEW.time_us,
        CASE WHEN NEW.reason IS (SELECT reason FROM decision_rows WHERE id = NEW.decision_id)
             THEN NULL WHEN NEW.reason IS NULL THEN X'' ELSE NEW.reason END,
        NEW.rung,
        CASE NEW.routing WHEN 'coverage' THEN 0 WHEN 'exposure' THEN 1 WHEN 'discovery' THEN 2
             WHEN 'selection' THEN 3 WHEN 'unlabelled' THEN 4 ELSE NEW.routing END,
        CASE NEW.boundary WHEN 'representation' THEN 0 WHEN 'schema' THEN 1
             WHEN 'semantics' THEN 2 WHEN 'authorization' THEN 3 WHEN 'precondition' THEN 4
             WHEN 'unclassified' THEN 5 WHEN 'execution' THEN 6 ELSE NEW.boundary END,
        CASE NEW.progress WHEN 'advanced' THEN 0 WHEN 'none' THEN 1 WHEN 'regressed' THEN 2
             ELSE NEW.progress END,
        CASE NEW.arguments WHEN 'mismatch' THEN 0 ELSE NEW.arguments END,
        CASE NEW.label_source WHEN 'inline' THEN 0 WHEN 'case' THEN 1 WHEN 'derived' THEN 2
             ELSE NEW.label_source END,
        NEW.violated, (SELECT id FROM ladder_lists WHERE body = NEW.acceptable),
        (SELECT id FROM ladder_lists WHERE body = NEW.forbidden), NEW.in_registry,
        NEW.in_exposed, NEW.in_retrieved, NEW.selected_ok, NEW.retrieval_k, NEW.is_first,
        NEW.recovered, NEW.abstain_expected, NEW.abstained, NEW.no_call_expected,
        (SELECT id FROM ladder_lists WHERE body = NEW.controls), NEW.retrieved,
        NEW.definition_tokens, NEW.error_source, NEW.error_detail);
END;

CREATE TRIGGER ladder_delete INSTEAD OF DELETE ON ladder BEGIN
    DELETE FROM ladder_rows WHERE decision_id = OLD.decision_id;
END;

CREATE TRIGGER ladder_update INSTEAD OF UPDATE ON ladder BEGIN
    INSERT OR IGNORE INTO catalogue_ids (version)
        SELECT NEW.catalogue WHERE NEW.catalogue IS NOT NULL;
    INSERT OR IGNORE INTO ladder_lists (body) SELECT NEW.controls WHERE NEW.controls IS NOT NULL;
    INSERT OR IGNORE INTO ladder_lists (body)
        SELECT NEW.acceptable WHERE NEW.acceptable IS NOT NULL;
    INSERT OR IGNORE INTO ladder_lists (body) SELECT NEW.forbidden WHERE NEW.forbidden IS NOT NULL;
    UPDATE ladder_rows SET decision_id = NEW.decision_id,
        catalogue = (SELECT id FROM catalogue_ids WHERE version = NEW.catalogue),
        time_us = NEW.time_us,
        reason = CASE WHEN NEW.reason IS OLD.reason THEN reason
                      WHEN NEW.reason IS (SELECT reason FROM decision_rows WHERE id = NEW.decision_id)
                      THEN NULL WHEN NEW.reason IS NULL THEN X'' ELSE NEW.reason END,
        rung = NEW.rung,
        routing = CASE NEW.routing WHEN 'coverage' THEN 0 WHEN 'exposure' THEN 1
             WHEN 'discovery' THEN 2 WHEN 'selection' THEN 3 WHEN 'unlabelled' THEN 4
             ELSE NEW.routing END,
        boundary = CASE NEW.boundary WHEN 'representation' THEN 0 WHEN 'schema' THEN 1
             WHEN 'semantics' THEN 2 WHEN 'authorization' THEN 3 WHEN 'precondition' THEN 4
             WHEN 'unclassified' THEN 5 WHEN 'execution' THEN 6 ELSE NEW.boundary END,
        progress = CASE NEW.progress WHEN 'advanced' THEN 0 WHEN 'none' THEN 1
             WHEN 'regressed' THEN 2 ELSE NEW.progress END,
        arguments = CASE NEW.arguments WHEN 'mismatch' THEN 0 ELSE NEW.arguments END,
        label_source = CASE NEW.label_source WHEN 'inline' THEN 0 WHEN 'case' THEN 1
             WHEN 'derived' THEN 2 ELSE NEW.label_source END,
        violated = NEW.violated,
        acceptable = (SELECT id FROM ladder_lists WHERE body = NEW.acceptable),
        forbidden = (SELECT id FROM ladder_lists WHERE body = NEW.forbidden),
        in_registry = NEW.in_registry, in_exposed = NEW.in_exposed,
        in_retrieved = NEW.in_retrieved, selected_ok = NEW.selected_ok,
        retrieval_k = NEW.retrieval_k, is_first = NEW.is_first, recovered = NEW.recovered,
        abstain_expected = NEW.abstain_expected, abstained = NEW.abstained,
        no_call_expected = NEW.no_call_expected,
        controls = (SELECT id FROM ladder_lists WHERE body = NEW.controls),
        retrieved = NEW.retrieved, definition_tokens = NEW.definition_tokens,
        error_source = NEW.error_source, error_detail = NEW.error_detail
    WHERE decision_id = OLD.decision_id;
END;

-- The documented views, over the view (their text as in schema 5).
CREATE VIEW decision_ladder AS
SELECT d.run_id, d.step, d.turn, d.phase,
       CASE WHEN d.at IS NULL THEN
            CASE WHEN d.at_us IS NOT NULL
                 THEN strftime('%Y-%m-%dT%H:%M:%SZ', d.at_us / 1000000, 'unixepoch') END
            WHEN d.at = X'' THEN NULL ELSE d.at END AS at,
       COALESCE(d.catalogue, r.catalogue) AS catalogue,
       r.task_id, r.model,
       d.selected, l.rung, l.routing, l.boundary, l.arguments, l.progress, l.violated,
       d.status AS outcome, d.stage, d.reason,
       l.acceptable, l.forbidden, l.label_source
FROM decision_rows d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id;

CREATE VIEW refusals AS
SELECT d.run_id, d.step,
       CASE WHEN d.at IS NULL THEN
            CASE WHEN d.at_us IS NOT NULL
                 THEN strftime('%Y-%m-%dT%H:%M:%SZ', d.at_us / 1000000, 'unixepoch') END
            WHEN d.at = X'' THEN NULL ELSE d.at END AS at,
       d.selected, d.reason, l.boundary AS stage,
       r.task_id, r.model, COALESCE(d.catalogue, r.catalogue) AS catalogue
FROM decision_rows d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id
WHERE d.status = 'refused';
