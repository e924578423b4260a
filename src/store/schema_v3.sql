-- rung schema, version 3: the compact store. Tool names are interned once
-- (`tool_names`), a decision's menus are ids of `menus` rows (identical
-- menus stored once), and the classifier's name lists are packed as ids.
-- `decisions` stays readable (and writable) as a view with every name
-- spelled out. Documented in docs/schema.md.

CREATE TABLE tool_names (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

-- A packed menu: a name list as a JSON array of tool_names ids, a
-- retrieval as its JSON object with `c` (flat id, score pairs) in place of
-- `candidates`, a policy as its JSON.
CREATE TABLE menus (
    id   INTEGER PRIMARY KEY,
    body TEXT NOT NULL
);

-- The decisions as stored. The menu columns hold a menus id, or JSON text
-- written through the `decisions` view (read as it is).
CREATE TABLE decision_rows (
    id               INTEGER PRIMARY KEY,
    run_id           TEXT NOT NULL,
    step             INTEGER NOT NULL,
    turn             INTEGER,
    at               TEXT,
    at_us            INTEGER,
    phase            TEXT,
    catalogue        TEXT,
    policy,
    trusted_controls,
    retrieval,
    exposed,
    visible,
    selected         TEXT,
    call_id          TEXT,
    status           TEXT,
    stage            TEXT,
    reason           TEXT,
    outcome          TEXT,
    latency_ms       REAL,
    progress         TEXT,
    expected         TEXT,
    extra            TEXT,
    record_hash      BLOB NOT NULL,
    source           TEXT,
    import_id        INTEGER,
    UNIQUE (run_id, step)
);

INSERT INTO decision_rows SELECT * FROM decisions;

DROP VIEW decision_ladder;
DROP VIEW refusals;
DROP INDEX decisions_catalogue;
DROP TABLE decisions;
CREATE INDEX decision_rows_catalogue ON decision_rows (catalogue) WHERE catalogue IS NOT NULL;

-- Every column of every decision, menus with their names.
CREATE VIEW decisions AS
SELECT d.id, d.run_id, d.step, d.turn, d.at, d.at_us, d.phase, d.catalogue,
       CASE WHEN typeof(d.policy) = 'integer'
            THEN (SELECT body FROM menus WHERE id = d.policy) ELSE d.policy END AS policy,
       CASE WHEN typeof(d.trusted_controls) = 'integer'
            THEN (SELECT json_group_array(t.name)
                  FROM menus m CROSS JOIN json_each(m.body) j CROSS JOIN tool_names t
                  WHERE m.id = d.trusted_controls AND t.id = j.value)
            ELSE d.trusted_controls END AS trusted_controls,
       CASE WHEN typeof(d.retrieval) = 'integer'
            THEN (SELECT CASE WHEN json_type(m.body, '$.c') IS NULL THEN m.body ELSE
                    json_set(json_remove(m.body, '$.c'), '$.candidates', json(
                      (SELECT json_group_array(
                                CASE WHEN json_type(m.body, '$.c[' || (j.key + 1) || ']') = 'null'
                                     THEN json_object('name', t.name)
                                     ELSE json_object('name', t.name, 'score',
                                            json_extract(m.body, '$.c[' || (j.key + 1) || ']'))
                                END)
                       FROM json_each(m.body, '$.c') j CROSS JOIN tool_names t
                       WHERE j.key % 2 = 0 AND t.id = j.value)))
                  END
                  FROM menus m WHERE m.id = d.retrieval)
            ELSE d.retrieval END AS retrieval,
       CASE WHEN typeof(d.exposed) = 'integer'
            THEN (SELECT json_group_array(t.name)
                  FROM menus m CROSS JOIN json_each(m.body) j CROSS JOIN tool_names t
                  WHERE m.id = d.exposed AND t.id = j.value)
            ELSE d.exposed END AS exposed,
       CASE WHEN typeof(d.visible) = 'integer'
            THEN (SELECT json_group_array(t.name)
                  FROM menus m CROSS JOIN json_each(m.body) j CROSS JOIN tool_names t
                  WHERE m.id = d.visible AND t.id = j.value)
            ELSE d.visible END AS visible,
       d.selected, d.call_id, d.status, d.stage, d.reason, d.outcome, d.latency_ms,
       d.progress, d.expected, d.extra, d.record_hash, d.source, d.import_id
FROM decision_rows d;

-- Writing through the view: menus written as JSON text are kept as text.
CREATE TRIGGER decisions_insert INSTEAD OF INSERT ON decisions BEGIN
    INSERT INTO decision_rows (id, run_id, step, turn, at, at_us, phase, catalogue, policy,
        trusted_controls, retrieval, exposed, visible, selected, call_id, status, stage, reason,
        outcome, latency_ms, progress, expected, extra, record_hash, source, import_id)
    VALUES (NEW.id, NEW.run_id, NEW.step, NEW.turn, NEW.at, NEW.at_us, NEW.phase, NEW.catalogue,
        NEW.policy, NEW.trusted_controls, NEW.retrieval, NEW.exposed, NEW.visible, NEW.selected,
        NEW.call_id, NEW.status, NEW.stage, NEW.reason, NEW.outcome, NEW.latency_ms,
        NEW.progress, NEW.expected, NEW.extra, NEW.record_hash, NEW.source, NEW.import_id);
END;

CREATE TRIGGER decisions_delete INSTEAD OF DELETE ON decisions BEGIN
    DELETE FROM decision_rows WHERE id = OLD.id;
END;

CREATE TRIGGER decisions_update INSTEAD OF UPDATE ON decisions BEGIN
    UPDATE decision_rows SET id = NEW.id, run_id = NEW.run_id, step = NEW.step, turn = NEW.turn,
        at = NEW.at, at_us = NEW.at_us, phase = NEW.phase, catalogue = NEW.catalogue,
        policy = CASE WHEN NEW.policy IS OLD.policy THEN policy ELSE NEW.policy END,
        trusted_controls = CASE WHEN NEW.trusted_controls IS OLD.trusted_controls
                                THEN trusted_controls ELSE NEW.trusted_controls END,
        retrieval = CASE WHEN NEW.retrieval IS OLD.retrieval THEN retrieval ELSE NEW.retrieval END,
        exposed = CASE WHEN NEW.exposed IS OLD.exposed THEN exposed ELSE NEW.exposed END,
        visible = CASE WHEN NEW.visible IS OLD.visible THEN visible ELSE NEW.visible END,
        selected = NEW.selected, call_id = NEW.call_id, status = NEW.status, stage = NEW.stage,
        reason = NEW.reason, outcome = NEW.outcome, latency_ms = NEW.latency_ms,
        progress = NEW.progress, expected = NEW.expected, extra = NEW.extra,
        record_hash = NEW.record_hash, source = NEW.source, import_id = NEW.import_id
    WHERE id = OLD.id;
END;

-- The documented views, over the stored rows.
CREATE VIEW decision_ladder AS
SELECT d.run_id, d.step, d.turn, d.phase, d.at,
       COALESCE(d.catalogue, r.catalogue) AS catalogue,
       r.task_id, r.model,
       d.selected, l.rung, l.routing, l.boundary, l.arguments, l.progress, l.violated,
       d.status AS outcome, d.stage, d.reason,
       l.acceptable, l.forbidden, l.label_source
FROM decision_rows d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id;

CREATE VIEW refusals AS
SELECT d.run_id, d.step, d.at, d.selected, d.reason, l.boundary AS stage,
       r.task_id, r.model, COALESCE(d.catalogue, r.catalogue) AS catalogue
FROM decision_rows d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id
WHERE d.status = 'refused';

-- The source files imported, so that an unchanged one is not read again:
-- its size, modification time (ns since the epoch) and content hash
-- (SHA-256 of the whole file up to 4 MB; beyond, of its first and last MB
-- and 32 blocks of 64 KB spread between).
CREATE TABLE source_files (
    id        INTEGER PRIMARY KEY,
    path      TEXT NOT NULL,
    size      INTEGER NOT NULL,
    mtime_ns  INTEGER NOT NULL,
    hash      BLOB NOT NULL,
    import_id INTEGER NOT NULL
);
CREATE INDEX source_files_seen ON source_files (size, mtime_ns);
