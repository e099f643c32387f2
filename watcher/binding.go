package watcher

import (
	"context"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

// binding is how a build reads the Pinot schema's columns from a
// snapshot: each column reads the Iceberg field id the table record binds
// it to (checkpoint.Table.FieldIDs), so a renamed field keeps feeding its
// column; a column without a binding reads the field of its name. A
// column no field feeds is written null: its field was dropped (from the
// table's current schema, which every reader of the table reads with, even
// when no data was committed since: readSchema), it is newer than the
// snapshot, or it never had one.
type binding struct {
	read  *spec.Schema      // the columns a field of the snapshot feeds, in schema order
	ids   map[string]int    // their field ids
	paths map[string]string // their Arrow column paths in a scan of the snapshot
	full  *spec.Schema      // every column; set only when some are written null
	// names finds the field ids in a data file written without them
	// (add_files, a migrated table): the table's name mapping, else the
	// snapshot schema's names.
	names []floeparquet.MappedField
}

// bindSnapshot binds req.Schema to the snapshot it builds: a column is
// fed by its field when both the table's current schema and the
// snapshot's schema have it; it is read under the snapshot's names (an
// Iceberg scan of a snapshot projects its schema).
func bindSnapshot(req BuildRequest) binding {
	sc := snapshotSchemaOf(req.Source, req.SnapshotID)
	cur := readSchema(req.Source)
	b := binding{read: &spec.Schema{Name: req.Schema.Name, EnableColumnNullHandle: req.Schema.EnableColumnNullHandle},
		ids: map[string]int{}, paths: map[string]string{}, names: nameMapping(req.Source, sc)}
	for _, f := range req.Schema.Fields {
		id, ok := req.Table.FieldIDs[f.Name]
		if !ok {
			if nf, found := sc.FindFieldByName(f.Name); found {
				id, ok = nf.ID, true
			}
		}
		path, fed := "", false
		if _, live := cur.FindFieldByID(id); ok && live {
			path, fed = sc.FindColumnName(id)
		}
		if !fed {
			b.full = req.Schema
			continue
		}
		b.read.Fields = append(b.read.Fields, f)
		b.ids[f.Name], b.paths[f.Name] = id, path
	}
	return b
}

// nameMapping is the table's name mapping (schema.name-mapping.default),
// or, when it has none, one that maps each field of sc by its name.
func nameMapping(tbl *table.Table, sc *iceberg.Schema) []floeparquet.MappedField {
	nm := tbl.NameMapping()
	if nm == nil {
		nm = sc.NameMapping()
	}
	return mappedFields(nm)
}

func mappedFields(fields []iceberg.MappedField) []floeparquet.MappedField {
	if len(fields) == 0 {
		return nil
	}
	out := make([]floeparquet.MappedField, len(fields))
	for i, f := range fields {
		out[i] = floeparquet.MappedField{ID: f.ID(), Names: f.Names, Fields: mappedFields(f.Fields)}
	}
	return out
}

// snapshotSchemaOf is the schema the snapshot was written with (the
// table's current one when the metadata no longer has it).
func snapshotSchemaOf(tbl *table.Table, snapshotID int64) *iceberg.Schema {
	if snap := tbl.SnapshotByID(snapshotID); snap != nil && snap.SchemaID != nil {
		for _, s := range tbl.Metadata().Schemas() {
			if s.ID == *snap.SchemaID {
				return s
			}
		}
	}
	return tbl.Schema()
}

// wrap returns src, which yields the bound columns, as a source of every
// column of the schema: columns no field feeds are null in every row.
func (b binding) wrap(src segments.Source) segments.Source {
	if b.full == nil {
		return src
	}
	n := &nullFill{Source: src, fields: b.full.Fields, pos: make([]int, len(b.full.Fields))}
	read := map[string]int{}
	for i, f := range b.read.Fields {
		read[f.Name] = i
	}
	for i, f := range b.full.Fields {
		n.pos[i] = -1
		if j, ok := read[f.Name]; ok {
			n.pos[i] = j
		}
	}
	return n
}

// nullFill adds all-null columns to the batches of a source.
type nullFill struct {
	segments.Source
	fields []spec.FieldSpec
	pos    []int // each field's column in the source's batches, -1 for null
	batch  segments.Batch
	nulls  map[int]segments.Vector // by field index, for the current row count
	rows   int
}

// Next returns the source's next batch with the null columns in place.
func (n *nullFill) Next(ctx context.Context) (*segments.Batch, error) {
	b, err := n.Source.Next(ctx)
	if err != nil {
		return nil, err
	}
	if b.Rows != n.rows {
		n.nulls, n.rows = map[int]segments.Vector{}, b.Rows
	}
	n.batch.Rows = b.Rows
	n.batch.Columns = n.batch.Columns[:0]
	for i, f := range n.fields {
		if p := n.pos[i]; p >= 0 {
			n.batch.Columns = append(n.batch.Columns, b.Columns[p])
			continue
		}
		v, ok := n.nulls[i]
		if !ok {
			v = nullVector(f, b.Rows)
			n.nulls[i] = v
		}
		n.batch.Columns = append(n.batch.Columns, v)
	}
	return &n.batch, nil
}

// nullVector is rows nulls of the field's stored type.
func nullVector(f spec.FieldSpec, rows int) segments.Vector {
	v := segments.Vector{Nulls: make([]bool, rows)}
	for i := range v.Nulls {
		v.Nulls[i] = true
	}
	if !f.SingleValue {
		v.Offsets = make([]int32, rows+1)
		rows = 0
	}
	switch f.DataType.StoredType() {
	case spec.Int:
		v.Ints = make([]int32, rows)
	case spec.Long:
		v.Longs = make([]int64, rows)
	case spec.Float:
		v.Floats = make([]float32, rows)
	case spec.Double:
		v.Doubles = make([]float64, rows)
	case spec.BigDecimal:
		v.Decimals = make([]segments.Decimal, rows)
	default:
		v.Bytes = make([][]byte, rows)
	}
	return v
}
