"""Row count + order-independent checksum of an Iceberg table's live rows (DuckDB's iceberg extension,
which applies position and equality deletes), or of the base table's data files with id % 20 = 0 left out.

usage: check_rows.py METADATA_JSON                 live rows of that metadata's current snapshot
       check_rows.py --files-minus-deletes DIR     read_parquet(DIR/**/*.parquet) WHERE id % 20 <> 0
       check_rows.py --files DIR                   read_parquet(DIR/**/*.parquet)
Prints {"rows": N, "checksum": "<decimal>"}: the sum over rows of DuckDB's hash of all 15 columns.
(run with the project's .venv python: duckdb + the iceberg extension wheels)
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration", "oracles", "py"))
from duckdb_read import connect  # noqa: E402

COLS = "id, region, customer, product, status, note, qty, price, amount, discount, created_at, ship_date, is_gift, seq, score"
con = connect()
if sys.argv[1] == "--files-minus-deletes":
    src, where = f"read_parquet('{sys.argv[2]}/**/*.parquet')", "WHERE id % 20 <> 0"
elif sys.argv[1] == "--files":
    src, where = f"read_parquet('{sys.argv[2]}/**/*.parquet')", ""
else:
    src, where = f"iceberg_scan('{sys.argv[1]}')", ""
n, s = con.execute(f"SELECT count(*), coalesce(sum(hash({COLS})::HUGEINT), 0) FROM {src} {where}").fetchone()
print(json.dumps({"rows": n, "checksum": str(s)}))
