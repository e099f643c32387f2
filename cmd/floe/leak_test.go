package main

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
)

// leakConn is one connection of the leak test and the secrets it holds.
type leakConn struct {
	name, typ      string
	props, secrets map[string]string
	echoes         string // the route whose answer must show a scrubbed echo
}

// I7: one connection of every type, each with its own secrets, against
// peers that repeat whatever they receive; every route is driven,
// including failing validate, browse, describe, preview, create and runs.
// No answer, no debug log line, not the status page nor /metrics holds any
// secret, and the echoes are seen scrubbed.
func TestServe_NoSecretLeaks(t *testing.T) {
	rest, awsJSON, awsXML, pinotPeer := echoPeer(t, echoIcebergREST), echoPeer(t, echoAWSJSON), echoPeer(t, echoAWSXML), echoPeer(t, echoPlain)
	pg := echoPostgres(t)
	pinotPassword := "pinot-pw-6a1b2c3d4e5f"
	pinotHeader := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+pinotPassword))
	refToken := "ref-token-0f9e8d7c6b5a"
	t.Setenv("LEAKTEST_REF_TOKEN", refToken)
	e := startServed(t, func(c *config.Config) {
		c.Pinot.ControllerURL = pinotPeer.URL
		c.Pinot.Headers = map[string]string{"Authorization": pinotHeader}
		c.Security.SecretEnv = []string{"LEAKTEST_*"}
	})
	aws := func(id string) map[string]string {
		return map[string]string{"access-key-id": "AKIALEAK" + id + "00000001", "secret-access-key": "sk-leak-" + id + "-9b8a7f6e5d4c",
			"session-token": "st-leak-" + id + "-1a2b3c4d5e6f"}
	}
	conns := []leakConn{
		{"rest-token", "rest", map[string]string{"uri": rest.URL}, map[string]string{"token": "rest-tok-3e4f5a6b7c8d"}, "validate"},
		{"rest-oauth", "rest", map[string]string{"uri": rest.URL, "oauth2-server-uri": rest.URL + "/v1/oauth/tokens"},
			map[string]string{"credential": "floe-client:oauth-cs-5c6d7e8f9a0b"}, "validate"},
		{"rest-ref", "rest", map[string]string{"uri": rest.URL}, map[string]string{"token": "${env:LEAKTEST_REF_TOKEN}"}, "validate"},
		{"s3t", "s3tables", map[string]string{"arn": "arn:aws:s3tables:us-east-1:111122223333:bucket/lake", "mode": "native",
			"endpoint.s3tables": awsJSON.URL, "endpoint.sts": awsXML.URL, "endpoint.s3": awsXML.URL}, aws("S3T"), "validate"},
		{"glue", "glue", map[string]string{"region": "us-east-1", "endpoint.glue": awsJSON.URL, "endpoint.sts": awsXML.URL,
			"endpoint.s3": awsXML.URL}, aws("GLU"), "validate"},
		{"hadoop", "hadoop", map[string]string{"warehouse": "s3://lake-bucket/wh", "region": "us-east-1", "endpoint.s3": awsXML.URL},
			aws("HDP"), "namespaces"},
		{"pg", "sql", map[string]string{"uri": "postgres://floe@" + pg + "/lake?sslmode=disable"},
			map[string]string{"password": "pg-pw-7d8e9f0a1b2c"}, "validate"},
	}
	secrets := []string{testAdminToken, testReadToken, pinotPassword, pinotHeader, refToken,
		strings.TrimPrefix(pinotHeader, "Basic ")}
	for _, c := range conns {
		for k, v := range c.secrets {
			if !strings.HasPrefix(v, "${") {
				secrets = append(secrets, v)
			}
			if k == "credential" {
				secrets = append(secrets, strings.SplitN(v, ":", 2)[1])
			}
		}
	}
	var answers strings.Builder
	record := func(method, path string, h hdr, body string) (int, string) {
		t.Helper()
		code, header, out := e.do(method, path, h, body)
		answers.WriteString(method + " " + path + " " + header.Get("WWW-Authenticate") + "\n" + out + "\n")
		return code, out
	}
	echoSeen := map[string]bool{}
	for _, c := range conns {
		if code, out := record("POST", "/api/v1/connections", nil, jsonBody(t, map[string]any{"name": c.name, "type": c.typ,
			"props": c.props, "secrets": c.secrets})); code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", c.name, code, out)
		}
		for _, r := range connectionRoutes(c.name) {
			code, out := record(r.method, r.path, nil, r.body)
			if code >= 500 && code != http.StatusBadGateway {
				t.Errorf("%s %s: %d %s", r.method, r.path, code, out)
			}
			// A peer's echo reaches the answer as an excerpt (egress E6),
			// which may end before the secret it repeats.
			if r.key == c.echoes && (strings.Contains(out, "REDACTED") || strings.Contains(out, "you sent")) {
				echoSeen[c.name] = true
			}
		}
		// A table whose runs fail against the echoing peer.
		tbl := checkpoint.Table{Name: "leak_" + strings.ReplaceAll(c.name, "-", "_"), Connection: c.name, Namespace: "sales",
			Source: "orders", TaskConfig: map[string]string{"schedule": "0 0 * * * ?"}}
		if err := e.app.watcher.AddTable(context.Background(), tbl); err != nil {
			t.Fatal(err)
		}
	}
	// Bad requests that carry secrets must not echo them either.
	record("POST", "/api/v1/connections", nil, `{"name":"half","type":"glue","props":{"region":"us-east-1"},"secrets":{"access-key-id":"AKIALEAKHALF00000001"}}`)
	secrets = append(secrets, "AKIALEAKHALF00000001")
	record("POST", "/api/v1/connections", hdr{"Authorization": "Bearer " + testReadToken}, "{}")
	record("GET", "/api/v1/tables", hdr{"Authorization": "Bearer " + testAdminToken + "x"}, "")

	waitFailedRuns(t, e, append(tableNames(conns), demoTable))
	for _, name := range append(tableNames(conns), demoTable) {
		for _, r := range []struct{ method, path string }{
			{"GET", "/api/v1/tables/" + name}, {"GET", "/api/v1/tables/" + name + "/status"},
			{"GET", "/api/v1/tables/" + name + "/runs"}, {"GET", "/api/v1/tables/" + name + "/checkpoint"},
			{"POST", "/api/v1/tables/" + name + "/trigger"}, {"POST", "/api/v1/tables/" + name + "/pause"},
			{"POST", "/api/v1/tables/" + name + "/resume"},
		} {
			code, out := record(r.method, r.path, nil, "")
			// (The Pinot client masks its own headers as "[redacted]" before floe's redactor sees them.)
			if r.path == "/api/v1/tables/"+name+"/runs" && code == 200 &&
				(strings.Contains(out, "REDACTED") || strings.Contains(out, "Authorization: [redacted]") || strings.Contains(out, "you sent")) {
				echoSeen["runs "+name] = true
			}
		}
	}
	for _, path := range []string{"/api/v1/tables", "/api/v1/connections", "/metrics", "/healthz", "/", "/app.js",
		"/index.html", "/api/v1/openapi.json", "/debug/pprof/"} {
		record("GET", path, nil, "")
	}
	for _, name := range tableNames(conns) {
		record("DELETE", "/api/v1/tables/"+name, nil, "")
	}
	for _, c := range conns {
		record("DELETE", "/api/v1/connections/"+c.name, nil, "")
	}
	// Everything floe said: answers and its debug log.
	said := answers.String() + "\n" + e.logs.String()
	for _, s := range secrets {
		if i := strings.Index(said, s); i >= 0 {
			t.Errorf("secret %q leaked: ...%s...", s, said[max(0, i-300):min(len(said), i+100)])
		}
	}
	// The peers did echo: the test saw their echoes, scrubbed.
	for _, c := range conns {
		if !echoSeen[c.name] {
			t.Errorf("connection %s: no scrubbed echo in its %s answer", c.name, c.echoes)
		}
	}
	for _, name := range []string{"leak_rest_token", "leak_pg", demoTable} {
		if !echoSeen["runs "+name] {
			t.Errorf("table %s: no scrubbed echo in its run errors", name)
		}
	}
	if !strings.Contains(e.logs.String(), "level=DEBUG") {
		t.Fatal("the log was not at debug level")
	}
}

func tableNames(conns []leakConn) []string {
	var out []string
	for _, c := range conns {
		out = append(out, "leak_"+strings.ReplaceAll(c.name, "-", "_"))
	}
	return out
}

// waitFailedRuns waits until each table has a recorded failed run.
func waitFailedRuns(t *testing.T, e *servedEnv, tables []string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for _, name := range tables {
		for {
			runs, err := e.app.store.ListRuns(context.Background(), name, 5)
			if err == nil && len(runs) > 0 && runs[0].Status == checkpoint.RunFailed {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("table %s: no failed run recorded (%v %v)", name, runs, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// leakRoute is one request the leak tests drive for a connection; key
// names the route whose answer shows a peer's echo.
type leakRoute struct{ method, path, body, key string }

// connectionRoutes are the routes that make floe call a connection's
// peers or show the connection, for the connection named name.
func connectionRoutes(name string) []leakRoute {
	return []leakRoute{
		{"GET", "/api/v1/connections/" + name, "", ""},
		{"POST", "/api/v1/connections/" + name + "/validate", "", "validate"},
		{"GET", "/api/v1/connections/" + name + "/namespaces", "", "namespaces"},
		{"GET", "/api/v1/connections/" + name + "/namespaces/sales/tables", "", ""},
		{"GET", "/api/v1/connections/" + name + "/namespaces/sales/tables/orders", "", ""},
		{"POST", "/api/v1/tables/preview", `{"connection":"` + name + `","namespace":"sales","table":"orders"}`, ""},
		{"POST", "/api/v1/tables", `{"connection":"` + name + `","namespace":"sales","table":"orders","name":"t_x"}`, ""},
	}
}
