"""The Iceberg side of floe's operation matrix (internal/matrix).

One long-lived process; one JSON request per stdin line, one JSON answer
per stdout line ({"ok": true, ...} or {"ok": false, "error": ...}).

Writer requests (PyIceberg, SQL catalog on sqlite, format v2):
  {"op": "open", "uri": "sqlite:///DB", "warehouse": "file:///DIR", "catalog": NAME}
  {"op": "create", "table": "ns.t", "schema": [FIELD...], "partition": [PART...], "props": {...}}
      FIELD = {"id": 1, "name": "id", "type": "long", "required": true}
      PART  = {"source": "city", "transform": "identity" | "day" | "bucket[4]", "name": "city"}
  {"op": "append", "table": "ns.t", "rows": [{col: value}...]}
  {"op": "overwrite", "table": "ns.t", "rows": [...], "filter": "id < 10" (optional)}
  {"op": "delete", "table": "ns.t", "filter": "id >= 5 and id < 8"}
  {"op": "drop", "table": "ns.t"}
  {"op": "alter", "table": "ns.t", "changes": [CHANGE...], "incompatible": false}
      CHANGE = {"add": "col", "type": "string"} | {"rename": "col", "to": "new"} | {"drop": "col"}
             | {"update": "col", "type": "double"}   (one schema update; "incompatible" allows any type change)
      values: timestamps as epoch microseconds, dates as epoch days, decimals as strings.
  → {"ok": true, "snapshot": ID}   (the table's current snapshot; 0 after drop)

Oracle requests (DuckDB over an Arrow table):
  {"op": "scan", "name": T, "columns": [COL...],
   "pyiceberg": {"table": "ns.t", "snapshot": ID}  or  "ipc": "/path/file.arrow"}
      COL = {"name": pinot column, "source": arrow column, "kind": KIND}
      Reads the snapshot (PyIceberg's own reader) or the Arrow IPC file (written
      by the Go test from an iceberg-go scan), maps each column to the value Pinot
      should hold by KIND, and registers the result as DuckDB table T.
      → {"ok": true, "rows": N}
  {"op": "query", "sql": Q} → {"ok": true, "columns": [...], "rows": [[...]...]}

KIND is floe's documented Iceberg → Pinot value mapping (schema/doc.go),
written down here independently of floe's code:
  same        the value as is
  ts_ms       timestamp of any unit → epoch milliseconds, floored
  date_days   date → days since 1970-01-01
  time_us     time → microseconds since midnight
  uuid_str    uuid → canonical lower-case text
  hex         binary / fixed → lower-case hex text (Pinot BYTES answers in hex)
  mv[:KIND]   list → its non-null elements mapped by KIND; empty or null → null
  json        struct, map or list → JSON text (struct and map as objects, list as array)
Answers encode decimals as strings, bytes as hex, non-finite floats as strings.
"""

import datetime
import decimal
import json
import math
import sys
import uuid

import duckdb
import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import parse_transform
from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
                             IntegerType, LongType, NestedField, StringType, TimestampType, TimestamptzType,
                             TimeType, UUIDType)

PRIMITIVES = {
    "boolean": BooleanType(), "int": IntegerType(), "long": LongType(), "float": FloatType(),
    "double": DoubleType(), "date": DateType(), "time": TimeType(), "timestamp": TimestampType(),
    "timestamptz": TimestamptzType(), "string": StringType(), "uuid": UUIDType(), "binary": BinaryType(),
}


def iceberg_type(name):
    if name in PRIMITIVES:
        return PRIMITIVES[name]
    if name.startswith("decimal("):
        p, s = name[len("decimal("):-1].split(",")
        return DecimalType(int(p), int(s))
    if name.startswith("fixed["):
        return FixedType(int(name[len("fixed["):-1]))
    raise ValueError(f"unsupported type {name!r}")


class State:
    def __init__(self):
        self.catalog = None
        self.db = duckdb.connect()


def table_answer(tbl):
    snap = tbl.current_snapshot()
    return {"snapshot": snap.snapshot_id if snap else 0}


def op_open(st, req):
    st.catalog = SqlCatalog(req["catalog"], uri=req["uri"], warehouse=req["warehouse"])
    return {}


def op_create(st, req):
    fields = [NestedField(f["id"], f["name"], iceberg_type(f["type"]), required=f.get("required", False))
              for f in req["schema"]]
    schema = Schema(*fields)
    parts = []
    for i, p in enumerate(req.get("partition", [])):
        src = schema.find_field(p["source"])
        parts.append(PartitionField(source_id=src.field_id, field_id=1000 + i,
                                    transform=parse_transform(p["transform"]), name=p["name"]))
    ns = req["table"].rsplit(".", 1)[0]
    st.catalog.create_namespace_if_not_exists(ns)
    props = {"format-version": "2", **req.get("props", {})}
    tbl = st.catalog.create_table(req["table"], schema=schema, partition_spec=PartitionSpec(*parts),
                                  properties=props)
    return table_answer(tbl)


def to_arrow(tbl, rows):
    schema = tbl.schema().as_arrow()
    cols = {}
    for field in schema:
        vals = [convert_in(field.type, r.get(field.name)) for r in rows]
        cols[field.name] = pa.array(vals, type=field.type)
    return pa.table(cols, schema=schema)


def convert_in(typ, v):
    if v is None:
        return None
    if pa.types.is_decimal(typ):
        return decimal.Decimal(v)
    if pa.types.is_timestamp(typ):
        tz = datetime.timezone.utc if typ.tz else None
        return datetime.datetime(1970, 1, 1, tzinfo=tz) + datetime.timedelta(microseconds=v)
    if pa.types.is_date(typ):
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=v)
    if pa.types.is_binary(typ) or pa.types.is_fixed_size_binary(typ) or pa.types.is_large_binary(typ):
        return bytes.fromhex(v)
    return v


def op_append(st, req):
    tbl = st.catalog.load_table(req["table"])
    tbl.append(to_arrow(tbl, req["rows"]))
    return table_answer(st.catalog.load_table(req["table"]))


def op_overwrite(st, req):
    tbl = st.catalog.load_table(req["table"])
    if "filter" in req:
        tbl.overwrite(to_arrow(tbl, req["rows"]), overwrite_filter=req["filter"])
    else:
        tbl.overwrite(to_arrow(tbl, req["rows"]))
    return table_answer(st.catalog.load_table(req["table"]))


def op_delete(st, req):
    tbl = st.catalog.load_table(req["table"])
    tbl.delete(delete_filter=req["filter"])
    return table_answer(st.catalog.load_table(req["table"]))


def op_drop(st, req):
    st.catalog.drop_table(req["table"])
    return {"snapshot": 0}


def op_alter(st, req):
    tbl = st.catalog.load_table(req["table"])
    with tbl.update_schema(allow_incompatible_changes=req.get("incompatible", False)) as u:
        for c in req["changes"]:
            if "add" in c:
                u.add_column(c["add"], iceberg_type(c["type"]))
            elif "rename" in c:
                u.rename_column(c["rename"], c["to"])
            elif "drop" in c:
                u.delete_column(c["drop"])
            elif "update" in c:
                u.update_column(c["update"], field_type=iceberg_type(c["type"]))
            else:
                raise ValueError(f"unknown schema change {c!r}")
    return table_answer(st.catalog.load_table(req["table"]))


def floor_div(a, b):
    return a // b  # Python floors toward negative infinity


def map_value(kind, typ, v):
    if v is None:
        return None
    if kind == "same":
        return v
    if kind == "ts_ms":
        per_ms = {"s": None, "ms": 1, "us": 1000, "ns": 1_000_000}[typ.unit]
        return floor_div(v, per_ms)
    if kind == "date_days":
        return v
    if kind == "time_us":
        return v
    if kind == "uuid_str":
        return str(v if isinstance(v, uuid.UUID) else uuid.UUID(bytes=bytes(v)))
    if kind == "hex":
        return bytes(v).hex()
    raise ValueError(f"unknown column kind {kind!r}")


def json_value(typ, v):
    """The JSON value of a nested Arrow value (as to_pylist returns it)."""
    if v is None:
        return None
    if pa.types.is_struct(typ):
        return {typ.field(i).name: json_value(typ.field(i).type, v.get(typ.field(i).name))
                for i in range(typ.num_fields)}
    if pa.types.is_map(typ):
        return {str(k): json_value(typ.item_type, x) for k, x in v}
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return [json_value(typ.value_type, x) for x in v]
    return encode(v)


def map_column(col, kind):
    """Maps an Arrow column to the Pinot values (a Python list)."""
    typ = col.type
    if kind == "json":
        return [None if v is None else json.dumps(json_value(typ, v), ensure_ascii=False)
                for v in col.to_pylist()]
    if kind.startswith("mv"):
        inner = kind[3:] if kind.startswith("mv:") else "same"
        et = typ.value_type
        raw = raw_values(col, et)
        out = []
        for lst in raw:
            vals = [map_value(inner, et, x) for x in (lst or []) if x is not None]
            out.append(vals or None)
        return out
    return [map_value(kind, typ, x) for x in raw_values(col, typ)]


def raw_values(col, typ):
    """Python values; timestamps, dates and times as integers of their unit."""
    if pa.types.is_timestamp(typ) or pa.types.is_time(typ):
        return col.cast(pa.int64()).to_pylist()
    if pa.types.is_date32(typ):
        return col.cast(pa.int32()).to_pylist()
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        et = typ.value_type
        if pa.types.is_timestamp(et) or pa.types.is_time(et):
            return col.cast(pa.list_(pa.int64())).to_pylist()
    if isinstance(typ, pa.ExtensionType):
        return col.cast(typ.storage_type).to_pylist()
    return col.to_pylist()


def op_scan(st, req):
    if "ipc" in req:
        with pa.OSFile(req["ipc"], "rb") as f:
            src = pa.ipc.open_file(f).read_all()
    else:
        p = req["pyiceberg"]
        src = st.catalog.load_table(p["table"]).scan(snapshot_id=p["snapshot"]).to_arrow()
    data = {}
    for c in req["columns"]:
        col = src.column(c["source"])
        if isinstance(col.type, pa.ExtensionType):
            col = pa.chunked_array([ch.storage for ch in col.chunks], type=col.type.storage_type)
        data[c["name"]] = map_column(col, c["kind"])
    name = req["name"]
    st.db.execute(f'DROP TABLE IF EXISTS "{name}"')
    if not req["columns"]:
        raise ValueError("scan needs columns")
    frame = pa.table({k: pa.array(v) if v and any(x is not None for x in v) else
                      pa.array(v, type=fallback_type(src, req, k)) for k, v in data.items()})
    st.db.register("scan_input", frame)
    st.db.execute(f'CREATE TABLE "{name}" AS SELECT * FROM scan_input')
    st.db.unregister("scan_input")
    return {"rows": src.num_rows}


def fallback_type(src, req, name):
    """The Arrow type of an all-null mapped column."""
    for c in req["columns"]:
        if c["name"] != name:
            continue
        typ = src.column(c["source"]).type
        kind = c["kind"]
        if kind in ("ts_ms", "time_us"):
            return pa.int64()
        if kind == "date_days":
            return pa.int32()
        if kind in ("uuid_str", "hex", "json"):
            return pa.string()
        if kind.startswith("mv"):
            return pa.list_(pa.int64()) if kind != "mv" else typ
        return typ
    raise KeyError(name)


def encode(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {str(k): encode(x) for k, x in v.items()}
    if isinstance(v, uuid.UUID):
        return str(v)
    raise TypeError(f"cannot encode {type(v).__name__} {v!r}")


def op_query(st, req):
    cur = st.db.execute(req["sql"])
    cols = [d[0] for d in cur.description]
    return {"columns": cols, "rows": [[encode(v) for v in row] for row in cur.fetchall()]}


OPS = {"open": op_open, "create": op_create, "append": op_append, "overwrite": op_overwrite,
       "delete": op_delete, "drop": op_drop, "alter": op_alter, "scan": op_scan, "query": op_query}


def main():
    st = State()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            ans = {"ok": True, **OPS[req["op"]](st, req)}
        except Exception as e:  # the Go side reports the error with its request
            ans = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(ans) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
