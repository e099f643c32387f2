package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/client"
)

const secretToken = "tok-5e1a9c7b3d"

// fakeFloe answers like floe's API from literal JSON; it records the
// requests it got.
type fakeFloe struct {
	t        *testing.T
	mu       sync.Mutex
	requests []*http.Request
	routes   map[string]func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T) (*fakeFloe, *client.Client) {
	t.Helper()
	f := &fakeFloe{t: t, routes: map[string]func(http.ResponseWriter, *http.Request){}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, client.Options{Token: secretToken, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func (f *fakeFloe) handle(pattern string, h func(w http.ResponseWriter, r *http.Request)) {
	f.routes[pattern] = h
}

func (f *fakeFloe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(r.Context()))
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+secretToken {
		http.Error(w, `{"error":"authentication required: send Authorization: Bearer <token>"}`, http.StatusUnauthorized)
		return
	}
	h, ok := f.routes[r.Method+" "+r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":"table %s: not found"}`, strings.TrimPrefix(r.URL.Path, "/api/v1/tables/"))
		return
	}
	h(w, r)
}

func (f *fakeFloe) last() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

func tableJSON(name, state string, rows int64) string {
	return fmt.Sprintf(`{"name":%q,"source":"sales.%s","connection":"lake","status":{"table":%q,"state":"IDLE"},`+
		`"state":%q,"rows":%d}`, name, name, name, state, rows)
}

// A paging floe: every page is fetched, the filters go to the server.
func TestClient_AllTables_Paged(t *testing.T) {
	f, c := newFake(t)
	f.handle("GET /api/v1/tables", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		names := map[int][]string{1: {"a", "b"}, 2: {"c", "d"}, 3: {"e"}}[page]
		var ts []string
		for _, n := range names {
			ts = append(ts, tableJSON(n, "FAILED", 1))
		}
		fmt.Fprintf(w, `{"tables":[%s],"page":%d,"pageSize":2,"total":5,"pages":3}`, strings.Join(ts, ","), page)
	})
	all, err := c.AllTables(t.Context(), client.ListOptions{PageSize: 2, States: []string{"FAILED", "IDLE"}, Q: "x y", Sort: "-rows"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tb := range all {
		got = append(got, tb.Name)
	}
	if strings.Join(got, ",") != "a,b,c,d,e" {
		t.Fatalf("tables %v, want a..e from 3 pages", got)
	}
	q := f.last().URL.Query()
	if q.Get("page") != "3" || q.Get("pageSize") != "2" || q.Get("state") != "FAILED,IDLE" || q.Get("q") != "x y" || q.Get("sort") != "-rows" {
		t.Fatalf("last query %v", q)
	}
}

// A floe that does not page answers every table: one page, filtered and
// sorted by the client (K3).
func TestClient_ListTables_Unpaged(t *testing.T) {
	f, c := newFake(t)
	f.handle("GET /api/v1/tables", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"tables":[`+
			`{"name":"orders","source":"sales.orders","connection":"lake","status":{"state":"PAUSED"},"checkpoint":{"rows":10}},`+
			`{"name":"events","source":"web.events","connection":"lake","status":{"state":"IDLE"},"lastRun":{"id":"r1","status":"FAILED","error":"read x.parquet: EOF\nmore"}},`+
			`{"name":"clicks","source":"web.clicks","connection":"SALES-conn","status":{"state":"ERROR","error":"catalog down"},"checkpoint":{"rows":99}},`+
			`{"name":"users","source":"crm.users","connection":"crm","status":{"state":"IDLE"},"checkpoint":{"rows":5}}]}`)
	})
	cases := []struct {
		name string
		opts client.ListOptions
		want string
	}{
		{"all by name", client.ListOptions{}, "clicks,events,orders,users"},
		{"failed", client.ListOptions{States: []string{"FAILED"}}, "clicks,events"},
		{"paused or idle", client.ListOptions{States: []string{"paused", "IDLE"}}, "orders,users"},
		{"q in source or connection", client.ListOptions{Q: "sales"}, "clicks,orders"},
		{"rows descending", client.ListOptions{Sort: "-rows"}, "clicks,orders,users,events"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := c.ListTables(t.Context(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tb := range p.Tables {
				got = append(got, tb.Name)
			}
			if strings.Join(got, ",") != tc.want || p.Pages != 1 || p.Total != len(got) {
				t.Fatalf("got %v (pages %d, total %d), want %s", got, p.Pages, p.Total, tc.want)
			}
		})
	}
	p, _ := c.ListTables(t.Context(), client.ListOptions{Q: "events"})
	if e := p.Tables[0].ErrorLine(); e != "read x.parquet: EOF" {
		t.Fatalf("error line %q, want the failed run's first line", e)
	}
	if _, err := c.ListTables(t.Context(), client.ListOptions{Sort: "size"}); err == nil || !strings.Contains(err.Error(), `"size"`) {
		t.Fatalf("bad sort: %v", err)
	}
}

// Errors carry the status and the API's message, match their category,
// and never hold the token (K1, K2).
func TestClient_Errors(t *testing.T) {
	f, c := newFake(t)
	f.handle("POST /api/v1/tables/busy/trigger", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusConflict)
		fmt.Fprint(w, `{"error":"trigger busy: a run is already in progress (run r7)"}`)
	})
	_, err := c.Table(t.Context(), "gone")
	if !errors.Is(err, client.ErrNotFound) || client.StatusOf(err) != 404 || client.MessageOf(err) != "table gone: not found" {
		t.Fatalf("404: %v", err)
	}
	_, err = c.Trigger(t.Context(), "busy")
	if !errors.Is(err, client.ErrConflict) || !strings.Contains(err.Error(), "run r7") || !strings.Contains(err.Error(), "HTTP 409") {
		t.Fatalf("409: %v", err)
	}
	anon, _ := client.New(strings.TrimPrefix(c.Addr(), "http://"), client.Options{})
	_, err = anon.Runs(t.Context(), "x", 1)
	if !errors.Is(err, client.ErrUnauthorized) || !strings.Contains(err.Error(), "authentication required") {
		t.Fatalf("401: %v", err)
	}
	for _, s := range []string{err.Error(), c.String(), fmt.Sprint(c)} {
		if strings.Contains(s, secretToken) {
			t.Fatalf("token leaked: %s", s)
		}
	}
	if _, err := client.New("ftp://x", client.Options{}); err == nil {
		t.Fatal("ftp address accepted")
	}
	dead, _ := client.New("http://user:hunter2@127.0.0.1:1", client.Options{Token: secretToken})
	_, err = dead.Status(t.Context(), "x")
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), secretToken) {
		t.Fatalf("unreachable: %v", err)
	}
}

// Writes are POSTs with a JSON content type (floe's guard wants one) and
// decode the answers.
func TestClient_Writes(t *testing.T) {
	f, c := newFake(t)
	f.handle("POST /api/v1/tables/t 1/trigger", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, `{"runId":"run-1"}`)
	})
	f.handle("POST /api/v1/tables/t 1/pause", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"name":"t 1","revision":4,"taskConfig":{"schedule.paused":"@hourly"}}`)
	})
	id, err := c.Trigger(t.Context(), "t 1")
	if err != nil || id != "run-1" {
		t.Fatalf("trigger: %q %v", id, err)
	}
	if r := f.last(); r.Header.Get("Content-Type") != "application/json" || r.URL.EscapedPath() != "/api/v1/tables/t%201/trigger" {
		t.Fatalf("trigger request: %s %v", r.URL.EscapedPath(), r.Header)
	}
	rec, err := c.Pause(t.Context(), "t 1")
	if err != nil || rec.Revision != 4 || rec.TaskConfig["schedule.paused"] != "@hourly" {
		t.Fatalf("pause: %+v %v", rec, err)
	}
}

// WaitRun reports progress while the run runs and returns its history
// entry once it ended; a run that leaves no entry ends as not found.
func TestClient_WaitRun(t *testing.T) {
	f, c := newFake(t)
	var mu sync.Mutex
	polls := 0
	f.handle("GET /api/v1/tables/t/status", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		polls++
		if polls <= 2 {
			fmt.Fprintf(w, `{"table":"t","state":"RUNNING","runningRunId":"r2","progress":{"filesDone":%d,"filesTotal":4,"rows":%d}}`, polls, polls*10)
			return
		}
		fmt.Fprint(w, `{"table":"t","state":"IDLE"}`)
	})
	f.handle("GET /api/v1/tables/t/runs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"runs":[{"id":"r2","table":"t","status":"FAILED","error":"boom"},{"id":"r1","status":"COMPLETED"}]}`)
	})
	var seen []client.Progress
	run, found, err := c.WaitRun(t.Context(), "t", "r2", client.WaitOptions{Every: time.Millisecond,
		OnStatus: func(s client.Status) { seen = append(seen, *s.Progress) }})
	if err != nil || !found || run.Status != client.RunFailed || !run.Failed() || run.Error != "boom" {
		t.Fatalf("run %+v found %v: %v", run, found, err)
	}
	if len(seen) != 2 || seen[1].FilesDone != 2 || seen[1].Rows != 20 {
		t.Fatalf("progress seen %+v", seen)
	}
	run, found, err = c.WaitRun(t.Context(), "t", "r9", client.WaitOptions{Every: time.Millisecond})
	if err != nil || found || run.ID != "r9" {
		t.Fatalf("absent run: %+v %v %v", run, found, err)
	}
	if _, _, err := c.WaitRun(t.Context(), "gone", "r1", client.WaitOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("wait on a missing table: %v", err)
	}
}

// The model's fallbacks derive the overview from a floe that sends none.
func TestTable_Overview(t *testing.T) {
	cases := []struct {
		json, want string
	}{
		{`{"state":"BACKFILLING","status":{"state":"RUNNING"}}`, "BACKFILLING"},
		{`{"status":{"state":"ERROR"}}`, "FAILED"},
		{`{"status":{"state":"IDLE"},"lastRun":{"status":"ABANDONED"}}`, "FAILED"},
		{`{"status":{"state":"PAUSED"},"lastRun":{"status":"FAILED"}}`, "PAUSED"},
		{`{"status":{"state":"IDLE"},"lastRun":{"status":"COMPLETED"}}`, "IDLE"},
	}
	var tb client.Table
	in := `{"name":"t","schema":{"schemaName":"t","dimensionFieldSpecs":[]},"lastRun":{"id":"r","log":[{"at":"2026-01-02T03:04:05Z","level":"ERROR","msg":"convert failed","attrs":{"file":"a.parquet"}}]}}`
	if err := json.Unmarshal([]byte(in), &tb); err != nil {
		t.Fatal(err)
	}
	back, _ := json.Marshal(tb)
	if !strings.Contains(string(back), `"schema":{"schemaName":"t","dimensionFieldSpecs":[]}`) ||
		!strings.Contains(string(back), `"attrs":{"file":"a.parquet"}`) {
		t.Errorf("a table's Pinot schema and run log must survive a round trip: %s", back)
	}
	for _, tc := range cases {
		var tb client.Table
		if err := json.Unmarshal([]byte(tc.json), &tb); err != nil {
			t.Fatal(err)
		}
		if got := tb.Overview(); got != tc.want {
			t.Errorf("%s: overview %s, want %s", tc.json, got, tc.want)
		}
	}
}
