//go:build integration

package testpeer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/internal/testpeer"
)

type pinotTestRow struct {
	ID   int32     `parquet:"id"`
	City string    `parquet:"city"`
	Hits int64     `parquet:"hits"`
	TS   time.Time `parquet:"ts,timestamp(millisecond)"`
}

const pinotTestSchema = `{
  "schemaName": "visits",
  "dimensionFieldSpecs": [{"name": "id", "dataType": "INT"}, {"name": "city", "dataType": "STRING"}],
  "metricFieldSpecs": [{"name": "hits", "dataType": "LONG"}],
  "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
}`

const pinotTestTable = `{
  "tableName": "visits", "tableType": "OFFLINE",
  "segmentsConfig": {"replication": "1", "timeColumnName": "ts"},
  "tableIndexConfig": {"loadMode": "MMAP"}, "tenants": {}, "metadata": {}
}`

// TestStartPinot proves the cluster end to end: schema and table through
// the controller, a segment built by Pinot's own creator uploaded with
// POST /v2/segments, and the rows queried back through the broker.
func TestStartPinot(t *testing.T) {
	c := testpeer.StartPinot(t)
	t.Logf("cluster start-up took %s", c.StartupTime)
	h := pinottest.New(t)

	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rows := []pinotTestRow{
		{ID: 1, City: "oslo", Hits: 9007199254740993, TS: base},
		{ID: 2, City: "bergen", Hits: -5, TS: base.Add(time.Minute)},
		{ID: 3, City: "tromsø", Hits: 0, TS: base.Add(time.Hour)},
	}
	dir := t.TempDir()
	pq := filepath.Join(dir, "visits.parquet")
	if err := parquet.WriteFile(pq, rows); err != nil {
		t.Fatalf("write parquet: %v", err)
	}
	res, err := h.Create(t.Context(), pq, []byte(pinotTestSchema), []byte(pinotTestTable), filepath.Join(dir, "out"),
		"visits_0")
	if err != nil {
		t.Fatal(err)
	}
	tarPath := filepath.Join(dir, "visits_0.tar.gz")
	if err := h.Tar(t.Context(), res.SegmentDir, tarPath); err != nil {
		t.Fatal(err)
	}

	postJSON(t, c.ControllerURL+"/schemas", pinotTestSchema)
	postJSON(t, c.ControllerURL+"/tables", pinotTestTable)
	uploadSegment(t, c.ControllerURL+"/v2/segments?tableName=visits&tableType=OFFLINE", tarPath)

	got := waitForRows(t, c.BrokerURL, "SELECT id, city, hits, ts FROM visits ORDER BY id LIMIT 10", len(rows))
	for i, want := range rows {
		wantRow := fmt.Sprintf("[%d,%q,%d,%d]", want.ID, want.City, want.Hits, want.TS.UnixMilli())
		if string(got[i]) != wantRow {
			t.Errorf("row %d = %s, want %s", i, got[i], wantRow)
		}
	}
}

func postJSON(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: HTTP %s: %s", url, resp.Status, b)
	}
}

func uploadSegment(t *testing.T, url, tarPath string) {
	t.Helper()
	data, err := os.ReadFile(tarPath)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", filepath.Base(tarPath))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatalf("upload segment: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("upload segment: HTTP %s: %s", resp.Status, b)
	}
}

// waitForRows queries the broker until the segment is online and the
// query returns n rows (the server loads an uploaded segment asynchronously).
func waitForRows(t *testing.T, brokerURL, sql string, n int) []json.RawMessage {
	t.Helper()
	q, _ := json.Marshal(map[string]string{"sql": sql})
	var last string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		resp, err := http.Post(brokerURL+"/query/sql", "application/json", bytes.NewReader(q))
		if err != nil {
			last = err.Error()
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = string(b)
		var out struct {
			ResultTable struct {
				Rows []json.RawMessage `json:"rows"`
			} `json:"resultTable"`
			Exceptions []json.RawMessage `json:"exceptions"`
		}
		if json.Unmarshal(b, &out) == nil && len(out.Exceptions) == 0 && len(out.ResultTable.Rows) == n {
			return out.ResultTable.Rows
		}
	}
	t.Fatalf("broker never returned %d rows for %q; last answer: %s", n, sql, last)
	return nil
}
