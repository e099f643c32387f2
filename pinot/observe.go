package pinot

import (
	"context"
	"strings"
	"time"
)

// CallObserver hears of every controller request attempt (retries
// included): its endpoint as a route template ("POST /segments/{table}/delete"),
// how long it took and its error (a transport error or a non-2xx answer).
// metrics.Registry implements it. Endpoints never carry a table name, a
// segment name, a query string or a credential.
type CallObserver interface {
	ControllerCall(endpoint string, d time.Duration, err error)
}

// send makes one attempt of r, reported to c.Observer when set.
func (c *Controller) send(ctx context.Context, r request, out any) error {
	if c.Observer == nil {
		return c.sendOnce(ctx, r, out)
	}
	start := time.Now()
	err := c.sendOnce(ctx, r, out)
	c.Observer.ControllerCall(Endpoint(r.method, r.path), time.Since(start), err)
	return err
}

// Endpoint is the route template of a controller request: the method, and
// the path with the table element of /tables/{table} and
// /segments/{table}/... replaced (the paths floe calls).
func Endpoint(method, path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && (parts[0] == "tables" || parts[0] == "segments" || parts[0] == "schemas"):
		parts[1] = "{" + strings.TrimSuffix(parts[0], "s") + "}"
		if parts[0] == "segments" {
			parts[1] = "{table}"
		}
		if len(parts) > 3 {
			parts = append(parts[:2], "...")
		}
	case len(parts) > 2:
		parts = append(parts[:2], "...")
	}
	return method + " /" + strings.Join(parts, "/")
}
