//go:build integration

package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/client"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/watcher"
)

// quietSchedule fires once a year: between the test's own triggers the
// table stays IDLE.
const quietSchedule = "0 0 0 1 1 ?"

// The command line against a running floe with API tokens: tables,
// status, pause, resume, trigger -wait (a run that syncs and a run that
// fails) and runs, in table and JSON output.
func TestCLI_AgainstRunningFloe(t *testing.T) {
	e := startServed(t, nil)
	ctx := context.Background()
	e.waitSynced(e.waitFirstSnapshot())
	quiet(t, e)
	addCopy(t, e)
	t.Setenv(config.AddrEnv, "http://"+e.addr)
	t.Setenv(config.TokenEnv, testReadToken)
	t.Setenv(config.APITokenEnv, "")

	out := cliOK(t, "tables", "-page-size", "1") // every page: two of them on a floe that pages
	if !regexp.MustCompile(`(?m)^demo_copy\s+IDLE\s+100\s`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^demo_events\s+IDLE\s`).MatchString(out) || !strings.HasPrefix(out, "NAME") {
		t.Fatalf("tables:\n%s", out)
	}
	var list struct {
		Tables []client.Table `json:"tables"`
	}
	decodeCLI(t, cliOK(t, "tables", "-o", "json", "-q", "COPY"), &list)
	if len(list.Tables) != 1 || list.Tables[0].Name != copyTable || list.Tables[0].Checkpoint == nil {
		t.Fatalf("tables -q COPY -o json: %+v", list.Tables)
	}

	if _, err := cli(t, "pause", demoTable); err == nil || !strings.Contains(err.Error(), "needs an admin token") ||
		!strings.Contains(err.Error(), "HTTP 403") {
		t.Fatalf("pause with a read token: %v", err)
	}
	if out := cliOK(t, "pause", demoTable, "-token", testAdminToken); !strings.HasPrefix(out, "table demo_events paused") {
		t.Fatalf("pause: %s", out)
	}
	assertState(t, client.StatePaused)
	if out := cliOK(t, "pause", demoTable, "-token", testAdminToken); !strings.HasPrefix(out, "table demo_events was already paused") {
		t.Fatalf("pause of a paused table: %s", out)
	}
	if out := cliOK(t, "status", demoTable); !regexp.MustCompile(`(?m)^schedule\s+\S.* \(paused\)$`).MatchString(out) {
		t.Fatalf("status of a paused table does not show its stashed schedule:\n%s", out)
	}
	if out := cliOK(t, "tables", "-state", "IDLE"); !strings.Contains(out, copyTable) || strings.Contains(out, demoTable) {
		t.Fatalf("tables -state IDLE while demo_events is paused:\n%s", out)
	}
	if out := cliOK(t, "tables", "-state", "FAILED,RUNNING"); out != "no tables\n" {
		t.Fatalf("tables -state FAILED,RUNNING:\n%s", out)
	}
	cliOK(t, "resume", demoTable, "-token", testAdminToken)
	assertState(t, client.StateIdle)

	synced, err := e.lake.appendRows(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(config.TokenEnv, testAdminToken)
	out = cliOK(t, "trigger", demoTable, "-wait", "-poll", "50ms")
	m := regexp.MustCompile(`^run (\S+) of table demo_events: COMPLETED, snapshot (\d+),`).FindStringSubmatch(out)
	if m == nil || m[2] != strconv.FormatInt(synced, 10) {
		t.Fatalf("trigger -wait, want COMPLETED at snapshot %d:\n%s", synced, out)
	}
	okRun := m[1]

	failRun := triggerFailing(t, e)

	var runs struct {
		Runs []client.Run `json:"runs"`
	}
	decodeCLI(t, cliOK(t, "runs", demoTable, "-o", "json", "-limit", "5"), &runs)
	byID := map[string]client.Run{}
	for _, r := range runs.Runs {
		byID[r.ID] = r
	}
	if r := byID[okRun]; r.Status != client.RunCompleted || r.SnapshotID != synced || r.Trigger != "manual" {
		t.Fatalf("runs: the triggered run %s: %+v", okRun, runs.Runs)
	}
	if r := byID[failRun]; r.Status != client.RunFailed {
		t.Fatalf("runs: the failed run %s: %+v", failRun, runs.Runs)
	}
	if out := cliOK(t, "runs", demoTable); !regexp.MustCompile(`(?m)^` + okRun + `\s+COMPLETED\s+manual\s`).MatchString(out) {
		t.Fatalf("runs:\n%s", out)
	}
	if out := cliOK(t, "tables", "-state", "FAILED"); !strings.Contains(out, demoTable) || strings.Contains(out, copyTable) {
		t.Fatalf("tables -state FAILED after the failed run:\n%s", out)
	}
	if _, err := cli(t, "status", "nope"); err == nil || err.Error() != "table nope not found" {
		t.Fatalf("status of a missing table: %v", err)
	}
}

// triggerFailing appends a snapshot, removes its data file and triggers
// a run with -wait: the command fails naming the run and the file.
func triggerFailing(t *testing.T, e *servedEnv) string {
	t.Helper()
	before := parquetFiles(t, e.dir)
	if _, err := e.lake.appendRows(context.Background(), 20); err != nil {
		t.Fatal(err)
	}
	var removed string
	for f := range parquetFiles(t, e.dir) {
		if !before[f] {
			removed = f
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if removed == "" {
		t.Fatal("the appended snapshot wrote no data file")
	}
	out, err := cli(t, "trigger", demoTable, "-wait", "-poll", "50ms")
	m := regexp.MustCompile(`^run (\S+) of table demo_events: FAILED`).FindStringSubmatch(out)
	if err == nil || m == nil || !strings.Contains(err.Error(), "run "+m[1]+" of table demo_events FAILED") ||
		!strings.Contains(err.Error(), filepath.Base(removed)) {
		t.Fatalf("trigger -wait of a failing run: %v\n%s", err, out)
	}
	return m[1]
}

// copyTable is a second table on the demo lake, registered through the API.
const copyTable = "demo_copy"

// quiet gives the demo table a yearly schedule and waits until no run is
// in flight.
func quiet(t *testing.T, e *servedEnv) {
	t.Helper()
	_, err := e.app.watcher.UpdateTable(context.Background(), demoTable, func(tb *checkpoint.Table) error {
		tb.TaskConfig[watcher.KeySchedule] = quietSchedule
		return watcher.ValidateTaskConfig(tb.TaskConfig)
	})
	if err != nil {
		t.Fatal(err)
	}
	waitSettled(t, e, demoTable)
}

// addCopy registers copyTable on the quiet schedule and waits for its
// first run (which starts at once) to end.
func addCopy(t *testing.T, e *servedEnv) {
	t.Helper()
	body := jsonBody(t, map[string]string{"connection": "demo", "namespace": "demo", "table": "events",
		"name": copyTable, "schedule": quietSchedule})
	if code, _, answer := e.do("POST", "/api/v1/tables", nil, body); code != 201 {
		t.Fatalf("create %s: %d %s", copyTable, code, answer)
	}
	waitSettled(t, e, copyTable)
}

// waitSettled waits until the table is IDLE on the quiet schedule with a
// checkpoint.
func waitSettled(t *testing.T, e *servedEnv, name string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := e.app.watcher.TableState(ctx, name)
		_, cpErr := e.app.store.GetCheckpointSummary(ctx, name)
		if err == nil && cpErr == nil && st.State == watcher.StateIdle && st.Schedule == quietSchedule {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("table %s did not settle IDLE with a checkpoint on the quiet schedule", name)
}

// waitFirstSnapshot returns the snapshot the served demo table starts
// with.
func (e *servedEnv) waitFirstSnapshot() int64 {
	e.t.Helper()
	tbl, err := e.lake.cat.LoadTable(context.Background(), e.lake.ident)
	if err != nil || tbl.CurrentSnapshot() == nil {
		e.t.Fatalf("load the demo table: %v", err)
	}
	return tbl.CurrentSnapshot().SnapshotID
}

func assertState(t *testing.T, want string) {
	t.Helper()
	out := cliOK(t, "status", demoTable)
	if !regexp.MustCompile(`(?m)^state\s+` + want + `$`).MatchString(out) {
		t.Fatalf("status, want state %s:\n%s", want, out)
	}
	var tb client.Table
	decodeCLI(t, cliOK(t, "status", demoTable, "-o", "json"), &tb)
	if tb.Overview() != want {
		t.Fatalf("status -o json: state %s, want %s", tb.Overview(), want)
	}
}

// cli runs one command through dispatch and returns its standard output.
func cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut strings.Builder
	err := dispatch(t.Context(), args, &out, &errOut)
	if strings.Contains(out.String()+errOut.String(), testAdminToken) || strings.Contains(out.String()+errOut.String(), testReadToken) {
		t.Fatalf("floe %s printed a token", strings.Join(args, " "))
	}
	return out.String(), err
}

func cliOK(t *testing.T, args ...string) string {
	t.Helper()
	out, err := cli(t, args...)
	if err != nil {
		t.Fatalf("floe %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func decodeCLI(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("decode JSON output: %v\n%s", err, out)
	}
}

// parquetFiles lists the lake's data files.
func parquetFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(dir, "warehouse"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out[p] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
