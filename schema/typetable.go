package schema

import (
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
)

// Encoding says how a Pinot column's values are taken from its Iceberg field.
type Encoding int

// Encodings.
const (
	// EncodeValue converts each value by (Iceberg type, Pinot data type) as
	// the type table says.
	EncodeValue Encoding = iota
	// EncodeJSON writes the field's whole value (struct, map, list of
	// non-primitives, variant) as one JSON text.
	EncodeJSON
	// EncodeFlatten marks a leaf of a struct the user asked to flatten: the
	// value is read through Column.Path and converted like EncodeValue.
	EncodeFlatten
)

func (e Encoding) String() string {
	switch e {
	case EncodeValue:
		return "value"
	case EncodeJSON:
		return "json"
	case EncodeFlatten:
		return "flatten"
	}
	return fmt.Sprintf("Encoding(%d)", int(e))
}

// Time units of DATE_TIME formats (Java TimeUnit names, as Pinot spells them).
const (
	Nanoseconds  = "NANOSECONDS"
	Microseconds = "MICROSECONDS"
	Milliseconds = "MILLISECONDS"
	Seconds      = "SECONDS"
	Minutes      = "MINUTES"
	Hours        = "HOURS"
	Days         = "DAYS"
)

// TimeUnits lists the units a DATE_TIME override may name.
func TimeUnits() []string {
	return []string{Nanoseconds, Microseconds, Milliseconds, Seconds, Minutes, Hours, Days}
}

// Target is one Pinot data type an Iceberg type may become.
type Target struct {
	DataType spec.DataType
	// Unit is the epoch unit of the stored number when the column is a
	// DATE_TIME column (MILLISECONDS for TIMESTAMP); empty when the value is
	// not a point in time of its own.
	Unit string
	// Lossy says what is lost converting to this data type; empty when
	// every value survives exactly.
	Lossy string
}

// Rule is one row of the type table: how one Iceberg type becomes a Pinot
// column.
type Rule struct {
	// Iceberg is the Iceberg type as Iceberg prints it.
	Iceberg string
	// Targets are the Pinot data types allowed; Targets[0] is the default,
	// the others are what Override.DataType may choose.
	Targets     []Target
	SingleValue bool
	Encoding    Encoding
	// FieldType is the default field type (see doc.go for the rules).
	FieldType spec.FieldType
	// Flattenable is true for structs: Override.Flatten turns the column
	// into one column per leaf.
	Flattenable bool
	// Skip is true for Iceberg's unknown type: its values are always null,
	// so it gets no Pinot column (a later promotion adds one).
	Skip bool
}

// Default returns the default target (the zero Target for a Skip rule).
func (r Rule) Default() Target {
	if len(r.Targets) == 0 {
		return Target{}
	}
	return r.Targets[0]
}

// Target returns the target with data type dt.
func (r Rule) Target(dt spec.DataType) (Target, bool) {
	for _, t := range r.Targets {
		if t.DataType == dt {
			return t, true
		}
	}
	return Target{}, false
}

// DataTypes lists the allowed data types, default first.
func (r Rule) DataTypes() []spec.DataType {
	out := make([]spec.DataType, len(r.Targets))
	for i, t := range r.Targets {
		out[i] = t.DataType
	}
	return out
}

const (
	lossMicros = "sub-millisecond digits of microsecond timestamps are cut (floor to the millisecond); choose LONG for exact microseconds"
	lossNanos  = "sub-millisecond digits of nanosecond timestamps are cut (floor to the millisecond); choose LONG for exact nanoseconds"
)

func scalar(name string, ft spec.FieldType, targets ...Target) Rule {
	return Rule{Iceberg: name, Targets: targets, SingleValue: true, Encoding: EncodeValue, FieldType: ft}
}

func jsonRule(name string) Rule {
	return Rule{Iceberg: name, Targets: []Target{{DataType: spec.JSON}}, SingleValue: true,
		Encoding: EncodeJSON, FieldType: spec.Dimension}
}

// RuleFor returns the type-table row for an Iceberg type. It is the single
// source of truth for type mapping: the segment converter applies exactly
// the (Iceberg type, Pinot data type) pairs this function allows.
func RuleFor(t iceberg.Type) (Rule, error) {
	if r, ok := primitiveRule(t); ok {
		return r, nil
	}
	switch t := t.(type) {
	case *iceberg.ListType:
		return listRule(t), nil
	case *iceberg.MapType:
		return jsonRule(t.String()), nil
	case *iceberg.StructType:
		r := jsonRule(t.String())
		r.Flattenable = true
		return r, nil
	case iceberg.VariantType:
		return jsonRule(t.String()), nil
	}
	return Rule{}, fmt.Errorf("%w: %s", ErrUnsupportedType, t)
}

func primitiveRule(t iceberg.Type) (Rule, bool) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return scalar("boolean", spec.Dimension, Target{DataType: spec.Boolean}), true
	case iceberg.Int32Type:
		return scalar("int", spec.Dimension, Target{DataType: spec.Int}, Target{DataType: spec.Long}), true
	case iceberg.Int64Type:
		return scalar("long", spec.Dimension, Target{DataType: spec.Long}), true
	case iceberg.Float32Type:
		return scalar("float", spec.Metric, Target{DataType: spec.Float}, Target{DataType: spec.Double}), true
	case iceberg.Float64Type:
		return scalar("double", spec.Metric, Target{DataType: spec.Double}), true
	case iceberg.DecimalType:
		return scalar(t.String(), spec.Metric, Target{DataType: spec.BigDecimal}), true
	case iceberg.DateType:
		return scalar("date", spec.DateTime, Target{DataType: spec.Int, Unit: Days},
			Target{DataType: spec.Timestamp, Unit: Milliseconds}), true
	case iceberg.TimeType:
		return scalar("time", spec.Dimension, Target{DataType: spec.Long, Unit: Microseconds}), true
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return scalar(t.String(), spec.DateTime,
			Target{DataType: spec.Timestamp, Unit: Milliseconds, Lossy: lossMicros},
			Target{DataType: spec.Long, Unit: Microseconds}), true
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return scalar(t.String(), spec.DateTime,
			Target{DataType: spec.Timestamp, Unit: Milliseconds, Lossy: lossNanos},
			Target{DataType: spec.Long, Unit: Nanoseconds}), true
	case iceberg.StringType, iceberg.UUIDType:
		return scalar(t.String(), spec.Dimension, Target{DataType: spec.String}), true
	case iceberg.UnknownType:
		return Rule{Iceberg: "unknown", SingleValue: true, FieldType: spec.Dimension, Skip: true}, true
	case iceberg.FixedType, iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		return scalar(t.String(), spec.Dimension, Target{DataType: spec.Bytes}), true
	}
	return Rule{}, false
}

// mvCapable reports whether Pinot can hold dt in a multi-value column.
func mvCapable(dt spec.DataType) bool {
	switch dt {
	case spec.BigDecimal, spec.JSON:
		return false
	}
	return true
}

// listRule maps list<E>: a primitive E gives a multi-value column of E's
// targets, decimals as their exact plain text (Pinot has no multi-value
// BIG_DECIMAL); anything else is JSON.
func listRule(l *iceberg.ListType) Rule {
	er, ok := primitiveRule(l.Element)
	if !ok || er.Skip {
		return jsonRule(l.String())
	}
	var targets []Target
	for _, t := range er.Targets {
		if t.DataType == spec.BigDecimal {
			t.DataType = spec.String
		}
		if mvCapable(t.DataType) {
			targets = append(targets, t)
		}
	}
	return Rule{Iceberg: l.String(), Targets: targets, SingleValue: false, Encoding: EncodeValue,
		FieldType: spec.Dimension}
}

// allowedFieldTypes lists the field types a column of data type dt may
// have: multi-value only DIMENSION; TIMESTAMP only DATE_TIME; INT and LONG
// any; FLOAT, DOUBLE and BIG_DECIMAL DIMENSION or METRIC; the rest
// (STRING, BOOLEAN, JSON, BYTES) only DIMENSION.
func allowedFieldTypes(dt spec.DataType, singleValue bool) []spec.FieldType {
	switch {
	case !singleValue:
		return []spec.FieldType{spec.Dimension}
	case dt == spec.Timestamp:
		return []spec.FieldType{spec.DateTime}
	case dt == spec.Int || dt == spec.Long:
		return []spec.FieldType{spec.Dimension, spec.Metric, spec.DateTime}
	case dt == spec.Float || dt == spec.Double || dt == spec.BigDecimal:
		return []spec.FieldType{spec.Dimension, spec.Metric}
	}
	return []spec.FieldType{spec.Dimension}
}

// TypeTable returns one row per Iceberg type of format v1–v3, in the order
// doc.go lists them. Lists appear once per kind of element.
func TypeTable() []Rule {
	var rows []Rule
	for _, t := range representativeTypes() {
		r, err := RuleFor(t)
		if err != nil {
			panic(err) // every representative type has a rule; a test proves it
		}
		rows = append(rows, r)
	}
	return rows
}

func representativeTypes() []iceberg.Type {
	geog, _ := iceberg.GeographyTypeOf(iceberg.DefaultGeoCRS, "spherical")
	prims := []iceberg.Type{
		iceberg.PrimitiveTypes.Bool, iceberg.PrimitiveTypes.Int32, iceberg.PrimitiveTypes.Int64,
		iceberg.PrimitiveTypes.Float32, iceberg.PrimitiveTypes.Float64, iceberg.DecimalTypeOf(38, 9),
		iceberg.PrimitiveTypes.Date, iceberg.PrimitiveTypes.Time, iceberg.PrimitiveTypes.Timestamp,
		iceberg.PrimitiveTypes.TimestampTz, iceberg.PrimitiveTypes.TimestampNs, iceberg.PrimitiveTypes.TimestampTzNs,
		iceberg.PrimitiveTypes.String, iceberg.PrimitiveTypes.UUID, iceberg.FixedTypeOf(16),
		iceberg.PrimitiveTypes.Binary, iceberg.GeometryType{}, geog, iceberg.PrimitiveTypes.Unknown,
	}
	out := append([]iceberg.Type{}, prims...)
	for _, p := range prims {
		out = append(out, &iceberg.ListType{ElementID: 1, Element: p})
	}
	st := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 2, Name: "a", Type: iceberg.PrimitiveTypes.Int64},
		{ID: 3, Name: "b", Type: iceberg.PrimitiveTypes.String},
	}}
	return append(out,
		&iceberg.ListType{ElementID: 1, Element: st},
		&iceberg.ListType{ElementID: 1, Element: &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Int32}},
		&iceberg.MapType{KeyID: 5, KeyType: iceberg.PrimitiveTypes.String, ValueID: 6, ValueType: iceberg.PrimitiveTypes.Int64},
		st, iceberg.VariantType{},
	)
}
