package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/metrics"
)

// scrapeMetrics reads the /metrics text of the floe at addr.
func scrapeMetrics(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// A running floe serves the Go runtime and process metrics, and the run
// metrics once a sync happened: outcomes, phases, rows, store calls; the
// run's record carries its log.
func TestServe_Metrics(t *testing.T) {
	addr, _ := startDemo(t, time.Hour)
	first := waitSnapshot(t, addr, 0)
	want := map[string]float64{ // at least
		`floe_up`:     1,
		`floe_tables`: 1,
		`floe_runs_total{outcome="completed",table="` + demoTable + `"}`:               1,
		`floe_run_duration_seconds_count{phase="plan"}`:                                1,
		`floe_run_duration_seconds_count{phase="build"}`:                               1,
		`floe_run_duration_seconds_count{phase="commit"}`:                              1,
		`floe_run_duration_seconds_count{phase="total"}`:                               1,
		`floe_rows_converted_total{table="` + demoTable + `"}`:                         200,
		`floe_files_converted_total{table="` + demoTable + `"}`:                        1,
		`floe_files_added_total`:                                                       1,
		`floe_rows_added_total`:                                                        200,
		`floe_run_kinds_total{kind="append"}`:                                          1,
		`floe_last_run_success{table="` + demoTable + `"}`:                             1,
		`floe_store_request_duration_seconds_count{op="bolt commit checkpoint delta"}`: 1,
		`go_goroutines`:             1,
		`process_cpu_seconds_total`: 0,
	}
	var text string
	deadline := time.Now().Add(30 * time.Second) // the run's metrics land just after its record
	for {
		text = scrapeMetrics(t, addr)
		missing := missingSamples(text, want)
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a sync, /metrics lacks %v:\n%s", missing, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(text, "floe.db") || strings.Contains(text, `op="bolt get checkpoint of`) {
		t.Fatalf("a store label names a path or table:\n%s", text)
	}
	run := runOf(t, addr, first.Checkpoint.SnapshotID)
	if !hasRunLine(run.Log, "planned") || !hasRunLine(run.Log, "sync completed") {
		b, _ := json.Marshal(run.Log)
		t.Fatalf("run log of the first sync: %s", b)
	}
}

// missingSamples lists the series below their minimum in text.
func missingSamples(text string, atLeast map[string]float64) []string {
	var out []string
	for series, min := range atLeast {
		if v, ok := metrics.Sample(text, series); !ok || v < min {
			out = append(out, series)
		}
	}
	return out
}

func hasRunLine(lines []checkpoint.RunLogLine, msg string) bool {
	for _, l := range lines {
		if l.Msg == msg {
			return true
		}
	}
	return false
}
