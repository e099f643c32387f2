package parquet

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// pqBinding is one Pinot column bound to the Parquet column that feeds it:
// a primitive leaf (scalar, or the element of a list of primitives), or a
// nested field rendered as JSON.
type pqBinding struct {
	field  spec.FieldSpec
	src    convert.Type
	leaf   *parquet.Column // primitive leaf; nil for nested fields
	top    int             // nested: index of the top-level field
	sub    []string        // nested: struct field names below the top-level field
	source string          // the Parquet path, for errors
}

// resolveParquetPath finds the node a dotted path names, matching the
// longest dotted prefix at each level so names with dots still resolve.
// It returns the node and the names walked.
func resolveParquetPath(root *parquet.Column, path string) (*parquet.Column, []string, error) {
	node, rest := root, path
	var names []string
	for rest != "" {
		var best *parquet.Column
		for _, c := range node.Columns() {
			n := c.Name()
			if (rest == n || strings.HasPrefix(rest, n+".")) && (best == nil || len(n) > len(best.Name())) {
				best = c
			}
		}
		if best == nil {
			return nil, nil, fmt.Errorf("%w: no Parquet column %q", segments.ErrColumnMismatch, path)
		}
		names = append(names, best.Name())
		node = best
		rest = strings.TrimPrefix(rest[len(best.Name()):], ".")
	}
	if node == root {
		return nil, nil, fmt.Errorf("%w: empty Parquet column path", segments.ErrColumnMismatch)
	}
	return node, names, nil
}

// listElementLeaf returns the primitive element leaf of a LIST group (the
// 3-level form and the legacy 2-level form), or nil when the elements are
// not primitives.
func listElementLeaf(node *parquet.Column) *parquet.Column {
	if node.Leaf() || !isLogical[*format.ListType](node) || len(node.Columns()) != 1 {
		return nil
	}
	rep := node.Columns()[0]
	if rep.Leaf() {
		if rep.Repeated() {
			return rep
		}
		return nil
	}
	if !rep.Repeated() || len(rep.Columns()) != 1 || !rep.Columns()[0].Leaf() {
		return nil
	}
	return rep.Columns()[0]
}

func isLogical[T any](c *parquet.Column) bool {
	lt := c.Type().LogicalType()
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(T)
	return ok
}

// classifyParquet describes the node a Pinot column binds to.
func classifyParquet(ft *footer, node *parquet.Column, names []string) (pqBinding, error) {
	root := ft.root
	b := pqBinding{source: strings.Join(names, ".")}
	leaf := node
	if !node.Leaf() {
		leaf = listElementLeaf(node)
	}
	if leaf != nil && leaf.MaxRepetitionLevel() <= 1 {
		el, _ := ft.element(leaf)
		st, err := parquetLeafType(leaf, el)
		if err != nil {
			return b, err
		}
		st.Repeated = leaf.MaxRepetitionLevel() == 1
		b.src, b.leaf = st, leaf
		return b, nil
	}
	if leaf != nil || hasRepeatedAncestor(root, names) {
		return b, fmt.Errorf("%w: Parquet column %s is nested inside a list", segments.ErrUnsupportedSourceType, b.source)
	}
	for i, c := range root.Columns() {
		if c.Name() == names[0] {
			b.top = i
		}
	}
	b.sub = names[1:]
	b.src = convert.Type{Kind: convert.KindNested, Desc: "Parquet group " + node.Type().String()}
	return b, nil
}

// hasRepeatedAncestor reports whether any node on the path is repeated.
func hasRepeatedAncestor(root *parquet.Column, names []string) bool {
	node := root
	for _, n := range names {
		node = node.Column(n)
		if node == nil || node.Repeated() {
			return true
		}
	}
	return false
}

// bindParquet binds every field of schema to the file's columns: by field
// id, else by the path in columns, else by name.
func bindParquet(ft *footer, cfg Config) ([]pqBinding, error) {
	var mapping []MappedField
	if len(cfg.FieldIDs) > 0 && cfg.NameMapping != nil && !ft.hasFieldIDs() {
		mapping = cfg.NameMapping
	}
	var out []pqBinding
	for _, f := range cfg.Schema.Fields {
		node, names, err := resolveBinding(ft.root, f.Name, cfg.Columns, cfg.FieldIDs, mapping)
		if err == nil {
			var b pqBinding
			if b, err = bindParquetNode(ft, f, node, names); err == nil {
				out = append(out, b)
				continue
			}
		}
		return nil, &segments.SourceError{Column: f.Name, Err: err}
	}
	return out, nil
}

// resolveBinding finds the node a Pinot column reads.
// With a name mapping (a file without field ids) a field id is found by
// the mapping's names instead of the file's ids.
func resolveBinding(root *parquet.Column, name string, columns map[string]string, ids map[string]int, mapping []MappedField) (*parquet.Column, []string, error) {
	if id, ok := ids[name]; ok {
		if mapping != nil {
			if node, names := findMapped(root, mapping, id, nil); node != nil {
				return node, names, nil
			}
			return nil, nil, fmt.Errorf("%w: no Parquet column the name mapping gives field id %d", segments.ErrColumnMismatch, id)
		}
		if node, names := findFieldID(root, id, nil); node != nil {
			return node, names, nil
		}
		return nil, nil, fmt.Errorf("%w: no Parquet column with field id %d", segments.ErrColumnMismatch, id)
	}
	path := name
	if p, ok := columns[name]; ok {
		path = p
	}
	return resolveParquetPath(root, path)
}

// findFieldID walks the schema for the node with field id id.
func findFieldID(node *parquet.Column, id int, names []string) (*parquet.Column, []string) {
	for _, c := range node.Columns() {
		path := append(slices.Clone(names), c.Name())
		if c.ID() == id {
			return c, path
		}
		if found, p := findFieldID(c, id, path); found != nil {
			return found, p
		}
	}
	return nil, nil
}

func bindParquetNode(ft *footer, f spec.FieldSpec, node *parquet.Column, names []string) (pqBinding, error) {
	b, err := classifyParquet(ft, node, names)
	if err != nil {
		return pqBinding{}, err
	}
	b.field = f
	if err := convert.Check(b.src, f); err != nil {
		return pqBinding{}, fmt.Errorf("read Parquet column %s: %w", b.source, err)
	}
	return b, nil
}

// Inferred is a Pinot schema inferred from a Parquet file.
type Inferred struct {
	Schema *spec.Schema
	// Columns maps a renamed Pinot column to its Parquet column, as
	// Config.Columns takes it.
	Columns map[string]string
	// Skipped holds one *segments.SourceError per top-level Parquet field
	// that got no Pinot column (a type floe does not read, or a name Pinot
	// rejects and no rename), for the caller to show as warnings.
	Skipped []error
}

// InferSchema derives a plain Pinot schema from a Parquet file's
// columns, one Pinot column per top-level Parquet field:
//
//   - BOOLEAN → BOOLEAN; INT32 and narrower integers → INT; INT64 and
//     UINT32 → LONG; FLOAT16, FLOAT → FLOAT; DOUBLE → DOUBLE;
//   - STRING, ENUM, JSON-annotated and UUID → STRING; other binaries,
//     fixed and geometry/geography → BYTES; DECIMAL → BIG_DECIMAL;
//   - DATE → INT (days since epoch); TIME → LONG (microseconds);
//     TIMESTAMP (any unit) and INT96 → TIMESTAMP (epoch millis);
//   - a list of primitives → a multi-value column of the element's type;
//     structs, maps, variants and lists of non-primitives → JSON.
//
// rename maps a Parquet field name to the Pinot column name it gets
// (for names Pinot rejects, such as "a b" or "a:b"). A field that cannot
// become a Pinot column is skipped and reported in Inferred.Skipped.
//
// Every column is a DIMENSION, except timeColumn (a Pinot name, if set),
// which becomes a DATE_TIME column (TIMESTAMP: 1:MILLISECONDS:TIMESTAMP;
// LONG: 1:MILLISECONDS:EPOCH; INT: 1:DAYS:EPOCH). Column-based null
// handling is on; required Parquet columns are notNull, except lists
// (Pinot reads an empty list as null).
func InferSchema(f *parquet.File, table, timeColumn string, rename map[string]string) (*Inferred, error) {
	ft := newFooter(f)
	inf := &Inferred{Schema: &spec.Schema{Name: table, EnableColumnNullHandle: true}, Columns: map[string]string{}}
	for _, c := range ft.root.Columns() {
		name := c.Name()
		if to, ok := rename[name]; ok {
			name = to
			inf.Columns[name] = c.Name()
		}
		f, err := inferField(ft, c, name)
		if err != nil {
			inf.Skipped = append(inf.Skipped, &segments.SourceError{Column: c.Name(), Err: err})
			continue
		}
		if name == timeColumn {
			if err := makeTimeField(&f); err != nil {
				return nil, &segments.SourceError{Column: name, Err: err}
			}
		}
		inf.Schema.Fields = append(inf.Schema.Fields, f)
	}
	if len(inf.Schema.Fields) == 0 {
		return nil, fmt.Errorf("%w: no column of the file can become a Pinot column: %w", segments.ErrColumnMismatch,
			errors.Join(inf.Skipped...))
	}
	if timeColumn != "" {
		if _, ok := inf.Schema.Field(timeColumn); !ok {
			return nil, &segments.SourceError{Column: timeColumn, Err: fmt.Errorf("%w: time column not in the file", segments.ErrColumnMismatch)}
		}
	}
	return inf, nil
}

// inferField is the Pinot column a top-level Parquet field becomes.
func inferField(ft *footer, c *parquet.Column, name string) (spec.FieldSpec, error) {
	if err := checkColumnName(name); err != nil {
		return spec.FieldSpec{}, err
	}
	b, err := classifyParquet(ft, c, []string{c.Name()})
	if err != nil {
		return spec.FieldSpec{}, err
	}
	dt, err := inferredDataType(b.src)
	if err != nil {
		return spec.FieldSpec{}, err
	}
	if dt == spec.BigDecimal && b.src.Repeated {
		return spec.FieldSpec{}, fmt.Errorf("%w: a list of decimals (Pinot has no multi-value BIG_DECIMAL columns)",
			segments.ErrUnsupportedConversion)
	}
	return spec.FieldSpec{Name: name, DataType: dt, FieldType: spec.Dimension,
		SingleValue: !b.src.Repeated, NotNull: c.Required() && !b.src.Repeated}, nil
}

// checkColumnName refuses names Pinot's segment metadata cannot hold (the
// rule segments.Config.Validate applies), with the way around it.
func checkColumnName(name string) error {
	if err := segments.CheckColumnName(name); err != nil {
		return fmt.Errorf("%w: %q is not a Pinot column name (%v); rename it (floe convert --rename 'old=new')",
			segments.ErrColumnMismatch, name, err)
	}
	return nil
}

// makeTimeField turns an inferred field into the DATE_TIME time column.
func makeTimeField(f *spec.FieldSpec) error {
	if !f.SingleValue {
		return fmt.Errorf("%w: time column must be single-value", segments.ErrColumnMismatch)
	}
	switch f.DataType {
	case spec.Timestamp:
		f.Format, f.Granularity = "1:MILLISECONDS:TIMESTAMP", "1:MILLISECONDS"
	case spec.Long:
		f.Format, f.Granularity = "1:MILLISECONDS:EPOCH", "1:MILLISECONDS"
	case spec.Int:
		f.Format, f.Granularity = "1:DAYS:EPOCH", "1:DAYS"
	default:
		return fmt.Errorf("%w: time column of type %s", segments.ErrUnsupportedConversion, f.DataType)
	}
	f.FieldType = spec.DateTime
	return nil
}
