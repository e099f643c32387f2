"""Reads a bench lake's table with PyIceberg and prints what it sees.

Usage: pyiceberg_scan.py <sqlite file> <catalog name> <namespace.table>
Prints one JSON line: the data files PyIceberg plans, the rows it reads and
the manifests the current snapshot lists.
"""

import json
import sys

from pyiceberg.catalog.sql import SqlCatalog


def main() -> None:
    db, name, ident = sys.argv[1:4]
    cat = SqlCatalog(name, uri="sqlite:///" + db)
    tbl = cat.load_table(ident)
    scan = tbl.scan()
    files = len(list(scan.plan_files()))
    rows = scan.to_arrow().num_rows
    manifests = len(tbl.current_snapshot().manifests(tbl.io))
    print(json.dumps({"files": files, "rows": rows, "manifests": manifests}))


if __name__ == "__main__":
    main()
