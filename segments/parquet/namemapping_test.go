package parquet_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/parquettest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/sourcetest"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

type untaggedRow struct {
	Ident int64 `parquet:"ident"`
	Where struct {
		City string `parquet:"city"`
	} `parquet:"where"`
	B string `parquet:"b"`
}

// TestSource_nameMapping: a file written without field ids (add_files, a
// migrated table) binds its columns by the table's name mapping — every
// name a field was known by, nested fields too — and a mapping never
// overrides the ids of a file that has them.
func TestSource_nameMapping(t *testing.T) {
	rows := []untaggedRow{{Ident: 1, B: "one"}, {Ident: 2, B: "two"}}
	rows[0].Where.City, rows[1].Where.City = "Oslo", "Lima"
	path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "noids.parquet"), rows)
	schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, SingleValue: true, FieldType: spec.Dimension},
		{Name: "city", DataType: spec.String, SingleValue: true, FieldType: spec.Dimension},
		{Name: "v", DataType: spec.String, SingleValue: true, FieldType: spec.Dimension},
	}}
	ids := map[string]int{"id": 1, "city": 4, "v": 2}
	mapping := []floeparquet.MappedField{
		{ID: 1, Names: []string{"id", "ident"}},
		{ID: 2, Names: []string{"b"}},
		{ID: 3, Names: []string{"where"}, Fields: []floeparquet.MappedField{{ID: 4, Names: []string{"city"}}}},
	}
	src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema, FieldIDs: ids, NameMapping: mapping})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := fmt.Sprint(sourcetest.ReadAll(t, src, schema)); got != "[[1 Oslo one] [2 Lima two]]" {
		t.Fatalf("rows %s, want [[1 Oslo one] [2 Lima two]]", got)
	}

	// A field the mapping does not name (added after the file was
	// written) is a column mismatch, as a missing field id is.
	short := mapping[:2]
	_, err = floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema, FieldIDs: ids, NameMapping: short})
	if !errors.Is(err, segments.ErrColumnMismatch) || !strings.Contains(err.Error(), "field id 4") || !strings.Contains(err.Error(), "column city") {
		t.Fatalf("unmapped field: err = %v", err)
	}
	// Without a mapping the file has no field ids to bind.
	_, err = floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema, FieldIDs: ids})
	if !errors.Is(err, segments.ErrColumnMismatch) {
		t.Fatalf("no mapping: err = %v", err)
	}

	// A file with field ids is bound by its ids, whatever the mapping says.
	tagged := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "ids.parquet"), []idTaggedRow{{1, "one"}, {2, "two"}})
	two := &spec.Schema{Name: "t", Fields: schema.Fields[:1]}
	wrong := []floeparquet.MappedField{{ID: 7, Names: []string{"b"}}}
	src, err = floeparquet.OpenFile(t.Context(), tagged, floeparquet.Config{Schema: two, FieldIDs: map[string]int{"id": 7}, NameMapping: wrong})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := fmt.Sprint(sourcetest.ReadAll(t, src, two)); got != "[[1] [2]]" {
		t.Fatalf("file with ids: rows %s, want [[1] [2]]", got)
	}
}
