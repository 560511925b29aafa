"""Per data file, the real min/max of some columns, computed by pyarrow from the rows (not from stats).

Usage: file_bounds.py COL[,COL...] FILE... → one JSON line per file: {"file", "rows", "min": {...}, "max": {...}}.
"""
import json
import sys

import pyarrow.compute as pc
import pyarrow.parquet as pq

cols = sys.argv[1].split(',')
for path in sys.argv[2:]:
    t = pq.ParquetFile(path).read(columns=cols)  # one file, no hive partition inference from p=… dirs
    lo, hi = {}, {}
    for c in cols:
        mm = pc.min_max(t.column(c)).as_py()
        lo[c], hi[c] = mm['min'], mm['max']
    print(json.dumps({'file': path, 'rows': t.num_rows, 'min': lo, 'max': hi}))
