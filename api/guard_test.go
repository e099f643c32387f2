package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

const (
	adminToken = "admin-token-5f1e2d3c4b5a"
	readToken  = "read-token-9a8b7c6d5e4f"
)

// guardedServer is newServer's store and watcher behind an API with the
// given options.
func guardedServer(t *testing.T, opts api.Options) (*httptest.Server, checkpoint.Store) {
	t.Helper()
	ctx := context.Background()
	store := checkpoint.NewMemory()
	if err := store.PutConnection(ctx, checkpoint.Connection{Name: "lake", Type: "sql",
		Props: map[string]string{"uri": "cat.db"}, Secrets: map[string]string{"password": secret}}); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx, checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders",
		TaskConfig: map[string]string{"schedule": "0 */5 * * * ?"}}); err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(store, w, nil, nil, "test", opts).Handler())
	t.Cleanup(srv.Close)
	return srv, store
}

// send makes one request with the given headers and body.
func send(t *testing.T, method, url string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// concrete fills a route pattern's wildcards.
func concrete(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	r := strings.NewReplacer("{name}", "orders", "{ns}", "sales", "{table}", "orders")
	if strings.HasPrefix(path, "/api/v1/connections/") {
		r = strings.NewReplacer("{name}", "lake", "{ns}", "sales", "{table}", "orders")
	}
	return method, r.Replace(path)
}

// snapshot is what the store holds, to prove a refused request changed
// nothing.
func snapshot(t *testing.T, store checkpoint.Store) []any {
	t.Helper()
	ctx := context.Background()
	tables, err := store.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conns, err := store.ListConnections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := store.ListRuns(ctx, "orders", 100)
	if err != nil {
		t.Fatal(err)
	}
	return []any{tables, conns, runs}
}

// Every mutating route answers 401 without a token and 403 with a read
// token, and changes nothing; every other API route asks for a token;
// /healthz, /livez, /version and /metrics stay open.
func TestServer_TokensGuardEveryRoute(t *testing.T) {
	srv, store := guardedServer(t, api.Options{AdminTokens: []string{adminToken}, ReadTokens: []string{readToken}})
	before := snapshot(t, store)
	routes := api.New(checkpoint.NewMemory(), nil, nil, nil, "test").Routes()
	json := map[string]string{"Content-Type": "application/json"}
	withTok := func(tok string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tok}
	}
	mutating := 0
	for _, pattern := range routes {
		method, path := concrete(pattern)
		switch {
		case path == "/healthz" || path == "/livez" || path == "/version" || path == "/metrics":
			if code, _, body := send(t, method, srv.URL+path, nil, ""); code != http.StatusOK {
				t.Errorf("%s without a token: %d %s", pattern, code, body)
			}
		case method == "GET" && !strings.HasPrefix(path, "/debug/"):
			code, hdr, body := send(t, method, srv.URL+path, nil, "")
			if code != http.StatusUnauthorized || !strings.Contains(body, "Bearer") || !strings.Contains(hdr.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s without a token: %d %s", pattern, code, body)
			}
			if code, _, body := send(t, method, srv.URL+path, withTok(readToken), ""); code == http.StatusUnauthorized || code == http.StatusForbidden {
				t.Errorf("%s with a read token: %d %s", pattern, code, body)
			}
		default: // mutating routes and profiling need an admin token
			mutating++
			if code, _, body := send(t, method, srv.URL+path, json, "{}"); code != http.StatusUnauthorized ||
				!strings.Contains(body, "authentication required") {
				t.Errorf("%s without a token: %d %s", pattern, code, body)
			}
			if code, _, body := send(t, method, srv.URL+path, withTok(readToken), "{}"); code != http.StatusForbidden ||
				!strings.Contains(body, "may only read") {
				t.Errorf("%s with a read token: %d %s", pattern, code, body)
			}
			if code, _, body := send(t, method, srv.URL+path, withTok("wrong-token-000000000"), "{}"); code != http.StatusUnauthorized ||
				!strings.Contains(body, "not valid") {
				t.Errorf("%s with a wrong token: %d %s", pattern, code, body)
			}
		}
	}
	if mutating < 12 {
		t.Fatalf("only %d mutating routes checked", mutating)
	}
	if after := snapshot(t, store); !reflect.DeepEqual(before, after) {
		t.Fatalf("refused requests changed the store:\n%v\n%v", before, after)
	}
	// An admin token may change things.
	if code, _, body := send(t, "POST", srv.URL+"/api/v1/tables/orders/pause", withTok(adminToken), ""); code != http.StatusOK {
		t.Fatalf("pause with the admin token: %d %s", code, body)
	}
	if code, _, body := send(t, "GET", srv.URL+"/debug/pprof/", withTok(adminToken), ""); code != http.StatusOK {
		t.Fatalf("pprof with the admin token: %d %s", code, body)
	}
}

func TestServer_ProtectMetrics(t *testing.T) {
	srv, _ := guardedServer(t, api.Options{ReadTokens: []string{readToken}, ProtectMetrics: true})
	if code, _, _ := send(t, "GET", srv.URL+"/metrics", nil, ""); code != http.StatusUnauthorized {
		t.Fatalf("protected metrics without a token: %d", code)
	}
	if code, _, body := send(t, "GET", srv.URL+"/metrics", map[string]string{"Authorization": "Bearer " + readToken}, ""); code != 200 ||
		!strings.Contains(body, "floe_tables 1") {
		t.Fatalf("protected metrics with a token: %d %s", code, body)
	}
	if code, _, _ := send(t, "GET", srv.URL+"/healthz", nil, ""); code != 200 {
		t.Fatalf("healthz stays open: %d", code)
	}
}

// Browser-origin attacks and DNS rebinding are refused, with and without
// tokens, and change nothing; floe's own page and non-browser clients pass.
func TestServer_RefusesCrossSiteRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts api.Options
		auth map[string]string
	}{
		{"no tokens", api.Options{AllowedOrigins: []string{"https://ops.example"}, AllowedHosts: []string{"floe.internal"}}, nil},
		{"tokens", api.Options{AdminTokens: []string{adminToken}, AllowedOrigins: []string{"https://ops.example"},
			AllowedHosts: []string{"floe.internal"}}, map[string]string{"Authorization": "Bearer " + adminToken}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, store := guardedServer(t, tc.opts)
			before := snapshot(t, store)
			hdr := func(kv ...string) map[string]string {
				m := map[string]string{}
				for k, v := range tc.auth {
					m[k] = v
				}
				for i := 0; i+1 < len(kv); i += 2 {
					m[kv[i]] = kv[i+1]
				}
				return m
			}
			conn := `{"name":"evil","type":"hadoop","props":{"warehouse":"file:///etc"}}`
			own := strings.TrimPrefix(srv.URL, "http://")
			refused := []struct {
				name, method, path string
				hdr                map[string]string
				status             int
				msg                string
			}{
				{"text/plain cross-origin", "POST", "/api/v1/connections", hdr("Content-Type", "text/plain", "Origin", "http://evil.example"), 403, "cross-origin"},
				{"text/plain no origin", "POST", "/api/v1/connections", hdr("Content-Type", "text/plain"), 415, "application/json"},
				{"form post", "POST", "/api/v1/tables/orders/pause", hdr("Content-Type", "application/x-www-form-urlencoded"), 415, "application/json"},
				{"no content type", "POST", "/api/v1/tables/orders/trigger", hdr(), 415, "application/json"},
				{"json foreign origin", "POST", "/api/v1/connections", hdr("Content-Type", "application/json", "Origin", "http://evil.example"), 403, "evil.example"},
				{"null origin", "POST", "/api/v1/tables/orders/pause", hdr("Content-Type", "application/json", "Origin", "null"), 403, "cross-origin"},
				{"cross-site fetch", "DELETE", "/api/v1/tables/orders", hdr("Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"), 403, "cross-origin"},
				{"same-site other port", "POST", "/api/v1/tables/orders/pause", hdr("Content-Type", "application/json", "Origin", "http://127.0.0.1:1"), 403, "cross-origin"},
				{"foreign host", "POST", "/api/v1/connections", hdr("Content-Type", "application/json", "Host", "evil.example"), 421, "evil.example"},
				{"foreign host read", "GET", "/api/v1/tables", hdr("Host", "rebind.evil.example:8080"), 421, "server.allowedHosts"},
				{"foreign host page", "GET", "/", hdr("Host", "evil.example"), 421, "evil.example"},
			}
			for _, r := range refused {
				code, _, body := send(t, r.method, srv.URL+r.path, r.hdr, conn)
				if code != r.status || !strings.Contains(body, r.msg) {
					t.Errorf("%s: %d %s, want %d naming %q", r.name, code, body, r.status, r.msg)
				}
			}
			if after := snapshot(t, store); !reflect.DeepEqual(before, after) {
				t.Fatalf("refused requests changed the store")
			}
			allowed := []struct {
				name, method, path string
				hdr                map[string]string
			}{
				{"own page", "POST", "/api/v1/tables/orders/pause", hdr("Content-Type", "application/json", "Origin", "http://"+own, "Sec-Fetch-Site", "same-origin")},
				{"allowed origin", "POST", "/api/v1/tables/orders/resume", hdr("Content-Type", "application/json; charset=utf-8", "Origin", "https://ops.example")},
				{"cli", "POST", "/api/v1/tables/orders/pause", hdr("Content-Type", "application/json")},
				{"allowed host", "GET", "/api/v1/tables", hdr("Host", "floe.internal:8080")},
				{"localhost", "GET", "/api/v1/tables", hdr("Host", "localhost")},
				{"ip literal", "GET", "/healthz", hdr("Host", "[::1]:8080")},
			}
			for _, a := range allowed {
				if code, _, body := send(t, a.method, srv.URL+a.path, a.hdr, ""); code != http.StatusOK {
					t.Errorf("%s: %d %s", a.name, code, body)
				}
			}
		})
	}
}

// The loopback-only rule: without tokens Open refuses other addresses
// unless Insecure is set.
func TestServer_OpenWithoutTokensServesLoopbackOnly(t *testing.T) {
	s := api.New(checkpoint.NewMemory(), nil, nil, nil, "test")
	if err := s.Open("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("open on all interfaces without a token: %v", err)
	}
	ins := api.New(checkpoint.NewMemory(), nil, nil, nil, "test", api.Options{Insecure: true})
	if err := ins.Open("0.0.0.0:0"); err != nil {
		t.Fatalf("insecure: %v", err)
	}
	_ = ins.Close(context.Background())
	tok := api.New(checkpoint.NewMemory(), nil, nil, nil, "test", api.Options{AdminTokens: []string{adminToken}})
	if err := tok.Open("0.0.0.0:0"); err != nil {
		t.Fatalf("with a token: %v", err)
	}
	_ = tok.Close(context.Background())
}
