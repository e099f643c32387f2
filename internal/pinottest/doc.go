// Package pinottest lets floe's tests check Pinot segments with Apache
// Pinot's own Java code (Pinot 1.5.1 from Maven Central), through the
// harness in tools/pinot-harness.
//
// Build the harness once with scripts/setup-pinot.sh (Java 17 + Maven).
// Then, in any test:
//
//	h := pinottest.New(t)                  // fails the test if the harness is not built
//	dumps := h.ReadSegments(t, []string{dir, "seg.tar.gz"})
//	dumps[0].Rows[0]["city"].V             // typed value, exactly as Pinot reads it
//	dir := h.CreateSegment(t, parquetPath, schemaJSON, tableConfigJSON, outDir)
//	err := h.ValidateSchema(t, schemaJSON)
//
// ReadSegments loads every segment with ImmutableSegmentLoader in one JVM,
// reports the metadata Pinot parsed, reads every row with
// PinotSegmentRecordReader (including the null value vector), and
// cross-checks the dictionary, forward, sorted and inverted indexes; any
// problem fails the test. Read is the variant that returns errors, for
// tests that expect Pinot to reject a segment.
//
// Values are exact: LONG and TIMESTAMP arrive as int64, FLOAT and DOUBLE as
// their IEEE bits (plus Java's toString in Value.Text), BIG_DECIMAL as a
// *big.Rat with its scale, BYTES as []byte. See Value.
//
// Engine runs SQL on Pinot 1.5.1's own single-stage query engine in one
// long-lived JVM ("query --serve"): segments are loaded as a server loads
// them, a query goes through the broker's compile and optimize steps, a
// server's pruning, planning and execution, the DataTable wire format and
// the broker's reduce, with null handling on:
//
//	e := h.NewEngine(t)                     // one JVM for the whole test
//	e.Load(ctx, "orders", schemaJSON, tableConfigJSON, segmentPaths)
//	rt, err := e.Query(ctx, "SELECT city, count(*) FROM orders GROUP BY city")
//
// Load again with another segment list to follow a table as it changes:
// unchanged files stay loaded. Query answers are the broker's JSON
// (*pinot.ResultTable, numbers as json.Number); Pinot's exceptions are
// ErrQuery errors.
//
// Programs that are not tests (the benchmark) use Locate and Command to
// run the harness CLI as a separate process:
//
//	java <JVMFlags()> -cp tools/pinot-harness/target/classes:tools/pinot-harness/target/lib/* \
//	    dev.floe.harness.Main create --parquet F --schema S.json --table-config T.json --out DIR [--name N]
//
// which prints {"segmentDir":…,"segmentName":…,"rows":…,"createMillis":…}.
//
// One limitation: the pinot-parquet plugin is not published on Maven
// Central for Pinot 1.x, so "create" reads Parquet with the harness's own
// ParquetRowReader (parquet-hadoop 1.17.0, following Pinot's native
// extractor rules); segment creation and every ingestion transform after
// that are Pinot's own.
package pinottest
