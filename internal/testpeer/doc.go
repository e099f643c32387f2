// Package testpeer starts and supervises the real peer processes that
// floe's integration tests run against (redis-server, moto, the Iceberg
// REST server, the Pinot harness, a Spark session with Iceberg's Spark
// runtime, ...).
//
// The generic helpers live in process.go: FreePort picks a loopback port,
// Start launches a process with its output captured to a log file under
// t.TempDir(), WaitTCP and WaitHTTP wait for readiness, RepoRoot finds the
// module root, and Require fails the test (never skips it) with an
// installation hint when a binary is missing.
//
// Every process is stopped by a t.Cleanup hook (SIGTERM, then SIGKILL after
// a grace period). When the test failed, the tail of the process log is
// written to the test log so a broken peer explains itself.
//
// Peer-specific starters (StartRedis, ...) sit in files named after the
// peer. This package is for tests only; production code must not import it.
package testpeer
