package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/floehq/floe/pinot/spec"
)

// Override changes what Infer chose for one column. Zero fields keep the
// inferred choice.
type Override struct {
	// FieldType must be one allowedFieldTypes permits for the column's data
	// type (see doc.go).
	FieldType spec.FieldType
	// DataType must be one of the column's Rule.Targets (e.g. LONG for
	// exact microsecond timestamps).
	DataType spec.DataType
	// TimeUnit sets the epoch unit of an INT or LONG DATE_TIME column whose
	// Iceberg type has none (plain int or long).
	TimeUnit string
	// Flatten turns a struct column into one column per leaf, named
	// "parent.child".
	Flatten bool
}

func (o Override) merge(n Override) (Override, error) {
	pick := func(what string, a, b string) (string, error) {
		if a != "" && b != "" && a != b {
			return "", fmt.Errorf("conflicting %s %s and %s", what, a, b)
		}
		if b != "" {
			return b, nil
		}
		return a, nil
	}
	ft, err := pick("field types", string(o.FieldType), string(n.FieldType))
	if err != nil {
		return o, err
	}
	dt, err := pick("data types", string(o.DataType), string(n.DataType))
	if err != nil {
		return o, err
	}
	tu, err := pick("time units", o.TimeUnit, n.TimeUnit)
	if err != nil {
		return o, err
	}
	return Override{FieldType: spec.FieldType(ft), DataType: spec.DataType(dt), TimeUnit: tu,
		Flatten: o.Flatten || n.Flatten}, nil
}

// ParseOverride parses one CLI override "col=KIND[,KIND...]" where KIND is a
// field type (DIMENSION, METRIC, DATE_TIME or DATE_TIME:<UNIT>), a Pinot data
// type (INT, LONG, TIMESTAMP, ...) or FLATTEN. The column name is everything
// before the last '='.
func ParseOverride(s string) (string, Override, error) {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return "", Override{}, fmt.Errorf("parse override %q: %w: want col=KIND, KIND one of %s",
			s, ErrIllegalOverride, kindList())
	}
	col, kinds := s[:i], s[i+1:]
	var o Override
	for _, k := range strings.Split(kinds, ",") {
		n, err := parseKind(strings.ToUpper(strings.TrimSpace(k)))
		if err != nil {
			return "", Override{}, fmt.Errorf("parse override %q: %w", s, err)
		}
		if o, err = o.merge(n); err != nil {
			return "", Override{}, fmt.Errorf("parse override %q: %w: %w", s, ErrIllegalOverride, err)
		}
	}
	return col, o, nil
}

// ParseOverrides parses repeated CLI overrides and merges those for the
// same column.
func ParseOverrides(args []string) (map[string]Override, error) {
	out := make(map[string]Override, len(args))
	for _, a := range args {
		col, o, err := ParseOverride(a)
		if err != nil {
			return nil, err
		}
		merged, err := out[col].merge(o)
		if err != nil {
			return nil, fmt.Errorf("parse override %q: %w: column %q: %w", a, ErrIllegalOverride, col, err)
		}
		out[col] = merged
	}
	return out, nil
}

func parseKind(k string) (Override, error) {
	switch k {
	case string(spec.Dimension), string(spec.Metric), string(spec.DateTime):
		return Override{FieldType: spec.FieldType(k)}, nil
	case "FLATTEN":
		return Override{Flatten: true}, nil
	}
	if unit, ok := strings.CutPrefix(k, string(spec.DateTime)+":"); ok {
		if !slices.Contains(TimeUnits(), unit) {
			return Override{}, fmt.Errorf("%w: time unit %q: allowed %s", ErrIllegalOverride, unit,
				strings.Join(TimeUnits(), ", "))
		}
		return Override{FieldType: spec.DateTime, TimeUnit: unit}, nil
	}
	if spec.DataType(k).Valid() {
		return Override{DataType: spec.DataType(k)}, nil
	}
	return Override{}, fmt.Errorf("%w: unknown kind %q: want one of %s", ErrIllegalOverride, k, kindList())
}

func kindList() string {
	kinds := []string{"DIMENSION", "METRIC", "DATE_TIME", "DATE_TIME:<UNIT>", "FLATTEN"}
	for _, d := range spec.DataTypes {
		kinds = append(kinds, string(d))
	}
	return strings.Join(kinds, ", ")
}

func joinTypes[T ~string](ts []T) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// resolve applies an override to a column's rule and returns the target,
// the field type and the DATE_TIME unit. col names the column in errors.
func resolve(col string, r Rule, o Override) (Target, spec.FieldType, string, error) {
	t := r.Default()
	if o.DataType != "" {
		var ok bool
		if t, ok = r.Target(o.DataType); !ok {
			return Target{}, "", "", fmt.Errorf("%w: column %q (Iceberg %s): data type %s not allowed; allowed: %s",
				ErrIllegalOverride, col, r.Iceberg, o.DataType, joinTypes(r.DataTypes()))
		}
	}
	allowed := allowedFieldTypes(t.DataType, r.SingleValue)
	ft := r.FieldType
	if !slices.Contains(allowed, ft) {
		ft = allowed[0]
	}
	if o.FieldType != "" {
		if !slices.Contains(allowed, o.FieldType) {
			return Target{}, "", "", fmt.Errorf("%w: column %q (%s%s): field type %s not allowed; allowed: %s",
				ErrIllegalOverride, col, t.DataType, mvSuffix(r.SingleValue), o.FieldType, joinTypes(allowed))
		}
		ft = o.FieldType
	}
	unit, err := resolveUnit(col, t, ft, o.TimeUnit)
	if err != nil {
		return Target{}, "", "", err
	}
	if o.Flatten && !r.Flattenable {
		return Target{}, "", "", fmt.Errorf("%w: column %q (Iceberg %s): only struct columns can be flattened",
			ErrIllegalOverride, col, r.Iceberg)
	}
	return t, ft, unit, nil
}

func mvSuffix(sv bool) string {
	if sv {
		return ""
	}
	return " multi-value"
}

// resolveUnit picks the DATE_TIME unit: the target's own unit when it has
// one (a time unit override must then agree), else the override, else
// MILLISECONDS for LONG and DAYS for INT.
func resolveUnit(col string, t Target, ft spec.FieldType, override string) (string, error) {
	if ft != spec.DateTime {
		if override != "" {
			return "", fmt.Errorf("%w: column %q: a time unit needs field type DATE_TIME", ErrIllegalOverride, col)
		}
		return "", nil
	}
	switch {
	case t.Unit != "" && override != "" && override != t.Unit:
		return "", fmt.Errorf("%w: column %q (%s): values are in %s; allowed time unit: %s",
			ErrIllegalOverride, col, t.DataType, t.Unit, t.Unit)
	case t.Unit != "":
		return t.Unit, nil
	case override != "":
		return override, nil
	case t.DataType == spec.Int:
		return Days, nil
	}
	return Milliseconds, nil
}

// dateTimeFormat returns Pinot's format and granularity for a DATE_TIME
// column of data type dt whose values are in unit.
func dateTimeFormat(dt spec.DataType, unit string) (format, granularity string) {
	if dt == spec.Timestamp {
		return "1:MILLISECONDS:TIMESTAMP", "1:MILLISECONDS"
	}
	return "1:" + unit + ":EPOCH", "1:" + unit
}
