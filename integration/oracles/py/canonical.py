"""Canonical value rendering for oracle output (same rules as integration/oracles/canonical.ts).

int -> JSON number; long -> decimal string; float/double -> JSON number (NaN/Infinity/-Infinity as
strings); decimal(p,s) -> plain string with exactly s fraction digits; date -> YYYY-MM-DD;
time -> HH:MM:SS.ffffff; timestamp -> YYYY-MM-DDTHH:MM:SS.ffffff; timestamptz -> the UTC instant in
the same form plus "+00:00"; string/uuid -> text; binary/fixed -> lowercase hex; boolean -> JSON
boolean; null -> null. Rows print as JSON objects with sorted keys, one per line, lines sorted.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import re
import sys
import uuid
from typing import Any

_EPOCH = dt.datetime(1970, 1, 1)


def _fmt_ts(d: dt.datetime) -> str:
    # strftime's %Y does not zero-pad years < 1000 on every platform: format by hand.
    return (
        f"{d.year:04d}-{d.month:02d}-{d.day:02d}T"
        f"{d.hour:02d}:{d.minute:02d}:{d.second:02d}.{d.microsecond:06d}"
    )


def ts_from_micros(us: int) -> str:
    return _fmt_ts(_EPOCH + dt.timedelta(microseconds=us))


def kind_of(iceberg_type: Any) -> str:
    """Canonical kind from a PyIceberg type (its str() is the Iceberg type name)."""
    return str(iceberg_type).replace(" ", "").lower()


def render(kind: str, v: Any) -> Any:
    if v is None:
        return None
    k = kind.lower().replace(" ", "")
    if k.startswith("decimal"):
        scale = int(k[k.index("(") + 1 : k.index(")")].split(",")[1])
        # Default context precision (28) is too small for decimal(38, s).
        with decimal.localcontext() as ctx:
            ctx.prec = 100
            q = decimal.Decimal(v).quantize(decimal.Decimal(1).scaleb(-scale))
        return format(q, "f")
    if k.startswith("fixed"):
        k = "binary"
    if k == "int":
        return int(v)
    if k == "long":
        return str(int(v))
    if k in ("float", "double"):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if k == "boolean":
        return bool(v)
    if k == "string":
        return str(v)
    if k == "uuid":
        return str(uuid.UUID(bytes=v) if isinstance(v, (bytes, bytearray)) else v).lower()
    if k == "date":
        return v.isoformat()
    if k == "time":
        return f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}"
    if k == "timestamp":
        return _fmt_ts(v)
    if k == "timestamptz":
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return _fmt_ts(v) + "+00:00"
    if k == "binary":
        return bytes(v).hex()
    raise ValueError(f"canonical rendering: unsupported kind {kind}")


def parse(kind: str, v: Any) -> Any:
    """Parse a canonical (or plain JSON) input value into the Python value writers expect."""
    if v is None:
        return None
    k = kind.lower().replace(" ", "")
    if k.startswith("decimal"):
        return decimal.Decimal(str(v))
    if k in ("int", "long"):
        return int(v)
    if k in ("float", "double"):
        return float(v)
    if k == "boolean":
        return v if isinstance(v, bool) else str(v).lower() == "true"
    if k == "string":
        return str(v)
    if k == "date":
        return dt.date.fromisoformat(v)
    if k == "time":
        return dt.time.fromisoformat(v)
    if k == "timestamp":
        return dt.datetime.fromisoformat(v)
    if k == "timestamptz":
        t = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        if t.tzinfo is None:
            t = t.replace(tzinfo=dt.timezone.utc)
        return t.astimezone(dt.timezone.utc)
    if k == "binary" or k.startswith("fixed"):
        return bytes.fromhex(v)
    if k == "uuid":
        return uuid.UUID(v)
    raise ValueError(f"unsupported input kind {kind}")


def emit_rows(rows: list[dict[str, Any]], count: bool = False) -> None:
    if count:
        print(json.dumps({"count": len(rows)}))
        return
    lines = sorted(json.dumps(r, sort_keys=True, separators=(",", ":")) for r in rows)
    out = sys.stdout
    for line in lines:
        out.write(line + "\n")


def metadata_file(location: str) -> str:
    """A metadata JSON path as given, or the current one of a filesystem table directory."""
    import os

    if location.endswith(".metadata.json"):
        return location
    meta = os.path.join(location, "metadata")
    hint = os.path.join(meta, "version-hint.text")
    if os.path.exists(hint):
        v = open(hint).read().strip()
        if v and os.path.exists(os.path.join(meta, f"v{v}.metadata.json")):
            return os.path.join(meta, f"v{v}.metadata.json")
    best = None
    for name in os.listdir(meta):
        m = re.match(r"^v(\d+)\.metadata\.json$", name) or re.match(r"^(\d+)-.*\.metadata\.json$", name)
        if m and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), name)
    if best is None:
        raise FileNotFoundError(f"no metadata file under {meta}")
    return os.path.join(meta, best[1])
