package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
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
	Added []spec.FieldSpec
	// Relaxed are columns whose notNull was dropped (field made optional).
	Relaxed []string
	// Dropped are Pinot columns no Iceberg field feeds any more. Pinot
	// cannot drop a column, so they stay in the schema and new segments
	// hold null for them.
	Dropped []string
	// Renamed maps a Pinot column whose Iceberg field was renamed since the
	// old schema to the field's new name. The column keeps its name and
	// goes on reading the field by id.
	Renamed map[string]string
	// FieldIDs binds every Pinot column of the table after the change to
	// the Iceberg field id it reads (a dropped column keeps the id it last
	// read, which the new schema no longer has: it reads null). A column
	// no field ever fed has no entry.
	FieldIDs map[string]int
	// Schema is the Pinot schema to push (nil for None and Fail).
	Schema *spec.Schema
	// Result is the inference of the new Iceberg schema.
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
// (the schema the Pinot table was last brought in line with) to new,
// given the Pinot schema in Pinot and the Iceberg field id each of its
// columns reads (fieldIDs; a column without an entry binds by name in
// old). Fields are matched by id, so a renamed field keeps feeding its
// column. The choices of the Pinot schema (data type, field type, time
// unit, flattened structs) are kept: they may be a user's overrides. opts
// are the inference options for new columns (opts.Name defaults to
// current.Name). It returns an error only for unusable input; an
// incompatible change is a Change of Kind Fail.
func Evolve(old, new *iceberg.Schema, current *spec.Schema, fieldIDs map[string]int, opts Options) (Change, error) {
	if old == nil || new == nil || current == nil {
		return Change{}, errors.New("evolve schema: old, new and current schemas are all required")
	}
	if opts.Name == "" {
		opts.Name = current.Name
	}
	bound := bindColumns(current, fieldIDs, old)
	opts.Overrides = keptOverrides(current, bound, new, opts.Overrides)
	opts.TimeColumn, opts.NoTimeColumn, opts.SkipUnmappable = "", true, true
	newRes, err := Infer(new, opts)
	if err != nil {
		return Change{}, fmt.Errorf("evolve schema: new Iceberg schema: %w", err)
	}
	e := &evolver{old: old, new: new, same: old.Equals(new), newRes: newRes, bound: bound, byID: map[int]Column{},
		taken: map[int]bool{}, ids: map[string]int{}, renamed: map[string]string{}}
	for _, c := range newRes.Columns {
		e.byID[c.FieldID] = c
	}
	for _, id := range bound {
		e.taken[id] = true
	}
	for _, f := range current.Fields {
		e.existing(f)
	}
	for _, c := range newRes.Columns {
		if !e.taken[c.FieldID] {
			e.added(current, c)
		}
	}
	for _, err := range newRes.Skipped {
		e.notes = append(e.notes, err.Error()+": no Pinot column")
	}
	return e.change(current), nil
}

type evolver struct {
	old, new       *iceberg.Schema
	same           bool // old and new are the same schema: nothing is new
	newRes         *Result
	bound          map[string]int // Pinot column → field id it read before
	byID           map[int]Column // new inference by field id
	taken          map[int]bool   // field ids a Pinot column reads
	ids            map[string]int // bindings after the change
	renamed        map[string]string
	fails, rebuild []string
	notes          []string
	newCols        []spec.FieldSpec
	relaxed        []string
	dropped        []string
}

const howToRecreate = "to proceed, delete the table in floe and the Pinot table and its schema, then create the table again: floe infers its schema from the current Iceberg schema and loads the current snapshot"

func (e *evolver) existing(cur spec.FieldSpec) {
	id, ok := e.bound[cur.Name]
	if !ok {
		e.unfed(cur)
		return
	}
	nc, ok := e.byID[id]
	if !ok {
		e.missing(cur, id)
		return
	}
	e.ids[cur.Name] = id
	// A column whose field kept its type is left as it is, whatever the
	// inference would choose today: it may be the user's own.
	if of, ok := e.old.FindFieldByID(id); (!ok || !of.Type.Equals(nc.Type)) && !e.sameType(cur, nc) {
		return
	}
	oldName, inOld := e.old.FindColumnName(id)
	if newName := strings.Join(nc.Path, "."); inOld && oldName != newName {
		e.renamed[cur.Name] = newName
		e.notes = append(e.notes, fmt.Sprintf("column %q: Iceberg field id %d was renamed from %q to %q; the Pinot column keeps its name and reads the field by id",
			cur.Name, id, oldName, newName))
	}
	if cur.NotNull && !nc.Field.NotNull {
		e.relaxed = append(e.relaxed, cur.Name)
		e.notes = append(e.notes, fmt.Sprintf("column %q: field id %d became optional: notNull is dropped", cur.Name, id))
	}
	of, inOld := e.old.FindFieldByID(id)
	switch {
	case !inOld:
		e.addedEarlier(cur.Name, id)
	case nc.Encoding == EncodeJSON:
		if why := nestedChange(cur.Name, of.Type, nc.Type); why != "" {
			e.rebuild = append(e.rebuild, fmt.Sprintf("JSON column %q: %s: every segment is rebuilt so old rows match", cur.Name, why))
		}
	}
}

// widerOverrideHint names the other way forward when a field was widened
// (int→long, float→double): tables expected to widen are created with the
// wider type, so a later promotion changes nothing in Pinot.
func widerOverrideHint(cur, n spec.FieldSpec) string {
	widened := cur.SingleValue == n.SingleValue &&
		(cur.DataType == spec.Int && n.DataType == spec.Long || cur.DataType == spec.Float && n.DataType == spec.Double)
	if !widened {
		return ""
	}
	return fmt.Sprintf("; when you create it again, or for other tables expected to widen, give the column the wider type up front "+
		"(override %s=%s: \"overrides\" when creating through the API, -override for floe infer) and later promotions change nothing in Pinot",
		cur.Name, n.DataType)
}

// sameType checks that the Pinot column can hold what its field maps to
// now; a difference is a failure.
func (e *evolver) sameType(cur spec.FieldSpec, nc Column) bool {
	n := nc.Field
	if cur.DataType != n.DataType || cur.SingleValue != n.SingleValue {
		e.fails = append(e.fails, fmt.Sprintf("column %q: Iceberg field id %d is now %s, which maps to %s%s, but the Pinot column is %s%s and Pinot cannot change a column's type (a Pinot schema update may only add columns); %s%s",
			cur.Name, nc.FieldID, nc.Type, n.DataType, mvSuffix(n.SingleValue), cur.DataType, mvSuffix(cur.SingleValue), howToRecreate,
			widerOverrideHint(cur, n)))
		return false
	}
	if cur.FieldType != n.FieldType || cur.Format != n.Format || cur.Granularity != n.Granularity {
		e.fails = append(e.fails, fmt.Sprintf("column %q: field type %s %s is now %s %s; Pinot cannot change it in place; %s",
			cur.Name, cur.FieldType, cur.Format, n.FieldType, n.Format, howToRecreate))
		return false
	}
	return true
}

// addedEarlier handles a column whose field is newer than old but which
// the Pinot schema already has (a run that pushed it did not commit): a
// column that must be rebuilt stays so until a run commits the new schema.
func (e *evolver) addedEarlier(name string, id int) {
	f, _ := e.new.FindFieldByID(id)
	switch {
	case f.InitialDefault != nil:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q added with initial default %v: every segment is rebuilt so old rows hold it", name, f.InitialDefault))
	case f.Required:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q added as required: every segment is rebuilt", name))
	}
}

// unfed is a Pinot column no Iceberg field feeds (added by hand, or fed by
// nothing since long ago): it stays and holds null, unless a field of its
// name appeared, which then feeds it (old rows stay null, as Iceberg reads
// them).
func (e *evolver) unfed(cur spec.FieldSpec) {
	if nc, ok := e.newRes.Column(cur.Name); ok && !e.taken[nc.FieldID] && !mappedIn(e.old, nc.FieldID) {
		if e.sameType(cur, nc) {
			e.claim(cur.Name, nc)
			e.notes = append(e.notes, fmt.Sprintf("column %q is now fed by new Iceberg field id %d; old rows hold null", cur.Name, nc.FieldID))
		}
		return
	}
	e.dropped = append(e.dropped, cur.Name)
	e.notes = append(e.notes, fmt.Sprintf("column %q is fed by no Iceberg field: it stays and holds null", cur.Name))
}

func (e *evolver) claim(name string, nc Column) {
	e.taken[nc.FieldID] = true
	e.ids[name] = nc.FieldID
}

// missing is a column whose field has no column in the new inference.
func (e *evolver) missing(cur spec.FieldSpec, id int) {
	if name, ok := e.new.FindColumnName(id); ok {
		e.ids[cur.Name] = id
		e.fails = append(e.fails, fmt.Sprintf("column %q: Iceberg field id %d is now %q, which maps to other Pinot columns; Pinot cannot rename or restructure a column; restore the field's structure, or %s",
			cur.Name, id, name, howToRecreate))
		return
	}
	droppedNow := mappedIn(e.old, id) // it had values at the last sync
	if nc, ok := e.newRes.Column(cur.Name); ok && !e.taken[nc.FieldID] && !mappedIn(e.old, nc.FieldID) {
		if e.sameType(cur, nc) {
			e.claim(cur.Name, nc)
			if droppedNow {
				e.rebuild = append(e.rebuild, fmt.Sprintf("column %q is now fed by field id %d instead of %d: every segment is rebuilt",
					cur.Name, nc.FieldID, id))
			} else {
				e.notes = append(e.notes, fmt.Sprintf("column %q is now fed by field id %d instead of %d; old rows hold null", cur.Name, nc.FieldID, id))
			}
		}
		return
	}
	e.ids[cur.Name] = id
	if !droppedNow || !cur.NotNull {
		e.dropped = append(e.dropped, cur.Name)
	}
	switch {
	case !droppedNow:
		e.notes = append(e.notes, fmt.Sprintf("column %q: Iceberg field id %d no longer exists: the column stays and holds null", cur.Name, id))
	case cur.NotNull:
		e.fails = append(e.fails, fmt.Sprintf("column %q: Iceberg field id %d was dropped, but the Pinot column is notNull and Pinot cannot drop a column; %s",
			cur.Name, id, howToRecreate))
	default:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q: Iceberg field id %d was dropped; Pinot cannot drop a column, so it stays, holds null, and every segment is rebuilt so no old values remain",
			cur.Name, id))
	}
}

// added is a field no Pinot column reads.
func (e *evolver) added(current *spec.Schema, c Column) {
	if mappedIn(e.old, c.FieldID) {
		if !e.same {
			e.notes = append(e.notes, fmt.Sprintf("Iceberg field id %d %q has no Pinot column (left out when the table was created): not added",
				c.FieldID, c.Field.Name))
		}
		return
	}
	if _, clash := current.Field(c.Field.Name); clash {
		if id, ok := e.ids[c.Field.Name]; ok {
			e.fails = append(e.fails, fmt.Sprintf("column %q: new Iceberg field id %d takes the name of the Pinot column that reads field id %d; Pinot cannot hold two columns of one name; rename the new field, or %s",
				c.Field.Name, c.FieldID, id, howToRecreate))
		}
		return
	}
	e.claim(c.Field.Name, c)
	e.newCols = append(e.newCols, c.Field)
	f, _ := e.new.FindFieldByID(c.FieldID)
	switch {
	case f.InitialDefault != nil:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q added with initial default %v: every segment is rebuilt so old rows hold it",
			c.Field.Name, f.InitialDefault))
	case c.Field.NotNull:
		e.rebuild = append(e.rebuild, fmt.Sprintf("column %q added as required: every segment is rebuilt", c.Field.Name))
	default:
		e.notes = append(e.notes, fmt.Sprintf("column %q added (field id %d); rows written before it read null", c.Field.Name, c.FieldID))
	}
}

func (e *evolver) change(current *spec.Schema) Change {
	ch := Change{Added: e.newCols, Relaxed: e.relaxed, Dropped: e.dropped, Result: e.newRes, FieldIDs: e.ids}
	if len(e.renamed) > 0 {
		ch.Renamed = e.renamed
	}
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
	s := &spec.Schema{Name: current.Name, EnableColumnNullHandle: true, PrimaryKeyColumns: current.PrimaryKeyColumns}
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
