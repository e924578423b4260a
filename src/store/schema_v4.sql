-- rung schema, version 4: a smaller store. Documented in docs/schema.md.
--
-- A decision's `source` (`path:line`) is kept as one integer in
-- `source_at`, the id of its path in `source_paths` times 2^32 plus its
-- line (`source` NULL); a source that does not split so (or one written
-- through the `decisions` view) stays text in `source`.
-- A packed retrieval keeps what it says besides k and its candidates (its
-- selector and query) in a `menus` row of its own, shared by every
-- retrieval that repeats it: `{"k":…,"h":<menus id>,"c":[…]}`.
-- The stored rows are converted by the upgrade (src/store/compact.rs).

CREATE TABLE source_paths (
    id   INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE
);

ALTER TABLE decision_rows ADD COLUMN source_at INTEGER;

DROP VIEW decisions;

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
       d.selected, d.call_id, d.status, d.stage, d.reason, d.outcome, d.latency_ms,
       d.progress, d.expected, d.extra, d.record_hash,
       CASE WHEN d.source_at IS NOT NULL
            THEN (SELECT path FROM source_paths WHERE id = d.source_at >> 32)
                 || ':' || (d.source_at & 4294967295)
            ELSE d.source END AS source,
       d.import_id
FROM decision_rows d;

-- Writing through the view: menus and sources written as text are kept as text.
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
        record_hash = NEW.record_hash,
        source = CASE WHEN NEW.source IS OLD.source THEN source ELSE NEW.source END,
        source_at = CASE WHEN NEW.source IS OLD.source THEN source_at END,
        import_id = NEW.import_id
    WHERE id = OLD.id;
END;

-- Findings (schema 4): stored in `finding_rows`, a detail packed where it
-- says what many details say (`packed` = 1): each phrase of a fixed list
-- as one control character, the finding's tool as char(31). `findings`
-- is a view that spells every detail out, as before (and takes INSERT,
-- UPDATE and DELETE).
CREATE TABLE finding_rows (
    id        INTEGER PRIMARY KEY,
    kind      TEXT NOT NULL,
    catalogue TEXT,
    task_id   TEXT,
    run_id    TEXT,
    step      INTEGER,
    tool      TEXT,
    detail    TEXT NOT NULL,
    packed    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO finding_rows (id, kind, catalogue, task_id, run_id, step, tool, detail)
    SELECT id, kind, catalogue, task_id, run_id, step, tool, detail FROM findings;
DROP TABLE findings;
CREATE INDEX finding_rows_run ON finding_rows (run_id);
CREATE INDEX finding_rows_catalogue ON finding_rows (catalogue, kind);

CREATE VIEW findings AS
SELECT x.id, x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool,
       CASE WHEN x.packed THEN
            replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x.detail, char(27), 'added '), char(26), '; removed '), char(25), 'selected '), char(24), ' differs from the case '), char(23), 'inline expected acceptable '), char(22), '; the inline label wins'), char(21), 'refused with reason '), char(20), ', which no stage maps; add it to [reasons] in the config'), char(19), ' (mutating)'), char(18), 'executed (ok)'), char(17), ' executed (ok) in a run whose intent is inform: an inform request changes nothing'), char(16), ', which was not in the visible menu; '), char(15), ' times within the run; first here, after step '), char(14), 'the visible menu changed '), char(8), '; it was refused'), char(7), ': required: missing'), char(6), ' fail its schema: '), char(5), 'the arguments of '), char(4), ' (never seen earlier in the run)'), char(3), ' was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: '), char(2), '; it executed anyway (ok): the action boundary let an invalid call through'), char(1), ': additionalProperties: not a declared property'), char(31), COALESCE(x.tool, ''))
       ELSE x.detail END AS detail
FROM finding_rows x;

CREATE TRIGGER findings_insert INSTEAD OF INSERT ON findings BEGIN
    INSERT INTO finding_rows (id, kind, catalogue, task_id, run_id, step, tool, detail)
    VALUES (NEW.id, NEW.kind, NEW.catalogue, NEW.task_id, NEW.run_id, NEW.step, NEW.tool,
            NEW.detail);
END;

CREATE TRIGGER findings_delete INSTEAD OF DELETE ON findings BEGIN
    DELETE FROM finding_rows WHERE id = OLD.id;
END;

CREATE TRIGGER findings_update INSTEAD OF UPDATE ON findings BEGIN
    UPDATE finding_rows SET id = NEW.id, kind = NEW.kind, catalogue = NEW.catalogue,
        task_id = NEW.task_id, run_id = NEW.run_id, step = NEW.step, tool = NEW.tool,
        detail = CASE WHEN NEW.detail IS OLD.detail AND NEW.tool IS OLD.tool
                      THEN detail ELSE NEW.detail END,
        packed = CASE WHEN NEW.detail IS OLD.detail AND NEW.tool IS OLD.tool
                      THEN packed ELSE 0 END
    WHERE id = OLD.id;
END;
