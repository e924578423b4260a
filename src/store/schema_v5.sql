-- rung schema, version 5: a smaller store still. Documented in docs/schema.md.
--
-- A packed retrieval's candidates are characters (`p`, see src/store/pack.rs)
-- where their scores come back bit for bit, else schema 3's `c`.
-- A decision's `at` is NULL where it is the whole-second rendering of
-- `at_us`, and its `outcome` NULL where it says only its status, stage
-- and reason: the views rebuild both. (Written through the `decisions`
-- view as NULL beside an `at_us` or a status, they are stored as X''.)
-- The stored rows are converted by the upgrade (src/store/pack.rs).

DROP VIEW decisions;
DROP VIEW decision_ladder;
DROP VIEW refusals;

-- Every column of every decision, menus with their names.
CREATE VIEW decisions AS
SELECT d.id, d.run_id, d.step, d.turn,
       CASE WHEN d.at IS NULL THEN
            CASE WHEN d.at_us IS NOT NULL
                 THEN strftime('%Y-%m-%dT%H:%M:%SZ', d.at_us / 1000000, 'unixepoch') END
            WHEN d.at = X'' THEN NULL ELSE d.at END AS at,
       d.at_us, d.phase, d.catalogue,
       CASE WHEN typeof(d.policy) = 'integer'
            THEN (SELECT body FROM menus WHERE id = d.policy) ELSE d.policy END AS policy,
       CASE WHEN typeof(d.trusted_controls) = 'integer'
            THEN (SELECT json_group_array(t.name)
                  FROM menus m CROSS JOIN json_each(m.body) j CROSS JOIN tool_names t
                  WHERE m.id = d.trusted_controls AND t.id = j.value)
            ELSE d.trusted_controls END AS trusted_controls,
       CASE WHEN typeof(d.retrieval) = 'integer'
            THEN (SELECT CASE
                  WHEN json_type(m.body, '$.p') = 'text' THEN
                    json_set(
                      CASE WHEN json_type(m.body, '$.h') IS NULL
                           THEN json_remove(m.body, '$.p')
                           ELSE (SELECT json('{"k":' || json_extract(m.body, '$.k') || ','
                                             || substr(h.body, 2))
                                 FROM menus h WHERE h.id = json_extract(m.body, '$.h'))
                      END,
                      '$.candidates', json(
                      (WITH RECURSIVE s(i, p) AS (
                           SELECT 0, json_extract(m.body, '$.p')
                           WHERE length(json_extract(m.body, '$.p')) >= 3
                           UNION ALL SELECT i + 1, p FROM s WHERE i + 1 < (length(p) - 1) / 2)
                       SELECT json_group_array(
                                CASE WHEN unicode(substr(p, 3 + 2 * i, 1)) = 127
                                     THEN json_object('name', (SELECT name FROM tool_names
                                            WHERE id = unicode(substr(p, 2 + 2 * i, 1)) - 128))
                                     ELSE json_object('name', (SELECT name FROM tool_names
                                            WHERE id = unicode(substr(p, 2 + 2 * i, 1)) - 128),
                                            'score',
                                            (SELECT (CASE WHEN z % 2 = 1 THEN -((z + 1) / 2)
                                                          ELSE z / 2 END)
                                                    / CAST(substr('1000000', 1,
                                                         unicode(substr(p, 1, 1)) - 127) AS REAL)
                                             FROM (SELECT unicode(substr(p, 3 + 2 * i, 1)) - 128
                                                          AS z)))
                                END)
                       FROM s)))
                  WHEN json_type(m.body, '$.c') IS NULL THEN m.body ELSE
                    json_set(
                      CASE WHEN json_type(m.body, '$.h') IS NULL
                           THEN json_remove(m.body, '$.c')
                           ELSE (SELECT json('{"k":' || json_extract(m.body, '$.k') || ','
                                             || substr(h.body, 2))
                                 FROM menus h WHERE h.id = json_extract(m.body, '$.h'))
                      END,
                      '$.candidates', json(
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
       d.selected, d.call_id, d.status, d.stage, d.reason,
       CASE WHEN d.outcome IS NULL THEN
            CASE WHEN d.status IS NULL THEN NULL
                 WHEN d.stage IS NULL AND d.reason IS NULL THEN json_object('status', d.status)
                 WHEN d.reason IS NULL THEN json_object('status', d.status, 'stage', d.stage)
                 WHEN d.stage IS NULL THEN json_object('status', d.status, 'reason', d.reason)
                 ELSE json_object('status', d.status, 'stage', d.stage, 'reason', d.reason) END
            WHEN d.outcome = X'' THEN NULL ELSE d.outcome END AS outcome,
       d.latency_ms, d.progress, d.expected, d.extra, d.record_hash,
       CASE WHEN d.source_at IS NOT NULL
            THEN (SELECT path FROM source_paths WHERE id = d.source_at >> 32)
                 || ':' || (d.source_at & 4294967295)
            ELSE d.source END AS source,
       d.import_id
FROM decision_rows d;

-- Writing through the view: menus and sources written as text are kept as
-- text; an `at` or `outcome` written as NULL where the view would rebuild
-- one is stored as X''.
CREATE TRIGGER decisions_insert INSTEAD OF INSERT ON decisions BEGIN
    INSERT INTO decision_rows (id, run_id, step, turn, at, at_us, phase, catalogue, policy,
        trusted_controls, retrieval, exposed, visible, selected, call_id, status, stage, reason,
        outcome, latency_ms, progress, expected, extra, record_hash, source, import_id)
    VALUES (NEW.id, NEW.run_id, NEW.step, NEW.turn,
        CASE WHEN NEW.at IS NULL AND NEW.at_us IS NOT NULL THEN X'' ELSE NEW.at END,
        NEW.at_us, NEW.phase, NEW.catalogue,
        NEW.policy, NEW.trusted_controls, NEW.retrieval, NEW.exposed, NEW.visible, NEW.selected,
        NEW.call_id, NEW.status, NEW.stage, NEW.reason,
        CASE WHEN NEW.outcome IS NULL AND NEW.status IS NOT NULL THEN X'' ELSE NEW.outcome END,
        NEW.latency_ms, NEW.progress, NEW.expected, NEW.extra, NEW.record_hash, NEW.source,
        NEW.import_id);
END;

CREATE TRIGGER decisions_delete INSTEAD OF DELETE ON decisions BEGIN
    DELETE FROM decision_rows WHERE id = OLD.id;
END;

CREATE TRIGGER decisions_update INSTEAD OF UPDATE ON decisions BEGIN
    UPDATE decision_rows SET id = NEW.id, run_id = NEW.run_id, step = NEW.step, turn = NEW.turn,
        at = CASE WHEN NEW.at IS OLD.at AND NEW.at_us IS OLD.at_us THEN at
                  WHEN NEW.at IS NULL AND NEW.at_us IS NOT NULL THEN X'' ELSE NEW.at END,
        at_us = NEW.at_us, phase = NEW.phase, catalogue = NEW.catalogue,
        policy = CASE WHEN NEW.policy IS OLD.policy THEN policy ELSE NEW.policy END,
        trusted_controls = CASE WHEN NEW.trusted_controls IS OLD.trusted_controls
                                THEN trusted_controls ELSE NEW.trusted_controls END,
        retrieval = CASE WHEN NEW.retrieval IS OLD.retrieval THEN retrieval ELSE NEW.retrieval END,
        exposed = CASE WHEN NEW.exposed IS OLD.exposed THEN exposed ELSE NEW.exposed END,
        visible = CASE WHEN NEW.visible IS OLD.visible THEN visible ELSE NEW.visible END,
        selected = NEW.selected, call_id = NEW.call_id, status = NEW.status, stage = NEW.stage,
        reason = NEW.reason,
        outcome = CASE WHEN NEW.outcome IS OLD.outcome AND NEW.status IS OLD.status
                            AND NEW.stage IS OLD.stage AND NEW.reason IS OLD.reason THEN outcome
                       WHEN NEW.outcome IS NULL AND NEW.status IS NOT NULL THEN X''
                       ELSE NEW.outcome END,
        latency_ms = NEW.latency_ms,
        progress = NEW.progress, expected = NEW.expected, extra = NEW.extra,
        record_hash = NEW.record_hash,
        source = CASE WHEN NEW.source IS OLD.source THEN source ELSE NEW.source END,
        source_at = CASE WHEN NEW.source IS OLD.source THEN source_at END,
        import_id = NEW.import_id
    WHERE id = OLD.id;
END;

-- The documented views, over the stored rows.
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

-- The stored rows: what a view rebuilds is left out (NULL written through
-- the old view beside an `at_us` or a status first becomes X'').
UPDATE decision_rows SET at = X'' WHERE at IS NULL AND at_us IS NOT NULL;
UPDATE decision_rows SET at = NULL
WHERE at_us >= 0 AND at_us % 1000000 = 0 AND typeof(at) = 'text'
  AND at = strftime('%Y-%m-%dT%H:%M:%SZ', at_us / 1000000, 'unixepoch');
UPDATE decision_rows SET outcome = X'' WHERE outcome IS NULL AND status IS NOT NULL;
UPDATE decision_rows SET outcome = NULL
WHERE status IS NOT NULL AND typeof(outcome) = 'text'
  AND outcome = CASE WHEN stage IS NULL AND reason IS NULL THEN json_object('status', status)
                     WHEN reason IS NULL THEN json_object('status', status, 'stage', stage)
                     WHEN stage IS NULL THEN json_object('status', status, 'reason', reason)
                     ELSE json_object('status', status, 'stage', stage, 'reason', reason) END;

-- Findings (schema 5): `finding_rows.kind` is a `finding_kinds` id and
-- `finding_rows.catalogue` a `catalogue_ids` id; the `findings` view shows
-- their names, as before (and takes INSERT, UPDATE and DELETE, interning
-- what it is given).
CREATE TABLE finding_kinds (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
INSERT INTO finding_kinds (id, name) VALUES
    (1, 'exposure_mismatch'),
    (2, 'hidden_proposal'),
    (3, 'description_drift'),
    (4, 'catalogue_conflict'),
    (5, 'control_impostor'),
    (6, 'invalid_control'),
    (7, 'unclassified_reason'),
    (8, 'label_conflict'),
    (9, 'missing_call'),
    (10, 'argument_mismatch'),
    (11, 'unexpected_call'),
    (12, 'missing_output'),
    (13, 'schema_violation'),
    (14, 'unsourced_id'),
    (15, 'id_from_description'),
    (16, 'announced_no_call'),
    (17, 'write_under_inform'),
    (18, 'menu_changed'),
    (19, 'repeated_call');

CREATE TABLE catalogue_ids (
    id      INTEGER PRIMARY KEY,
    version TEXT NOT NULL UNIQUE
);

DROP VIEW findings;
ALTER TABLE finding_rows RENAME TO finding_rows_v4;
DROP INDEX finding_rows_run;
DROP INDEX finding_rows_catalogue;
-- A finding's task, run and tool are `finding_names` ids (one table for
-- the three: the view looks each up by id).
CREATE TABLE finding_names (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE finding_rows (
    id        INTEGER PRIMARY KEY,
    kind      INTEGER NOT NULL,
    catalogue INTEGER,
    task_id   INTEGER,
    run_id    INTEGER,
    step      INTEGER,
    tool      INTEGER,
    detail    TEXT NOT NULL,
    packed    INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO finding_kinds (name) SELECT DISTINCT kind FROM finding_rows_v4;
INSERT OR IGNORE INTO catalogue_ids (version)
    SELECT DISTINCT catalogue FROM finding_rows_v4 WHERE catalogue IS NOT NULL ORDER BY 1;
-- Named in the order an import names them: by finding, its task, run, tool.
INSERT OR IGNORE INTO finding_names (name)
    SELECT v FROM (SELECT id, 0 AS o, task_id AS v FROM finding_rows_v4
                   UNION ALL SELECT id, 1, run_id FROM finding_rows_v4
                   UNION ALL SELECT id, 2, tool FROM finding_rows_v4)
    WHERE v IS NOT NULL ORDER BY id, o;
INSERT INTO finding_rows (id, kind, catalogue, task_id, run_id, step, tool, detail, packed)
    SELECT o.id, (SELECT id FROM finding_kinds WHERE name = o.kind),
           (SELECT id FROM catalogue_ids WHERE version = o.catalogue),
           (SELECT id FROM finding_names WHERE name = o.task_id),
           (SELECT id FROM finding_names WHERE name = o.run_id),
           o.step, (SELECT id FROM finding_names WHERE name = o.tool),
           o.detail, o.packed
    FROM finding_rows_v4 o ORDER BY o.id;
DROP TABLE finding_rows_v4;
CREATE INDEX finding_rows_run ON finding_rows (run_id);
CREATE INDEX finding_rows_catalogue ON finding_rows (catalogue, kind);

CREATE VIEW findings AS
SELECT x.id, k.name AS kind, c.version AS catalogue, tk.name AS task_id, rn.name AS run_id,
       x.step,
       tn.name AS tool,
       CASE WHEN x.packed THEN
            replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x.detail, char(27), 'added '), char(26), '; removed '), char(25), 'selected '), char(24), ' differs from the case '), char(23), 'inline expected acceptable '), char(22), '; the inline label wins'), char(21), 'refused with reason '), char(20), ', which no stage maps; add it to [reasons] in the config'), char(19), ' (mutating)'), char(18), 'executed (ok)'), char(17), ' executed (ok) in a run whose intent is inform: an inform request changes nothing'), char(16), ', which was not in the visible menu; '), char(15), ' times within the run; first here, after step '), char(14), 'the visible menu changed '), char(8), '; it was refused'), char(7), ': required: missing'), char(6), ' fail its schema: '), char(5), 'the arguments of '), char(4), ' (never seen earlier in the run)'), char(3), ' was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: '), char(2), '; it executed anyway (ok): the action boundary let an invalid call through'), char(1), ': additionalProperties: not a declared property'), char(31), COALESCE(tn.name, ''))
       ELSE x.detail END AS detail
FROM finding_rows x
JOIN finding_kinds k ON k.id = x.kind
LEFT JOIN catalogue_ids c ON c.id = x.catalogue
LEFT JOIN finding_names tk ON tk.id = x.task_id
LEFT JOIN finding_names rn ON rn.id = x.run_id
LEFT JOIN finding_names tn ON tn.id = x.tool;

CREATE TRIGGER findings_insert INSTEAD OF INSERT ON findings BEGIN
    INSERT OR IGNORE INTO finding_kinds (name) SELECT NEW.kind WHERE NEW.kind IS NOT NULL;
    INSERT OR IGNORE INTO catalogue_ids (version)
        SELECT NEW.catalogue WHERE NEW.catalogue IS NOT NULL;
    INSERT OR IGNORE INTO finding_names (name) SELECT NEW.task_id WHERE NEW.task_id IS NOT NULL;
    INSERT OR IGNORE INTO finding_names (name) SELECT NEW.run_id WHERE NEW.run_id IS NOT NULL;
    INSERT OR IGNORE INTO finding_names (name) SELECT NEW.tool WHERE NEW.tool IS NOT NULL;
    INSERT INTO finding_rows (id, kind, catalogue, task_id, run_id, step, tool, detail)
    VALUES (NEW.id, (SELECT id FROM finding_kinds WHERE name = NEW.kind),
            (SELECT id FROM catalogue_ids WHERE version = NEW.catalogue),
            (SELECT id FROM finding_names WHERE name = NEW.task_id),
            (SELECT id FROM finding_names WHERE name = NEW.run_id), NEW.step,
            (SELECT id FROM finding_names WHERE name = NEW.tool),
            NEW.detail);
END;

CREATE TRIGGER findings_delete INSTEAD OF DELETE ON findings BEGIN
    DELETE FROM finding_rows WHERE id = OLD.id;
END;

CREATE TRIGGER findings_update INSTEAD OF UPDATE ON findings BEGIN
    INSERT OR IGNORE INTO finding_kinds (name) SELECT NEW.kind WHERE NEW.kind IS NOT NULL;
    INSERT OR IGNORE INTO catalogue_ids (version)
        SELECT NEW.catalogue WHERE NEW.catalogue IS NOT NULL;
    INSERT OR IGNORE INTO finding_names (name) SELECT NEW.task_id WHERE NEW.task_id IS NOT NULL;
    INSERT OR IGNORE INTO finding_names (name) SELECT NEW.run_id WHERE NEW.run_id IS NOT NULL;
    INSERT OR IGNORE INTO finding_names (name) SELECT NEW.tool WHERE NEW.tool IS NOT NULL;
    UPDATE finding_rows SET id = NEW.id, kind = (SELECT id FROM finding_kinds WHERE name = NEW.kind),
        catalogue = (SELECT id FROM catalogue_ids WHERE version = NEW.catalogue),
        task_id = (SELECT id FROM finding_names WHERE name = NEW.task_id),
        run_id = (SELECT id FROM finding_names WHERE name = NEW.run_id), step = NEW.step,
        tool = (SELECT id FROM finding_names WHERE name = NEW.tool),
        detail = CASE WHEN NEW.detail IS OLD.detail AND NEW.tool IS OLD.tool
                      THEN detail ELSE NEW.detail END,
        packed = CASE WHEN NEW.detail IS OLD.detail AND NEW.tool IS OLD.tool
                      THEN packed ELSE 0 END
    WHERE id = OLD.id;
END;
