package pinot_test

import (
	"context"
	"errors"
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
)

// fakeController speaks the controller protocol with literal strings and
// records the calls it gets, in order.
type fakeController struct {
	mu         sync.Mutex
	calls      []string
	failUpload bool
}

func (f *fakeController) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeController) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == "POST" && r.URL.Path == "/v2/segments":
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, `{"code":400,"error":"Invalid multi-part form"}`, 400)
			return
		}
		parts := 0
		var name string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			parts++
			name = p.FormName()
			b, _ := io.ReadAll(p)
			if len(b) == 0 {
				http.Error(w, "empty part", 400)
				return
			}
		}
		f.record("upload " + name + " parts=" + strconv.Itoa(parts) + " table=" + r.URL.Query().Get("tableName"))
		if f.failUpload {
			http.Error(w, `{"code":500,"error":"boom"}`, 500)
			return
		}
		io.WriteString(w, `{"status":"Successfully uploaded segment"}`)
	case strings.HasSuffix(r.URL.Path, "/startReplaceSegments"):
		b, _ := io.ReadAll(r.Body)
		f.record("start " + string(b))
		io.WriteString(w, `{"segmentLineageEntryId":"abc-123"}`)
	case strings.HasSuffix(r.URL.Path, "/endReplaceSegments"):
		f.record("end " + r.URL.Query().Get("segmentLineageEntryId"))
	case strings.HasSuffix(r.URL.Path, "/revertReplaceSegments"):
		f.record("revert " + r.URL.Query().Get("segmentLineageEntryId"))
	case r.Method == "POST" && r.URL.Path == "/schemas":
		f.record("schema override=" + r.URL.Query().Get("override"))
	case r.Method == "GET" && r.URL.Path == "/tables/old":
		io.WriteString(w, `{}`) // how Pinot 0.x answers for a missing table
	case r.Method == "GET" && r.URL.Path == "/tables/there":
		io.WriteString(w, `{"OFFLINE":{"tableName":"there_OFFLINE"}}`)
	case r.Method == "GET" && r.URL.Path == "/tables/new":
		http.Error(w, `{"code":404,"error":"Table new not found"}`, 404)
	case r.Method == "POST" && r.URL.Path == "/tables":
		f.record("create table skip=" + r.URL.Query().Get("validationTypesToSkip"))
	case r.Method == "GET" && r.URL.Path == "/segments/t":
		io.WriteString(w, `[{"OFFLINE":["s1","s2"]}]`)
	case r.Method == "GET" && r.URL.Path == "/segments/missing":
		http.Error(w, `{"code":404,"error":"Table missing not found"}`, 404)
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, 400)
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

func newController(t *testing.T, f *fakeController) *pinot.Controller {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := pinot.NewController(srv.URL, 5*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestController_ReplaceUsesLineage(t *testing.T) {
	f := &fakeController{}
	c := newController(t, f)
	err := c.Replace(context.Background(), "t", []string{"old"}, []pinot.Segment{tarFile(t, "new1"), tarFile(t, "new2")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`start {"segmentsFrom":["old"],"segmentsTo":["new1","new2"]}`,
		"upload new1 parts=1 table=t",
		"upload new2 parts=1 table=t",
		"end abc-123",
	}
	if strings.Join(f.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(f.calls, "\n"), strings.Join(want, "\n"))
	}
}

func TestController_ReplaceRevertsOnUploadFailure(t *testing.T) {
	f := &fakeController{failUpload: true}
	c := newController(t, f)
	err := c.Replace(context.Background(), "t", []string{"old"}, []pinot.Segment{tarFile(t, "new1")})
	var api *pinot.APIError
	if !errors.As(err, &api) || api.Status != 500 {
		t.Fatalf("want APIError 500, got %v", err)
	}
	if last := f.calls[len(f.calls)-1]; last != "revert abc-123" {
		t.Fatalf("last call %q, want revert", last)
	}
}

func TestController_PureAdditionUploadsDirectly(t *testing.T) {
	f := &fakeController{}
	c := newController(t, f)
	if err := c.Replace(context.Background(), "t", nil, []pinot.Segment{tarFile(t, "a")}); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 1 || f.calls[0] != "upload a parts=1 table=t" {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestController_ListSegments(t *testing.T) {
	c := newController(t, &fakeController{})
	got, err := c.ListSegments(context.Background(), "t")
	if err != nil || strings.Join(got, ",") != "s1,s2" {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = c.ListSegments(context.Background(), "missing")
	if !errors.Is(err, pinot.ErrTableMissing) {
		t.Fatalf("want ErrTableMissing, got %v", err)
	}
}

func TestLocalDir_ReplaceSwapsManifest(t *testing.T) {
	ctx := context.Background()
	d := pinot.NewLocalDir(t.TempDir())
	s := &pinot.Schema{Name: "t"}
	if err := d.EnsureTable(ctx, s, &pinot.TableConfig{TableName: "t", TableType: "OFFLINE"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Replace(ctx, "t", nil, []pinot.Segment{tarFile(t, "a"), tarFile(t, "b")}); err != nil {
		t.Fatal(err)
	}
	if err := d.Replace(ctx, "t", []string{"a"}, []pinot.Segment{tarFile(t, "c")}); err != nil {
		t.Fatal(err)
	}
	got, err := d.ListSegments(ctx, "t")
	if err != nil || strings.Join(got, ",") != "b,c" {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := d.ListSegments(ctx, "nope"); !errors.Is(err, pinot.ErrTableMissing) {
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
			f := &fakeController{}
			c := newController(t, f)
			err := c.EnsureTable(context.Background(), &pinot.Schema{Name: name}, &pinot.TableConfig{TableName: name})
			if err != nil || strings.Join(f.calls, "\n") != want {
				t.Fatalf("calls %q, err %v; want %q", f.calls, err, want)
			}
		})
	}
}
