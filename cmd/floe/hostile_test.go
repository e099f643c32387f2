package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
)

// hostileCase is one hostile or malformed request and the answer it must
// get: the status and a piece of the message.
type hostileCase struct {
	name, method, path string
	h                  hdr
	body               string
	status             int
	msg                string
}

// hostileCases are the requests an attacker or a confused client sends;
// dir is the served data directory (the one allowed local root) and
// outside a directory outside it.
func hostileCases(t *testing.T, dir, outside string) []hostileCase {
	conn := func(name, typ string, props, secrets map[string]string) string {
		return jsonBody(t, map[string]any{"name": name, "type": typ, "props": props, "secrets": secrets})
	}
	table := func(name, schedule string, task map[string]string) string {
		m := map[string]any{"connection": "demo", "namespace": "demo", "table": "events", "name": name}
		if schedule != "" {
			m["schedule"] = schedule
		}
		if task != nil {
			m["taskConfig"] = task
		}
		return jsonBody(t, m)
	}
	hadoop := func(wh string) string { return conn("wh", "hadoop", map[string]string{"warehouse": wh}, nil) }
	sqlite := func(uri string) string { return conn("lite", "sql", map[string]string{"uri": uri}, nil) }
	noTok := hdr{"Authorization": "-"}
	readTok := hdr{"Authorization": "Bearer " + testReadToken}
	evil := hdr{"Origin": "http://evil.example"}
	return []hostileCase{
		// authentication and roles
		{"create connection without token", "POST", "/api/v1/connections", noTok, hadoop(dir), 401, "authentication required"},
		{"create connection with read token", "POST", "/api/v1/connections", readTok, hadoop(dir), 403, "may only read"},
		{"wrong token", "POST", "/api/v1/tables/demo_events/pause", hdr{"Authorization": "Bearer not-a-token-at-all"}, "", 401, "not valid"},
		{"basic auth instead of bearer", "POST", "/api/v1/tables/demo_events/pause", hdr{"Authorization": "Basic YWRtaW46YWRtaW4="}, "", 401, "Bearer"},
		{"empty bearer", "DELETE", "/api/v1/tables/demo_events", hdr{"Authorization": "Bearer "}, "", 401, "authentication required"},
		{"token in the query string", "POST", "/api/v1/tables/demo_events/trigger?token=" + testAdminToken, noTok, "", 401, "authentication required"},
		{"list tables without token", "GET", "/api/v1/tables", noTok, "", 401, "authentication required"},
		{"delete table with read token", "DELETE", "/api/v1/tables/demo_events", readTok, "", 403, "needs an admin token"},
		{"pprof with read token", "GET", "/debug/pprof/", readTok, "", 403, "needs an admin token"},
		{"openapi without token", "GET", "/api/v1/openapi.json", noTok, "", 401, "authentication required"},
		// cross-site requests and DNS rebinding
		{"text/plain cross-origin create", "POST", "/api/v1/connections", hdr{"Content-Type": "text/plain", "Origin": "http://evil.example"}, hadoop(dir), 403, "cross-origin"},
		{"text/plain create", "POST", "/api/v1/connections", hdr{"Content-Type": "text/plain"}, hadoop(dir), 415, "application/json"},
		{"form-encoded trigger", "POST", "/api/v1/tables/demo_events/trigger", hdr{"Content-Type": "application/x-www-form-urlencoded"}, "a=b", 415, "application/json"},
		{"multipart create", "POST", "/api/v1/tables", hdr{"Content-Type": "multipart/form-data; boundary=x"}, "--x--", 415, "application/json"},
		{"delete without content type", "DELETE", "/api/v1/tables/demo_events", hdr{"Content-Type": "-"}, "", 415, "application/json"},
		{"json from a foreign origin", "POST", "/api/v1/tables/demo_events/pause", evil, "", 403, "evil.example"},
		{"null origin", "DELETE", "/api/v1/tables/demo_events", hdr{"Origin": "null"}, "", 403, "cross-origin"},
		{"cross-site fetch", "POST", "/api/v1/tables/demo_events/trigger", hdr{"Sec-Fetch-Site": "cross-site"}, "", 403, "cross-origin"},
		{"rebinding host", "GET", "/api/v1/tables", hdr{"Host": "rebind.evil.example"}, "", 421, "server.allowedHosts"},
		{"rebinding host write", "POST", "/api/v1/connections", hdr{"Host": "evil.example:8080"}, hadoop(dir), 421, "evil.example"},
		{"lookalike localhost", "GET", "/healthz", hdr{"Host": "localhost.evil.example"}, "", 421, "localhost.evil.example"},
		// malformed, huge and deep bodies
		{"body not JSON", "POST", "/api/v1/connections", nil, "{", 400, "decode request body"},
		{"body trailing data", "POST", "/api/v1/connections", nil, `{"name":"x","type":"sql"} {}`, 400, "after the JSON object"},
		{"body unknown field", "POST", "/api/v1/tables/preview", nil, `{"connection":"demo","evil":1}`, 400, "unknown field"},
		{"body an array", "POST", "/api/v1/connections", nil, `[1,2,3]`, 400, "cannot unmarshal array"},
		{"body null", "POST", "/api/v1/connections", nil, `null`, 400, "must not be empty"},
		{"body wrong types", "POST", "/api/v1/connections", nil, `{"name":"x","type":"sql","props":"uri"}`, 400, "cannot unmarshal string"},
		{"body 2 MiB", "POST", "/api/v1/connections", nil, `{"name":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "larger than"},
		{"body deeply nested", "POST", "/api/v1/tables/preview", nil, `{"overrides":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, 400, "decode request body"},
		{"name of 100 KB", "POST", "/api/v1/connections", nil, conn(strings.Repeat("n", 100<<10), "sql", nil, nil), 400, "connection name is 1-128"},
		// Pinot table names
		{"table name right-to-left override", "POST", "/api/v1/tables", nil, table("orders\u202egpj", "", nil), 400, "U+202E"},
		{"table name zero-width space", "POST", "/api/v1/tables", nil, table("ord\u200bers", "", nil), 400, "U+200B"},
		{"table name control character", "POST", "/api/v1/tables", nil, table("orders\x1b[31m", "", nil), 400, "U+001B"},
		{"table name double underscore", "POST", "/api/v1/tables", nil, table("a__b", "", nil), 400, "segment-name separator"},
		{"table name with dot", "POST", "/api/v1/tables", nil, table("db.orders", "", nil), 400, "'.'"},
		{"table name Cyrillic lookalike", "POST", "/api/v1/tables", nil, table("dеmo_events", "", nil), 400, "ASCII letters"},
		{"table name too long", "POST", "/api/v1/tables", nil, table(strings.Repeat("t", 200), "", nil), 400, "200 bytes"},
		{"table name taken", "POST", "/api/v1/tables", nil, table(demoTable, "", nil), 409, "already exists"},
		// schedules
		{"schedule every millisecond", "POST", "/api/v1/tables", nil, table("fast1", "@every 1ms", nil), 400, "minimum 10s"},
		{"schedule negative", "POST", "/api/v1/tables", nil, table("fast2", "@every -5s", nil), 400, "must be positive"},
		{"schedule zero", "POST", "/api/v1/tables", nil, table("fast3", "@every 0s", nil), 400, "must be positive"},
		{"schedule every second", "POST", "/api/v1/tables", nil, table("fast4", "* * * * * ?", nil), 400, "1s apart"},
		{"schedule in stashed key", "POST", "/api/v1/tables", nil, table("fast5", "", map[string]string{"schedule.paused": "*/3 * * * * ?"}), 400, "taskConfig.schedule.paused"},
		{"schedule garbage", "POST", "/api/v1/tables", nil, table("fast6", "whenever", nil), 400, "invalid schedule"},
		{"task flag garbage", "POST", "/api/v1/tables", nil, table("flag", "", map[string]string{"enabled": "maybe"}), 400, "taskConfig.enabled"},
		// connection names
		{"connection name with slash", "POST", "/api/v1/connections", nil, conn("a/b", "sql", map[string]string{"uri": ":memory:"}, nil), 400, "connection name"},
		{"connection name right-to-left", "POST", "/api/v1/connections", nil, conn("lake\u202e", "sql", map[string]string{"uri": ":memory:"}, nil), 400, `\u202e`},
		// local files
		{"hadoop warehouse /etc", "POST", "/api/v1/connections", nil, hadoop("file:///etc"), 400, "never reads"},
		{"hadoop warehouse /proc", "POST", "/api/v1/connections", nil, hadoop("/proc/self"), 400, "/proc"},
		{"hadoop warehouse /", "POST", "/api/v1/connections", nil, hadoop("file:///"), 400, "never reads"},
		{"sqlite /etc/passwd", "POST", "/api/v1/connections", nil, sqlite("/etc/passwd"), 400, "/etc"},
		{"sqlite outside the roots", "POST", "/api/v1/connections", nil, sqlite(filepath.Join(outside, "c.db")), 400, "security.localRoots"},
		{"sqlite path traversal", "POST", "/api/v1/connections", nil, sqlite(dir + "/../../../../etc/shadow"), 400, "/etc"},
		{"sqlite through a symlink to /etc", "POST", "/api/v1/connections", nil, sqlite(filepath.Join(dir, "etc-link", "passwd")), 400, "/etc"},
		// drivers and their options are an allow-list
		{"mysql driver", "POST", "/api/v1/connections", nil, conn("my", "sql", map[string]string{"driver": "mysql",
			"uri": "u@tcp(127.0.0.1:1)/x?allowAllFiles=true"}, nil), 400, "connections.my.props.driver: unsupported driver"},
		{"mysql address malformed", "POST", "/api/v1/connections", nil, conn("my", "sql", map[string]string{"driver": "mysql",
			"uri": "u@tcp(127.0.0.1:notaport/x"}, nil), 400, "props.driver"},
		{"postgres sslkey", "POST", "/api/v1/connections", nil, conn("pg", "sql", map[string]string{
			"uri": "postgres://floe@127.0.0.1:1/x?sslkey=/etc/ssl/private/key.pem"}, nil), 400, "props.uri: option sslkey is refused"},
		{"postgres passfile key=value", "POST", "/api/v1/connections", nil, conn("pg", "sql", map[string]string{"dialect": "postgres",
			"uri": "host=127.0.0.1 passfile=/proc/self/environ"}, nil), 400, "props.uri: option passfile is refused"},
		{"postgres unix socket", "POST", "/api/v1/connections", nil, conn("pg", "sql", map[string]string{
			"uri": "postgres://floe@/x?host=/var/run/postgresql"}, nil), 400, "props.uri: option host"},
		{"postgres bad port", "POST", "/api/v1/connections", nil, conn("pg", "sql", map[string]string{
			"uri": "postgres://floe@db:notaport/x"}, nil), 400, "props.uri: invalid postgres URL"},
		{"sqlite vfs", "POST", "/api/v1/connections", nil, sqlite(filepath.Join(dir, "floe.db") + "?vfs=unix-none"), 400, "option vfs is refused"},
		{"sqlite pragma attach", "POST", "/api/v1/connections", nil, sqlite(filepath.Join(dir, "floe.db") +
			"?_pragma=busy_timeout(1);ATTACH%20DATABASE%20'/etc/passwd'%20AS%20x"), 400, "option _pragma"},
		// credentials belong in secrets
		{"token in props", "POST", "/api/v1/connections", nil, conn("r", "rest", map[string]string{"uri": "http://127.0.0.1:1",
			"token": "tok-in-props-12345678"}, nil), 400, "props.token: is a credential"},
		{"password in a URL", "POST", "/api/v1/connections", nil, conn("pg", "sql", map[string]string{
			"uri": "postgres://floe:pw-in-url-12345678@127.0.0.1:1/x"}, nil), 400, "give it as secrets.password"},
		{"one-byte secret", "POST", "/api/v1/connections", nil, conn("r", "rest", map[string]string{"uri": "http://127.0.0.1:1"},
			map[string]string{"token": "e"}), 400, "secrets.token: is 1 characters"},
		{"secret from an unlisted variable", "POST", "/api/v1/connections", nil,
			conn("ref", "rest", map[string]string{"uri": "http://127.0.0.1:1"}, map[string]string{"token": "${env:HOME}"}), 400, "security.secretEnv"},
		{"secret from /etc/shadow", "POST", "/api/v1/connections", nil,
			conn("ref", "rest", map[string]string{"uri": "http://127.0.0.1:1"}, map[string]string{"token": "${file:/etc/shadow}"}), 400, "/etc"},
		{"validate a missing sqlite file", "POST", "/api/v1/connections/missing/validate", nil, "", 422, "does not exist"},
		{"validate a file that is not a database", "POST", "/api/v1/connections/notadb/validate", nil, "", 422, "not a usable catalog"},
		{"validate a peer that is down", "POST", "/api/v1/connections/down/validate", nil, "", 502, "unreachable"},
		{"validate an unknown connection", "POST", "/api/v1/connections/nope/validate", nil, "", 404, "nope"},
		// paths: traversal, odd Unicode, bad parameters
		{"table path traversal", "GET", "/api/v1/tables/..%2f..%2fetc%2fpasswd", nil, "", 404, "not found"},
		{"connection path traversal", "GET", "/api/v1/connections/..%2F..%2Fetc", nil, "", 404, "not found"},
		{"static path traversal", "GET", "/app.js/../../../etc/passwd", nil, "", 307, `href="/etc/passwd"`},
		{"static file outside the page", "GET", "/etc/passwd", nil, "", 404, "404 page not found"},
		{"namespace traversal", "GET", "/api/v1/connections/demo/namespaces/..%2F..%2Fetc/tables", nil, "", 400, "holds"},
		{"namespace dot-dot", "GET", "/api/v1/connections/demo/namespaces?parent=..", nil, "", 400, "empty level"},
		{"describe with a NUL", "GET", "/api/v1/connections/demo/namespaces/demo/tables/ev%00ents", nil, "", 400, "control or invisible"},
		{"preview with a path in the table", "POST", "/api/v1/tables/preview", nil, `{"connection":"demo","namespace":"demo","table":"../../etc"}`, 400, "holds"},
		{"table name right-to-left in path", "GET", "/api/v1/tables/%E2%80%AEorders", nil, "", 404, `\u202eorders`},
		{"page size negative", "GET", "/api/v1/connections/demo/namespaces?pageSize=-1", nil, "", 400, "pageSize"},
		{"page size huge", "GET", "/api/v1/connections/demo/namespaces?pageSize=999999999999", nil, "", 400, "pageSize"},
		{"runs limit not a number", "GET", "/api/v1/tables/demo_events/runs?limit=1e9", nil, "", 400, "limit"},
		{"method not served", "PUT", "/api/v1/tables/demo_events", nil, "{}", 405, "Method Not Allowed"},
	}
}

// A suite of hostile and malformed requests: each gets the status and
// message it should, floe stays up, and the demo table keeps syncing
// throughout.
func TestServe_HostileRequests(t *testing.T) {
	outside := t.TempDir()
	e := startServed(t, func(c *config.Config) { c.Server.ReadTimeout = 2 * time.Second })
	e.snapshotID0()
	if err := os.Symlink("/etc", filepath.Join(e.dir, "etc-link")); err != nil {
		t.Fatal(err)
	}
	notADB := filepath.Join(e.dir, "notes.txt")
	if err := os.WriteFile(notADB, []byte(strings.Repeat("not a database ", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, props := range map[string]map[string]string{
		"missing": {"uri": filepath.Join(e.dir, "missing.db")},
		"notadb":  {"uri": notADB},
	} {
		if code, _, body := e.do("POST", "/api/v1/connections", nil, jsonBody(t, map[string]any{"name": name, "type": "sql", "props": props})); code != 201 {
			t.Fatalf("store connection %s: %d %s", name, code, body)
		}
	}
	if code, _, body := e.do("POST", "/api/v1/connections", nil, jsonBody(t, map[string]any{"name": "down", "type": "rest",
		"props": map[string]string{"uri": "http://" + closedAddr(t)}})); code != 201 {
		t.Fatalf("store connection down: %d %s", code, body)
	}
	cases := hostileCases(t, e.dir, outside)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := e.do(tc.method, tc.path, tc.h, tc.body)
			if code != tc.status || !strings.Contains(body, tc.msg) {
				t.Errorf("%s %s: %d %.300s\nwant %d with %q", tc.method, tc.path, code, body, tc.status, tc.msg)
			}
			if code >= 500 && code != 502 {
				t.Errorf("a client-caused request answered %d", code)
			}
		})
	}
	extra := []func(t *testing.T) int{
		func(t *testing.T) int { return slowBody(t, e) },
		func(t *testing.T) int { return catalogCallLimit(t, e) },
		func(t *testing.T) int { return parallelCreateDelete(t, e) },
	}
	n := len(cases)
	for _, f := range extra {
		n += f(t)
	}
	if n < 60 {
		t.Fatalf("only %d hostile requests", n)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "missing.db")); !os.IsNotExist(err) {
		t.Fatalf("validating a missing sqlite catalog created it: %v", err)
	}
	if code, _, body := e.do("GET", "/api/v1/connections", nil, ""); code != 200 ||
		strings.Contains(body, `"wh"`) || strings.Contains(body, `"lite"`) || strings.Contains(body, `"ref"`) {
		t.Fatalf("a refused connection was stored: %d %s", code, body)
	}
	if code, _, body := e.do("GET", "/healthz", hdr{"Authorization": "-"}, ""); code != 200 {
		t.Fatalf("floe is not healthy after the suite: %d %s", code, body)
	}
	e.appendAndSync()
	t.Logf("%d hostile requests answered; the demo table kept syncing", n)
}

// snapshotID0 waits for the first sync and returns its snapshot.
func (e *servedEnv) snapshotID0() int64 {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if id := e.snapshotID(); id != 0 {
			return id
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatal("the demo table never synced")
	return 0
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// slowBody sends a body slower than server.readTimeout: floe answers 408
// and frees the connection instead of holding it open.
func slowBody(t *testing.T, e *servedEnv) int {
	t.Helper()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/v1/connections HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\":", e.addr, testAdminToken)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("slow body: no answer: %v", err)
	}
	defer resp.Body.Close()
	b := make([]byte, 4096)
	n, _ := resp.Body.Read(b)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b[:n]), "not received in time") {
		t.Fatalf("slow body: %d %s", resp.StatusCode, b[:n])
	}
	return 1
}

// catalogCallLimit holds the only catalog-call slot with a catalog that
// does not answer: the next catalog call is 429 with Retry-After, other
// routes still answer.
func catalogCallLimit(t *testing.T, e *servedEnv) int {
	t.Helper()
	release := make(chan struct{})
	arrived := make(chan struct{}, 64)
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "gone", http.StatusServiceUnavailable)
	}))
	defer stuck.Close()
	var once sync.Once
	defer once.Do(func() { close(release) })
	if code, _, body := e.do("POST", "/api/v1/connections", nil, jsonBody(t, map[string]any{"name": "stuck", "type": "rest",
		"props": map[string]string{"uri": stuck.URL}})); code != 201 {
		t.Fatalf("store connection stuck: %d %s", code, body)
	}
	holders := e.app.cfg.Server.MaxCatalogCalls
	var wg sync.WaitGroup
	codes := make(chan int, holders)
	for range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, _ := e.do("POST", "/api/v1/connections/stuck/validate", nil, "")
			codes <- code
		}()
	}
	for range holders { // every slot is held by a call the catalog does not answer
		<-arrived
	}
	code, h, body := e.do("GET", "/api/v1/connections/demo/namespaces", nil, "")
	if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, "server.maxCatalogCalls") {
		t.Fatalf("catalog call over the limit: %d %s (Retry-After %q)", code, body, h.Get("Retry-After"))
	}
	if code, _, body := e.do("GET", "/api/v1/tables", nil, ""); code != 200 {
		t.Fatalf("other routes while catalog calls are stuck: %d %s", code, body)
	}
	e.appendAndSync() // and the other tables keep syncing
	once.Do(func() { close(release) })
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusBadGateway {
			t.Fatalf("validate against a catalog that failed: %d, want 502", c)
		}
	}
	return 1 + holders
}

// parallelCreateDelete creates and deletes one table from many clients at
// once: every answer is one a client may get, never a 5xx.
func parallelCreateDelete(t *testing.T, e *servedEnv) int {
	t.Helper()
	const clients = 16
	create := jsonBody(t, map[string]any{"connection": "demo", "namespace": "demo", "table": "events", "name": "race_t",
		"schedule": "0 0 * * * ?"})
	ok := map[string]map[int]bool{
		"POST":   {201: true, 409: true, 429: true},
		"DELETE": {204: true, 404: true, 409: true},
	}
	var wg sync.WaitGroup
	errs := make(chan string, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			method, path, body := "POST", "/api/v1/tables", create
			if i%2 == 1 {
				method, path, body = "DELETE", "/api/v1/tables/race_t", ""
			}
			code, _, out := e.do(method, path, nil, body)
			if !ok[method][code] || code == 409 && !strings.Contains(out, "race_t") {
				errs <- fmt.Sprintf("%s %s: %d %s", method, path, code, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	// Once no run is in flight the table can be removed for good.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _, out := e.do("DELETE", "/api/v1/tables/race_t", nil, "")
		if code == 204 || code == 404 {
			break
		}
		if code != 409 || time.Now().After(deadline) {
			t.Fatalf("final delete: %d %s", code, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, _, out := e.do("GET", "/api/v1/tables/race_t", nil, ""); code != 404 {
		t.Fatalf("race_t after the final delete: %d %s", code, out)
	}
	return clients
}
