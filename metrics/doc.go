// Package metrics is floe's Prometheus registry: run outcomes and phase
// timings, rows, bytes and files converted, lag per table, Pinot controller
// and checkpoint store latency, lease takeovers, and the Go runtime and
// process collectors. It serves them at /metrics through Handler.
//
// The packages that produce the numbers own the interfaces they report
// through (watcher.Metrics, pinot.CallObserver, checkpoint.Observer);
// Registry implements all of them and cmd/floe wires it in. Nothing here is
// package-level state: every Registry is independent (tests make many).
//
// Invariants (tests cite them):
//   - M1 A scrape reads no store: every per-table series is set by the
//     watcher when something happens, so /metrics costs the same with one
//     table or thousands and answers during a store outage.
//   - M2 Labels are bounded: table names, outcomes, phases, route templates
//     ("POST /segments/{table}/delete") and store operation names; never a
//     raw URL, query string, segment name or credential.
//   - M3 ForgetTable removes every series of a deleted table.
package metrics
