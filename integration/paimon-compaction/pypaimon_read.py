"""Prints the rows pypaimon reads from a filesystem-catalog table as sorted-key JSON lines: WAREHOUSE DB.TABLE."""
import sys, json
from pypaimon import CatalogFactory
wh, ident = sys.argv[1], sys.argv[2]
catalog = CatalogFactory.create({'warehouse': wh})
table = catalog.get_table(ident)
rb = table.new_read_builder()
splits = rb.new_scan().plan().splits()
t = rb.new_read().to_arrow(splits)
for r in t.to_pylist():
    print(json.dumps(r, default=str, sort_keys=True))
