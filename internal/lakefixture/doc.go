// Package lakefixture opens the Iceberg lake that floe's demo, tests and
// benchmarks write to: a SQL catalog (iceberg-go's, the layout PyIceberg
// and Java's JDBC catalog share) on a sqlite file, with a local or S3
// warehouse. It also writes the fixture table the catalog tests read:
// columns id (long, required) and name (string), format version 2, one
// append per batch.
//
// Open never invents a path: the caller names the sqlite file, the
// catalog name and the warehouse, so each user keeps its own layout.
package lakefixture
