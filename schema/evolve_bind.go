package schema

import (
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
)

// bindColumns returns the Iceberg field id each Pinot column reads: its
// entry in fieldIDs, else the field of the same name in old (a table that
// never recorded its bindings). Columns no field feeds are left out.
func bindColumns(current *spec.Schema, fieldIDs map[string]int, old *iceberg.Schema) map[string]int {
	out := make(map[string]int, len(current.Fields))
	for _, f := range current.Fields {
		if id, ok := fieldIDs[f.Name]; ok {
			out[f.Name] = id
			continue
		}
		if nf, ok := old.FindFieldByName(f.Name); ok {
			out[f.Name] = nf.ID
		}
	}
	return out
}

// fieldPaths maps every field id reachable through structs to its names
// from the top level down.
func fieldPaths(s *iceberg.Schema) map[int][]string {
	out := map[int][]string{}
	var walk func(fields []iceberg.NestedField, parent []string)
	walk = func(fields []iceberg.NestedField, parent []string) {
		for _, f := range fields {
			path := append(append([]string(nil), parent...), f.Name)
			out[f.ID] = path
			if st, ok := f.Type.(*iceberg.StructType); ok {
				walk(st.FieldList, path)
			}
		}
	}
	walk(s.Fields(), nil)
	return out
}

// keptOverrides are the overrides that make the inference of the new
// schema choose, for every Pinot column still fed, what the Pinot column
// already is: its data type, field type and time unit (a schema the user
// overrode at creation keeps its choices), and Flatten on every struct
// above a column that reads a nested field. Keys are the new schema's
// names, so a renamed field keeps its column's choices. A choice the new
// Iceberg type does not allow (an INT column whose field became long) is
// left to the inference, which then reports the conflict. Overrides in
// explicit win.
func keptOverrides(current *spec.Schema, bound map[string]int, s *iceberg.Schema, explicit map[string]Override) map[string]Override {
	out := map[string]Override{}
	paths := fieldPaths(s)
	for _, f := range current.Fields {
		id, ok := bound[f.Name]
		path, found := paths[id]
		if !ok || !found {
			continue
		}
		for i := 1; i < len(path); i++ {
			out[strings.Join(path[:i], ".")] = Override{Flatten: true}
		}
		nf, _ := s.FindFieldByID(id)
		if o, ok := keptOverride(f, nf, strings.Join(path, ".")); ok {
			out[strings.Join(path, ".")] = o
		}
	}
	for name, o := range explicit {
		out[name] = o
	}
	return out
}

// keptOverride is the override that keeps column f's choices for field nf,
// or false when the field's type allows none of them.
func keptOverride(f spec.FieldSpec, nf iceberg.NestedField, name string) (Override, bool) {
	r, err := RuleFor(nf.Type)
	if err != nil || r.Skip || r.Encoding == EncodeJSON {
		return Override{}, false
	}
	o := Override{DataType: f.DataType, FieldType: f.FieldType, TimeUnit: formatUnit(f)}
	for _, try := range []Override{o, {FieldType: o.FieldType, TimeUnit: o.TimeUnit}, {FieldType: o.FieldType}} {
		if _, _, _, err := resolve(name, r, try); err == nil {
			return try, true
		}
	}
	return Override{}, false
}

// formatUnit is the epoch unit of an INT or LONG DATE_TIME column
// ("1:SECONDS:EPOCH" → SECONDS), else "".
func formatUnit(f spec.FieldSpec) string {
	if f.FieldType != spec.DateTime || f.DataType == spec.Timestamp {
		return ""
	}
	parts := strings.Split(f.Format, ":")
	if len(parts) == 3 && parts[2] == "EPOCH" {
		return parts[1]
	}
	return ""
}

// mappedIn reports whether field id had a Pinot column in s: it exists
// there with a type that maps to one (not unknown, not unmappable).
func mappedIn(s *iceberg.Schema, id int) bool {
	f, ok := s.FindFieldByID(id)
	if !ok {
		return false
	}
	r, err := RuleFor(f.Type)
	return err == nil && !r.Skip
}
