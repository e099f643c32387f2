//go:build integration

package pinottest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/pinot"
)

// rowsText renders a result table as one line per row, for comparisons.
func rowsText(rt *pinot.ResultTable) string {
	var b strings.Builder
	for _, r := range rt.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = fmt.Sprint(v)
		}
		b.WriteString(strings.Join(cells, " ") + "\n")
	}
	return b.String()
}

// The query engine answers SQL over Pinot-built segments the way a 1.5.1
// broker and server do, with SQL null semantics; a reload keeps unchanged
// segments and drops unlisted ones; Pinot's errors come back as ErrQuery
// and leave the engine usable.
func TestEngine_QueryLoadedSegments(t *testing.T) {
	h := pinottest.New(t)
	dir := t.TempDir()
	parquetPath := filepath.Join(dir, "input.parquet")
	if err := parquet.WriteFile(parquetPath, selfTestRows()); err != nil {
		t.Fatalf("write parquet: %v", err)
	}
	var segs []string
	for _, name := range []string{"seg_a", "seg_b"} {
		res, err := h.Create(t.Context(), parquetPath, []byte(selfTestSchema), []byte(selfTestTableConfig),
			filepath.Join(dir, name), name)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, res.SegmentDir)
	}
	e := h.NewEngine(t)
	ctx := t.Context()
	stats, err := e.Load(ctx, "harness_test", []byte(selfTestSchema), []byte(selfTestTableConfig), segs)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Segments != 2 || stats.Loaded != 2 || stats.TotalDocs != 8 {
		t.Fatalf("load stats %+v, want 2 segments loaded with 8 docs", stats)
	}

	tests := []struct{ sql, want string }{
		{"SELECT count(*) FROM harness_test", "8\n"},
		// null handling on: the null name is its own group, sorted last.
		{"SELECT name, count(*) FROM harness_test GROUP BY name ORDER BY name",
			"oslo 4\nzürich ☃ 2\n<nil> 2\n"},
		{"SELECT count(*) FROM harness_test WHERE name IS NULL", "2\n"},
		{"SELECT count(name), count(DISTINCT name) FROM harness_test", "6 2\n"},
		{"SELECT id, price FROM harness_test WHERE price > 0 ORDER BY id LIMIT 1", "1 12.5\n"},
		{"SELECT min(id), max(id), sum(id) FROM harness_test WHERE flag = true", "1.0 3.0 8.0\n"},
	}
	for _, tc := range tests {
		rt, err := e.Query(ctx, tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := rowsText(rt); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
	}

	rt, err := e.Query(ctx, "SELECT big FROM harness_test WHERE id = 1 LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := rt.Rows[0][0].(json.Number); !ok || n.String() != "9223372036854775807" || rt.Types[0] != "LONG" {
		t.Errorf("LONG value %#v of type %s, want the exact json.Number 9223372036854775807", rt.Rows[0][0], rt.Types[0])
	}

	stats, err = e.Load(ctx, "harness_test", []byte(selfTestSchema), []byte(selfTestTableConfig), segs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if stats.Segments != 1 || stats.Kept != 1 || stats.Unloaded != 1 || stats.Loaded != 0 || stats.TotalDocs != 4 {
		t.Fatalf("reload stats %+v, want 1 kept, 1 unloaded, 4 docs", stats)
	}
	if rt, err := e.Query(ctx, "SELECT count(*) FROM harness_test"); err != nil || rowsText(rt) != "4\n" {
		t.Fatalf("count after reload: %v %v", rt, err)
	}

	for _, sql := range []string{"SELECT nope FROM harness_test", "SELECT count(*) FROM missing_table", "SELEKT 1"} {
		if _, err := e.Query(ctx, sql); !errors.Is(err, pinottest.ErrQuery) {
			t.Errorf("%s: err = %v, want ErrQuery", sql, err)
		}
	}
	missing := filepath.Join(dir, "no_such_segment")
	_, err = e.Load(ctx, "harness_test", []byte(selfTestSchema), []byte(selfTestTableConfig), []string{missing})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("load of a missing segment: err = %v, want one naming %s", err, missing)
	}
	if _, err := e.Query(ctx, "SELECT count(*) FROM harness_test"); err != nil {
		t.Fatalf("engine unusable after a failed load: %v", err)
	}
}
