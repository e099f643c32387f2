package parquet

import (
	"slices"

	"github.com/parquet-go/parquet-go"
)

// MappedField assigns an Iceberg field id to the Parquet columns of a file
// written without field ids, by name, as an Iceberg table's name mapping
// (the table property schema.name-mapping.default) does: a column at this
// level whose name is one of Names has field id ID, and its children are
// mapped by Fields. A file that carries field ids is never mapped.
type MappedField struct {
	ID     int
	Names  []string
	Fields []MappedField
}

// hasFieldIDs reports whether any column of the file carries a field id
// (Iceberg assigns ids from 1; a column without one reads 0).
func (ft *footer) hasFieldIDs() bool {
	for i, el := range ft.md.Schema {
		if i > 0 && el.FieldID != 0 {
			return true
		}
	}
	return false
}

// findMapped walks the file's columns along the name mapping for the node
// with field id id; nil when the mapping or the file lacks it.
func findMapped(node *parquet.Column, mapping []MappedField, id int, names []string) (*parquet.Column, []string) {
	for _, mf := range mapping {
		for _, c := range node.Columns() {
			if !slices.Contains(mf.Names, c.Name()) {
				continue
			}
			path := append(slices.Clone(names), c.Name())
			if mf.ID == id {
				return c, path
			}
			if found, p := findMapped(c, mf.Fields, id, path); found != nil {
				return found, p
			}
		}
	}
	return nil, nil
}
