// Package pinot talks to Apache Pinot: the controller (schemas, tables,
// segment upload, atomic replacement through segment lineage, deletes) and
// the broker (SQL queries). It also holds floe's model of Pinot schemas and
// table configs, and a local-directory Uploader for running without a
// cluster (the demo).
//
// Wire formats follow pinot-segment-format.md §8: uploads are multipart
// with exactly one part; lineage is startReplaceSegments → upload →
// endReplaceSegments, reverted on failure.
package pinot
