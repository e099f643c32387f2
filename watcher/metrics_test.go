package watcher_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/metrics"
	"github.com/floehq/floe/watcher"
)

var _ watcher.Metrics = (*metrics.Registry)(nil)

// withMetrics replaces the harness's watcher by one reporting to a fresh
// registry (and logging to logs, scrubbing "s3cr3t").
func withMetrics(t *testing.T, h *harness, logs io.Writer) *metrics.Registry {
	t.Helper()
	reg := metrics.New()
	if logs == nil {
		logs = io.Discard
	}
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up,
		Metrics: reg, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError})),
		Scrub: func(s string) string { return strings.ReplaceAll(s, "s3cr3t", "[REDACTED]") }},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: t.TempDir()})
	return reg
}

func scrape(t *testing.T, reg *metrics.Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	reg.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// wantSamples checks series values in one scrape.
func wantSamples(t *testing.T, reg *metrics.Registry, want map[string]float64) {
	t.Helper()
	text := scrape(t, reg)
	for series, v := range want {
		got, ok := metrics.Sample(text, series)
		if !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, v)
		}
	}
}

// Runs on the memory store report their phases (plan, build, commit for an
// append; push for a replacing swap), their outcomes and what they converted.
func TestWatcher_Metrics_PhasesAndOutcomes(t *testing.T) {
	h := newHarness(t, nil)
	reg := withMetrics(t, h, nil)
	h.lake.appendRows(10)
	h.lake.appendRows(5)
	h.sync(t)
	wantSamples(t, reg, map[string]float64{
		`floe_runs_total{outcome="completed",table="events"}`: 1,
		`floe_run_duration_seconds_count{phase="plan"}`:       1,
		`floe_run_duration_seconds_count{phase="build"}`:      1,
		`floe_run_duration_seconds_count{phase="push"}`:       1, // uploads during the build
		`floe_run_duration_seconds_count{phase="commit"}`:     1,
		`floe_run_duration_seconds_count{phase="total"}`:      1,
		`floe_files_discovered_total{table="events"}`:         2,
		`floe_files_converted_total{table="events"}`:          2,
		`floe_rows_converted_total{table="events"}`:           15,
		`floe_last_run_success{table="events"}`:               1,
		`floe_last_run_rows{table="events"}`:                  15,
		`floe_checkpoint_files{table="events"}`:               2,
		`floe_lag_snapshots{table="events"}`:                  0, // the check after the commit
		`floe_lag_seconds{table="events"}`:                    0,
	})
	h.sync(t) // nothing new
	h.lake.overwrite(3)
	h.sync(t) // a replacing run: its swap is the push
	wantSamples(t, reg, map[string]float64{
		`floe_runs_total{outcome="nochange",table="events"}`:  1,
		`floe_runs_total{outcome="completed",table="events"}`: 2,
		`floe_run_duration_seconds_count{phase="push"}`:       2,
		`floe_run_duration_seconds_count{phase="total"}`:      2, // a no-op check is not a run that did work
		`floe_files_converted_total{table="events"}`:          3,
		`floe_checkpoint_files{table="events"}`:               1,
	})
}

// A file that fails fails the run: counted, and the last-run gauge drops.
func TestWatcher_Metrics_FailedFile(t *testing.T) {
	h := newHarness(t, nil)
	reg := withMetrics(t, h, nil)
	h.lake.appendRows(10)
	h.sync(t)
	h.appendFailingFile(t)
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail")
	}
	wantSamples(t, reg, map[string]float64{
		`floe_runs_total{outcome="failed",table="events"}`:    1,
		`floe_runs_total{outcome="completed",table="events"}`: 1,
		`floe_files_failed_total{table="events"}`:             1,
		`floe_last_run_success{table="events"}`:               0,
		`floe_lag_snapshots{table="events"}`:                  1, // the failed run left the new snapshot unsynced
	})
}

// M3: deleting a table removes its series, lag included.
func TestWatcher_Metrics_DeleteForgetsTable(t *testing.T) {
	h := newHarness(t, nil)
	reg := withMetrics(t, h, nil)
	h.lake.appendRows(4)
	h.sync(t)
	ctx := context.Background()
	if err := h.w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	h.w.Metrics().SetLag("events", 2, 30)
	if !strings.Contains(scrape(t, reg), `table="events"`) {
		t.Fatal("no series of the table before the delete")
	}
	if err := h.w.DeleteTable(ctx, "events"); err != nil {
		t.Fatal(err)
	}
	if text := scrape(t, reg); strings.Contains(text, `table="events"`) {
		t.Fatalf("series of the deleted table remain:\n%s", text)
	}
}

// A run's record carries its own log: the plan, its phases, what its
// logger said at INFO and above (here a failing lease renewal, captured
// although the process logs only errors), and the outcome with the error,
// scrubbed like the run's error.
func TestWatcher_RunLog(t *testing.T) {
	h := newHarness(t, nil)
	var logs bytes.Buffer
	withMetrics(t, h, &logs)
	h.lake.appendRows(10)
	h.sync(t)
	h.appendFailingFile(t)
	h.builder.err = "corrupt parquet footer, key s3cr3t"
	run, _ := h.w.RunOnce(context.Background(), "events", "test", nil)
	runs, err := h.store.ListRuns(context.Background(), "events", 1)
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID {
		t.Fatalf("runs: %v %+v", err, runs)
	}
	lines := runs[0].Log
	if len(lines) < 3 || len(lines) > checkpoint.MaxRunLogLines {
		t.Fatalf("run log of %d lines: %+v", len(lines), lines)
	}
	if lines[0].Msg != "phase plan" || lines[1].Msg != "planned" || lines[1].Attrs["files_to_build"] != "1" {
		t.Fatalf("first lines %+v, want the plan", lines[:2])
	}
	if !hasLine(lines, "INFO", "phase build") {
		t.Fatalf("no phase line: %+v", lines)
	}
	last := lines[len(lines)-1]
	if last.Level != "ERROR" || last.Msg != "sync failed" || !strings.Contains(last.Attrs["error"], "corrupt parquet footer") {
		t.Fatalf("last line %+v, want the failure", last)
	}
	for _, l := range lines {
		for k, v := range l.Attrs {
			if strings.Contains(v, "s3cr3t") || strings.Contains(l.Msg, "s3cr3t") {
				t.Fatalf("secret in the run log (%s): %+v", k, l)
			}
		}
	}
	if !strings.Contains(last.Attrs["error"], "[REDACTED]") {
		t.Fatalf("error not scrubbed the run error's way: %q", last.Attrs["error"])
	}
}

// Lines the run's logger writes are captured at INFO and above whatever
// the process's log level.
func TestWatcher_RunLog_CapturesLoggerLines(t *testing.T) {
	h := newHarness(t, nil)
	var logs bytes.Buffer
	h.w = watcher.New(watcher.Deps{Store: flakyRenew{h.store}, Loader: loader{h.lake},
		Builder: slowBuilder{inner: h.builder, delay: 300 * time.Millisecond}, Uploader: h.up,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))},
		watcher.Options{Owner: "test", WorkDir: t.TempDir(), LeaseTTL: 600 * time.Millisecond, BuildParallelism: 1})
	for range 3 {
		h.lake.appendRows(2)
	}
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run stopped by the lease guard")
	}
	runs, err := h.store.ListRuns(context.Background(), "events", 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %+v", err, runs)
	}
	var renew *checkpoint.RunLogLine
	for i, l := range runs[0].Log {
		if l.Msg == "renew lease" {
			renew = &runs[0].Log[i]
		}
	}
	if renew == nil || renew.Level != "WARN" || !strings.Contains(renew.Attrs["error"], "i/o timeout") {
		t.Fatalf("no captured renewal warning in %+v", runs[0].Log)
	}
	if _, ok := renew.Attrs["table"]; ok {
		t.Fatalf("the table attribute is the run's own, not repeated: %+v", renew)
	}
	if strings.Contains(logs.String(), "renew lease") {
		t.Fatalf("the process log (level error) got a warning: %s", logs.String())
	}
}

func hasLine(lines []checkpoint.RunLogLine, level, msg string) bool {
	for _, l := range lines {
		if l.Level == level && l.Msg == msg {
			return true
		}
	}
	return false
}

// appendFailingFile appends a file whose build fails: the live file the
// checkpoint does not hold yet.
func (h *harness) appendFailingFile(t *testing.T) {
	t.Helper()
	h.lake.appendRows(3)
	for _, f := range liveFiles(t, h.lake) {
		if _, ok := mustCheckpoint(t, h.store).Files[f]; !ok {
			h.builder.fail[filepath.Base(f)] = true
		}
	}
}
