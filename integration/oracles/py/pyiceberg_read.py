"""Dump the live rows of an Iceberg table with PyIceberg as canonical JSON lines.

usage: pyiceberg_read.py TABLE_DIR|METADATA_JSON [--snapshot ID] [--count]
"""
from __future__ import annotations

import argparse
import json
import sys

from pyiceberg.table import StaticTable

from canonical import emit_rows, kind_of, metadata_file, render


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--snapshot", type=int)
    ap.add_argument("--count", action="store_true")
    a = ap.parse_args()
    table = StaticTable.from_metadata(metadata_file(a.table))
    scan = table.scan(snapshot_id=a.snapshot) if a.snapshot is not None else table.scan()
    schema = scan.projection()  # the snapshot's schema when time-travelling
    fields = [(f.name, kind_of(f.field_type)) for f in schema.fields]
    try:
        arrow = scan.to_arrow()
    except ValueError as e:
        # Features PyIceberg cannot read (e.g. equality deletes): exit 3 so callers can skip loudly.
        if "not yet support" in str(e) or "not supported" in str(e):
            print(json.dumps({"unsupported": str(e)}), file=sys.stderr)
            return 3
        raise
    rows = []
    for rec in arrow.to_pylist():
        rows.append({name: render(kind, rec.get(name)) for name, kind in fields})
    emit_rows(rows, a.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
