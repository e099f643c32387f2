// Package pinot talks to Apache Pinot: the controller (schemas, tables,
// segment push, atomic replacement through segment lineage, deletes) and
// the broker (SQL queries). It also holds an S3 deep store for metadata
// push and a local-directory Uploader with the controller's semantics for
// running without a cluster. Pinot's data model (schemas, table configs)
// is in pinot/spec, which links no transport, so segments and schema
// depend on it alone.
//
// Wire formats follow Pinot's controller API: uploads are multipart with
// exactly one part (the tarball, or for a metadata push a tar.gz of one
// directory holding metadata.properties and creation.meta, with the
// UPLOAD_TYPE: METADATA and DOWNLOAD_URI headers); a replacement is
// startReplaceSegments (forceCleanup=true only over an open entry it takes
// over: Pinot 0.11 never answers one whose From a reverted entry shares) →
// uploads → endReplaceSegments,
// and a replacement may stay open while its To segments are built and
// uploaded one by one, across a crash of the uploading process: the
// lineage (LineageReader) lists open replacements with their ids, so a
// caller whose swap is exactly an open one ends that one instead of
// starting another, and reads the metadata of the To segments already
// uploaded (SegmentInspector: GET /segments/{table}/{segment}/metadata, or
// LocalDir's tarballs) to skip what a dead run uploaded whole; deletes post
// the names to /segments/{table}/delete.
//
// Invariants (tests cite them):
//
//   - U1 No write without the guard: every Uploader and DeepStore asks the
//     Guard in the context right before every mutating attempt, retries
//     included; a refusal sends nothing and comes back wrapped.
//   - U2 Every call is idempotent by segment name or replacement id: an
//     upload of an existing name refreshes it, a start that overlaps an open
//     replacement takes it over, ending an ended replacement and reverting a
//     reverted one succeed. Retries (5xx, timeouts, cut connections; never
//     other 4xx) rely on it.
//   - U3 A replacement is one step for queries: its To segments are hidden
//     until the end, which unserves every From segment at once. LocalDir
//     keeps this across crashes and processes without locks: its table
//     state is a series of immutable versions, and an end is one
//     compare-and-set transition to the next (see LocalDir).
//   - U4 Header values (Authorization) and deep-store credentials never
//     appear in errors, even when the controller echoes them.
package pinot
