// Package plan decides what a run must build and drop to make Pinot hold
// the current Iceberg snapshot: it diffs the live data files of the
// snapshot against the checkpoint's file→segment map, keyed by data file
// path and a fingerprint of the delete files that apply to each file.
package plan
