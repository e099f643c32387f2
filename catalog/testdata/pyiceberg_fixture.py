"""Writes Iceberg tables with PyIceberg for floe's catalog integration tests.

Usage (run with the repo venv's python):
  pyiceberg_fixture.py sql  --uri sqlite:///<db> --warehouse file:///<dir> [--catalog NAME] NS.TABLE ...
  pyiceberg_fixture.py s3   --endpoint http://127.0.0.1:PORT --location s3://bucket/path NS.TABLE
  pyiceberg_fixture.py rest --uri http://127.0.0.1:PORT --endpoint http://127.0.0.1:PORT NS.TABLE ...

Every table gets two appends (10 rows, then 20 rows), so it has two snapshots
and 30 rows. The script prints one JSON object per table:
{"table": "ns.t", "metadata_location": "...", "snapshots": 2, "rows": 30}.
"""

import argparse
import json
import sys

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog

S3_KEYS = {
    "s3.access-key-id": "testing",
    "s3.secret-access-key": "testing",
    "s3.region": "us-east-1",
}

ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def rows(first, n):
    return pa.Table.from_pydict(
        {"id": list(range(first, first + n)), "name": [f"row-{i}" for i in range(first, first + n)]},
        schema=ARROW_SCHEMA,
    )


def write(catalog, ident, location=None):
    ns, name = ident.rsplit(".", 1)
    catalog.create_namespace_if_not_exists(ns)
    kwargs = {"location": location} if location else {}
    tbl = catalog.create_table(f"{ns}.{name}", schema=ARROW_SCHEMA, **kwargs)
    tbl.append(rows(0, 10))
    tbl.append(rows(10, 20))
    tbl = catalog.load_table(f"{ns}.{name}")
    print(json.dumps({
        "table": ident,
        "metadata_location": tbl.metadata_location,
        "snapshots": len(tbl.metadata.snapshots),
        "rows": 30,
    }))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["sql", "s3", "rest"])
    p.add_argument("--uri")
    p.add_argument("--warehouse")
    p.add_argument("--endpoint")
    p.add_argument("--location")
    p.add_argument("--catalog", default="floe")
    p.add_argument("tables", nargs="+")
    a = p.parse_args()

    if a.kind == "sql":
        cat = SqlCatalog(a.catalog, uri=a.uri, warehouse=a.warehouse)
        for t in a.tables:
            write(cat, t)
    elif a.kind == "s3":
        # An in-memory SQL catalog only to produce metadata + data files at
        # --location in (moto's) S3; the test registers the metadata file.
        cat = SqlCatalog("scratch", uri="sqlite:///:memory:", warehouse=a.location,
                         **{"s3.endpoint": a.endpoint, **S3_KEYS})
        write(cat, a.tables[0], location=a.location)
    else:
        cat = RestCatalog(a.catalog, uri=a.uri, **{"s3.endpoint": a.endpoint, **S3_KEYS})
        for t in a.tables:
            write(cat, t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
