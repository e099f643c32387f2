package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/metrics"
)

// /metrics serves the registry given in Options, behind the access rule
// the route has always had (ProtectMetrics).
func TestServer_MetricsFromOptions(t *testing.T) {
	reg := metrics.New()
	reg.CountTables(func() int { return 7 })
	reg.LeaseTakeover("orders")
	srv, _ := guardedServer(t, api.Options{ReadTokens: []string{readToken}, ProtectMetrics: true, Metrics: reg.Handler()})
	if code, _, _ := send(t, "GET", srv.URL+"/metrics", nil, ""); code != http.StatusUnauthorized {
		t.Fatalf("protected metrics without a token: %d", code)
	}
	code, _, body := send(t, "GET", srv.URL+"/metrics", map[string]string{"Authorization": "Bearer " + readToken}, "")
	if code != 200 || !strings.Contains(body, "floe_tables 7") ||
		!strings.Contains(body, `floe_lease_takeovers_total{table="orders"} 1`) || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics: %d %s", code, body)
	}
}
