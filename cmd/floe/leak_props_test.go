package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// derivedForms are the forms a secret may take on the wire: itself, its
// base64 (both alphabets, padded or not) and its percent-encodings.
func derivedForms(s string) []string {
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		out = append(out, e.EncodeToString([]byte(s)))
	}
	return out
}

// I7 with credentials outside secrets: one connection of every type with
// its credentials written where props, URL userinfo, a postgres:// query,
// a key=value connection string and header props put them. Written
// through the API they are refused (naming where they belong, echoing
// nothing); stored as an older floe wrote them, they are used as secrets
// against peers that echo what they receive, and no answer (admin or
// read token), log line, run record, status page or /metrics holds any of
// them in any derived form.
func TestServe_NoSecretLeaks_CredentialsOutsideSecrets(t *testing.T) {
	rest, awsJSON, awsXML := echoPeer(t, echoIcebergREST), echoPeer(t, echoAWSJSON), echoPeer(t, echoAWSXML)
	pg := echoPostgres(t)
	pgHost, pgPort, _ := net.SplitHostPort(pg)
	e := startServed(t, nil)
	restURL, _ := url.Parse(rest.URL)
	const restUser = "reader"
	restPW := "rest-userinfo-pw-4c5d6e7f"
	basicPW := "rest-basic-pw-0b1c2d3e" // a REST uri with userinfo only: sent as HTTP Basic
	pairs := []string{restUser + ":" + restPW, restUser + ":" + basicPW}
	conns := []leakConn{
		{"rest-basic", "rest", map[string]string{"uri": "http://" + restUser + ":" + basicPW + "@" + restURL.Host + "/"}, nil, "validate"},
		{"rest-props", "rest", map[string]string{"uri": "http://" + restUser + ":" + restPW + "@" + restURL.Host + "/",
			"token": "rest-prop-token-1a2b3c4d", "header.Authorization": "Bearer rest-header-5e6f7a8b",
			"s3.secret-access-key": "rest-s3-secret-9c0d1e2f"}, nil, "validate"},
		{"glue-props", "glue", map[string]string{"region": "us-east-1", "endpoint.glue": awsJSON.URL, "endpoint.sts": awsXML.URL,
			"endpoint.s3": awsXML.URL, "access-key-id": "AKIAPROPGLUE00000001", "secret-access-key": "glue-prop-secret-3a4b5c6d",
			"session-token": "glue-prop-session-7e8f9a0b"}, nil, "validate"},
		{"s3t-props", "s3tables", map[string]string{"arn": "arn:aws:s3tables:us-east-1:111122223333:bucket/lake", "mode": "native",
			"endpoint.s3tables": awsJSON.URL, "endpoint.sts": awsXML.URL, "endpoint.s3": awsXML.URL,
			"access-key-id": "AKIAPROPS3T000000001", "secret-access-key": "s3t-prop-secret-1c2d3e4f"}, nil, "validate"},
		{"hadoop-props", "hadoop", map[string]string{"warehouse": "s3://lake-bucket/wh", "region": "us-east-1", "endpoint.s3": awsXML.URL,
			"s3.access-key-id": "AKIAPROPHDP000000001", "s3.secret-access-key": "hdp-prop-secret-5a6b7c8d"}, nil, "namespaces"},
		{"pg-userinfo", "sql", map[string]string{"uri": "postgres://floe:pg-userinfo-pw-9e0f1a2b@" + pg + "/lake?sslmode=disable"}, nil, "validate"},
		{"pg-query", "sql", map[string]string{"uri": "postgres://floe@" + pg + "/lake?sslmode=disable&password=pg-query-pw-3c4d5e6f"}, nil, "validate"},
		{"pg-dsn", "sql", map[string]string{"dialect": "postgres",
			"uri": "host=" + pgHost + " port=" + pgPort + " user=floe dbname=lake sslmode=disable password='pg-dsn-pw-7a8b9c0d'"}, nil, "validate"},
	}
	secrets := []string{testAdminToken, testReadToken, restPW, basicPW, "rest-prop-token-1a2b3c4d", "rest-header-5e6f7a8b",
		"rest-s3-secret-9c0d1e2f", "AKIAPROPGLUE00000001", "glue-prop-secret-3a4b5c6d", "glue-prop-session-7e8f9a0b",
		"AKIAPROPS3T000000001", "s3t-prop-secret-1c2d3e4f", "AKIAPROPHDP000000001", "hdp-prop-secret-5a6b7c8d",
		"pg-userinfo-pw-9e0f1a2b", "pg-query-pw-3c4d5e6f", "pg-dsn-pw-7a8b9c0d", "floe:pg-userinfo-pw-9e0f1a2b"}
	secrets = append(secrets, pairs...)

	var answers strings.Builder
	record := func(method, path string, h hdr, body string) (int, string) {
		t.Helper()
		code, _, out := e.do(method, path, h, body)
		answers.WriteString(method + " " + path + "\n" + out + "\n")
		return code, out
	}
	read := hdr{"Authorization": "Bearer " + testReadToken}
	ctx := context.Background()
	echoSeen := map[string]bool{}
	for _, c := range conns {
		// Written through the API: refused, naming the prop and where it
		// belongs.
		code, out := record("POST", "/api/v1/connections", nil, jsonBody(t, map[string]any{"name": c.name, "type": c.typ, "props": c.props}))
		if code != http.StatusBadRequest || !strings.Contains(out, "connections."+c.name+".props.") || !strings.Contains(out, "give it as secrets.") {
			t.Errorf("create %s with credentials in props: %d %s, want 400 naming the prop", c.name, code, out)
		}
		// Stored as an older floe wrote it.
		if err := e.app.store.PutConnection(ctx, checkpoint.Connection{Name: c.name, Type: c.typ, Props: c.props}); err != nil {
			t.Fatal(err)
		}
		for _, r := range connectionRoutes(c.name) {
			code, out := record(r.method, r.path, nil, r.body)
			if code >= 500 && code != http.StatusBadGateway {
				t.Errorf("%s %s: %d %s", r.method, r.path, code, out)
			}
			// The peer's echo shows, scrubbed, or cut to an excerpt before the
			// secret (error answers are excerpts of a peer's answer).
			if r.key == c.echoes && (strings.Contains(out, "REDACTED") || strings.Contains(out, "you sent")) {
				echoSeen[c.name] = true
			}
			if r.method == "GET" {
				record(r.method, r.path, read, "")
			}
		}
		tbl := checkpoint.Table{Name: "leak_" + strings.ReplaceAll(c.name, "-", "_"), Connection: c.name, Namespace: "sales",
			Source: "orders", TaskConfig: map[string]string{"schedule": "0 0 * * * ?"}}
		if err := e.app.watcher.AddTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
	}
	waitFailedRuns(t, e, tableNames(conns))
	for _, name := range tableNames(conns) {
		for _, path := range []string{"/api/v1/tables/" + name, "/api/v1/tables/" + name + "/status", "/api/v1/tables/" + name + "/runs",
			"/api/v1/tables/" + name + "/checkpoint"} {
			record("GET", path, nil, "")
			record("GET", path, read, "")
		}
		runs, err := e.app.store.ListRuns(ctx, name, 10)
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := json.Marshal(runs)
		answers.WriteString("stored runs of " + name + ": " + string(stored) + "\n")
	}
	for _, path := range []string{"/api/v1/tables", "/api/v1/connections", "/metrics", "/healthz", "/", "/app.js", "/index.html"} {
		record("GET", path, nil, "")
		record("GET", path, read, "")
	}
	said := answers.String() + "\n" + e.logs.String()
	for _, s := range secrets {
		for _, form := range derivedForms(s) {
			if i := strings.Index(said, form); i >= 0 {
				t.Errorf("secret %q leaked as %q: ...%s...", s, form, said[max(0, i-300):min(len(said), i+100)])
			}
		}
	}
	for _, c := range conns {
		if !echoSeen[c.name] {
			t.Errorf("connection %s: no scrubbed echo in its %s answer", c.name, c.echoes)
		}
	}
}
