package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot"
)

// ChangeKind is what a schema change means for the Pinot table.
type ChangeKind int

// Change kinds, from harmless to fatal (the policy is in doc.go).
const (
	// None: the Pinot schema and every segment stay as they are.
	None ChangeKind = iota
	// AddColumns: a backward-compatible schema update (added columns,
	// relaxed notNull); push Change.Schema, then reload the segments.
	AddColumns
	// Rebuild: push Change.Schema, then rebuild every segment of the table.
	Rebuild
	// Fail: Pinot cannot take the change in place; the run fails with
	// Change.Err, which says what changed and how to proceed.
	Fail
)

func (k ChangeKind) String() string {
	switch k {
	case None:
		return "none"
	case AddColumns:
		return "add-columns"
	case Rebuild:
		return "rebuild"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// Change is the Pinot side of an Iceberg schema change.
type Change struct {
	Kind ChangeKind
	// Added are the new Pinot columns.
	Added []pinot.FieldSpec
	// Relaxed are columns whose notNull was dropped (field made optional).
	Relaxed []string
	// Dropped are Pinot columns no Iceberg field feeds any more. Pinot
	// cannot drop a column, so they stay in the schema and new segments
	// hold null for them.
	Dropped []string
	// Schema is the Pinot schema to push (nil for None and Fail).
	Schema *pinot.Schema
	// Result is the inference of the new Iceberg schema: the bindings to
	// build segments with.
	Result *Result
	// Reason lists every change found, one clause per change.
	Reason string
}

// Err returns nil unless Kind is Fail; then an error wrapping
// ErrIncompatibleChange that says what changed and how to proceed.
func (c Change) Err() error {
	if c.Kind != Fail {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrIncompatibleChange, c.Reason)
}

// Evolve works out the Pinot change for an Iceberg schema change from old
// to new (fields matched by id), given the Pinot schema now in Pinot. opts
// are the inference options of the table (opts.Name defaults to
// current.Name). It returns an error only for unusable input; an
// incompatible change is a Change of Kind Fail.
func Evolve(old, new *iceberg.Schema, current *pinot.Schema, opts Options) (Change, error) {
	if old == nil || new == nil || current == nil {
		return Change{}, errors.New("evolve schema: old, new and current schemas are all required")
	}
	if opts.Name == "" {
		opts.Name = current.Name
	}
	newRes, err := Infer(new, opts)
	if err != nil {
		return Change{}, fmt.Errorf("evolve schema: new Iceberg schema: %w", err)
	}
	oldOpts := opts
	oldOpts.TimeColumn, oldOpts.NoTimeColumn, oldOpts.Overrides = "", true, knownOverrides(old, opts.Overrides)
	oldRes, err := Infer(old, oldOpts)
	if err != nil {
		return Change{}, fmt.Errorf("evolve schema: old Iceberg schema: %w", err)
	}
	e := &evolver{old: old, new: new, oldRes: oldRes, newRes: newRes}
	for _, f := range current.Fields {
		e.existing(f)
	}
	for _, c := range newRes.Columns {
		if _, ok := current.Field(c.Field.Name); !ok {
			e.added(c)
		}
	}
	return e.change(current), nil
}

// knownOverrides keeps the overrides whose column exists in s (top level or
// a flattened leaf), so an override for a column added later does not make
// the old schema fail to infer.
func knownOverrides(s *iceberg.Schema, ov map[string]Override) map[string]Override {
	out := map[string]Override{}
	for name, o := range ov {
		if _, ok := s.FindFieldByName(name); ok {
			out[name] = o
		}
	}
	return out
}

type evolver struct {
	old, new       *iceberg.Schema
	oldRes, newRes *Result
	fails, rebuild []string
	notes          []string
	newCols        []pinot.FieldSpec
	relaxed        []string
	dropped        []string
}

const howToRecreate = "to proceed, delete the Pinot table and its schema and let floe rebuild it from the current snapshot"

func (e *evolver) existing(cur pinot.FieldSpec) {
	nc, ok := e.newRes.Column(cur.Name)
	if !ok {
		e.missing(cur)
		return
	}
	n := nc.Field
	if cur.DataType != n.DataType || cur.SingleValue != n.SingleValue {
		e.fails = append(e.fails, fmt.Sprintf("column %q: Iceberg field id %d is now %s, which maps to %s%s, but the Pinot column is %s%s and Pinot cannot change a column's type; %s",
			cur.Name, nc.FieldID, nc.Type, n.DataType, mvSuffix(n.SingleValue), cur.DataType, mvSuffix(cur.SingleValue), howToRecreate))
		return
	}
	if cur.FieldType != n.FieldType || cur.Format != n.Format || cur.Granularity != n.Granularity {
		e.fails = append(e.fails, fmt.Sprintf("column %q: field type %s %s is now %s %s; Pinot cannot change it in place; keep the old override or %s",
			cur.Name, cur.FieldType, cur.Format, n.FieldType, n.Format, howToRecreate))
		return
	}
	if cur.NotNull && !n.NotNull {
		e.relaxed = append(e.relaxed, cur.Name)
		e.notes = append(e.notes, fmt.Sprintf("column %q: field id %d became optional: notNull is dropped", cur.Name, nc.FieldID))
	}
	oc, ok := e.oldRes.Column(cur.Name)
	switch {
	case ok && oc.FieldID != nc.FieldID:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q is now fed by field id %d instead of %d: every segment is rebuilt",
			cur.Name, nc.FieldID, oc.FieldID))
	case ok && nc.Encoding == EncodeJSON:
		if why := nestedChange(cur.Name, oc.Type, nc.Type); why != "" {
			e.rebuild = append(e.rebuild, fmt.Sprintf("JSON column %q: %s: every segment is rebuilt so old rows match", cur.Name, why))
		}
	}
}

func (e *evolver) missing(cur pinot.FieldSpec) {
	oc, ok := e.oldRes.Column(cur.Name)
	if !ok {
		e.dropped = append(e.dropped, cur.Name)
		e.notes = append(e.notes, fmt.Sprintf("column %q is fed by no Iceberg field: it stays and holds null", cur.Name))
		return
	}
	if name, ok := e.new.FindColumnName(oc.FieldID); ok {
		e.fails = append(e.fails, fmt.Sprintf("column %q: Iceberg field id %d is now %q, which maps to other Pinot columns; Pinot cannot rename or restructure a column; rename the field back, or %s",
			cur.Name, oc.FieldID, name, howToRecreate))
		return
	}
	if cur.NotNull {
		e.fails = append(e.fails, fmt.Sprintf("column %q: Iceberg field id %d was dropped, but the Pinot column is notNull and Pinot cannot drop a column; %s",
			cur.Name, oc.FieldID, howToRecreate))
		return
	}
	e.dropped = append(e.dropped, cur.Name)
	e.rebuild = append(e.rebuild, fmt.Sprintf("column %q: Iceberg field id %d was dropped; Pinot cannot drop a column, so it stays, holds null, and every segment is rebuilt so no old values remain",
		cur.Name, oc.FieldID))
}

func (e *evolver) added(c Column) {
	e.newCols = append(e.newCols, c.Field)
	f, _ := e.new.FindFieldByID(c.FieldID)
	switch {
	case f.InitialDefault != nil:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q added with initial default %v: every segment is rebuilt so old rows hold it",
			c.Field.Name, f.InitialDefault))
	case c.Field.NotNull:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q added as required: every segment is rebuilt", c.Field.Name))
	default:
		e.notes = append(e.notes, fmt.Sprintf("column %q added", c.Field.Name))
	}
}

func (e *evolver) change(current *pinot.Schema) Change {
	ch := Change{Added: e.newCols, Relaxed: e.relaxed, Dropped: e.dropped, Result: e.newRes}
	reasons := slices.Concat(e.fails, e.rebuild, e.notes)
	ch.Reason = strings.Join(reasons, "; ")
	switch {
	case len(e.fails) > 0:
		ch.Kind = Fail
		return ch
	case len(e.rebuild) > 0:
		ch.Kind = Rebuild
	case len(e.newCols) > 0 || len(e.relaxed) > 0:
		ch.Kind = AddColumns
	default:
		ch.Kind = None
		return ch
	}
	s := &pinot.Schema{Name: current.Name, EnableColumnNullHandle: true, PrimaryKeyColumns: current.PrimaryKeyColumns}
	for _, f := range current.Fields {
		if slices.Contains(e.relaxed, f.Name) {
			f.NotNull = false
		}
		s.Fields = append(s.Fields, f)
	}
	s.Fields = append(s.Fields, e.newCols...)
	ch.Schema = s
	return ch
}

// nestedChange reports a change inside a JSON-encoded field that makes old
// JSON text differ from what the new schema gives: a nested field dropped,
// renamed or retyped, or added with a default. Optional additions without
// a default and promotions that print the same (int→long, decimal
// widening) are no change.
func nestedChange(path string, o, n iceberg.Type) string {
	switch ot := o.(type) {
	case *iceberg.StructType:
		nt, ok := n.(*iceberg.StructType)
		if !ok {
			return fmt.Sprintf("%s changed from %s to %s", path, o, n)
		}
		return structChange(path, ot, nt)
	case *iceberg.ListType:
		nt, ok := n.(*iceberg.ListType)
		if !ok {
			return fmt.Sprintf("%s changed from %s to %s", path, o, n)
		}
		return nestedChange(path+"[]", ot.Element, nt.Element)
	case *iceberg.MapType:
		nt, ok := n.(*iceberg.MapType)
		if !ok {
			return fmt.Sprintf("%s changed from %s to %s", path, o, n)
		}
		if why := nestedChange(path+".key", ot.KeyType, nt.KeyType); why != "" {
			return why
		}
		return nestedChange(path+".value", ot.ValueType, nt.ValueType)
	}
	if o.Equals(n) || samePrinted(o, n) {
		return ""
	}
	return fmt.Sprintf("%s changed from %s to %s", path, o, n)
}

func structChange(path string, o, n *iceberg.StructType) string {
	byID := map[int]iceberg.NestedField{}
	for _, f := range n.FieldList {
		byID[f.ID] = f
	}
	for _, of := range o.FieldList {
		nf, ok := byID[of.ID]
		switch {
		case !ok:
			return fmt.Sprintf("%s.%s was dropped", path, of.Name)
		case nf.Name != of.Name:
			return fmt.Sprintf("%s.%s was renamed to %s", path, of.Name, nf.Name)
		}
		if why := nestedChange(path+"."+of.Name, of.Type, nf.Type); why != "" {
			return why
		}
	}
	old := map[int]bool{}
	for _, f := range o.FieldList {
		old[f.ID] = true
	}
	for _, nf := range n.FieldList {
		if !old[nf.ID] && (nf.InitialDefault != nil || nf.Required) {
			return fmt.Sprintf("%s.%s was added with a default", path, nf.Name)
		}
	}
	return ""
}

// samePrinted reports promotions whose JSON text is unchanged.
func samePrinted(o, n iceberg.Type) bool {
	switch ot := o.(type) {
	case iceberg.Int32Type:
		_, ok := n.(iceberg.Int64Type)
		return ok
	case iceberg.DecimalType:
		nt, ok := n.(iceberg.DecimalType)
		return ok && nt.Scale() == ot.Scale()
	case iceberg.UnknownType:
		return true
	}
	return false
}
