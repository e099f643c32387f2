package pinot_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

// DropTable sends the controller DELETE /tables/{t}?type=offline, then
// DELETE /schemas/{t} only when asked; a 404 (already gone) is success,
// any other failure is reported with the table; the guard is asked first.
func TestController_DropTable(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	gone := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		call := r.Method + " " + r.URL.Path
		if r.URL.RawQuery != "" {
			call += "?" + r.URL.RawQuery
		}
		calls = append(calls, call)
		switch {
		case strings.HasPrefix(r.URL.Path, "/tables/broken"):
			http.Error(w, `{"code":500,"error":"zk down"}`, http.StatusInternalServerError)
		case gone[r.URL.Path]:
			http.Error(w, `{"code":404,"error":"not found"}`, http.StatusNotFound)
		default:
			gone[r.URL.Path] = true
			_, _ = w.Write([]byte(`{"status":"deleted"}`))
		}
	}))
	defer srv.Close()
	ctl, err := pinot.NewController(srv.URL, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctl.Retry.Attempts = 1
	ctx := context.Background()
	if err := ctl.DropTable(ctx, "orders", false); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	if err := ctl.DropTable(ctx, "orders", true); err != nil {
		t.Fatalf("DropTable again, schema too: %v", err)
	}
	want := []string{"DELETE /tables/orders?type=offline", "DELETE /tables/orders?type=offline", "DELETE /schemas/orders"}
	if strings.Join(calls, "; ") != strings.Join(want, "; ") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	if err := ctl.DropTable(ctx, "broken", false); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("DropTable of a failing table: %v, want an error naming it", err)
	}
	errRefused := errors.New("lease lost")
	calls = nil
	guarded := pinot.WithGuard(ctx, func(context.Context, pinot.Write) error { return errRefused })
	if err := ctl.DropTable(guarded, "users", true); !errors.Is(err, errRefused) || len(calls) != 0 {
		t.Fatalf("guarded DropTable: %v after %v, want the guard's error and no request", err, calls)
	}
}

// LocalDir.DropTable removes the table's directory whole; dropping a
// missing table succeeds.
func TestLocalDir_DropTable(t *testing.T) {
	root := t.TempDir()
	d := pinot.NewLocalDir(root)
	ctx := context.Background()
	for _, name := range []string{"orders", "users"} {
		if err := d.EnsureTable(ctx, &spec.Schema{Name: name}, &spec.TableConfig{TableName: name}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.DropTable(ctx, "orders", false); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	if _, err := d.ListSegments(ctx, "orders"); !errors.Is(err, pinot.ErrTableMissing) {
		t.Fatalf("ListSegments after DropTable: %v, want ErrTableMissing", err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "users" {
		t.Fatalf("sink holds %v after dropping orders, want only users", entries)
	}
	if _, err := os.Stat(filepath.Join(root, "users", "schema.json")); err != nil {
		t.Fatalf("the other table was touched: %v", err)
	}
	if err := d.DropTable(ctx, "orders", true); err != nil {
		t.Fatalf("DropTable of a missing table: %v", err)
	}
}
