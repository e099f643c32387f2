package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
)

// Every route the mux serves is in the OpenAPI document with its method,
// and the document describes no route the mux does not serve.
func TestServer_OpenAPICoversRoutes(t *testing.T) {
	srv, _ := newServer(t)
	code, body := call(t, "GET", srv.URL+"/api/v1/openapi.json")
	if code != http.StatusOK {
		t.Fatalf("openapi.json: %d %s", code, body)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi version %q, want 3.x", doc.OpenAPI)
	}
	routes := api.New(checkpoint.NewMemory(), nil, nil, nil, "test").Routes()
	if len(routes) == 0 {
		t.Fatal("no routes")
	}
	var served []string
	for _, r := range routes {
		method, path, ok := strings.Cut(r, " ")
		if !ok {
			t.Fatalf("route %q has no method", r)
		}
		served = append(served, strings.ToLower(method)+" "+path)
		if _, ok := doc.Paths[path][strings.ToLower(method)]; !ok {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if !slices.Contains(served, method+" "+path) {
				t.Errorf("openapi.json describes %s %s, which is not served", method, path)
			}
		}
	}
}

// The routes are really served: each documented GET without parameters
// answers (no 404/405 from the mux).
func TestServer_RoutesServed(t *testing.T) {
	srv, _ := newServer(t)
	for _, path := range []string{"/healthz", "/metrics", "/api/v1/openapi.json", "/api/v1/tables", "/api/v1/connections", "/debug/pprof/"} {
		if code, body := call(t, "GET", srv.URL+path); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

// The document states the bearer scheme, requires it by default, and
// leaves /healthz open.
func TestServer_OpenAPISecurity(t *testing.T) {
	srv, _ := newServer(t)
	_, body := call(t, "GET", srv.URL+"/api/v1/openapi.json")
	var doc struct {
		Security   []map[string][]string `json:"security"`
		Components struct {
			SecuritySchemes map[string]struct{ Type, Scheme string } `json:"securitySchemes"`
		} `json:"components"`
		Paths map[string]map[string]struct {
			Security  *[]map[string][]string     `json:"security"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s.Type != "http" || s.Scheme != "bearer" {
		t.Fatalf("bearerAuth scheme: %+v", s)
	}
	if len(doc.Security) != 1 || doc.Security[0]["bearerAuth"] == nil {
		t.Fatalf("global security: %v", doc.Security)
	}
	if h := doc.Paths["/healthz"]["get"].Security; h == nil || len(*h) != 0 {
		t.Fatalf("/healthz must be open: %v", h)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if method == "post" || method == "delete" {
				for _, code := range []string{"401", "403", "415"} {
					if _, ok := op.Responses[code]; !ok {
						t.Errorf("%s %s does not document %s", method, path, code)
					}
				}
			}
		}
	}
}
