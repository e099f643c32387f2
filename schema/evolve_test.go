package schema_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// baseFields is the "old" schema of the evolution tests; each case edits a
// copy.
func baseFields() []iceberg.NestedField {
	P := iceberg.PrimitiveTypes
	return []iceberg.NestedField{
		{ID: 1, Name: "id", Type: P.Int64, Required: true},
		{ID: 2, Name: "i", Type: P.Int32},
		{ID: 3, Name: "f", Type: P.Float32},
		{ID: 4, Name: "amount", Type: iceberg.DecimalTypeOf(10, 2)},
		{ID: 5, Name: "name", Type: P.String, Required: true},
		{ID: 6, Name: "ts", Type: P.TimestampTz},
		{ID: 7, Name: "addr", Type: structOf(
			iceberg.NestedField{ID: 8, Name: "street", Type: P.String},
			iceberg.NestedField{ID: 9, Name: "n", Type: P.Int32},
			iceberg.NestedField{ID: 10, Name: "w", Type: P.Float32})},
		{ID: 11, Name: "nums", Type: &iceberg.ListType{ElementID: 12, Element: P.Int32, ElementRequired: true}},
		{ID: 13, Name: "u", Type: P.Unknown},
	}
}

func edit(fields []iceberg.NestedField, id int, fn func(*iceberg.NestedField)) []iceberg.NestedField {
	out := slices.Clone(fields)
	for i := range out {
		if out[i].ID == id {
			fn(&out[i])
		}
	}
	return out
}

func drop(fields []iceberg.NestedField, id int) []iceberg.NestedField {
	return slices.DeleteFunc(slices.Clone(fields), func(f iceberg.NestedField) bool { return f.ID == id })
}

func withAddr(fields []iceberg.NestedField, children ...iceberg.NestedField) []iceberg.NestedField {
	return edit(fields, 7, func(f *iceberg.NestedField) { f.Type = structOf(children...) })
}

func addrChildren() []iceberg.NestedField {
	return slices.Clone(baseFields()[6].Type.(*iceberg.StructType).FieldList)
}

func TestEvolve(t *testing.T) {
	P := iceberg.PrimitiveTypes
	base := baseFields()
	kids := addrChildren()
	tests := []struct {
		name    string
		new     []iceberg.NestedField
		ov      map[string]schema.Override // the overrides the Pinot schema was created with
		newOv   map[string]schema.Override // overrides for new columns
		kind    schema.ChangeKind
		added   []string
		relaxed []string
		dropped []string
		mention []string
	}{
		{name: "unchanged", new: base, kind: schema.None},
		{name: "doc only", new: edit(base, 2, func(f *iceberg.NestedField) { f.Doc = "count" }), kind: schema.None},
		{name: "add optional column", new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.String}),
			kind: schema.AddColumns, added: []string{"extra"}, mention: []string{`"extra" added`}},
		{name: "add column with initial default", new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int32, InitialDefault: int32(7)}),
			kind: schema.Rebuild, added: []string{"extra"}, mention: []string{"initial default 7"}},
		{name: "add required column", new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int32, Required: true}),
			kind: schema.Rebuild, added: []string{"extra"}, mention: []string{"required"}},
		{name: "rename", new: edit(base, 2, func(f *iceberg.NestedField) { f.Name = "count" }),
			kind: schema.None, mention: []string{`"i"`, `"count"`, "field id 2", "renamed", "keeps its name"}},
		{name: "rename a flattened struct", new: edit(base, 7, func(f *iceberg.NestedField) { f.Name = "address" }),
			ov: map[string]schema.Override{"addr": {Flatten: true}}, kind: schema.None, mention: []string{`"addr.street"`, `"address.street"`}},
		{name: "drop optional", new: drop(base, 3), kind: schema.Rebuild, dropped: []string{"f"}, mention: []string{`"f"`, "dropped"}},
		{name: "drop required", new: drop(base, 5), kind: schema.Fail, mention: []string{`"name"`, "dropped", "notNull"}},
		{name: "promote int to long", new: edit(base, 2, func(f *iceberg.NestedField) { f.Type = P.Int64 }),
			kind: schema.Fail, mention: []string{`"i"`, "INT", "LONG", "delete the table in floe", "may only add columns", "override i=LONG"}},
		{name: "promote int to long, column already LONG", new: edit(base, 2, func(f *iceberg.NestedField) { f.Type = P.Int64 }),
			ov: map[string]schema.Override{"i": {DataType: spec.Long}}, kind: schema.None},
		{name: "promote float to double", new: edit(base, 3, func(f *iceberg.NestedField) { f.Type = P.Float64 }),
			kind: schema.Fail, mention: []string{`"f"`, "FLOAT", "DOUBLE", "override f=DOUBLE", "delete the table in floe", "may only add columns", "other tables expected to widen"}},
		{name: "promote float to double, column already DOUBLE", new: edit(base, 3, func(f *iceberg.NestedField) { f.Type = P.Float64 }),
			ov: map[string]schema.Override{"f": {DataType: spec.Double}}, kind: schema.None},
		{name: "widen decimal", new: edit(base, 4, func(f *iceberg.NestedField) { f.Type = iceberg.DecimalTypeOf(20, 2) }), kind: schema.None},
		{name: "required to optional", new: edit(base, 5, func(f *iceberg.NestedField) { f.Required = false }),
			kind: schema.AddColumns, relaxed: []string{"name"}, mention: []string{"optional"}},
		{name: "type change", new: edit(base, 5, func(f *iceberg.NestedField) { f.Type = P.Binary }),
			kind: schema.Fail, mention: []string{`"name"`, "BYTES", "STRING"}},
		{name: "list element promoted", new: edit(base, 11, func(f *iceberg.NestedField) {
			f.Type = &iceberg.ListType{ElementID: 12, Element: P.Int64, ElementRequired: true}
		}), kind: schema.Fail, mention: []string{`"nums"`, "multi-value"}},
		{name: "unknown promoted", new: edit(base, 13, func(f *iceberg.NestedField) { f.Type = P.String }),
			kind: schema.AddColumns, added: []string{"u"}},
		{name: "field replaced under the same name", new: append(drop(base, 6), iceberg.NestedField{ID: 21, Name: "ts", Type: P.TimestampTz}),
			kind: schema.Rebuild, mention: []string{"field id 21 instead of 6"}},
		{name: "JSON struct: optional child added", new: withAddr(base, append(slices.Clone(kids), iceberg.NestedField{ID: 22, Name: "zip", Type: P.String})...),
			kind: schema.None},
		{name: "JSON struct: child renamed", new: withAddr(base, edit(kids, 8, func(f *iceberg.NestedField) { f.Name = "road" })...),
			kind: schema.Rebuild, mention: []string{"addr.street was renamed to road"}},
		{name: "JSON struct: child dropped", new: withAddr(base, drop(kids, 9)...),
			kind: schema.Rebuild, mention: []string{"addr.n was dropped"}},
		{name: "JSON struct: int child promoted", new: withAddr(base, edit(kids, 9, func(f *iceberg.NestedField) { f.Type = P.Int64 })...),
			kind: schema.None},
		{name: "JSON struct: float child promoted", new: withAddr(base, edit(kids, 10, func(f *iceberg.NestedField) { f.Type = P.Float64 })...),
			kind: schema.Rebuild, mention: []string{"addr.w changed from float to double"}},
		{name: "flattened struct: child added", new: withAddr(base, append(slices.Clone(kids), iceberg.NestedField{ID: 22, Name: "zip", Type: P.String})...),
			ov: map[string]schema.Override{"addr": {Flatten: true}}, kind: schema.AddColumns, added: []string{"addr.zip"}},
		{name: "override for a new column", new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int64}),
			newOv: map[string]schema.Override{"extra": {FieldType: spec.Metric}}, kind: schema.AddColumns, added: []string{"extra"}},
		{name: "overridden field type kept through a rename", new: edit(base, 2, func(f *iceberg.NestedField) { f.Name = "count" }),
			ov: map[string]schema.Override{"i": {FieldType: spec.Metric}}, kind: schema.None, mention: []string{"renamed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := iceberg.NewSchema(0, base...)
			cur, err := schema.Infer(old, schema.Options{Name: "t", Overrides: tt.ov})
			if err != nil {
				t.Fatal(err)
			}
			ch, err := schema.Evolve(old, iceberg.NewSchema(1, tt.new...), cur.Schema, nil, schema.Options{Overrides: tt.newOv})
			if err != nil {
				t.Fatal(err)
			}
			checkChange(t, ch, cur.Schema, tt.kind, tt.added, tt.relaxed, tt.dropped, tt.mention)
		})
	}
}

func checkChange(t *testing.T, ch schema.Change, cur *spec.Schema, kind schema.ChangeKind, added, relaxed, dropped, mention []string) {
	t.Helper()
	if ch.Kind != kind {
		t.Fatalf("kind = %s, want %s (reason: %s)", ch.Kind, kind, ch.Reason)
	}
	var names []string
	for _, f := range ch.Added {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, added) || !slices.Equal(ch.Relaxed, relaxed) || !slices.Equal(ch.Dropped, dropped) {
		t.Errorf("added %v relaxed %v dropped %v, want %v %v %v", names, ch.Relaxed, ch.Dropped, added, relaxed, dropped)
	}
	for _, m := range mention {
		if !strings.Contains(ch.Reason, m) {
			t.Errorf("reason %q does not mention %s", ch.Reason, m)
		}
	}
	err := ch.Err()
	if (kind == schema.Fail) != errors.Is(err, schema.ErrIncompatibleChange) {
		t.Errorf("Err() = %v for kind %s", err, kind)
	}
	switch kind {
	case schema.AddColumns, schema.Rebuild:
		if ch.Schema == nil || len(ch.Schema.Fields) != len(cur.Fields)+len(added) {
			t.Fatalf("schema to push = %+v", ch.Schema)
		}
		for _, f := range cur.Fields {
			got, ok := ch.Schema.Field(f.Name)
			if !ok || got.DataType != f.DataType || got.SingleValue != f.SingleValue {
				t.Errorf("column %s changed or lost in the pushed schema: %+v", f.Name, got)
			}
			if want := f.NotNull && !slices.Contains(relaxed, f.Name); got.NotNull != want {
				t.Errorf("column %s notNull = %v", f.Name, got.NotNull)
			}
		}
	default:
		if ch.Schema != nil {
			t.Errorf("kind %s carries a schema to push", kind)
		}
	}
}

// TestEvolve_columnFloeDoesNotFeed: a Pinot column no Iceberg field ever
// fed (added by hand) stays and is reported, without a rebuild.
func TestEvolve_columnFloeDoesNotFeed(t *testing.T) {
	old := iceberg.NewSchema(0, baseFields()...)
	cur, err := schema.Infer(old, schema.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	cur.Schema.Fields = append(cur.Schema.Fields, spec.FieldSpec{Name: "manual", DataType: spec.String,
		FieldType: spec.Dimension, SingleValue: true})
	ch, err := schema.Evolve(old, old, cur.Schema, nil, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Kind != schema.None || !slices.Equal(ch.Dropped, []string{"manual"}) || !strings.Contains(ch.Reason, `"manual"`) {
		t.Errorf("change = %+v", ch)
	}
}

func TestEvolve_errors(t *testing.T) {
	old := iceberg.NewSchema(0, baseFields()...)
	cur, err := schema.Infer(old, schema.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Evolve(nil, old, cur.Schema, nil, schema.Options{}); err == nil {
		t.Error("nil old schema: no error")
	}
	bad := iceberg.NewSchema(1, append(baseFields(), iceberg.NestedField{ID: 30, Name: "a b", Type: iceberg.PrimitiveTypes.Int32})...)
	ch, err := schema.Evolve(old, bad, cur.Schema, nil, schema.Options{})
	if err != nil || ch.Kind != schema.None || !strings.Contains(ch.Reason, `"a b"`) {
		t.Errorf("a new field Pinot cannot name: change %+v, err %v; want it left out and reported", ch, err)
	}
}

// TestEvolve_bindings: columns read their Iceberg field by id across runs
// (the bindings a run records), and what was half done stays to be done.
func TestEvolve_bindings(t *testing.T) {
	P := iceberg.PrimitiveTypes
	base := baseFields()
	renamed := edit(base, 2, func(f *iceberg.NestedField) { f.Name = "count" })
	baseCur := func(t *testing.T) *spec.Schema {
		t.Helper()
		res, err := schema.Infer(iceberg.NewSchema(0, base...), schema.Options{Name: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Schema
	}
	ids := func(extra map[string]int) map[string]int {
		out := map[string]int{"id": 1, "i": 2, "f": 3, "amount": 4, "name": 5, "ts": 6, "addr": 7, "nums": 11}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name     string
		old, new []iceberg.NestedField
		cur      func(*testing.T) *spec.Schema
		fieldIDs map[string]int
		kind     schema.ChangeKind
		bound    map[string]int // bindings the change must hold (subset)
		mention  []string
		silent   bool // the reason must be empty
	}{
		{name: "rename already synced", old: renamed, new: renamed, cur: baseCur, fieldIDs: ids(nil),
			kind: schema.None, bound: map[string]int{"i": 2}, silent: true},
		{name: "new field takes a renamed column's name", old: renamed,
			new: append(slices.Clone(renamed), iceberg.NestedField{ID: 20, Name: "i", Type: P.Int32}),
			cur: baseCur, fieldIDs: ids(nil), kind: schema.Fail, mention: []string{`"i"`, "field id 20", "two columns"}},
		{name: "dropped column keeps its binding", old: base, new: drop(base, 3), cur: baseCur, fieldIDs: ids(nil),
			kind: schema.Rebuild, bound: map[string]int{"f": 3}},
		{name: "dropped column after its rebuild", old: drop(base, 3), new: drop(base, 3), cur: baseCur, fieldIDs: ids(nil),
			kind: schema.None, bound: map[string]int{"f": 3}, mention: []string{`"f"`, "no longer exists"}},
		{name: "column added with a default, pushed but not committed", old: base,
			new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int32, InitialDefault: int32(7)}),
			cur: func(t *testing.T) *spec.Schema {
				s := baseCur(t)
				s.Fields = append(s.Fields, spec.FieldSpec{Name: "extra", DataType: spec.Int, FieldType: spec.Dimension, SingleValue: true})
				return s
			}, fieldIDs: ids(map[string]int{"extra": 20}), kind: schema.Rebuild, mention: []string{"initial default 7"}},
		{name: "column added without a default, pushed but not committed", old: base,
			new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int32}),
			cur: func(t *testing.T) *spec.Schema {
				s := baseCur(t)
				s.Fields = append(s.Fields, spec.FieldSpec{Name: "extra", DataType: spec.Int, FieldType: spec.Dimension, SingleValue: true})
				return s
			}, fieldIDs: ids(map[string]int{"extra": 20}), kind: schema.None, bound: map[string]int{"extra": 20}},
		{name: "column nothing fed gets a field", old: base,
			new: append(slices.Clone(base), iceberg.NestedField{ID: 30, Name: "manual", Type: P.String}),
			cur: func(t *testing.T) *spec.Schema {
				s := baseCur(t)
				s.Fields = append(s.Fields, spec.FieldSpec{Name: "manual", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true})
				return s
			}, fieldIDs: ids(nil), kind: schema.None, bound: map[string]int{"manual": 30}, mention: []string{`"manual"`, "field id 30"}},
		{name: "a column the user left out stays out", old: base,
			new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int32}),
			cur: func(t *testing.T) *spec.Schema {
				s := baseCur(t)
				s.Fields = slices.DeleteFunc(s.Fields, func(f spec.FieldSpec) bool { return f.Name == "name" })
				return s
			}, kind: schema.AddColumns, mention: []string{`"name" has no Pinot column`, `"extra" added`}},
		{name: "a column the user declared differently stays as declared", old: base,
			new: append(slices.Clone(base), iceberg.NestedField{ID: 20, Name: "extra", Type: P.Int32}),
			cur: func(t *testing.T) *spec.Schema {
				s := baseCur(t)
				for i, f := range s.Fields {
					if f.Name == "ts" {
						s.Fields[i].Granularity = "1:HOURS"
					}
				}
				return s
			}, kind: schema.AddColumns, mention: []string{`"extra" added`}},
		{name: "first run: nothing to compare with", old: base, new: base,
			cur: func(t *testing.T) *spec.Schema {
				s := baseCur(t)
				s.Fields = slices.DeleteFunc(s.Fields, func(f spec.FieldSpec) bool { return f.Name == "name" })
				return s
			}, kind: schema.None, bound: map[string]int{"i": 2, "addr": 7}, silent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := schema.Evolve(iceberg.NewSchema(0, tt.old...), iceberg.NewSchema(1, tt.new...), tt.cur(t), tt.fieldIDs, schema.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ch.Kind != tt.kind {
				t.Fatalf("kind = %s, want %s (reason: %s)", ch.Kind, tt.kind, ch.Reason)
			}
			for col, id := range tt.bound {
				if got, ok := ch.FieldIDs[col]; !ok || got != id {
					t.Errorf("column %q binds to %d (%v), want field id %d", col, got, ok, id)
				}
			}
			for _, m := range tt.mention {
				if !strings.Contains(ch.Reason, m) {
					t.Errorf("reason %q does not mention %s", ch.Reason, m)
				}
			}
			if tt.silent && ch.Reason != "" {
				t.Errorf("reason %q, want none", ch.Reason)
			}
		})
	}
}
