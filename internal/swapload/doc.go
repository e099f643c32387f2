// Package swapload proves that floe's segment swaps are atomic under query
// load on a real Pinot cluster (architecture, "What a query sees while a run
// is under way"): while a run replaces segments through segment lineage
// (an overwrite, a merge-on-read delete), a query loop on the
// 0.11 cluster's broker, as fast as it can, must never count rows other
// than the old snapshot's or the new one's. An iceberg-go table on a sqlite
// SQL catalog is synced by a real watcher into the cluster; each operation
// runs while two query workers count the table back to back, and every
// answer is checked. A compaction, which floe remaps without touching
// Pinot (watcher/plan P11), runs the same way and must leave the served
// segments as they were. The test logs one row per operation (queries run,
// queries while the run was in flight, each count seen with how often),
// which scripts/bench-swap.sh writes into docs/benchmarks.md. Run it with
//
//	go test -race -tags integration ./internal/swapload/
//
// after scripts/setup-pinot-cluster.sh. The package has no non-test code.
package swapload
