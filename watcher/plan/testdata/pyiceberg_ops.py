"""Changes one Iceberg table with PyIceberg, one command per line, for
floe's planner property test (watcher/plan, integration tag).

Usage (run with the repo venv's python):
  pyiceberg_ops.py --uri sqlite:///<db> --warehouse file:///<dir> [--catalog NAME]

Reads JSON commands on stdin and answers each with one JSON line,
{"ok": true} or {"error": "..."}. The table is ns.events with columns
(id long, p int, v string), p = id % 3, optionally partitioned by
identity(p). Commands:
  {"op": "create", "version": 2, "partitioned": true, "merge": true}
  {"op": "append", "ids": [...]}
  {"op": "overwrite", "lo": 3, "hi": 9, "ids": [...]}   rows lo <= id < hi replaced by ids
  {"op": "delete", "lo": 3, "hi": 9}                     copy-on-write
  {"op": "dynamic_overwrite", "ids": [...]}              replaces the partitions of ids
  {"op": "rewrite", "p": 1}                              rewrites partition p's rows as they are
  {"op": "rollback", "back": 2}                          to the back-th ancestor
  {"op": "expire", "keep": 2}                            expires all but the last keep ancestors
"""

import argparse
import json
import sys
import warnings

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import And, EqualTo, GreaterThanOrEqual, LessThan
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import IntegerType, LongType, NestedField, StringType

IDENT = "ns.events"
SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "p", IntegerType(), required=True),
    NestedField(3, "v", StringType(), required=False),
)
ARROW = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("p", pa.int32(), nullable=False),
    pa.field("v", pa.string()),
])


def rows(ids):
    return pa.Table.from_pydict(
        {"id": ids, "p": [i % 3 for i in ids], "v": [f"v{i}" for i in ids]}, schema=ARROW)


def id_range(lo, hi):
    return And(GreaterThanOrEqual("id", lo), LessThan("id", hi))


def ancestors(tbl):
    out, snap = [], tbl.current_snapshot()
    while snap is not None:
        out.append(snap.snapshot_id)
        snap = tbl.snapshot_by_id(snap.parent_snapshot_id) if snap.parent_snapshot_id else None
    return out


def create(cat, cmd):
    cat.create_namespace_if_not_exists("ns")
    props = {"format-version": str(cmd["version"])}
    if cmd.get("merge"):
        props.update({"commit.manifest-merge.enabled": "true", "commit.manifest.min-count-to-merge": "3"})
    spec = PartitionSpec()
    if cmd.get("partitioned"):
        spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="p"))
    cat.create_table(IDENT, schema=SCHEMA, partition_spec=spec, properties=props)


def run(cat, cmd):
    op = cmd["op"]
    if op == "create":
        return create(cat, cmd)
    tbl = cat.load_table(IDENT)
    if op == "append":
        tbl.append(rows(cmd["ids"]))
    elif op == "overwrite":
        tbl.overwrite(rows(cmd["ids"]), overwrite_filter=id_range(cmd["lo"], cmd["hi"]))
    elif op == "delete":
        tbl.delete(id_range(cmd["lo"], cmd["hi"]))
    elif op == "dynamic_overwrite":
        tbl.dynamic_partition_overwrite(rows(cmd["ids"]))
    elif op == "rewrite":
        part = EqualTo("p", cmd["p"])
        data = tbl.scan(row_filter=part).to_arrow().cast(ARROW)
        tbl.overwrite(data, overwrite_filter=part)
    elif op == "rollback":
        anc = ancestors(tbl)
        tbl.manage_snapshots().rollback_to_snapshot(anc[min(cmd["back"], len(anc) - 1)]).commit()
    elif op == "expire":
        old = ancestors(tbl)[cmd["keep"]:]
        if old:
            tbl.maintenance.expire_snapshots().by_ids(old).commit()
    else:
        raise ValueError(f"unknown op {op!r}")


def main():
    warnings.filterwarnings("ignore", message="Delete operation did not match any records")
    p = argparse.ArgumentParser()
    p.add_argument("--uri", required=True)
    p.add_argument("--warehouse", required=True)
    p.add_argument("--catalog", default="floe")
    a = p.parse_args()
    cat = SqlCatalog(a.catalog, uri=a.uri, warehouse=a.warehouse)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            run(cat, json.loads(line))
            print(json.dumps({"ok": True}), flush=True)
        except Exception as e:  # the Go test names the failing command
            print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
