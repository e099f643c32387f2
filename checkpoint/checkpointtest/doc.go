// Package checkpointtest is the conformance suite every checkpoint.Store
// implementation must pass. Run(t, newStore) exercises each Store method,
// every sentinel error, the lease and fencing rules (invariants C1–C8 of
// package checkpoint, which carry the architecture's I1, I2 and I4), run
// history ordering and trimming, table deletion, large file maps, table
// revisions, compare-and-set and change announcements (C11, C12, which
// carry the architecture's I8) and the JSON round trip of every record
// field.
//
// The memory and Bolt stores run it in plain `go test`; the Redis store
// runs it under the integration build tag against a real redis-server.
package checkpointtest
