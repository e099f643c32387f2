// Package api is floe's HTTP surface: a JSON API under /api/v1 (tables,
// status, checkpoint, run history, trigger, pause, resume, connections,
// onboarding), the browser status page at /, /healthz (readiness: the store
// answers and the process is not draining, Server.Drain), /livez (liveness,
// no store), /version (build information), /metrics
// (Prometheus, from Options.Metrics; a scrape reads no store), /debug/pprof and the OpenAPI document at
// /api/v1/openapi.json (openapi.json, kept in step with the routes, and
// with the types each handler decodes and encodes, by tests).
//
// Onboarding: operators store a connection (POST /api/v1/connections,
// checked with catalog.Config.Validate), validate it, browse its
// namespaces and tables, preview the inferred Pinot schema and table
// config, and register the table (POST /api/v1/tables), whose first run
// the watcher starts at once. Catalogs are reached through the Catalogs
// interface the process injects. DELETE /api/v1/tables/{name} removes
// floe's own registration, checkpoint and run history; the Pinot table and
// its segments stay unless dropPinotTable=true (Options.Pinot).
//
// Overview: GET /api/v1/tables answers one page of tables with an overview
// state, rows, lag and last error derived from the stored records (the
// same on every replica), and GET /api/v1/summary the counts. A listing
// costs one read of the store's table revision while no table changed
// (the table list is cached per revision, tablecache.go) plus one batched
// overview read (checkpoint.Store.TableOverviews), never a read per table.
// PATCH /api/v1/tables/{name} edits the sync task config through
// watcher.UpdateTable, the compare-and-set write pause and resume use.
//
// Credentials never leave through this package (I7): connections are
// returned with their secrets replaced by the names of the secret keys,
// passwords in URL props are masked, and every error and run error it
// answers passes the process redactor (Options.Redactor), which knows
// every secret floe holds, plus the secrets of the request at hand.
//
// # Access
//
// Every request passes, in order: the Host check (listen address,
// localhost, IP literals, Options.AllowedHosts; 421 otherwise, against DNS
// rebinding), the Origin check on POST, PATCH and DELETE (a browser request from
// another origin than floe's own or Options.AllowedOrigins: 403), the
// bearer token when tokens are set (none: 401; a read token on a route
// that changes something or on /debug/pprof: 403; /healthz, /livez, /version and, unless
// ProtectMetrics, /metrics are open), Content-Type: application/json on
// POST, PATCH and DELETE (415), the body size limit (413) and read timeout
// (408), and for routes that reach a catalog the concurrency limit (429
// with Retry-After). Without tokens Open serves loopback addresses only
// unless Options.Insecure is set.
//
// Store calls run under Options.StoreTimeout (/healthz at most
// HealthTimeout, 800ms), so a store that cannot be reached answers 503
// within a second, with Retry-After, naming the store. What a client can cause is a 4xx; a failing catalog is 502; only
// floe's own faults are 500.
package api
