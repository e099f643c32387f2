//go:build integration

package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/metrics"
	"github.com/floehq/floe/watcher"
)

// BenchmarkServer_Metrics1000Tables times GET /metrics of a server with
// 1,000 tables registered on a real Redis, every table carrying the series
// its runs leave (outcomes, phases, files, rows, bytes, lag, last run,
// checkpoint files; a takeover and failed files on some), the store's own
// call series and the Go runtime and process collectors. Scrapes go over
// loopback HTTP through the API's access checks, one after the other.
// scripts/bench-metrics.sh writes the result into docs/benchmarks.md.
func BenchmarkServer_Metrics1000Tables(b *testing.B) {
	const tables = 1000
	ctx := context.Background()
	store, err := checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: testpeer.StartRedis(b), Prefix: "floebench:"})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	reg := metrics.New()
	store.Observe(reg)
	var m watcher.Metrics = reg
	for i := range tables {
		name := fmt.Sprintf("table_%04d", i)
		if err := store.CreateTable(ctx, checkpoint.Table{Name: name, Connection: "lake", Namespace: "sales", Source: name,
			TaskConfig: map[string]string{"schedule": "0 */5 * * * ?"}}); err != nil {
			b.Fatal(err)
		}
		fillTableSeries(m, name, i)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}, Metrics: reg},
		watcher.Options{Owner: "bench", LeaseTTL: time.Minute, WorkDir: b.TempDir()})
	if err := w.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	reg.CountTables(w.TableCount)
	for _, ep := range []string{"GET /segments/{table}", "POST /v2/segments", "POST /segments/{table}/startReplaceSegments",
		"POST /segments/{table}/endReplaceSegments", "GET /segments/{table}/lineage", "POST /schemas", "POST /tables"} {
		reg.ControllerCall(ep, 20*time.Millisecond, nil)
	}
	srv := httptest.NewServer(api.New(store, w, nil, nil, "bench", api.Options{Metrics: reg.Handler()}).Handler())
	defer srv.Close()

	var took []time.Duration
	var size int
	var text string
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		resp, err := http.Get(srv.URL + "/metrics") // gzip, as Prometheus asks
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(start))
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("scrape: %d %v", resp.StatusCode, err)
		}
		size, text = len(body), string(body)
	}
	b.StopTimer()
	if v, ok := metrics.Sample(text, "floe_tables"); !ok || v != tables {
		b.Fatalf("floe_tables = %v, want %d", v, tables)
	}
	slices.Sort(took)
	at := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(tables, "tables")
	b.ReportMetric(float64(seriesCount(text)), "series")
	b.ReportMetric(float64(size)/1024, "KiB")
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// fillTableSeries reports what a table's runs leave behind.
func fillTableSeries(m watcher.Metrics, name string, i int) {
	m.RunFinished(name, metrics.OutcomeCompleted, 3*time.Second, 100_000)
	m.RunFinished(name, metrics.OutcomeNoChange, 20*time.Millisecond, 0)
	m.FilesDiscovered(name, 10)
	m.Converted(name, 10, 100_000, 64<<20)
	m.CheckpointFiles(name, 40)
	m.RunKind("append")
	m.FilesChanged(10, 0, 0)
	m.RowsChanged(100_000, 0)
	m.SetLag(name, i%3, float64(i%300))
	for _, p := range []string{"plan", "build", "push", "commit"} {
		m.Phase(p, time.Duration(i)*time.Millisecond)
	}
	if i%10 == 0 {
		m.RunFinished(name, metrics.OutcomeFailed, time.Second, 0)
		m.FilesFailed(name, 1)
		m.LeaseTakeover(name)
	}
}

// seriesCount counts the sample lines of a scrape.
func seriesCount(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}
