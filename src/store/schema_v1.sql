-- rung schema, version 1. Documented in docs/schema.md.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE imports (
    id          INTEGER PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    sources     TEXT NOT NULL,
    summary     TEXT
);

CREATE TABLE catalogues (
    version    TEXT PRIMARY KEY,
    created_at TEXT,
    abstain    TEXT,
    extra      TEXT NOT NULL,
    source     TEXT,
    import_id  INTEGER
) WITHOUT ROWID;

-- The definition of each tool in use: the first one seen under its version.
CREATE TABLE tools (
    catalogue         TEXT NOT NULL,
    name              TEXT NOT NULL,
    family            TEXT NOT NULL,
    effect            TEXT NOT NULL,
    open_world        INTEGER NOT NULL,
    idempotent        INTEGER NOT NULL,
    description       TEXT NOT NULL,
    definition_hash   TEXT NOT NULL,
    definition_tokens INTEGER NOT NULL,
    record            TEXT NOT NULL,
    PRIMARY KEY (catalogue, name)
) WITHOUT ROWID;

-- Every distinct definition ever seen for a (catalogue, tool), in order;
-- more than one row for a tool means drift or conflict.
CREATE TABLE tool_versions (
    id              INTEGER PRIMARY KEY,
    catalogue       TEXT NOT NULL,
    name            TEXT NOT NULL,
    definition_hash TEXT NOT NULL,
    family          TEXT NOT NULL,
    effect          TEXT NOT NULL,
    open_world      INTEGER NOT NULL,
    idempotent      INTEGER NOT NULL,
    record          TEXT NOT NULL,
    source          TEXT,
    UNIQUE (catalogue, name, definition_hash, family, effect, open_world, idempotent)
);

CREATE TABLE runs (
    run_id            TEXT PRIMARY KEY,
    task_id           TEXT,
    trial             INTEGER,
    goal              TEXT,
    intent            TEXT,
    model             TEXT,
    catalogue         TEXT,
    selector          TEXT,
    policy            TEXT,
    trusted_controls  TEXT,
    retrieval         TEXT,
    visible           TEXT,
    started_at        TEXT,
    started_us        INTEGER,
    ended_at          TEXT,
    terminated        TEXT,
    success           INTEGER,
    harm              INTEGER,
    scope             TEXT,
    tags              TEXT,
    extra             TEXT,
    record_hash       BLOB,          -- NULL: a bare run, known only from its decisions
    source            TEXT,
    import_id         INTEGER,
    -- derived by the classifier
    decisions         INTEGER NOT NULL DEFAULT 0,
    first_failed_rung TEXT,
    first_at_us       INTEGER
);
CREATE INDEX runs_task ON runs (task_id);
CREATE INDEX runs_catalogue ON runs (catalogue);

CREATE TABLE decisions (
    id               INTEGER PRIMARY KEY,
    run_id           TEXT NOT NULL,
    step             INTEGER NOT NULL,
    turn             INTEGER,
    at               TEXT,
    at_us            INTEGER,
    phase            TEXT,
    catalogue        TEXT,
    policy           TEXT,
    trusted_controls TEXT,
    retrieval        TEXT,
    exposed          TEXT,
    visible          TEXT,
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
CREATE INDEX decisions_catalogue ON decisions (catalogue) WHERE catalogue IS NOT NULL;

-- The large parts of a decision, apart so that scans stay fast.
CREATE TABLE payloads (
    decision_id INTEGER PRIMARY KEY,
    arguments   TEXT,
    result      TEXT,
    raw         TEXT
);

CREATE TABLE cases (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    task_id     TEXT NOT NULL,
    step        INTEGER,
    catalogue   TEXT,
    acceptable  TEXT NOT NULL,
    forbidden   TEXT NOT NULL,
    note        TEXT,
    extra       TEXT,
    record_hash BLOB NOT NULL,
    source      TEXT,
    import_id   INTEGER
);
CREATE INDEX cases_task ON cases (task_id);

-- The classifier's verdict on each decision (see ladder.md); recomputed
-- whenever an import changes what it depends on.
CREATE TABLE ladder (
    decision_id       INTEGER PRIMARY KEY,
    run_id            TEXT NOT NULL,
    step              INTEGER NOT NULL,
    turn              INTEGER NOT NULL,
    catalogue         TEXT,
    phase             TEXT,
    time_us           INTEGER,
    selected          TEXT,
    status            TEXT,
    reason            TEXT,
    rung              TEXT NOT NULL,
    routing           TEXT,
    boundary          TEXT,
    progress          TEXT,
    violated          INTEGER NOT NULL,
    label_source      TEXT,
    acceptable        TEXT,
    forbidden         TEXT,
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
    controls          TEXT NOT NULL,
    retrieved         TEXT NOT NULL,
    definition_tokens INTEGER
);
CREATE INDEX ladder_run ON ladder (run_id, step);
CREATE INDEX ladder_rung ON ladder (rung);
CREATE INDEX ladder_time ON ladder (time_us);

CREATE TABLE findings (
    id        INTEGER PRIMARY KEY,
    kind      TEXT NOT NULL,
    catalogue TEXT,
    task_id   TEXT,
    run_id    TEXT,
    step      INTEGER,
    tool      TEXT,
    detail    TEXT NOT NULL
);
CREATE INDEX findings_run ON findings (run_id);
CREATE INDEX findings_catalogue ON findings (catalogue, kind);

-- One row per decision with its rung and parts, for sqlite3 users.
CREATE VIEW decision_ladder AS
SELECT d.run_id, d.step, d.turn, d.phase, d.at,
       COALESCE(d.catalogue, r.catalogue) AS catalogue,
       r.task_id, r.model,
       d.selected, l.rung, l.routing, l.boundary, l.progress, l.violated,
       d.status AS outcome, d.stage, d.reason,
       l.acceptable, l.forbidden, l.label_source
FROM decisions d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id;

-- Refused decisions with the stage the ladder assigns them.
CREATE VIEW refusals AS
SELECT d.run_id, d.step, d.at, d.selected, d.reason, l.boundary AS stage,
       r.task_id, r.model, COALESCE(d.catalogue, r.catalogue) AS catalogue
FROM decisions d
JOIN ladder l ON l.decision_id = d.id
JOIN runs r ON r.run_id = d.run_id
WHERE d.status = 'refused';

-- The latest definition-hash change for each drifted tool.
CREATE VIEW tool_drift AS
SELECT v.catalogue, v.name, t.definition_hash AS in_use, v.definition_hash AS seen,
       v.source
FROM tool_versions v
JOIN tools t ON t.catalogue = v.catalogue AND t.name = v.name
WHERE v.definition_hash <> t.definition_hash;
