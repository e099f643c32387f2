// Package matrix holds floe's operation matrix: an integration test that
// proves that a query on Pinot answers what the same query over the Iceberg
// snapshot answers, after every kind of Iceberg table change.
//
// Tables are written by PyIceberg (format v2) and by iceberg-go (v2 and v3)
// into one SQL catalog on sqlite. After each step (append, overwrite,
// copy-on-write delete, merge-on-read position delete, deletion vectors,
// equality deletes, compaction, rollback, snapshot expiry, drop and
// re-create, an overwrite streamed as one replacement of several units,
// partitioned tables, a timestamp time column, the every-type table) two
// real floe watchers sync the table: one into a local segment directory,
// one through a Pinot 0.11 cluster's controller (segment lineage for
// replacements). Then a fixed query set runs on three engines:
//
//   - Apache Pinot 1.5.1's query engine (internal/pinottest.Engine) over the
//     local directory's live segments, null handling on;
//   - the 0.11 cluster's broker (no null handling in 0.11: the test expects
//     Pinot's default null values where Iceberg has nulls);
//   - DuckDB over a scan of the snapshot floe checkpointed (PyIceberg's reader
//     for PyIceberg's v2 tables, iceberg-go's for the others), each column
//     mapped to the value floe's type table (schema/doc.go) says Pinot holds.
//
// Schema evolution runs the same way on an iceberg-go and a PyIceberg
// table (evolve_integration_test.go), each change followed by an append in
// the new schema: an added column (Pinot 1.5.1 answers null for the rows of
// older segments, as Iceberg does; the 0.11 cluster, after the reload floe
// asks for, holds the column's default null value there, which IS NULL does
// not match: the test checks exactly that, and compares the column's other
// queries on 1.5.1 only until the segments are rebuilt), a rename (the Pinot
// column keeps its name and reads the field by id), a dropped column (every
// segment rebuilt, the column null everywhere on both engines), a decimal
// widened, float→double on a column the user created DOUBLE, and two
// changes floe refuses (int→long on an INT column, an incompatible type
// change): both runs fail with the documented error and Pinot keeps
// answering the last snapshot; for the first the test then does what the
// error tells the operator (delete and create the table again) and
// compares again. Every run's schemaChange must say what the step did (and
// nothing for the other steps).
//
// Any difference fails the test with the table, step, query and every
// engine's answer. The queries: count(*); count, sum, min and max of every
// numeric column; count(distinct) of strings; a group-by on a
// low-cardinality column; a filter on a value and IS NULL per column; an
// ordered dump of every row (JSON columns compare there, as parsed JSON;
// variant and geo columns are not compared). Queries that need SQL null
// semantics run on Pinot 1.5.1 and the oracle only; the others exclude
// nulls explicitly, because Pinot 0.11 has no null handling and Pinot
// 1.5.1 counts null rows in range and NOT_EQ filters served by a sorted
// column's index (a Pinot bug, seen with Pinot-built segments too). Before
// the queries, the cluster must serve exactly the segments of the local
// sync, and the Iceberg scan must hold the row count the test wrote. Run it
// with
//
//	go test -race -tags integration -p 1 ./internal/matrix/
//
// after scripts/setup-pinot.sh, scripts/setup-pinot-cluster.sh and
// scripts/setup-python.sh. The package has no non-test code.
package matrix
