-- rung schema, version 10: the tool audit's counts kept. Documented in
-- docs/schema.md.
--
-- * `agg_audit` holds, per `agg_keys` key, the counts the Tools screen's
--   "why was it visible" audit sums for any tool of the key's catalogue
--   (src/store/agg/audit.rs), packed in one blob: decisions by their
--   policy's class, by each family their policy allows, the corrections of
--   the tools their lists name, and the decisions explained the long way.
--   The upgrade counts every stored day again (src/store/mod.rs).

CREATE TABLE agg_audit (
    key    INTEGER PRIMARY KEY,
    counts BLOB NOT NULL
);
