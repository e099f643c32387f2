// Package api is floe's HTTP surface: a JSON API under /api/v1 (tables,
// status, checkpoint, run history, trigger, pause, resume, connections,
// onboarding), the browser status page at /, /healthz, /metrics
// (Prometheus text), /debug/pprof and the OpenAPI document at
// /api/v1/openapi.json (openapi.json, kept in step with the routes by a
// test).
//
// Onboarding: operators store a connection (POST /api/v1/connections,
// checked with catalog.Config.Validate), validate it, browse its
// namespaces and tables, preview the inferred Pinot schema and table
// config, and register the table (POST /api/v1/tables), whose first run
// the watcher starts at once. Catalogs are reached through the Catalogs
// interface the process injects. DELETE /api/v1/tables/{name} removes only
// floe's own registration, checkpoint and run history; the Pinot table and
// its segments stay.
//
// Credentials never leave through this package (I7): connections are
// returned with their secrets replaced by the names of the secret keys,
// passwords in URL props are masked, and every error about a connection
// has the connection's secret values scrubbed before it is sent.
package api
