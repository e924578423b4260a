"""Runs the report queries of docs/scale.md with DuckDB over a rung export
and prints each report in the shape of `rung report KIND --format json`.

    python3 tests/duckdb_reports.py DIR docs/scale.md SINCE UNTIL [merged]

SINCE and UNTIL (RFC 3339) are the refusal report's window. The queries are
the fenced blocks of docs/scale.md whose info string is `sql setup` or
`sql report=KIND [part=NAME]`, run as they are written there: the doc is
the single source. DIR is an export; with `merged`, it is the folder that
holds `warehouse/` (shards' exports), read by the `sql merge` block in
place of `sql setup`. Used by tests/export_duckdb.rs; fails loudly (exit 1)
when duckdb is missing.
"""

import json
import os
import re
import sys

try:
    import duckdb
except ImportError as e:  # the test must fail, not skip
    sys.exit(f"duckdb is not installed for {sys.executable} ({e}); .ci/run installs it")

FENCE = re.compile(r"^```sql ([^\n]*)\n(.*?)^```", re.M | re.S)


def blocks(doc):
    """(setup SQL, merge SQL, {(kind, part): SQL}) from the doc's marked blocks."""
    setup, merge, reports = [], [], {}
    for info, sql in FENCE.findall(doc):
        words = dict(w.split("=", 1) if "=" in w else (w, "") for w in info.split())
        if "setup" in words:
            setup.append(sql)
        elif "merge" in words:
            merge.append(sql)
        elif "report" in words:
            key = (words["report"], words.get("part", ""))
            if key in reports:
                sys.exit(f"docs/scale.md: two blocks for {key}")
            reports[key] = sql
    if not setup or not merge:
        sys.exit("docs/scale.md: no `sql setup` or no `sql merge` block")
    return setup, merge, reports


def rows(con, sql):
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def one(con, sql):
    got = rows(con, sql)
    if len(got) != 1:
        sys.exit(f"expected one row, got {len(got)} from:\n{sql}")
    return got[0]


def nest(row):
    """A row whose column `a.b` becomes field b of object a."""
    out = {}
    for k, v in row.items():
        *path, last = k.split(".")
        o = out
        for p in path:
            o = o.setdefault(p, {})
        o[last] = v
    return out


def rate(num, den):
    return {"value": (num / den) if den else None, "numerator": num, "denominator": den}


def rates(row):
    """{name: rate} from columns NAME_numerator / NAME_denominator."""
    out = {}
    for k in row:
        if k.endswith("_numerator"):
            name = k[: -len("_numerator")]
            out[name] = rate(row[k], row[name + "_denominator"])
    return out


def main():
    export_dir, doc_path, since, until = sys.argv[1:5]
    merged = sys.argv[5:] == ["merged"]
    with open(doc_path, encoding="utf-8") as f:
        setup, merge, q = blocks(f.read())
    if merged:
        setup = merge
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    os.chdir(export_dir)
    for sql in setup:
        con.execute(sql)
    con.execute(f"SET VARIABLE since = TIMESTAMPTZ '{since}'")
    con.execute(f"SET VARIABLE until = TIMESTAMPTZ '{until}'")
    out = {}

    row = one(con, q[("ladder", "")])
    out["ladder"] = {
        "decisions": row.pop("decisions"),
        "labelled": row.pop("labelled"),
        "rungs": row,
    }

    m = rates(one(con, q[("metrics", "rates")]))
    m["tool_recall_at_k"] = {
        str(r["k"]): rate(r["numerator"], r["denominator"])
        for r in rows(con, q[("metrics", "tool_recall_at_k")])
    }
    m["pass_hat_k"] = {
        str(r["k"]): {"value": r["value"], "tasks": r["tasks"]}
        for r in rows(con, q[("metrics", "pass_hat_k")])
    }
    m["definition_tokens"] = one(con, q[("metrics", "definition_tokens")])
    m.update(rates(one(con, q[("metrics", "expectations")])))
    r = one(con, q[("metrics", "inconsistent_tasks")])
    m["inconsistent_tasks"] = rate(r["numerator"], r["denominator"])
    out["metrics"] = m

    out["refusals"] = {
        "window": {"since": since, "until": until},
        "rows": rows(con, q[("refusals", "rows")]),
        "undated": one(con, q[("refusals", "undated")])["undated"],
    }

    cells = rows(con, q[("confusions", "")])
    out["confusions"] = {
        "selection_failures": sum(c["count"] for c in cells),
        "cells": cells,
    }

    tools = rows(con, q[("tools", "")])
    for t in tools:
        t["refused_by_reason"] = json.loads(t["refused_by_reason"])
    out["tools"] = {"tools": tools}

    out["runs"] = {"runs": rows(con, q[("runs", "")])}
    out["findings"] = {"findings": rows(con, q[("findings", "")])}

    tasks = rows(con, q[("consistency", "")])
    out["consistency"] = {"inconsistent_tasks": m["inconsistent_tasks"], "tasks": tasks}

    out["budget"] = {"catalogues": [nest(r) for r in rows(con, q[("budget", "")])]}

    unused = set(q) - {
        ("ladder", ""), ("metrics", "rates"), ("metrics", "tool_recall_at_k"),
        ("metrics", "pass_hat_k"), ("metrics", "definition_tokens"),
        ("metrics", "expectations"), ("metrics", "inconsistent_tasks"),
        ("refusals", "rows"), ("refusals", "undated"), ("confusions", ""),
        ("tools", ""), ("runs", ""), ("findings", ""), ("consistency", ""), ("budget", ""),
    }
    if unused:
        sys.exit(f"docs/scale.md has report blocks this script does not run: {sorted(unused)}")
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main()
