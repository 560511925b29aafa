"""PyIceberg through a real catalog: SQL (SQLite file, PyIceberg's SqlCatalog) or REST (RestCatalog).

usage: pyiceberg_catalog.py write    NS.TABLE --catalog sql:FILE|rest:URL [--warehouse DIR] [--name N] < spec.json
       pyiceberg_catalog.py read     NS.TABLE --catalog ... [--snapshot ID] [--count]
       pyiceberg_catalog.py snapshots NS.TABLE --catalog ...
       pyiceberg_catalog.py history  NS.TABLE --catalog ...   (time travel to every snapshot, one process)
       pyiceberg_catalog.py serve    (request loop: each stdin line {"argv": [...], "input": spec-or-null},
                                      each reply one stdout line {"ok", "code", "stdout"} or {"ok": false, "error"})

write spec: {formatVersion?, schema?: [{name, type, required?}], partitionSpec?, properties?,
             ops: [{op: "append", rows: [...]} | {op: "delete", where: ...}]}
  With "schema" the table (and its namespace) is created; otherwise ops apply to the existing table.
  Prints {location, metadataFile, formatVersion, currentSnapshotId, ops: [...]}.
read: canonical JSON lines of the live rows (or {"count": N}); exits 3 when PyIceberg cannot read the table.
history: {"<snapshot id>": [canonical rows...], ...} for every snapshot in the table's metadata.
snapshots: {"current": id, "snapshots": [{id, parent, operation}], "metadataLog": [file, ...]} as loaded
  through the catalog.
The SQL catalog's name (catalog_name column) defaults to "oracle", the Java oracle's default too.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import traceback

from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.types import NestedField

from canonical import emit_rows, kind_of, render
from pyiceberg_write import arrow_rows, iceberg_type, transform, where_expr


def open_catalog(spec: str, warehouse: str | None, name: str):
    kind, _, target = spec.partition(":")
    props = {}
    if warehouse:
        props["warehouse"] = warehouse if "://" in warehouse else f"file://{warehouse}"
    if kind == "sql":
        from pyiceberg.catalog.sql import SqlCatalog

        return SqlCatalog(name, uri=f"sqlite:///{target}", **props)
    if kind == "rest":
        from pyiceberg.catalog.rest import RestCatalog

        return RestCatalog(name, uri=target, **props)
    raise ValueError(f"--catalog must be sql:FILE or rest:URL, got {spec}")


def ident(text: str) -> tuple[str, ...]:
    parts = tuple(p for p in text.split(".") if p)
    if len(parts) < 2:
        raise ValueError(f"table identifier {text!r} must be NS.TABLE")
    return parts


def create(catalog, name: tuple[str, ...], spec: dict):
    fields, ids = [], {}
    for i, f in enumerate(spec["schema"], start=1):
        fields.append(NestedField(i, f["name"], iceberg_type(f["type"]), required=bool(f.get("required", False))))
        ids[f["name"]] = i
    pfields = []
    for j, p in enumerate(spec.get("partitionSpec", [])):
        t = p.get("transform", "identity")
        pname = p.get("name") or (p["source"] if t == "identity" else f"{p['source']}_{t.split('[')[0]}")
        pfields.append(PartitionField(ids[p["source"]], 1000 + j, transform(t), pname))
    props = {str(k): str(v) for k, v in spec.get("properties", {}).items()}
    props["format-version"] = str(spec.get("formatVersion", 2))
    catalog.create_namespace_if_not_exists(name[:-1])
    return catalog.create_table(name, schema=Schema(*fields), partition_spec=PartitionSpec(*pfields), properties=props)


def write(catalog, name, spec) -> dict:
    table = create(catalog, name, spec) if "schema" in spec else catalog.load_table(name)
    results = []
    for op in spec.get("ops", []):
        if op["op"] == "append":
            table.append(arrow_rows(table, op["rows"]))
        elif op["op"] == "delete":
            table.delete(where_expr(table, op["where"]))
        else:
            raise ValueError(f"unknown op {op['op']}")
        table = catalog.load_table(name)
        s = table.current_snapshot()
        results.append({"op": op["op"], "snapshotId": None if s is None else str(s.snapshot_id)})
    s = table.current_snapshot()
    return {
        "location": table.location(),
        "metadataFile": table.metadata_location,
        "formatVersion": table.format_version,
        "currentSnapshotId": None if s is None else str(s.snapshot_id),
        "ops": results,
    }


def read(catalog, name, snapshot: int | None, count: bool) -> int:
    table = catalog.load_table(name)
    scan = table.scan(snapshot_id=snapshot) if snapshot is not None else table.scan()
    fields = [(f.name, kind_of(f.field_type)) for f in scan.projection().fields]
    try:
        arrow = scan.to_arrow()
    except ValueError as e:
        if "not yet support" in str(e) or "not supported" in str(e):
            print(json.dumps({"unsupported": str(e)}), file=sys.stderr)
            return 3
        raise
    emit_rows([{n: render(k, r.get(n)) for n, k in fields} for r in arrow.to_pylist()], count)
    return 0


def history(catalog, name) -> dict:
    table = catalog.load_table(name)
    out = {}
    for s in table.metadata.snapshots:
        scan = table.scan(snapshot_id=s.snapshot_id)
        fields = [(f.name, kind_of(f.field_type)) for f in scan.projection().fields]
        rows = [{n: render(k, r.get(n)) for n, k in fields} for r in scan.to_arrow().to_pylist()]
        out[str(s.snapshot_id)] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))
    return out


def snapshots(catalog, name) -> dict:
    md = catalog.load_table(name).metadata
    return {
        "current": None if md.current_snapshot_id is None else str(md.current_snapshot_id),
        "snapshots": [
            {
                "id": str(s.snapshot_id),
                "parent": None if s.parent_snapshot_id is None else str(s.parent_snapshot_id),
                "operation": None if s.summary is None else str(s.summary.operation.value),
            }
            for s in md.snapshots
        ],
        "metadataLog": [e.metadata_file for e in md.metadata_log],
    }


def run(argv: list[str], spec_input=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["write", "read", "snapshots", "history"])
    ap.add_argument("table")
    ap.add_argument("--catalog", required=True)
    ap.add_argument("--warehouse")
    ap.add_argument("--name", default="oracle")
    ap.add_argument("--spec")
    ap.add_argument("--snapshot", type=int)
    ap.add_argument("--count", action="store_true")
    a = ap.parse_args(argv)
    catalog = open_catalog(a.catalog, a.warehouse, a.name)
    try:
        name = ident(a.table)
        if a.command == "write":
            if spec_input is None:
                spec_input = json.load(open(a.spec) if a.spec and a.spec != "-" else sys.stdin)
            print(json.dumps(write(catalog, name, spec_input)))
            return 0
        if a.command == "history":
            print(json.dumps(history(catalog, name)))
            return 0
        if a.command == "snapshots":
            print(json.dumps(snapshots(catalog, name)))
            return 0
        return read(catalog, name, a.snapshot, a.count)
    finally:
        engine = getattr(catalog, "engine", None)
        if engine is not None:
            engine.dispose()  # no pooled SQLite connection outlives the call


def serve() -> int:
    """One Python start (PyIceberg + pyarrow imports cost seconds) for many calls."""
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                code = run(req["argv"], req.get("input"))
            reply = {"ok": True, "code": code, "stdout": buf.getvalue()}
        except BaseException as e:  # noqa: BLE001 - argparse exits with SystemExit
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


def main() -> int:
    if sys.argv[1:2] == ["serve"]:
        return serve()
    return run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
