package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// Every bad input gets a 4xx whose message names the field or column at
// fault, and never a secret (env.do checks every answer).
func TestServer_OnboardingBadInput(t *testing.T) {
	e := newOnboardEnv(t)
	e.addConnection()
	sqlConn := func(name string, props, secrets map[string]string) map[string]any {
		return map[string]any{"name": name, "type": "sql", "props": props, "secrets": secrets}
	}
	uri := map[string]string{"uri": e.lake.dbPath, "catalog-name": e.lake.name}
	// A sqlite catalog cannot take a password: stored (config checks
	// pass), refused when opened.
	e.want("POST", "/api/v1/connections", sqlConn("pw", uri, map[string]string{"password": lakeSecret}), http.StatusCreated, nil)
	orders := func(extra map[string]any) map[string]any {
		m := map[string]any{"connection": "lake", "namespace": "sales", "table": "orders"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name, method, path string
		body               any
		status             int
		names              []string // what the message must name
	}{
		{"connection not JSON", "POST", "/api/v1/connections", "{", 400, []string{"decode request body"}},
		{"connection unknown field", "POST", "/api/v1/connections", `{"name":"x","type":"sql","prop":{}}`, 400, []string{"unknown field", "prop"}},
		{"connection trailing data", "POST", "/api/v1/connections", `{"name":"x","type":"sql"} {}`, 400, []string{"after the JSON object"}},
		{"connection no type", "POST", "/api/v1/connections", map[string]any{"name": "x"}, 400, []string{"connections.x.type"}},
		{"connection bad type", "POST", "/api/v1/connections", map[string]any{"name": "x", "type": "oracle"}, 400, []string{"connections.x.type", "oracle"}},
		{"connection no name", "POST", "/api/v1/connections", map[string]any{"type": "sql", "props": uri}, 400, []string{".name"}},
		{"connection bad name", "POST", "/api/v1/connections", sqlConn("a/b", uri, nil), 400, []string{"name", "a/b"}},
		{"sql without uri", "POST", "/api/v1/connections", sqlConn("x", nil, map[string]string{"token": lakeToken}), 400, []string{"connections.x.props.uri"}},
		{"half an AWS key pair", "POST", "/api/v1/connections", map[string]any{"name": "x", "type": "glue",
			"props": map[string]string{"region": "eu-west-1"}, "secrets": map[string]string{"access-key-id": lakeToken}}, 400,
			[]string{"connections.x.secrets.access-key-id"}},
		{"password in a bad REST uri", "POST", "/api/v1/connections", map[string]any{"name": "x", "type": "rest",
			"props": map[string]string{"uri": "ftp://u:" + lakeSecret + "@host/"}}, 400, []string{"connections.x.props.uri", "REDACTED"}},
		{"password on sqlite", "POST", "/api/v1/connections/pw/validate", nil, 400, []string{"connections.pw.secrets.password"}},
		{"validate unknown", "POST", "/api/v1/connections/nope/validate", nil, 404, []string{"nope"}},
		{"delete unknown connection", "DELETE", "/api/v1/connections/nope", nil, 404, []string{"nope"}},
		{"browse unknown connection", "GET", "/api/v1/connections/nope/namespaces", nil, 404, []string{"nope"}},
		{"page size zero", "GET", "/api/v1/connections/lake/namespaces?pageSize=0", nil, 400, []string{"pageSize"}},
		{"page size too big", "GET", "/api/v1/connections/lake/namespaces/sales/tables?pageSize=5000", nil, 400, []string{"pageSize"}},
		{"bad page token", "GET", "/api/v1/connections/lake/namespaces?pageToken=zz", nil, 400, []string{"pageToken", "zz"}},
		{"describe unknown table", "GET", "/api/v1/connections/lake/namespaces/sales/tables/nope", nil, 404, []string{"nope"}},
		{"preview no connection", "POST", "/api/v1/tables/preview", map[string]any{"namespace": "sales", "table": "orders"}, 400, []string{"connection"}},
		{"preview no namespace", "POST", "/api/v1/tables/preview", map[string]any{"connection": "lake", "table": "orders"}, 400, []string{"namespace"}},
		{"preview no table", "POST", "/api/v1/tables/preview", map[string]any{"connection": "lake", "namespace": "sales"}, 400, []string{"table"}},
		{"preview unknown connection", "POST", "/api/v1/tables/preview", map[string]any{"connection": "nope", "namespace": "sales", "table": "orders"},
			400, []string{"connection", "nope"}},
		{"preview unknown table", "POST", "/api/v1/tables/preview", orders(map[string]any{"table": "gone"}), 404, []string{"gone"}},
		{"illegal override", "POST", "/api/v1/tables/preview", orders(map[string]any{"overrides": map[string]string{"city": "LONG"}}),
			400, []string{"city", "illegal override"}},
		{"unknown override kind", "POST", "/api/v1/tables/preview", orders(map[string]any{"overrides": map[string]string{"amount": "BANANA"}}),
			400, []string{"amount", "BANANA"}},
		{"override of no column", "POST", "/api/v1/tables/preview", orders(map[string]any{"overrides": map[string]string{"nope": "METRIC"}}),
			400, []string{"nope"}},
		{"flatten a string", "POST", "/api/v1/tables/preview", orders(map[string]any{"flatten": []string{"city"}}), 400, []string{"city"}},
		{"time column not a time", "POST", "/api/v1/tables/preview", orders(map[string]any{"timeColumn": "city"}), 400, []string{"city", "ts"}},
		{"create bad name", "POST", "/api/v1/tables", orders(map[string]any{"name": "a.b"}), 400, []string{"name", "a.b"}},
		{"create bad schedule", "POST", "/api/v1/tables", orders(map[string]any{"schedule": "every tuesday"}), 400, []string{"taskConfig.schedule"}},
		{"create bad task flag", "POST", "/api/v1/tables", orders(map[string]any{"taskConfig": map[string]string{"enabled": "maybe"}}),
			400, []string{"taskConfig.enabled", "maybe"}},
		{"create schema of another table", "POST", "/api/v1/tables", orders(map[string]any{"schema": map[string]any{"schemaName": "other"}}),
			400, []string{"schema.schemaName", "other"}},
		{"create table config of another table", "POST", "/api/v1/tables", orders(map[string]any{"name": "t1",
			"tableConfig": map[string]any{"tableName": "other", "tableType": "OFFLINE"}}), 400, []string{"tableConfig.tableName", "other"}},
		{"create REALTIME", "POST", "/api/v1/tables", orders(map[string]any{"name": "t1",
			"tableConfig": map[string]any{"tableName": "t1", "tableType": "REALTIME"}}), 400, []string{"tableConfig.tableType"}},
		{"create with password connection", "POST", "/api/v1/tables", orders(map[string]any{"connection": "pw"}), 400, []string{"secrets.password"}},
		{"delete unknown table", "DELETE", "/api/v1/tables/nope", nil, 404, []string{"nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out := e.do(tc.method, tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d, want %d: %s", code, tc.status, out)
			}
			for _, n := range tc.names {
				if !strings.Contains(out, n) {
					t.Errorf("message does not name %q: %s", n, out)
				}
			}
		})
	}
	// None of the bad requests registered anything.
	code, out := e.do("GET", "/api/v1/tables", nil)
	if code != 200 || !strings.Contains(out, `"tables": []`) {
		t.Fatalf("tables after bad requests: %d %s", code, out)
	}
}
