package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/egress"
)

// A floe without loopback in security.egress (the default) refuses, at
// create with a 400 naming the prop, connections whose URLs are metadata,
// link-local, loopback or private address literals; a stored connection
// to a loopback catalog (one from the configuration file) is refused at
// validate and its catalog gets no request; allowing loopback lets it
// through (so the refusal is the policy's).
func TestServe_EgressRefusals(t *testing.T) {
	var calls atomic.Int32
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		io.WriteString(w, `{"defaults":{},"overrides":{}}`)
	}))
	defer peer.Close()
	stored := config.Connection{Type: "rest", Props: map[string]string{"uri": peer.URL}, Secrets: map[string]string{"token": "tok-e1f2a3b4c5d6e7f8"}}
	e := startServed(t, func(c *config.Config) {
		c.Security.Egress = egress.Config{}
		c.Connections = map[string]config.Connection{"local": stored}
	})
	cases := []struct {
		name  string
		typ   string
		props map[string]string
		field string
		what  string
	}{
		{"meta", "rest", map[string]string{"uri": "http://169.254.169.254/latest/meta-data/iam/security-credentials/"}, "props.uri", "cloud metadata"},
		{"meta6", "glue", map[string]string{"region": "us-east-1", "endpoint.sts": "http://[fd00:ec2::254]/"}, "props.endpoint.sts", "cloud metadata"},
		{"alibaba", "s3tables", map[string]string{"arn": "arn:aws:s3tables:us-east-1:111122223333:bucket/b", "endpoint.s3": "http://100.100.100.200/"}, "props.endpoint.s3", "cloud metadata"},
		{"gce", "hadoop", map[string]string{"warehouse": "s3://b/wh", "s3.endpoint": "http://metadata.google.internal/"}, "props.s3.endpoint", "cloud metadata"},
		{"linklocal", "rest", map[string]string{"uri": "https://catalog.example.com", "oauth2-server-uri": "http://[fe80::1]/token"}, "props.oauth2-server-uri", "link-local"},
		{"loop", "rest", map[string]string{"uri": peer.URL}, "props.uri", "loopback"},
		{"private", "glue", map[string]string{"region": "us-east-1", "endpoint": "http://10.0.0.8:5000"}, "props.endpoint", "private"},
	}
	for _, c := range cases {
		code, _, out := e.do("POST", "/api/v1/connections", nil, jsonBody(t, map[string]any{"name": c.name, "type": c.typ, "props": c.props}))
		if code != http.StatusBadRequest || !strings.Contains(out, "connections."+c.name+"."+c.field) || !strings.Contains(out, c.what) {
			t.Errorf("create %s: %d %s; want 400 naming %s as %s", c.name, code, out, c.field, c.what)
		}
	}
	code, _, out := e.do("POST", "/api/v1/connections/local/validate", nil, "")
	if code != http.StatusBadRequest || !strings.Contains(out, "connections.local.props.uri") || !strings.Contains(out, "security.egress") {
		t.Errorf("validate local: %d %s; want 400 naming props.uri and security.egress", code, out)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the loopback catalog got %d requests; want none", n)
	}

	open := startServed(t, func(c *config.Config) { c.Connections = map[string]config.Connection{"local": stored} })
	code, _, out = open.do("POST", "/api/v1/connections/local/validate", nil, "")
	if code != http.StatusOK || calls.Load() == 0 {
		t.Fatalf("validate with loopback allowed: %d %s, %d requests; want the catalog called", code, out, calls.Load())
	}
}
