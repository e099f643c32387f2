package schema

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
)

// DefaultMaxLength is the maxLength floe gives STRING columns. Pinot's own
// default (512 characters) would cut longer strings; floe keeps them whole.
const DefaultMaxLength = math.MaxInt32

// Options steer Infer.
type Options struct {
	// Name is the Pinot raw table name, used as the schema name.
	Name string
	// Overrides are keyed by Pinot column name ("a.b" for a leaf of a
	// flattened struct).
	Overrides map[string]Override
	// TimeColumn names the time column; empty means floe proposes one.
	TimeColumn string
	// NoTimeColumn leaves the table without a time column.
	NoTimeColumn bool
	// MaxLength for STRING columns; 0 means DefaultMaxLength.
	MaxLength int
	// SkipUnmappable leaves out a column that cannot become a Pinot column
	// (an Iceberg type with no Pinot mapping, a name Pinot rejects),
	// recording why in Result.Skipped, instead of failing the table.
	SkipUnmappable bool
}

// Column binds one Pinot column to the Iceberg field that feeds it.
type Column struct {
	Field spec.FieldSpec
	// FieldID is the Iceberg field id of the value read (the leaf for a
	// flattened struct, the list/map/struct itself for JSON).
	FieldID int
	// Path holds the Iceberg names from the top-level field down to it;
	// this is also the Arrow column path of a scan.
	Path []string
	// Type is the field's Iceberg type.
	Type     iceberg.Type
	Encoding Encoding
	// Lossy says what the chosen mapping loses; empty when nothing.
	Lossy string
}

// Result is an inferred Pinot schema with its column bindings.
type Result struct {
	Schema     *spec.Schema
	Columns    []Column
	TimeColumn string
	MultiValue []string
	// Skipped says, one error per column, what Options.SkipUnmappable left
	// out; callers show them as warnings.
	Skipped []error
}

// Column returns the binding of the Pinot column name.
func (r *Result) Column(name string) (Column, bool) {
	for _, c := range r.Columns {
		if c.Field.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// ArrowColumns maps each Pinot column to the Arrow column path of an
// Iceberg scan (struct levels joined with '.'), the form
// arrow.Config.Columns (segments/arrow) takes.
func (r *Result) ArrowColumns() map[string]string {
	out := make(map[string]string, len(r.Columns))
	for _, c := range r.Columns {
		out[c.Field.Name] = strings.Join(c.Path, ".")
	}
	return out
}

// Infer maps an Iceberg schema to a Pinot schema, following the type table
// (RuleFor), the field-type rules and the overrides.
func Infer(s *iceberg.Schema, opts Options) (*Result, error) {
	if s == nil {
		return nil, errors.New("infer schema: no Iceberg schema")
	}
	if err := ValidatePinotName(opts.Name); err != nil {
		return nil, fmt.Errorf("infer schema: %w", err)
	}
	b := &builder{opts: opts, used: map[string]bool{}}
	for _, f := range s.Fields() {
		if err := b.field(f, nil, true); err != nil {
			return nil, fmt.Errorf("infer schema %s: %w", opts.Name, err)
		}
	}
	if err := b.checkOverridesUsed(); err != nil {
		return nil, fmt.Errorf("infer schema %s: %w", opts.Name, err)
	}
	if opts.SkipUnmappable {
		b.dropInvalidNames()
	}
	if err := checkColumnNames(b.cols); err != nil {
		return nil, fmt.Errorf("infer schema %s: %w", opts.Name, err)
	}
	tc, err := chooseTimeColumn(b.cols, opts)
	if err != nil {
		return nil, fmt.Errorf("infer schema %s: %w", opts.Name, err)
	}
	res := &Result{Schema: &spec.Schema{Name: opts.Name, EnableColumnNullHandle: true}, Columns: b.cols, TimeColumn: tc,
		Skipped: b.skipped}
	for _, c := range b.cols {
		res.Schema.Fields = append(res.Schema.Fields, c.Field)
		if !c.Field.SingleValue {
			res.MultiValue = append(res.MultiValue, c.Field.Name)
		}
	}
	return res, nil
}

type builder struct {
	opts    Options
	used    map[string]bool
	cols    []Column
	skipped []error
}

// dropInvalidNames moves columns whose names Pinot rejects to skipped.
func (b *builder) dropInvalidNames() {
	kept := b.cols[:0]
	for _, c := range b.cols {
		if err := ValidateColumnName(c.Field.Name); err != nil {
			b.skipped = append(b.skipped, err)
			continue
		}
		kept = append(kept, c)
	}
	b.cols = kept
}

func (b *builder) field(f iceberg.NestedField, parent []string, parentRequired bool) error {
	path := append(slices.Clone(parent), f.Name)
	name := strings.Join(path, ".")
	required := parentRequired && f.Required
	r, err := RuleFor(f.Type)
	if err != nil {
		err = fmt.Errorf("column %q (field id %d): %w", name, f.ID, err)
		if b.opts.SkipUnmappable {
			b.skipped = append(b.skipped, err)
			return nil
		}
		return err
	}
	o, ok := b.opts.Overrides[name]
	b.used[name] = ok
	if r.Skip {
		if ok {
			return fmt.Errorf("%w: column %q (Iceberg %s) is always null and gets no Pinot column; nothing to override",
				ErrIllegalOverride, name, r.Iceberg)
		}
		return nil
	}
	if o.Flatten {
		if _, _, _, err := resolve(name, r, Override{Flatten: true}); err != nil {
			return err
		}
		if o != (Override{Flatten: true}) {
			return fmt.Errorf("%w: column %q is flattened into its leaves; override the leaves (%s.<child>) instead",
				ErrIllegalOverride, name, name)
		}
		for _, child := range f.Type.(*iceberg.StructType).Fields() {
			if err := b.field(child, path, required); err != nil {
				return err
			}
		}
		return nil
	}
	t, ft, unit, err := resolve(name, r, o)
	if err != nil {
		return err
	}
	b.cols = append(b.cols, b.column(f, path, r, t, ft, unit, required))
	return nil
}

func (b *builder) column(f iceberg.NestedField, path []string, r Rule, t Target, ft spec.FieldType,
	unit string, required bool) Column {
	fs := spec.FieldSpec{Name: strings.Join(path, "."), DataType: t.DataType, FieldType: ft,
		SingleValue: r.SingleValue, NotNull: required}
	if ft == spec.DateTime {
		fs.Format, fs.Granularity = dateTimeFormat(t.DataType, unit)
	}
	if t.DataType == spec.String {
		fs.MaxLength = b.opts.MaxLength
		if fs.MaxLength == 0 {
			fs.MaxLength = DefaultMaxLength
		}
	}
	enc := r.Encoding
	if enc == EncodeValue && len(path) > 1 {
		enc = EncodeFlatten
	}
	return Column{Field: fs, FieldID: f.ID, Path: path, Type: f.Type, Encoding: enc,
		Lossy: lossOf(f.Type, r, t)}
}

// lossOf describes what the mapping loses: the target's own loss, and for
// multi-value columns Pinot's rules (no null elements, no empty lists).
func lossOf(typ iceberg.Type, r Rule, t Target) string {
	var parts []string
	if t.Lossy != "" {
		parts = append(parts, t.Lossy)
	}
	if !r.SingleValue {
		if l, ok := typ.(*iceberg.ListType); ok && !l.ElementRequired {
			parts = append(parts, "null list elements are dropped")
		}
		parts = append(parts, "an empty list reads back as null")
	}
	return strings.Join(parts, "; ")
}

func (b *builder) checkOverridesUsed() error {
	var unknown []string
	for name := range b.opts.Overrides {
		if !b.used[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("%w: %w: override for column %q: the table has no such column (flatten its struct first for a.b names)",
		ErrIllegalOverride, ErrUnknownColumn, unknown[0])
}

// ValidateColumnName checks a Pinot column name: not empty, no white
// space, not starting with '$' (Pinot's virtual columns).
func ValidateColumnName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty column name", ErrInvalidName)
	case strings.IndexFunc(name, unicode.IsSpace) >= 0:
		return fmt.Errorf("%w: column %q: Pinot column names cannot hold white space; rename the Iceberg field", ErrInvalidName, name)
	case strings.HasPrefix(name, "$"):
		return fmt.Errorf("%w: column %q: Pinot reserves names starting with '$'; rename the Iceberg field", ErrInvalidName, name)
	}
	return nil
}

func checkColumnNames(cols []Column) error {
	seen := map[string]int{}
	for _, c := range cols {
		if err := ValidateColumnName(c.Field.Name); err != nil {
			return err
		}
		if prev, ok := seen[c.Field.Name]; ok {
			return fmt.Errorf("%w: column %q is fed by both field id %d and field id %d; rename one Iceberg field",
				ErrInvalidName, c.Field.Name, prev, c.FieldID)
		}
		seen[c.Field.Name] = c.FieldID
	}
	return nil
}

// chooseTimeColumn returns the requested time column after checking it, or
// proposes one: the first DATE_TIME column by (not null first, timestamps
// before dates before other types, schema order).
func chooseTimeColumn(cols []Column, opts Options) (string, error) {
	switch {
	case opts.NoTimeColumn && opts.TimeColumn != "":
		return "", fmt.Errorf("%w: time column %q requested together with no time column", ErrIllegalOverride, opts.TimeColumn)
	case opts.NoTimeColumn:
		return "", nil
	case opts.TimeColumn != "":
		return checkTimeColumn(cols, opts.TimeColumn)
	}
	best, bestRank := "", math.MaxInt
	for _, c := range cols {
		if c.Field.FieldType != spec.DateTime {
			continue
		}
		if r := timeRank(c); r < bestRank {
			best, bestRank = c.Field.Name, r
		}
	}
	return best, nil
}

func timeRank(c Column) int {
	rank := 2
	switch c.Type.(type) {
	case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		rank = 0
	case iceberg.DateType:
		rank = 1
	}
	if !c.Field.NotNull {
		rank += 3
	}
	return rank
}

func checkTimeColumn(cols []Column, name string) (string, error) {
	var dateTimes []string
	found := false
	for _, c := range cols {
		if c.Field.FieldType == spec.DateTime {
			dateTimes = append(dateTimes, c.Field.Name)
		}
		found = found || c.Field.Name == name
	}
	if slices.Contains(dateTimes, name) {
		return name, nil
	}
	allowed := strings.Join(dateTimes, ", ")
	if allowed == "" {
		allowed = "none (override an INT or LONG column to DATE_TIME first)"
	}
	if !found {
		return "", fmt.Errorf("%w: %w: time column %q: no such column; DATE_TIME columns: %s",
			ErrIllegalOverride, ErrUnknownColumn, name, allowed)
	}
	return "", fmt.Errorf("%w: time column %q is not a DATE_TIME column; DATE_TIME columns: %s",
		ErrIllegalOverride, name, allowed)
}
