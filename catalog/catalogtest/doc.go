// Package catalogtest is the conformance suite every catalog backend
// passes. Run(t, lake) opens connections to a catalog the backend's test
// has filled with the fixture table (two appends: 2 snapshots, 30 rows,
// format version 2, columns id and name) and checks what every
// [catalog.Catalog] promises:
//
//   - listing: namespaces and tables, complete and in a stable order, page
//     by page, no page larger than asked for, the last page without a token;
//   - load: the table's identifier, metadata location, UUID, snapshots and
//     rows; a missing table is catalog.ErrNotFound naming it; an identifier
//     without a namespace is catalog.ErrInvalidConfig;
//   - describe: the same table as load, summarised;
//   - validate: every step ok on a working connection, in the documented
//     order; on a broken one the failing step carries the error and the
//     steps after it are skipped, and the failing calls' errors are of the
//     category the backend names (catalog.ErrUnreachable,
//     catalog.ErrBadCredentials, catalog.ErrBadCatalog, ...);
//   - secrets: no secret value of either connection appears in an error, a
//     report or its JSON.
//
// The sqlite SQL catalog and the local Hadoop warehouse run it in plain
// `go test`; REST (Apache Iceberg's REST server), SQL on PostgreSQL, Glue
// and S3 Tables (native, on moto) and Hadoop on S3 run it under the
// integration build tag.
package catalogtest
