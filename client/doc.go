// Package client is a small typed client for floe's REST API (/api/v1):
// tables (paginated), one table, its status and progress, trigger, pause,
// resume and run history. The floe command line uses it.
//
// Invariants:
//
//   - K1: the bearer token is sent in the Authorization header only; it is
//     never part of an error, a URL or anything String returns.
//   - K2: an answer other than 2xx is an *Error carrying the HTTP status and
//     the API's own error message ({"error": "..."}); errors.Is matches it
//     against ErrNotFound, ErrUnauthorized, ErrConflict by status.
//   - K3: a list answer without "pages" (a floe that does not page) is one
//     page; the client then applies the state, q and sort options itself,
//     so callers see the same result from either server.
//   - K4: the client's types hold every field floe's answers carry: a real
//     API server's answers to every call decode with unknown fields refused.
package client
