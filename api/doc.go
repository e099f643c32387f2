// Package api is floe's HTTP surface: a JSON API under /api/v1 (tables,
// status, checkpoint, run history, trigger, pause, resume, connections),
// the browser status page at /, /healthz, /metrics (Prometheus text) and
// /debug/pprof. Handlers only read state and send commands to the watcher.
//
// Credentials never leave through this package (I7): connections are
// returned with their secrets replaced by the names of the secret keys.
package api
