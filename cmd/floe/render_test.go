package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/client"
)

var renderNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func decodeTable(t *testing.T, s string) client.Table {
	t.Helper()
	var tb client.Table
	if err := json.Unmarshal([]byte(s), &tb); err != nil {
		t.Fatal(err)
	}
	return tb
}

// columnStarts returns where each of the header's words starts.
func columnStarts(header string, words []string) []int {
	var out []int
	for _, w := range words {
		out = append(out, strings.Index(header, w))
	}
	return out
}

func TestRenderTables(t *testing.T) {
	long := strings.Repeat("x", 100)
	ts := []client.Table{
		decodeTable(t, `{"name":"orders","state":"IDLE","rows":1200,"lag":{"snapshots":2,"seconds":125},
			"status":{"state":"IDLE","nextRun":"2026-05-01T12:00:30Z"},
			"lastRun":{"id":"r1","status":"COMPLETED","startedAt":"2026-05-01T11:57:00Z"}}`),
		decodeTable(t, `{"name":"evil\u001b[31m","status":{"state":"PAUSED","nextRun":"2026-05-01T12:00:30Z"},
			"lastRun":{"id":"r2","status":"FAILED","startedAt":"2026-05-01T09:00:00Z","error":"read f.parquet: `+long+`\nsecond line"}}`),
	}
	var out bytes.Buffer
	if err := renderTables(&out, ts, renderNow); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 lines:\n%s", out.String())
	}
	cols := columnStarts(lines[0], []string{"NAME", "STATE", "ROWS", "LAG", "LAST RUN", "NEXT RUN", "LAST ERROR"})
	for _, want := range []struct {
		line int
		col  int
		text string
	}{
		{1, 1, "IDLE"}, {1, 2, "1200"}, {1, 3, "2 snap, 2m"}, {1, 4, "COMPLETED 3m ago"}, {1, 5, "in 30s"}, {1, 6, "-"},
		{2, 0, "evil?[31m"}, {2, 1, "PAUSED"}, {2, 3, "-"}, {2, 4, "FAILED 3h ago"}, {2, 5, "-"}, {2, 6, "read f.parquet: xxx"},
	} {
		if got := lines[want.line][cols[want.col]:]; !strings.HasPrefix(got, want.text) {
			t.Errorf("line %d column %d: %q, want it to start with %q\n%s", want.line, want.col, got, want.text, out.String())
		}
	}
	errCol := lines[2][cols[6]:]
	if n := len([]rune(errCol)); n != errorWidth || !strings.HasSuffix(errCol, "…") {
		t.Errorf("error column %q: want %d characters ending in …", errCol, errorWidth)
	}
	if strings.Contains(out.String(), "\x1b") || strings.Contains(out.String(), "second line") {
		t.Errorf("escape or second error line printed:\n%q", out.String())
	}
	out.Reset()
	if err := renderTables(&out, nil, renderNow); err != nil || out.String() != "no tables\n" {
		t.Fatalf("no tables: %q %v", out.String(), err)
	}
}

func TestRenderStatus(t *testing.T) {
	running := decodeTable(t, `{"name":"orders","source":"sales.orders","connection":"lake",
		"status":{"state":"RUNNING","schedule":"*/5 * * * *","runningRunId":"r9","progress":{"filesDone":3,"filesTotal":10,"rows":1200}},
		"checkpoint":{"snapshotId":77,"fileCount":8,"rows":5000,"committedAt":"2026-05-01T11:00:00Z"}}`)
	var out bytes.Buffer
	if err := renderStatus(&out, running, renderNow); err != nil {
		t.Fatal(err)
	}
	squeezed := squeeze(out.String())
	for _, want := range []string{
		"state RUNNING", "source sales.orders (connection lake)", "rows 5000",
		"snapshot 77 (8 files, committed 1h ago)", "running r9",
		"progress [#########.....................] 3/10 files, 1200 rows", "last run -",
	} {
		if !strings.Contains(squeezed, want+"\n") {
			t.Errorf("want line %q in:\n%s", want, out.String())
		}
	}
	failed := decodeTable(t, `{"name":"o","status":{"state":"IDLE"},"lastRun":{"id":"r1","status":"FAILED","error":"boom",
		"log":[`+strings.Repeat(`{"at":"2026-05-01T11:00:00Z","level":"INFO","msg":"old"},`, 5)+`
		{"at":"2026-05-01T11:00:01Z","level":"ERROR","msg":"convert failed","attrs":{"segment":"s_0","file":"a.parquet"}}]}}`)
	out.Reset()
	if err := renderStatus(&out, failed, renderNow); err != nil {
		t.Fatal(err)
	}
	if s := squeeze(out.String()); strings.Count(s, "run log ") != statusLogLines ||
		!strings.Contains(s, "run log 11:00:01 ERROR convert failed file=a.parquet segment=s_0\n") {
		t.Errorf("failed run's log:\n%s", out.String())
	}
	idle := decodeTable(t, `{"name":"o","status":{"state":"ERROR","error":"catalog: timeout\nstack"}}`)
	out.Reset()
	if err := renderStatus(&out, idle, renderNow); err != nil {
		t.Fatal(err)
	}
	if s := squeeze(out.String()); strings.Contains(s, "progress") || !strings.Contains(s, "state FAILED") ||
		!strings.Contains(s, "last error catalog: timeout\n") || !strings.Contains(s, "snapshot - (nothing synced yet)") {
		t.Errorf("idle status:\n%s", s)
	}
}

func TestRenderRuns(t *testing.T) {
	runs := []client.Run{
		{ID: "r2", Status: client.RunRunning, Trigger: "manual", StartedAt: renderNow.Add(-5 * time.Second)},
		{ID: "r1", Status: client.RunFailed, Trigger: "schedule", StartedAt: renderNow.Add(-time.Hour),
			FinishedAt: renderNow.Add(-time.Hour + 1500*time.Millisecond), SnapshotID: 42, FilesDiscovered: 3, Rows: 10,
			Error: "upload segment s_0: 503\nretry"},
		{ID: "r0", Status: client.RunCompleted, Trigger: "schedule", Kind: "merge", StartedAt: renderNow.Add(-2 * time.Hour),
			FinishedAt: renderNow.Add(-2 * time.Hour), SnapshotID: 41, FilesAdded: 1, FilesRebuilt: 8, LiveFiles: 16,
			FilesDiscovered: 16, RowsAdded: 1000, RowsRebuilt: 8000, Rows: 9000, SegmentsGenerated: 2, SegmentsDeleted: 8},
	}
	var out bytes.Buffer
	if err := renderRuns(&out, runs, renderNow); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("runs:\n%s", out.String())
	}
	cols := columnStarts(lines[0], []string{"RUN", "STATUS", "STARTED", "DURATION", "SNAPSHOT", "ERROR", "KIND",
		"FILES-ADDED", "FILES-REBUILT", "LIVE-FILES", "ROWS-ADDED", "ROWS-REBUILT", "SEGMENTS-BUILT", "SEGMENTS-REPLACED"})
	checks := [][2]string{{lines[1][cols[1]:], "RUNNING"}, {lines[1][cols[3]:], "-"}, {lines[1][cols[2]:], "5s ago"},
		{lines[2][cols[3]:], "1.5s"}, {lines[2][cols[4]:], "42"}, {lines[2][cols[5]:], "upload segment s_0: 503"},
		// a record without a kind: live files from its first name, what it added unknown
		{lines[2][cols[6]:], "- "}, {lines[2][cols[7]:], "- "}, {lines[2][cols[9]:], "3 "}, {lines[2][cols[10]:], "- "},
		// a merge: one file added, eight rebuilt; its rebuilt rows are not added rows
		{lines[3][cols[6]:], "merge "}, {lines[3][cols[7]:], "1 "}, {lines[3][cols[8]:], "8 "}, {lines[3][cols[9]:], "16 "},
		{lines[3][cols[10]:], "1000 "}, {lines[3][cols[11]:], "8000 "}, {lines[3][cols[12]:], "2 "}, {lines[3][cols[13]:], "8 "}}
	for _, c := range checks {
		if !strings.HasPrefix(c[0], c[1]) {
			t.Errorf("%q: want %q\n%s", c[0], c[1], out.String())
		}
	}
	if strings.Contains(out.String(), "retry") {
		t.Errorf("second error line printed:\n%s", out.String())
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45 * time.Second: "45s", 3*time.Minute + 59*time.Second: "3m", 5 * time.Hour: "5h", 72 * time.Hour: "3d",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("%s: %s, want %s", d, got, want)
		}
	}
}

// squeeze turns the padding between a status line's key and value into
// one space.
func squeeze(s string) string {
	return regexp.MustCompile(` {2,}`).ReplaceAllString(s, " ")
}
