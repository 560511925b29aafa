"""Prints the rows pypaimon reads (WAREHOUSE DB.TABLE) as canonical JSON lines, nested values rendered
like the Java oracle's PaimonNested: canonical JSON text (arrays, ROW objects and maps keyed by the
rendered key text, keys sorted); leaves as Canon.render (int number, bigint decimal string, timestamps
with 6 or 9 fraction digits, LTZ in UTC + "+00:00")."""
import datetime
import json
import sys

import pyarrow as pa
from pypaimon import CatalogFactory


def leaf(t, v):
    if v is None:
        return None
    if pa.types.is_int64(t):
        return str(v)
    if pa.types.is_integer(t):
        return int(v)
    if pa.types.is_timestamp(t):
        # v is a pyarrow scalar converted with as_py(); nanoseconds need the raw integer
        raise AssertionError('timestamps are rendered from raw values')
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return v.hex()
    return v


def ts_text(t, raw):
    unit = {'s': 1, 'ms': 1000, 'us': 1000000, 'ns': 1000000000}[t.unit]
    secs, frac = divmod(raw, unit)
    base = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
    digits = 9 if t.unit == 'ns' else 6
    frac_text = str(frac * (10 ** digits) // unit).rjust(digits, '0')
    s = base.strftime('%Y-%m-%dT%H:%M:%S') + '.' + frac_text
    return s + '+00:00' if t.tz is not None else s


def tree(t, scalar):
    if not scalar.is_valid:
        return None
    if pa.types.is_timestamp(t):
        return ts_text(t, scalar.cast(pa.int64()).as_py())
    if pa.types.is_map(t):
        out = {}
        for k, v in zip(scalar.values.field('key'), scalar.values.field('value')):
            out[str(tree(t.key_type, k))] = tree(t.item_type, v)
        return dict(sorted(out.items()))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [tree(t.value_type, x) for x in scalar.values]
    if pa.types.is_struct(t):
        return {t.field(i).name: tree(t.field(i).type, scalar[t.field(i).name]) for i in range(t.num_fields)}
    return leaf(t, scalar.as_py())


def render(t, scalar):
    v = tree(t, scalar)
    nested = pa.types.is_map(t) or pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_struct(t)
    if nested and v is not None:
        return json.dumps(v, sort_keys=True, separators=(',', ':'), ensure_ascii=False)
    return v


wh, ident = sys.argv[1], sys.argv[2]
catalog = CatalogFactory.create({'warehouse': wh})
table = catalog.get_table(ident)
rb = table.new_read_builder()
data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
print(json.dumps({'schema': [f'{f.name}: {f.type}' for f in data.schema]}), file=sys.stderr)
for i in range(data.num_rows):
    row = {f.name: render(f.type, data.column(f.name)[i]) for f in data.schema}
    print(json.dumps(row, sort_keys=True, ensure_ascii=False))
