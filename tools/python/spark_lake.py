"""Spark test peer: writes and maintains Iceberg tables with Apache Spark.

floe's integration tests run this script (through internal/testpeer/spark.go)
to get tables written the way a Spark user writes them: inserts, a
merge-on-read DELETE (position delete files), and the maintenance procedures
rewrite_data_files (bin-pack and sort) and rewrite_position_delete_files.

The catalog is a Hadoop catalog on a local warehouse directory, which floe
reads as a `hadoop` connection. One script run starts one Spark session
(local[2], bound to 127.0.0.1, no UI; set SPARK_LOCAL_IP=127.0.0.1 and
SPARK_LOCAL_DIRS for its scratch files) and keeps it for every batch of
steps it reads, so a test pays the JVM start-up once.

Usage:
  python spark_lake.py --warehouse DIR --catalog NAME --jar RUNTIME_JAR

It prints READY once the session is up, then reads batches from stdin, one
per line: a JSON list of steps, each an object with "op" and "table"
("ns.name") and the op's own fields:

  create            a format-v2 merge-on-read table (id bigint, v string)
  insert            "commits" INSERTs (one data file each) of "rows" rows,
                    ids continuing from "from"
  delete            DELETE FROM table WHERE "where" (position deletes)
  rewrite_data      CALL rewrite_data_files with "strategy" (binpack or
                    sort), "sort_order" for sort, and "options" (strings)
  rewrite_deletes   CALL rewrite_position_delete_files with "options"
  rows              the table's rows, [[id, v], ...] ordered by id

For each step it prints one JSON object on stdout, on a line starting with
"STEP ": the op, the table's current snapshot id and operation after the
step, the procedure's output columns for CALLs, and the rows for "rows".
"DONE" ends a batch. A failed step prints "ERROR " and a JSON object with
the error, then exits non-zero with Spark's trace on stderr. End of input
stops the session.
"""

import argparse
import json
import os
import sys
import tempfile

from pyspark.sql import SparkSession


def session(catalog, warehouse, jar):
    cat = "spark.sql.catalog." + catalog
    scratch = os.environ.get("SPARK_LOCAL_DIRS") or tempfile.gettempdir()
    return (
        SparkSession.builder.master("local[2]")
        .appName("floe-spark-peer")
        .config("spark.driver.memory", "768m")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.warehouse.dir", os.path.join(scratch, "spark-sql"))
        .config("spark.jars", jar)
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(cat, "org.apache.iceberg.spark.SparkCatalog")
        .config(cat + ".type", "hadoop")
        .config(cat + ".warehouse", "file://" + warehouse)
        .getOrCreate()
    )


def sql_string(s):
    return "'" + s.replace("'", "''") + "'"


def options_map(options):
    if not options:
        return "map()"
    parts = []
    for k, v in sorted(options.items()):
        parts += [sql_string(k), sql_string(str(v))]
    return "map(" + ", ".join(parts) + ")"


def current_snapshot(spark, name):
    row = spark.sql(
        "SELECT r.snapshot_id, s.operation FROM {0}.refs r JOIN {0}.snapshots s "
        "ON r.snapshot_id = s.snapshot_id WHERE r.name = 'main'".format(name)
    ).collect()
    if not row:
        return None, None
    return row[0]["snapshot_id"], row[0]["operation"]


def step_create(spark, name, _step):
    ns = name.rsplit(".", 1)[0]
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + ns)
    spark.sql(
        "CREATE TABLE %s (id bigint, v string) USING iceberg TBLPROPERTIES ("
        "'format-version'='2', 'write.delete.mode'='merge-on-read', "
        "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')" % name
    )
    return {}


def step_insert(spark, name, step):
    first, rows = int(step.get("from", 0)), int(step["rows"])
    for c in range(int(step.get("commits", 1))):
        lo = first + c * rows
        # One task, so each INSERT commits exactly one data file.
        spark.range(lo, lo + rows, 1, 1).selectExpr("id", "concat('v', id) AS v").writeTo(name).append()
    return {}


def step_delete(spark, name, step):
    spark.sql("DELETE FROM %s WHERE %s" % (name, step["where"]))
    return {}


def call_output(df):
    row = df.collect()
    return row[0].asDict() if row else {}


def step_rewrite_data(spark, name, step):
    catalog, table = name.split(".", 1)
    args = ["table => %s" % sql_string(table), "strategy => %s" % sql_string(step.get("strategy", "binpack"))]
    if step.get("sort_order"):
        args.append("sort_order => %s" % sql_string(step["sort_order"]))
    args.append("options => " + options_map(step.get("options")))
    return {"result": call_output(spark.sql("CALL %s.system.rewrite_data_files(%s)" % (catalog, ", ".join(args))))}


def step_rewrite_deletes(spark, name, step):
    catalog, table = name.split(".", 1)
    q = "CALL %s.system.rewrite_position_delete_files(table => %s, options => %s)" % (
        catalog,
        sql_string(table),
        options_map(step.get("options")),
    )
    return {"result": call_output(spark.sql(q))}


def step_rows(spark, name, _step):
    return {"rows": [[r["id"], r["v"]] for r in spark.sql("SELECT id, v FROM %s ORDER BY id" % name).collect()]}


STEPS = {
    "create": step_create,
    "insert": step_insert,
    "delete": step_delete,
    "rewrite_data": step_rewrite_data,
    "rewrite_deletes": step_rewrite_deletes,
    "rows": step_rows,
}


def run_batch(spark, catalog, steps):
    for s in steps:
        if s.get("op") not in STEPS:
            raise ValueError("unknown op %r in step %s" % (s.get("op"), json.dumps(s)))
    for s in steps:
        name = catalog + "." + s["table"]
        out = STEPS[s["op"]](spark, name, s)
        snap, op = current_snapshot(spark, name)
        out.update({"op": s["op"], "table": s["table"], "snapshotId": snap, "operation": op})
        print("STEP " + json.dumps(out, default=str), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--catalog", required=True)
    ap.add_argument("--jar", required=True)
    args = ap.parse_args()
    spark = session(args.catalog, args.warehouse, args.jar)
    spark.sparkContext.setLogLevel("WARN")
    print("READY", flush=True)
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                run_batch(spark, args.catalog, json.loads(line))
            except Exception as e:  # the test reads the error and fails
                print("ERROR " + json.dumps({"error": "%s: %s" % (type(e).__name__, e)}), flush=True)
                raise
            print("DONE", flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
