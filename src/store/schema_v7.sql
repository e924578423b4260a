-- rung schema, version 7: denser menus. Documented in docs/schema.md.
--
-- A `menus` row's name list, packed retrieval or policy is a short string
-- of characters (see src/store/dense.rs) where it fits: `l` and one
-- character per tool name id; `r`, k, the head's id, e and per candidate
-- its id and the difference of its score from the one before; `p`, the
-- policy's open-world flag, max_effect, `"`, its families as written. So
-- is a decision's inline label (`expected`): `e`, the acceptable names'
-- ids, a space, the forbidden names' ids. The `decisions` view spells each
-- out as before. The stored rows are converted by the upgrade
-- (src/store/dense.rs).

DROP VIEW decisions;

-- Every column of every decision, menus with their names.
CREATE VIEW decisions AS
SELECT d.id, d.run_id, d.step, d.turn,
       CASE WHEN d.at IS NULL THEN
            CASE WHEN d.at_us IS NOT NULL
                 THEN strftime('%Y-%m-%dT%H:%M:%SZ', d.at_us / 1000000, 'unixepoch') END
            WHEN d.at = X'' THEN NULL ELSE d.at END AS at,
       d.at_us, d.phase, d.catalogue,
       CASE WHEN typeof(d.policy) = 'integer'
            THEN (SELECT CASE WHEN substr(body, 1, 1) = 'p'
                         THEN '{"allowed_families":[' || substr(body, instr(body, '"') + 1)
                              || '],"max_effect":"' || substr(body, 3, instr(body, '"') - 3)
                              || '","allow_open_world":'
                              || CASE substr(body, 2, 1) WHEN 't' THEN 'true' ELSE 'false' END
                              || '}'
                         ELSE body END
                  FROM menus WHERE id = d.policy)
            ELSE d.policy END AS policy,
       CASE WHEN typeof(d.trusted_controls) = 'integer'
            THEN (SELECT CASE WHEN substr(m.body, 1, 1) = 'l' THEN
                    (WITH RECURSIVE s(i, b) AS (
                         SELECT 2, m.body WHERE length(m.body) >= 2
                         UNION ALL SELECT i + 1, b FROM s WHERE i < length(b))
                     SELECT json_group_array(t.name) FROM s CROSS JOIN tool_names t
                     WHERE t.id = unicode(substr(s.b, s.i, 1)) - 32)
                  ELSE (SELECT json_group_array(t.name)
                        FROM json_each(m.body) j CROSS JOIN tool_names t
                        WHERE t.id = j.value) END
                  FROM menus m WHERE m.id = d.trusted_controls)
            ELSE d.trusted_controls END AS trusted_controls,
       CASE WHEN typeof(d.retrieval) = 'integer'
            THEN (SELECT CASE
                  WHEN substr(m.body, 1, 1) = 'r' THEN
                    json_set(
                      CASE WHEN unicode(substr(m.body, 3, 1)) = 32
                                AND unicode(substr(m.body, 4, 1)) = 32
                           THEN json_object('k', unicode(substr(m.body, 2, 1)) - 32)
                           ELSE (SELECT json('{"k":' || (unicode(substr(m.body, 2, 1)) - 32) || ','
                                             || substr(h.body, 2))
                                 FROM menus h
                                 WHERE h.id = (unicode(substr(m.body, 3, 1)) - 32) * 32768
                                              + unicode(substr(m.body, 4, 1)) - 32)
                      END,
                      '$.candidates', json(
                      -- n: the candidate's score times 10^e, the running sum of
                      -- the differences (a candidate without one keeps the sum).
                      (WITH RECURSIVE s(i, n, b) AS (
                           SELECT 0, (SELECT CASE WHEN z = 0 THEN 0 WHEN z % 2 = 0 THEN -(z / 2)
                                                  ELSE (z - 1) / 2 END
                                      FROM (SELECT unicode(substr(m.body, 7, 1)) - 32 AS z)),
                                  m.body
                           WHERE length(m.body) >= 7
                           UNION ALL
                           SELECT i + 1, n + (SELECT CASE WHEN z = 0 THEN 0
                                                          WHEN z % 2 = 0 THEN -(z / 2)
                                                          ELSE (z - 1) / 2 END
                                              FROM (SELECT unicode(substr(b, 9 + 2 * i, 1)) - 32
                                                           AS z)),
                                  b
                           FROM s WHERE i + 1 < (length(b) - 5) / 2)
                       SELECT json_group_array(
                                CASE WHEN unicode(substr(b, 7 + 2 * i, 1)) = 32
                                     THEN json_object('name', (SELECT name FROM tool_names
                                            WHERE id = unicode(substr(b, 6 + 2 * i, 1)) - 32))
                                     ELSE json_object('name', (SELECT name FROM tool_names
                                            WHERE id = unicode(substr(b, 6 + 2 * i, 1)) - 32),
                                            'score', n / CAST(substr('1000000', 1,
                                                unicode(substr(b, 5, 1)) - 31) AS REAL))
                                END)
                       FROM s)))
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
            THEN (SELECT CASE WHEN substr(m.body, 1, 1) = 'l' THEN
                    (WITH RECURSIVE s(i, b) AS (
                         SELECT 2, m.body WHERE length(m.body) >= 2
                         UNION ALL SELECT i + 1, b FROM s WHERE i < length(b))
                     SELECT json_group_array(t.name) FROM s CROSS JOIN tool_names t
                     WHERE t.id = unicode(substr(s.b, s.i, 1)) - 32)
                  ELSE (SELECT json_group_array(t.name)
                        FROM json_each(m.body) j CROSS JOIN tool_names t
                        WHERE t.id = j.value) END
                  FROM menus m WHERE m.id = d.exposed)
            ELSE d.exposed END AS exposed,
       CASE WHEN typeof(d.visible) = 'integer'
            THEN (SELECT CASE WHEN substr(m.body, 1, 1) = 'l' THEN
                    (WITH RECURSIVE s(i, b) AS (
                         SELECT 2, m.body WHERE length(m.body) >= 2
                         UNION ALL SELECT i + 1, b FROM s WHERE i < length(b))
                     SELECT json_group_array(t.name) FROM s CROSS JOIN tool_names t
                     WHERE t.id = unicode(substr(s.b, s.i, 1)) - 32)
                  ELSE (SELECT json_group_array(t.name)
                        FROM json_each(m.body) j CROSS JOIN tool_names t
                        WHERE t.id = j.value) END
                  FROM menus m WHERE m.id = d.visible)
            ELSE d.visible END AS visible,
       d.selected, d.call_id, d.status, d.stage, d.reason,
       CASE WHEN length(d.outcome) > 0 AND typeof(d.outcome) = 'blob'
            THEN (SELECT body FROM menus WHERE id = CAST(d.outcome AS INTEGER))
            WHEN d.outcome IS NULL THEN
            CASE WHEN d.status IS NULL THEN NULL
                 WHEN d.stage IS NULL AND d.reason IS NULL THEN json_object('status', d.status)
                 WHEN d.reason IS NULL THEN json_object('status', d.status, 'stage', d.stage)
                 WHEN d.stage IS NULL THEN json_object('status', d.status, 'reason', d.reason)
                 ELSE json_object('status', d.status, 'stage', d.stage, 'reason', d.reason) END
            WHEN d.outcome = X'' THEN NULL ELSE d.outcome END AS outcome,
       d.latency_ms, d.progress,
       CASE WHEN substr(d.expected, 1, 1) = 'e' THEN
            (WITH RECURSIVE s(i, b) AS (
                 SELECT 2, d.expected WHERE length(d.expected) >= 2
                 UNION ALL SELECT i + 1, b FROM s WHERE i < length(b))
             SELECT '{"acceptable":'
                    || json_group_array(t.name) FILTER (WHERE s.i < instr(s.b, ' '))
                    || ',"forbidden":'
                    || json_group_array(t.name) FILTER (WHERE s.i > instr(s.b, ' ')) || '}'
             FROM s CROSS JOIN tool_names t WHERE t.id = unicode(substr(s.b, s.i, 1)) - 32)
            ELSE d.expected END AS expected,
       d.extra, d.record_hash,
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
        progress = NEW.progress,
        expected = CASE WHEN NEW.expected IS OLD.expected THEN expected ELSE NEW.expected END,
        extra = NEW.extra,
        record_hash = NEW.record_hash,
        source = CASE WHEN NEW.source IS OLD.source THEN source ELSE NEW.source END,
        source_at = CASE WHEN NEW.source IS OLD.source THEN source_at END,
        import_id = NEW.import_id
    WHERE id = OLD.id;
END;
