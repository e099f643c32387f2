//go:build integration

package pinot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments"
)

func clusterSchema() *pinot.Schema {
	return &pinot.Schema{Name: "orders", EnableColumnNullHandle: true, Fields: []pinot.FieldSpec{
		{Name: "id", DataType: pinot.Long, FieldType: pinot.Dimension, SingleValue: true, NotNull: true},
		{Name: "city", DataType: pinot.String, FieldType: pinot.Dimension, SingleValue: true},
		{Name: "tags", DataType: pinot.String, FieldType: pinot.Dimension},
		{Name: "amount", DataType: pinot.Double, FieldType: pinot.Metric, SingleValue: true},
		{Name: "ts", DataType: pinot.Timestamp, FieldType: pinot.DateTime, SingleValue: true, NotNull: true,
			Format: "1:MILLISECONDS:TIMESTAMP", Granularity: "1:MILLISECONDS"},
	}}
}

// buildSegment writes a floe segment of n rows starting at id first, each
// with amount = multiplier*id, and returns its tarball.
func buildSegment(t *testing.T, name string, first, n int64, multiplier float64) pinot.Segment {
	t.Helper()
	var rows [][]any
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for id := first; id < first+n; id++ {
		var city any = fmt.Sprint("city-", id%7)
		if id%10 == 0 {
			city = nil
		}
		rows = append(rows, []any{id, city, []any{"a", fmt.Sprint("t", id%3)}, multiplier * float64(id), base + id*1000})
	}
	dir := t.TempDir()
	res, err := segments.Build(context.Background(), segments.NewMemorySource(clusterSchema(), rows, 0),
		segments.Config{Schema: clusterSchema(), TableName: "orders", SegmentName: name, TimeColumn: "ts", CreationTime: time.Now()}, dir)
	if err != nil {
		t.Fatal(err)
	}
	tarPath := filepath.Join(dir, name+".tar.gz")
	f, err := os.Create(tarPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := segments.WriteTarGz(context.Background(), res.Dir, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return pinot.Segment{Name: name, TarPath: tarPath}
}

// query returns the single row of a SELECT with numeric columns.
func query(t *testing.T, b *pinot.Broker, sql string) []any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rt, err := b.Query(context.Background(), sql)
		if err == nil && len(rt.Rows) == 1 {
			return rt.Rows[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v (%+v)", sql, err, rt)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func num(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}

// waitCount polls until the table answers count(*) = want: segments come
// online asynchronously after the upload returns.
func waitCount(t *testing.T, b *pinot.Broker, want int64) []any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var row []any
	for time.Now().Before(deadline) {
		row = query(t, b, "SELECT count(*), sum(amount), min(id), max(id) FROM orders")
		if int64(num(row[0])) == want {
			return row
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("count(*) never reached %d: last %v", want, row)
	return nil
}

// A real Pinot cluster serves segments floe wrote and pushed, and an
// atomic replace through segment lineage swaps them for new ones.
func TestController_AgainstCluster(t *testing.T) {
	c := testpeer.StartPinot(t)
	ctx := context.Background()
	ctl, err := pinot.NewController(c.ControllerURL, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	tc := &pinot.TableConfig{TableName: "orders", TableType: "OFFLINE", Tenants: map[string]string{}, Metadata: map[string]any{},
		SegmentsConfig:   pinot.SegmentsConfig{TimeColumnName: "ts", Replication: "1"},
		TableIndexConfig: pinot.TableIndexConfig{LoadMode: "MMAP", NullHandlingEnabled: true}}
	if err := ctl.EnsureTable(ctx, clusterSchema(), tc); err != nil {
		t.Fatal(err)
	}
	if err := ctl.EnsureTable(ctx, clusterSchema(), tc); err != nil {
		t.Fatalf("EnsureTable must be idempotent: %v", err)
	}
	s1, s2 := buildSegment(t, "orders_a_0", 0, 1000, 1), buildSegment(t, "orders_b_0", 1000, 500, 1)
	if err := ctl.Replace(ctx, "orders", nil, []pinot.Segment{s1, s2}); err != nil {
		t.Fatal(err)
	}
	b := pinot.NewBroker(c.BrokerURL, time.Minute, nil)
	b.NullHandling = false // the test cluster is Pinot 0.11
	row := waitCount(t, b, 1500)
	if num(row[1]) != 1499*1500/2 || num(row[2]) != 0 || num(row[3]) != 1499 {
		t.Fatalf("first push: got %v", row)
	}
	// Null vectors: every tenth city is null.
	if r := query(t, b, "SELECT count(*) FROM orders WHERE city IS NULL"); int64(num(r[0])) != 150 {
		t.Fatalf("null cities: %v, want 150", r)
	}
	if r := query(t, b, "SELECT count(*) FROM orders WHERE city = 'city-3'"); int64(num(r[0])) != 192 {
		t.Fatalf("dictionary filter: %v, want 192", r)
	}
	names, err := ctl.ListSegments(ctx, "orders")
	if err != nil || len(names) != 2 {
		t.Fatalf("segments: %v, %v", names, err)
	}
	// Replace b with c (ids 1000..1199, amounts doubled) atomically.
	s3 := buildSegment(t, "orders_c_0", 1000, 200, 2)
	if err := ctl.Replace(ctx, "orders", []string{"orders_b_0"}, []pinot.Segment{s3}); err != nil {
		t.Fatal(err)
	}
	row = waitCount(t, b, 1200)
	wantSum := float64(999*1000/2) + 2*float64((1000+1199)*200/2)
	if num(row[1]) != wantSum || num(row[3]) != 1199 {
		t.Fatalf("after replace: got %v, want sum %v", row, wantSum)
	}
	r := query(t, b, "SELECT count(*) FROM orders WHERE tags = 't1'")
	if int64(num(r[0])) != 400 {
		t.Fatalf("multi-value filter: %v", r)
	}
}
