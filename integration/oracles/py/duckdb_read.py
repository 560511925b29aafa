"""Dump the live rows of an Iceberg table with DuckDB's iceberg extension as canonical JSON lines.

usage: duckdb_read.py TABLE_DIR|METADATA_JSON [--snapshot ID] [--count]
       duckdb_read.py --check      (exit 0 when the extension loads, else print the reason, exit 2)

The extension binaries come from the duckdb-extension-iceberg / duckdb-extension-avro PyPI wheels
(extensions.duckdb.org is not reachable here) and are loaded by file path; autoinstall is disabled.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys

from canonical import emit_rows, metadata_file, render, ts_from_micros


def connect():
    import duckdb

    con = duckdb.connect()
    con.execute("SET autoinstall_known_extensions=false")
    con.execute("SET autoload_known_extensions=false")
    for mod_name in ("duckdb_extension_avro", "duckdb_extension_iceberg"):
        mod = __import__(mod_name)
        base = os.path.dirname(mod.__file__)
        found = glob.glob(os.path.join(base, "extensions", f"v{duckdb.__version__}", "*.duckdb_extension"))
        if not found:
            raise RuntimeError(f"{mod_name} ships no extension for duckdb {duckdb.__version__}")
        con.execute(f"LOAD '{found[0]}'")
    return con


def kind_of_duck(t: str) -> str:
    t = t.upper()
    if t.startswith("DECIMAL"):
        return t.lower().replace(" ", "")
    return {
        "INTEGER": "int",
        "SMALLINT": "int",
        "TINYINT": "int",
        "BIGINT": "long",
        "DOUBLE": "double",
        "FLOAT": "float",
        "BOOLEAN": "boolean",
        "VARCHAR": "string",
        "BLOB": "binary",
        "DATE": "date",
        "TIME": "time",
        "UUID": "uuid",
        "TIMESTAMP": "timestamp",
        "TIMESTAMP WITH TIME ZONE": "timestamptz",
    }.get(t, "unsupported:" + t)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("table", nargs="?")
    ap.add_argument("--snapshot", type=int)
    ap.add_argument("--count", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    try:
        con = connect()
    except Exception as e:  # noqa: BLE001 - any failure means "unavailable"
        print(json.dumps({"unavailable": f"{type(e).__name__}: {e}"}), file=sys.stderr)
        return 2
    if a.check:
        print(json.dumps({"ok": True}))
        return 0
    path = metadata_file(a.table).replace("'", "''")
    src = f"iceberg_scan('{path}'" + (f", snapshot_from_id={a.snapshot})" if a.snapshot is not None else ")")
    cols = con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()
    select = []
    kinds = []
    for name, typ, *_ in cols:
        kind = kind_of_duck(typ)
        q = '"' + name.replace('"', '""') + '"'
        # Timestamps leave DuckDB as epoch micros: Python-side time zones cannot leak in.
        select.append(f"epoch_us({q})" if kind in ("timestamp", "timestamptz") else q)
        kinds.append((name, kind))
    rows = []
    for rec in con.execute(f"SELECT {', '.join(select)} FROM {src}").fetchall():
        row = {}
        for (name, kind), v in zip(kinds, rec):
            if kind.startswith("unsupported:"):
                raise ValueError(f"duckdb_read: column {name} has unsupported type {kind[12:]}")
            if kind in ("timestamp", "timestamptz") and v is not None:
                row[name] = ts_from_micros(v) + ("+00:00" if kind == "timestamptz" else "")
            else:
                row[name] = render(kind, v)
        rows.append(row)
    emit_rows(rows, a.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
