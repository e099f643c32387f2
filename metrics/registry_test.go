package metrics_test

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/floehq/floe/metrics"
)

// scrape fetches the registry's /metrics text.
func scrape(t *testing.T, reg *metrics.Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	reg.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func TestRegistry_RunsAndFiles(t *testing.T) {
	reg := metrics.New()
	reg.CountTables(func() int { return 3 })
	reg.RunFinished("orders", metrics.OutcomeCompleted, 2*time.Second, 500)
	reg.RunFinished("orders", metrics.OutcomeNoChange, time.Millisecond, 0)
	reg.RunFinished("orders", metrics.OutcomeFailed, time.Second, 7)
	reg.Phase("build", 1500*time.Millisecond)
	reg.FilesDiscovered("orders", 4)
	reg.Converted("orders", 3, 500, 4096)
	reg.FilesFailed("orders", 1)
	reg.CheckpointFiles("orders", 12)
	reg.SetLag("orders", 2, 90.5)
	reg.LeaseTakeover("orders")
	reg.RunKind("merge")
	reg.FilesChanged(1, 8, 0)
	reg.RowsChanged(1000, 8000)

	want := `
# HELP floe_runs_total Runs by table and outcome (completed, nochange, failed, skipped, abandoned).
# TYPE floe_runs_total counter
floe_runs_total{outcome="completed",table="orders"} 1
floe_runs_total{outcome="failed",table="orders"} 1
floe_runs_total{outcome="nochange",table="orders"} 1
`
	if err := testutil.GatherAndCompare(reg.Gatherer(), strings.NewReader(want), "floe_runs_total"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want float64
	}{
		{"floe_tables", 3}, {"floe_up", 1},
		{`floe_last_run_success{table="orders"}`, 0}, // the failed run came last; nochange does not count
		{`floe_last_run_rows{table="orders"}`, 7},
		{`floe_files_discovered_total{table="orders"}`, 4},
		{`floe_files_converted_total{table="orders"}`, 3},
		{`floe_files_failed_total{table="orders"}`, 1},
		{`floe_rows_converted_total{table="orders"}`, 500},
		{`floe_bytes_converted_total{table="orders"}`, 4096},
		{`floe_checkpoint_files{table="orders"}`, 12},
		{`floe_lag_snapshots{table="orders"}`, 2},
		{`floe_lag_seconds{table="orders"}`, 90.5},
		{`floe_lease_takeovers_total{table="orders"}`, 1},
		{`floe_run_kinds_total{kind="merge"}`, 1},
		{`floe_files_added_total`, 1},
		{`floe_files_rebuilt_total`, 8},
		{`floe_files_removed_total`, 0},
		{`floe_rows_added_total`, 1000},
		{`floe_rows_rebuilt_total`, 8000},
		{`floe_run_duration_seconds_count{phase="total"}`, 2}, // completed + failed, not nochange
		{`floe_run_duration_seconds_sum{phase="total"}`, 3},
		{`floe_run_duration_seconds_count{phase="build"}`, 1},
	} {
		if got := sample(t, scrape(t, reg), c.name); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}

// M3: a deleted table leaves no series behind; other tables keep theirs.
func TestRegistry_ForgetTable(t *testing.T) {
	reg := metrics.New()
	for _, tbl := range []string{"orders", "users"} {
		reg.RunFinished(tbl, metrics.OutcomeCompleted, time.Second, 1)
		reg.Converted(tbl, 1, 1, 1)
		reg.FilesDiscovered(tbl, 1)
		reg.FilesFailed(tbl, 1)
		reg.CheckpointFiles(tbl, 1)
		reg.SetLag(tbl, 1, 1)
		reg.LeaseTakeover(tbl)
	}
	reg.ForgetTable("orders")
	text := scrape(t, reg)
	if strings.Contains(text, `table="orders"`) {
		t.Fatalf("series of the deleted table remain:\n%s", grepLines(text, `table="orders"`))
	}
	if n := strings.Count(text, `table="users"`); n < 12 {
		t.Fatalf("the other table lost series: %d left\n%s", n, grepLines(text, `table="users"`))
	}
}

// M2: the endpoint label is the template the caller gives; errors count
// per endpoint.
func TestRegistry_Calls(t *testing.T) {
	reg := metrics.New()
	reg.ControllerCall("POST /segments/{table}/delete", 20*time.Millisecond, nil)
	reg.ControllerCall("POST /segments/{table}/delete", 30*time.Millisecond, errors.New("500"))
	reg.StoreCall("evalsha commitDelta", time.Millisecond, nil)
	reg.StoreCall("get", time.Millisecond, errors.New("i/o timeout"))
	text := scrape(t, reg)
	for _, c := range []struct {
		name string
		want float64
	}{
		{`floe_pinot_controller_request_duration_seconds_count{endpoint="POST /segments/{table}/delete"}`, 2},
		{`floe_pinot_controller_errors_total{endpoint="POST /segments/{table}/delete"}`, 1},
		{`floe_store_request_duration_seconds_count{op="evalsha commitDelta"}`, 1},
		{`floe_store_errors_total{op="get"}`, 1},
	} {
		if got := sample(t, text, c.name); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}

// The Go runtime and process collectors are registered.
func TestRegistry_RuntimeCollectors(t *testing.T) {
	text := scrape(t, metrics.New())
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "floe_uptime_seconds"} {
		if !strings.Contains(text, "\n"+name+" ") {
			t.Errorf("no %s in:\n%s", name, text)
		}
	}
}

// Registries are independent (no package-level state).
func TestRegistry_Independent(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	a.LeaseTakeover("orders")
	if strings.Contains(scrape(t, b), "floe_lease_takeovers_total{") {
		t.Fatal("a second registry sees the first one's series")
	}
}

// sample returns the value of the series named exactly name (with labels).
func sample(t *testing.T, text, name string) float64 {
	t.Helper()
	v, ok := metrics.Sample(text, name)
	if !ok {
		t.Fatalf("no series %s in:\n%s", name, text)
	}
	return v
}

func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
