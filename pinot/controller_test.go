package pinot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

// fakeController speaks the controller protocol with literal strings,
// keeps a segment lineage, records the calls it gets in order, and can
// fail the next calls of a kind (see failNext).
type fakeController struct {
	mu       sync.Mutex
	calls    []string
	lineage  map[string]map[string]any // id → {"segmentsFrom", "segmentsTo", "state"}
	failures map[string][]string       // call kind → queued failure modes
	// applyBeforeFail: a failing end still completes the entry (the
	// answer is what gets lost).
	applyBeforeFail bool
	echoHeader      string // a header whose value every error body echoes
	metaTar         []byte // the part of the last metadata push
	header          http.Header
	// deleted segments stay listed for lag more list calls (the controller
	// drops them from its list once the servers unloaded them).
	lag      int
	lingered []string
}

func newFake() *fakeController {
	return &fakeController{lineage: map[string]map[string]any{}, failures: map[string][]string{}}
}

// failNext queues failure modes for the next calls of kind ("upload",
// "start", "end", ...): "500", "503", "400", "409", "reset", "slow".
func (f *fakeController) failNext(kind string, modes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[kind] = append(f.failures[kind], modes...)
}

func (f *fakeController) record(s string) {
	f.calls = append(f.calls, s)
}

func (f *fakeController) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// count returns how many recorded calls start with prefix.
func (f *fakeController) count(prefix string) int {
	n := 0
	for _, c := range f.callLog() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// fail answers with the next queued failure of kind and reports whether
// it did.
func (f *fakeController) fail(kind string, w http.ResponseWriter) bool {
	modes := f.failures[kind]
	if len(modes) == 0 {
		return false
	}
	mode := modes[0]
	f.failures[kind] = modes[1:]
	switch mode {
	case "reset":
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	case "reject":
		http.Error(w, `{"code":500,"error":"Segment: x from 'segmentsFrom' does not exist in table: t_OFFLINE"}`, 500)
	case "slow":
		f.mu.Unlock()
		time.Sleep(300 * time.Millisecond) // beyond the client's 100ms timeout
		f.mu.Lock()
		io.WriteString(w, `{}`)
	default:
		code, _ := strconv.Atoi(mode)
		body := fmt.Sprintf(`{"code":%d,"error":"injected"}`, code)
		if f.echoHeader != "" {
			body = fmt.Sprintf(`{"code":%d,"error":"bad request with %s: %s"}`, code, f.echoHeader, f.header.Get(f.echoHeader))
		}
		http.Error(w, body, code)
	}
	return true
}

func (f *fakeController) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.header = r.Header
	q := r.URL.Query()
	switch {
	case r.Method == "POST" && r.URL.Path == "/v2/segments":
		name, parts, data, err := readUpload(r)
		if err != nil {
			http.Error(w, `{"code":400,"error":"Invalid multi-part form"}`, 400)
			return
		}
		call := "upload " + name + " parts=" + strconv.Itoa(parts) + " table=" + q.Get("tableName")
		if t := r.Header.Get("UPLOAD_TYPE"); t != "" {
			call += " type=" + t + " uri=" + r.Header.Get("DOWNLOAD_URI")
			f.metaTar = data
		}
		f.record(call)
		if f.fail("upload", w) {
			return
		}
		io.WriteString(w, `{"status":"Successfully uploaded segment"}`)
	case strings.HasSuffix(r.URL.Path, "/startReplaceSegments"):
		var req struct{ SegmentsFrom, SegmentsTo []string }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		f.record("start " + string(b) + " forceCleanup=" + q.Get("forceCleanup"))
		if f.fail("start", w) {
			return
		}
		id := "id-" + strconv.Itoa(len(f.lineage)+1)
		f.lineage[id] = map[string]any{"segmentsFrom": req.SegmentsFrom, "segmentsTo": req.SegmentsTo, "state": "IN_PROGRESS", "timestamp": 1}
		fmt.Fprintf(w, `{"segmentLineageEntryId":%q}`, id)
	case strings.HasSuffix(r.URL.Path, "/endReplaceSegments"):
		id := q.Get("segmentLineageEntryId")
		f.record("end " + id)
		if f.applyBeforeFail && f.lineage[id] != nil {
			f.lineage[id]["state"] = "COMPLETED"
		}
		if f.fail("end", w) {
			return
		}
		if f.lineage[id] == nil || f.lineage[id]["state"] == "REVERTED" {
			http.Error(w, `{"code":500,"error":"Failed to update the segment lineage during endReplaceSegments"}`, 500)
			return
		}
		f.lineage[id]["state"] = "COMPLETED"
	case strings.HasSuffix(r.URL.Path, "/revertReplaceSegments"):
		id := q.Get("segmentLineageEntryId")
		f.record("revert " + id + " force=" + q.Get("forceRevert"))
		if f.fail("revert", w) {
			return
		}
		f.lineage[id]["state"] = "REVERTED"
	case r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/lineage"):
		f.record("lineage")
		if f.fail("lineage", w) {
			return
		}
		if len(f.lineage) == 0 {
			return // Pinot answers 200 with no body for a table without lineage
		}
		json.NewEncoder(w).Encode(map[string]any{"tableNameWithType": "t_OFFLINE", "lineageEntries": f.lineage})
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/delete"):
		b, _ := io.ReadAll(r.Body)
		f.record("delete " + string(b) + " retention=" + q.Get("retention"))
		if f.fail("delete", w) {
			return
		}
		json.Unmarshal(b, &f.lingered)
		io.WriteString(w, `{"status":"Deleted segments"}`)
	case r.Method == "POST" && r.URL.Path == "/schemas":
		f.record("schema override=" + q.Get("override"))
		f.fail("schema", w)
	case r.Method == "GET" && r.URL.Path == "/tables/old":
		io.WriteString(w, `{}`) // how Pinot 0.x answers for a missing table
	case r.Method == "GET" && r.URL.Path == "/tables/there":
		io.WriteString(w, `{"OFFLINE":{"tableName":"there_OFFLINE"}}`)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/tables/"):
		http.Error(w, `{"code":404,"error":"Table not found"}`, 404)
	case r.Method == "POST" && r.URL.Path == "/tables":
		f.record("create table skip=" + q.Get("validationTypesToSkip"))
		f.fail("table", w)
	case r.Method == "GET" && r.URL.Path == "/segments/missing":
		http.Error(w, `{"code":404,"error":"Table missing not found"}`, 404)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/segments/t/") && strings.HasSuffix(r.URL.Path, "/metadata"):
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/segments/t/"), "/metadata")
		f.record("metadata " + name + " type=" + q.Get("type"))
		if f.fail("metadata", w) {
			return
		}
		// Segment ZK metadata as the controller answers it: every value a
		// string, the custom map as JSON text.
		fmt.Fprintf(w, `{"segment.crc":"2018915346","segment.total.docs":"40","segment.index.version":"v3",`+
			`"custom.map":"{\"floe.sourceFile\":\"s3://lake/%s.parquet\"}","segment.push.time":"1700000000000"}`, name)
	case r.Method == "GET" && strings.Count(r.URL.Path, "/") == 2 && strings.HasPrefix(r.URL.Path, "/segments/"):
		f.record("list")
		if f.fail("list", w) {
			return
		}
		listed := []string{"s1", "s2"}
		if f.lag > 0 {
			f.lag--
			listed = append(listed, f.lingered...)
		}
		json.NewEncoder(w).Encode([]map[string][]string{{"OFFLINE": listed}})
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, 400)
	}
}

// readUpload reads a multipart upload: the last part's name and bytes and
// the number of parts.
func readUpload(r *http.Request) (name string, parts int, data []byte, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", 0, nil, err
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return name, parts, data, nil
		}
		if err != nil {
			return "", 0, nil, err
		}
		parts++
		name = p.FormName()
		if data, _ = io.ReadAll(p); len(data) == 0 {
			return "", 0, nil, errors.New("empty part")
		}
	}
}

func tarFile(t *testing.T, name string) pinot.Segment {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".tar.gz")
	if err := os.WriteFile(p, []byte("segment bytes "+name), 0o644); err != nil {
		t.Fatal(err)
	}
	return pinot.Segment{Name: name, TarPath: p}
}

// fastRetry retries quickly so that tests do not wait.
var fastRetry = pinot.RetryPolicy{Attempts: 4, InitialBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxElapsed: 10 * time.Second}

func newController(t *testing.T, f *fakeController, headers map[string]string) *pinot.Controller {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := pinot.NewController(srv.URL, 100*time.Millisecond, headers)
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = fastRetry
	return c
}

func wantCalls(t *testing.T, f *fakeController, want ...string) {
	t.Helper()
	if got := f.callLog(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A start asks the controller for its cleanup only when an open entry
// overlaps it (taking that one over); after a revert over the same From
// it does not (Pinot 0.11 never answers that), and a retry reads the
// lineage again.
func TestController_StartReplaceCleansUpOnlyOverOpenEntries(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	c := newController(t, f, nil)
	if _, err := c.StartReplace(ctx, "t", []string{"old"}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartReplace(ctx, "t", []string{"old"}, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.lineage["id-1"]["state"] = "REVERTED" // as the controller's cleanup left it
	f.lineage["id-2"]["state"] = "REVERTED" // as a run's revert leaves it
	f.mu.Unlock()
	f.failNext("start", "503")
	if _, err := c.StartReplace(ctx, "t", []string{"old"}, []string{"c"}); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, f,
		"lineage", `start {"segmentsFrom":["old"],"segmentsTo":["a"]} forceCleanup=false`,
		"lineage", `start {"segmentsFrom":["old"],"segmentsTo":["b"]} forceCleanup=true`,
		"lineage", `start {"segmentsFrom":["old"],"segmentsTo":["c"]} forceCleanup=false`,
		"lineage", `start {"segmentsFrom":["old"],"segmentsTo":["c"]} forceCleanup=false`)
}

func TestReplace_Controller(t *testing.T) {
	ctx := context.Background()
	t.Run("swap through lineage", func(t *testing.T) {
		f := newFake()
		c := newController(t, f, nil)
		if err := pinot.Replace(ctx, c, "t", []string{"old"}, []pinot.Segment{tarFile(t, "new1"), tarFile(t, "new2")}); err != nil {
			t.Fatal(err)
		}
		wantCalls(t, f, "lineage", `start {"segmentsFrom":["old"],"segmentsTo":["new1","new2"]} forceCleanup=false`,
			"upload new1 parts=1 table=t", "upload new2 parts=1 table=t", "end id-1")
	})
	t.Run("pure addition uploads directly", func(t *testing.T) {
		f := newFake()
		if err := pinot.Replace(ctx, newController(t, f, nil), "t", nil, []pinot.Segment{tarFile(t, "a")}); err != nil {
			t.Fatal(err)
		}
		wantCalls(t, f, "upload a parts=1 table=t")
	})
	t.Run("pure removal deletes by name", func(t *testing.T) {
		f := newFake()
		if err := pinot.Replace(ctx, newController(t, f, nil), "t", []string{"a", "b"}, nil); err != nil {
			t.Fatal(err)
		}
		wantCalls(t, f, `delete ["a","b"] retention=0d`, "list")
	})
	t.Run("failed upload leaves the replacement open", func(t *testing.T) {
		f := newFake()
		f.failNext("upload", "400")
		err := pinot.Replace(ctx, newController(t, f, nil), "t", []string{"old"}, []pinot.Segment{tarFile(t, "new1")})
		var api *pinot.APIError
		if !errors.As(err, &api) || api.Status != 400 || !strings.Contains(err.Error(), "id-1 left open") {
			t.Fatalf("want APIError 400 naming the open replacement, got %v", err)
		}
		if n := f.count("revert"); n != 0 {
			t.Fatalf("%d reverts: a reverted replacement would poison its segment names", n)
		}
	})
}

func TestController_ListSegments(t *testing.T) {
	c := newController(t, newFake(), nil)
	got, err := c.ListSegments(context.Background(), "t")
	if err != nil || strings.Join(got, ",") != "s1,s2" {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = c.ListSegments(context.Background(), "missing")
	if !errors.Is(err, pinot.ErrTableMissing) {
		t.Fatalf("want ErrTableMissing, got %v", err)
	}
}

func TestController_EnsureTable(t *testing.T) {
	for name, want := range map[string]string{
		"old":   "schema override=true\ncreate table skip=TASK",
		"new":   "schema override=true\ncreate table skip=TASK",
		"there": "schema override=true",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake()
			c := newController(t, f, nil)
			err := c.EnsureTable(context.Background(), &spec.Schema{Name: name}, &spec.TableConfig{TableName: name})
			if err != nil || strings.Join(f.callLog(), "\n") != want {
				t.Fatalf("calls %q, err %v; want %q", f.callLog(), err, want)
			}
		})
	}
	t.Run("table created by a lost attempt", func(t *testing.T) {
		f := newFake()
		f.failNext("table", "503", "409") // the first create worked, its answer was lost
		c := newController(t, f, nil)
		if err := c.EnsureTable(context.Background(), &spec.Schema{Name: "new"}, &spec.TableConfig{TableName: "new"}); err != nil {
			t.Fatalf("409 after a retried create must mean the table exists: %v", err)
		}
	})
}

// DELETE /segments/{table} deletes every segment of the table whatever
// segments it names (Pinot 0.11 and 1.x), so deletes go by POST.
func TestController_DeleteSegmentsPostsNames(t *testing.T) {
	f := newFake()
	c := newController(t, f, nil)
	if err := c.DeleteSegments(context.Background(), "t", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSegments(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, f, `delete ["x"] retention=0d`, "list")

	// The controller lists a deleted segment until the servers unloaded it.
	f = newFake()
	f.lag = 2
	if err := newController(t, f, nil).DeleteSegments(context.Background(), "t", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, f, `delete ["x"] retention=0d`, "list", "list", "list")
}
