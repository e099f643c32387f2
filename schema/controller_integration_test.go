//go:build integration

package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/segments"
)

// TestInfer_controllerServes creates the inferred schema and table config
// of the every-type table on a real Pinot 1.5.1 cluster through floe's
// controller client, uploads the segment built along the bindings, and
// asks the broker questions whose answers depend on faithful values.
func TestInfer_controllerServes(t *testing.T) {
	c := testpeer.StartPinot(t)
	ctx := t.Context()
	ctl, err := pinot.NewController(c.ControllerURL, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl := createEveryTypeTable(t, ctx)
	src, _ := schema.ParseTableName("lake.sales.orders")
	variants := []struct {
		name    string
		opts    schema.Options
		queries map[string]string // SQL → expected count(*)
	}{
		{"every_default", schema.Options{}, map[string]string{
			"tstz = 1700000000654": "1",
			"ts = -1":              "1",
			"tsn = -2":             "1",
			"JSON_EXTRACT_SCALAR(addr, '$.street', 'STRING') = 'Main St'": "1",
			"v IS NULL": "1",
		}},
		{"every_lossless", schema.Options{Overrides: map[string]schema.Override{
			"ts": {DataType: spec.Long}, "tstz": {DataType: spec.Long}, "tsn": {DataType: spec.Long},
			"tstzn": {DataType: spec.Long}, "addr": {Flatten: true},
		}}, map[string]string{
			"tstz = 1700000000654321": "1",
			"tsn = -1500001":          "1",
			"\"addr.street\" = '2nd'": "1",
		}},
	}
	common := map[string]string{
		"amount = 123.45": "1", "amount < 0": "2", "uid = '123e4567-e89b-12d3-a456-426614174000'": "1",
		"name IS NULL": "2", "tags = 'a'": "1", "prices = '1.500'": "1", "day = 19700": "1",
		"i = -2147483648 AND i IS NOT NULL": "1", "i IS NULL": "1", "bin = '' AND bin IS NOT NULL": "1",
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			v.opts.Name = v.name
			res, err := schema.Infer(tbl.Schema(), v.opts)
			if err != nil {
				t.Fatal(err)
			}
			tc := schema.TableConfig(res, schema.TableOptions{Source: src, Connection: "lake"})
			postControllerJSON(t, ctx, c.ControllerURL+"/schemas", res.Schema)
			postControllerJSON(t, ctx, c.ControllerURL+"/tables", tc)
			uploadEveryType(t, ctx, ctl, buildSegment(t, ctx, tbl, res, v.name+"_0"), v.name)
			waitCount(t, ctx, c.BrokerURL, v.name, "", "4")
			for where, want := range common {
				waitCount(t, ctx, c.BrokerURL, v.name, where, want)
			}
			for where, want := range v.queries {
				waitCount(t, ctx, c.BrokerURL, v.name, where, want)
			}
		})
	}
}

// postControllerJSON posts a document the way an operator would (no
// validation skipped) and fails with the controller's answer if refused.
func postControllerJSON(t *testing.T, ctx context.Context, url string, doc any) {
	t.Helper()
	body := mustJSON(t, doc)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("controller refused %s: HTTP %d: %s\n%s", url, resp.StatusCode, answer, body)
	}
}

func uploadEveryType(t *testing.T, ctx context.Context, ctl *pinot.Controller, dir, table string) {
	t.Helper()
	tarPath := filepath.Join(t.TempDir(), table+"_0.tar.gz")
	f, err := os.Create(tarPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := segments.WriteTarGz(ctx, dir, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Upload(ctx, table, pinot.Segment{Name: table + "_0", TarPath: tarPath}); err != nil {
		t.Fatalf("upload: %v", err)
	}
}

// waitCount runs SELECT count(*) until the table serves all 4 rows, then
// checks the answer. It posts to the broker directly, without query
// options: the 0.11 test cluster refuses enableNullHandling=true, and
// IS NULL filters use the null value vectors without it.
func waitCount(t *testing.T, ctx context.Context, brokerURL, table, where, want string) {
	t.Helper()
	sql := "SELECT count(*) FROM " + table
	if where != "" {
		sql += " WHERE " + where
	}
	var last string
	for attempt := 0; attempt < 60; attempt++ {
		total, terr := brokerCount(ctx, brokerURL, "SELECT count(*) FROM "+table)
		if terr == nil && total == "4" {
			got, err := brokerCount(ctx, brokerURL, sql)
			if err != nil {
				t.Errorf("%s: %v", sql, err)
			} else if got != want {
				t.Errorf("%s = %s, want %s", sql, got, want)
			}
			return
		}
		last = fmt.Sprint(total, terr)
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(time.Second):
		}
	}
	t.Fatalf("%s: table never served its 4 rows (last: %s)", sql, last)
}

func brokerCount(ctx context.Context, brokerURL, sql string) (string, error) {
	body, _ := json.Marshal(map[string]string{"sql": sql})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, brokerURL+"/query/sql", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		ResultTable *struct {
			Rows [][]any `json:"rows"`
		} `json:"resultTable"`
		Exceptions []struct {
			Message string `json:"message"`
		} `json:"exceptions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	if len(out.Exceptions) > 0 {
		return "", fmt.Errorf("broker: %s", out.Exceptions[0].Message)
	}
	if out.ResultTable == nil || len(out.ResultTable.Rows) != 1 {
		return "", fmt.Errorf("broker: no single-row answer")
	}
	return fmt.Sprint(out.ResultTable.Rows[0][0]), nil
}
