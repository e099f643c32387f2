package spec

import (
	"encoding/json"
	"fmt"
)

// DataType is a Pinot column data type as it appears in a schema and in
// segment metadata (column.<c>.dataType).
type DataType string

// The Pinot data types floe reads and writes.
const (
	Int        DataType = "INT"
	Long       DataType = "LONG"
	Float      DataType = "FLOAT"
	Double     DataType = "DOUBLE"
	BigDecimal DataType = "BIG_DECIMAL"
	Boolean    DataType = "BOOLEAN"
	Timestamp  DataType = "TIMESTAMP"
	String     DataType = "STRING"
	JSON       DataType = "JSON"
	Bytes      DataType = "BYTES"
)

// DataTypes lists every data type floe supports, in a stable order.
var DataTypes = []DataType{Int, Long, Float, Double, BigDecimal, Boolean, Timestamp, String, JSON, Bytes}

// StoredType is the type Pinot uses on disk for a data type: BOOLEAN is
// stored as INT, TIMESTAMP as LONG and JSON as STRING.
func (t DataType) StoredType() DataType {
	switch t {
	case Boolean:
		return Int
	case Timestamp:
		return Long
	case JSON:
		return String
	}
	return t
}

// FixedWidth reports the byte width of a fixed-width stored type, or 0 for
// variable-width types (STRING, BYTES, BIG_DECIMAL, JSON).
func (t DataType) FixedWidth() int {
	switch t.StoredType() {
	case Int, Float:
		return 4
	case Long, Double:
		return 8
	}
	return 0
}

// Valid reports whether t is a data type floe supports.
func (t DataType) Valid() bool {
	for _, d := range DataTypes {
		if d == t {
			return true
		}
	}
	return false
}

// FieldType is the role of a column in a Pinot schema.
type FieldType string

// Field types.
const (
	Dimension FieldType = "DIMENSION"
	Metric    FieldType = "METRIC"
	DateTime  FieldType = "DATE_TIME"
)

// FieldSpec is one column of a Pinot schema.
type FieldSpec struct {
	Name        string    `json:"name"`
	DataType    DataType  `json:"dataType"`
	FieldType   FieldType `json:"-"`
	SingleValue bool      `json:"-"`
	NotNull     bool      `json:"notNull,omitempty"`
	// DefaultNullValue overrides the type's default null value; empty means
	// the Pinot default (see DefaultNullValue).
	DefaultNullValue string `json:"-"`
	MaxLength        int    `json:"maxLength,omitempty"`
	// Format and Granularity apply to DATE_TIME fields only.
	Format      string `json:"format,omitempty"`
	Granularity string `json:"granularity,omitempty"`
}

// Schema is a Pinot schema. Its JSON form is what the controller's
// POST /schemas accepts.
type Schema struct {
	Name                   string
	EnableColumnNullHandle bool
	Fields                 []FieldSpec
	PrimaryKeyColumns      []string
}

// Field returns the field named name.
func (s *Schema) Field(name string) (FieldSpec, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return FieldSpec{}, false
}

type fieldSpecJSON struct {
	Name             string   `json:"name"`
	DataType         DataType `json:"dataType"`
	SingleValueField *bool    `json:"singleValueField,omitempty"`
	NotNull          bool     `json:"notNull,omitempty"`
	DefaultNullValue any      `json:"defaultNullValue,omitempty"`
	MaxLength        int      `json:"maxLength,omitempty"`
	Format           string   `json:"format,omitempty"`
	Granularity      string   `json:"granularity,omitempty"`
}

type schemaJSON struct {
	SchemaName                    string          `json:"schemaName"`
	EnableColumnBasedNullHandling bool            `json:"enableColumnBasedNullHandling"`
	DimensionFieldSpecs           []fieldSpecJSON `json:"dimensionFieldSpecs,omitempty"`
	MetricFieldSpecs              []fieldSpecJSON `json:"metricFieldSpecs,omitempty"`
	DateTimeFieldSpecs            []fieldSpecJSON `json:"dateTimeFieldSpecs,omitempty"`
	PrimaryKeyColumns             []string        `json:"primaryKeyColumns,omitempty"`
}

// MarshalJSON writes the schema in Pinot's JSON form.
func (s Schema) MarshalJSON() ([]byte, error) {
	out := schemaJSON{
		SchemaName:                    s.Name,
		EnableColumnBasedNullHandling: s.EnableColumnNullHandle,
		PrimaryKeyColumns:             s.PrimaryKeyColumns,
	}
	for _, f := range s.Fields {
		j := fieldSpecJSON{
			Name: f.Name, DataType: f.DataType, NotNull: f.NotNull, MaxLength: f.MaxLength,
			Format: f.Format, Granularity: f.Granularity,
		}
		if !f.SingleValue {
			sv := false
			j.SingleValueField = &sv
		}
		if f.DefaultNullValue != "" {
			j.DefaultNullValue = f.DefaultNullValue
		}
		switch f.FieldType {
		case Metric:
			out.MetricFieldSpecs = append(out.MetricFieldSpecs, j)
		case DateTime:
			out.DateTimeFieldSpecs = append(out.DateTimeFieldSpecs, j)
		default:
			out.DimensionFieldSpecs = append(out.DimensionFieldSpecs, j)
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a schema in Pinot's JSON form.
func (s *Schema) UnmarshalJSON(b []byte) error {
	var in schemaJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*s = Schema{Name: in.SchemaName, EnableColumnNullHandle: in.EnableColumnBasedNullHandling, PrimaryKeyColumns: in.PrimaryKeyColumns}
	add := func(list []fieldSpecJSON, ft FieldType) error {
		for _, j := range list {
			if !j.DataType.Valid() {
				return fmt.Errorf("field %q: unsupported dataType %q", j.Name, j.DataType)
			}
			f := FieldSpec{
				Name: j.Name, DataType: j.DataType, FieldType: ft, SingleValue: j.SingleValueField == nil || *j.SingleValueField,
				NotNull: j.NotNull, MaxLength: j.MaxLength, Format: j.Format, Granularity: j.Granularity,
			}
			if j.DefaultNullValue != nil {
				f.DefaultNullValue = fmt.Sprint(j.DefaultNullValue)
			}
			s.Fields = append(s.Fields, f)
		}
		return nil
	}
	if err := add(in.DimensionFieldSpecs, Dimension); err != nil {
		return err
	}
	if err := add(in.MetricFieldSpecs, Metric); err != nil {
		return err
	}
	return add(in.DateTimeFieldSpecs, DateTime)
}

// DefaultNullValueString returns the value Pinot stores for a null in this field,
// as Pinot's FieldSpec.getDefaultNullValueString prints it: the field's own
// default when set, else the default for its data and field type.
func (f FieldSpec) DefaultNullValueString() string {
	if f.DefaultNullValue != "" {
		return f.DefaultNullValue
	}
	return DefaultNullValue(f.DataType, f.FieldType)
}

// DefaultNullValue is Pinot's built-in default null value for a data type
// in a field of the given type (format: never change; it is Pinot's).
func DefaultNullValue(t DataType, ft FieldType) string {
	if ft == Metric {
		switch t {
		case Float, Double:
			return "0.0"
		case String:
			return "null"
		case Bytes:
			return ""
		}
		return "0"
	}
	switch t {
	case Int:
		return "-2147483648"
	case Long:
		return "-9223372036854775808"
	case Float, Double:
		return "-Infinity"
	case String, JSON:
		return "null"
	case Bytes:
		return ""
	}
	return "0" // BIG_DECIMAL, BOOLEAN, TIMESTAMP
}
