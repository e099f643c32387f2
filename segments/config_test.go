package segments_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// ConfigFor carries the table config's indexing choices into the segment
// config, and a table without a config gets none.
func TestConfigFor_tableIndexingChoices(t *testing.T) {
	sc := &spec.Schema{Name: "orders", Fields: []spec.FieldSpec{{Name: "id", DataType: spec.Long, FieldType: spec.Dimension, SingleValue: true}}}
	created := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	tc := &spec.TableConfig{
		SegmentsConfig: spec.SegmentsConfig{TimeColumnName: "ts"},
		TableIndexConfig: spec.TableIndexConfig{NoDictionaryColumns: []string{"payload"},
			InvertedIndexColumns: []string{"city"}, SortedColumn: []string{"id", "ignored"}},
	}
	got := segments.ConfigFor(sc, tc, "orders", "orders_0", created)
	want := segments.Config{Schema: sc, TableName: "orders", SegmentName: "orders_0", CreationTime: created,
		TimeColumn: "ts", NoDictionary: []string{"payload"}, Inverted: []string{"city"}, SortedColumn: "id"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ConfigFor = %+v, want %+v", got, want)
	}
	bare := segments.ConfigFor(sc, nil, "orders", "orders_0", created)
	if bare.TimeColumn != "" || bare.NoDictionary != nil || bare.Inverted != nil || bare.SortedColumn != "" {
		t.Fatalf("ConfigFor without a table config chose indexes: %+v", bare)
	}
}
