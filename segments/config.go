package segments

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/pinot/spec"
)

// Compression codec names accepted in Config.Compression (Pinot's
// ChunkCompressionType names).
const (
	PassThrough = "PASS_THROUGH"
	Snappy      = "SNAPPY"
	Zstandard   = "ZSTANDARD"
	LZ4         = "LZ4"
)

// ErrInvalidConfig is wrapped by every *ConfigError.
var ErrInvalidConfig = errors.New("invalid segment config")

// ConfigError names the Config field (and column, if any) that is wrong.
type ConfigError struct {
	Field  string // Config field, e.g. "NoDictionary"
	Column string // column the problem is about, if any
	Msg    string
}

func (e *ConfigError) Error() string {
	if e.Column != "" {
		return fmt.Sprintf("segment config %s: column %q: %s", e.Field, e.Column, e.Msg)
	}
	return fmt.Sprintf("segment config %s: %s", e.Field, e.Msg)
}

// Unwrap makes errors.Is(err, ErrInvalidConfig) true.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Config says what segment Build writes.
type Config struct {
	Schema       *spec.Schema
	TableName    string            // raw Pinot table name -> segment.table.name
	SegmentName  string            // must match [A-Za-z0-9_.-]+
	TimeColumn   string            // optional; a DATE_TIME field; sets segment.start/end.time + unit
	NoDictionary []string          // raw forward index columns (override)
	Dictionary   []string          // force a dictionary even if the automatic rule would choose raw
	Inverted     []string          // bitmap inverted index columns (dictionary columns only)
	SortedColumn string            // optional; must really be sorted (verified) else Build fails
	Compression  map[string]string // per raw column: PASS_THROUGH|SNAPPY|ZSTANDARD|LZ4 (default LZ4; METRIC: PASS_THROUGH)
	CreationTime time.Time         // goes into creation.meta only (S1)
	TempDir      string            // spill dir; default os.TempDir()
	CustomMap    map[string]string // custom.<k> keys
}

// ConfigFor is the config of segment name of table, built now from
// schema sc with the table config's indexing choices: its time column, raw
// (no-dictionary) and inverted-index columns and its first sorted column.
// tc may be nil (no choices). The caller adds TempDir and CustomMap.
func ConfigFor(sc *spec.Schema, tc *spec.TableConfig, table, name string, created time.Time) Config {
	cfg := Config{Schema: sc, TableName: table, SegmentName: name, CreationTime: created}
	if tc == nil {
		return cfg
	}
	cfg.TimeColumn = tc.SegmentsConfig.TimeColumnName
	cfg.NoDictionary = tc.TableIndexConfig.NoDictionaryColumns
	cfg.Inverted = tc.TableIndexConfig.InvertedIndexColumns
	if len(tc.TableIndexConfig.SortedColumn) > 0 {
		cfg.SortedColumn = tc.TableIndexConfig.SortedColumn[0]
	}
	return cfg
}

var segmentNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
var customKeyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Validate checks the config against its schema. Errors are *ConfigError.
func (c Config) Validate() error {
	if c.Schema == nil {
		return &ConfigError{Field: "Schema", Msg: "is nil"}
	}
	if len(c.Schema.Fields) == 0 {
		return &ConfigError{Field: "Schema", Msg: "has no fields"}
	}
	if !segmentNameRE.MatchString(c.SegmentName) || c.SegmentName == "." || c.SegmentName == ".." {
		return &ConfigError{Field: "SegmentName", Msg: fmt.Sprintf("%q must match [A-Za-z0-9_.-]+", c.SegmentName)}
	}
	if c.TableName == "" {
		return &ConfigError{Field: "TableName", Msg: "is empty"}
	}
	if strings.ContainsAny(c.TableName, "\\/:*?\"<>| \t") || strings.Contains(c.TableName, "__") {
		return &ConfigError{Field: "TableName", Msg: fmt.Sprintf("%q is not a valid Pinot table name", c.TableName)}
	}
	seen := map[string]bool{}
	for _, f := range c.Schema.Fields {
		if err := validateField(f); err != nil {
			return err
		}
		if seen[f.Name] {
			return &ConfigError{Field: "Schema", Column: f.Name, Msg: "duplicate column"}
		}
		seen[f.Name] = true
	}
	if err := c.validateLists(); err != nil {
		return err
	}
	if c.TimeColumn != "" {
		f, ok := c.Schema.Field(c.TimeColumn)
		if !ok {
			return &ConfigError{Field: "TimeColumn", Column: c.TimeColumn, Msg: "not in schema"}
		}
		if f.FieldType != spec.DateTime {
			return &ConfigError{Field: "TimeColumn", Column: c.TimeColumn, Msg: "must be a DATE_TIME field"}
		}
		if _, err := timeUnitOf(f); err != nil {
			return &ConfigError{Field: "TimeColumn", Column: c.TimeColumn, Msg: err.Error()}
		}
	}
	for k := range c.CustomMap {
		if !customKeyRE.MatchString(k) {
			return &ConfigError{Field: "CustomMap", Msg: fmt.Sprintf("key %q must match [A-Za-z0-9_.-]+", k)}
		}
	}
	return nil
}

// CheckColumnName refuses a name Pinot's segment metadata cannot hold as a
// column name: empty, starting with $, holding white space, = : \ # ! , or
// anything beyond ASCII.
func CheckColumnName(name string) error {
	if name == "" || strings.ContainsAny(name, " \t\r\n\f=:\\#!,") || strings.HasPrefix(name, "$") {
		return errors.New("column name must be non-empty, not start with $ and hold no whitespace or = : \\ # ! ,")
	}
	for _, r := range name {
		if r > 0x7e {
			return errors.New("column name must be ASCII")
		}
	}
	return nil
}

func validateField(f spec.FieldSpec) error {
	if err := CheckColumnName(f.Name); err != nil {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: err.Error()}
	}
	if !f.DataType.Valid() {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: fmt.Sprintf("unsupported dataType %q", f.DataType)}
	}
	switch f.FieldType {
	case spec.Dimension, spec.DateTime, "":
	case spec.Metric:
		switch f.DataType {
		case spec.Int, spec.Long, spec.Float, spec.Double, spec.BigDecimal, spec.Bytes:
		default:
			return &ConfigError{Field: "Schema", Column: f.Name, Msg: fmt.Sprintf("METRIC cannot be %s", f.DataType)}
		}
	default:
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: fmt.Sprintf("unsupported fieldType %q", f.FieldType)}
	}
	if !f.SingleValue && (f.FieldType == spec.Metric || f.FieldType == spec.DateTime) {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: fmt.Sprintf("%s columns must be single-valued", f.FieldType)}
	}
	if !f.SingleValue && (f.DataType == spec.BigDecimal || f.DataType == spec.JSON) {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: fmt.Sprintf("Pinot has no multi-value %s columns", f.DataType)}
	}
	if f.FieldType == spec.DateTime && f.Format == "" && f.DataType != spec.Timestamp {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: "DATE_TIME column needs a format"}
	}
	if f.MaxLength < 0 {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: "maxLength is negative"}
	}
	if _, err := parseDefault(f); err != nil {
		return &ConfigError{Field: "Schema", Column: f.Name, Msg: fmt.Sprintf("defaultNullValue %q: %v", f.DefaultNullValueString(), err)}
	}
	return nil
}

func (c Config) validateLists() error {
	check := func(field string, cols []string) error {
		for _, name := range cols {
			if _, ok := c.Schema.Field(name); !ok {
				return &ConfigError{Field: field, Column: name, Msg: "not in schema"}
			}
		}
		return nil
	}
	for field, cols := range map[string][]string{"NoDictionary": c.NoDictionary, "Dictionary": c.Dictionary, "Inverted": c.Inverted} {
		if err := check(field, cols); err != nil {
			return err
		}
	}
	for _, name := range c.NoDictionary {
		if slices.Contains(c.Dictionary, name) {
			return &ConfigError{Field: "NoDictionary", Column: name, Msg: "also listed in Dictionary"}
		}
		if slices.Contains(c.Inverted, name) {
			return &ConfigError{Field: "Inverted", Column: name, Msg: "an inverted index needs a dictionary, but the column is in NoDictionary"}
		}
		if name == c.SortedColumn {
			return &ConfigError{Field: "SortedColumn", Column: name, Msg: "a sorted column needs a dictionary, but the column is in NoDictionary"}
		}
	}
	if c.SortedColumn != "" {
		f, ok := c.Schema.Field(c.SortedColumn)
		if !ok {
			return &ConfigError{Field: "SortedColumn", Column: c.SortedColumn, Msg: "not in schema"}
		}
		if !f.SingleValue {
			return &ConfigError{Field: "SortedColumn", Column: c.SortedColumn, Msg: "must be single-valued"}
		}
	}
	for name, codec := range c.Compression {
		if _, ok := c.Schema.Field(name); !ok {
			return &ConfigError{Field: "Compression", Column: name, Msg: "not in schema"}
		}
		if _, ok := compressionIDs[codec]; !ok {
			return &ConfigError{Field: "Compression", Column: name, Msg: fmt.Sprintf("codec %q is not one of PASS_THROUGH, SNAPPY, ZSTANDARD, LZ4", codec)}
		}
	}
	return nil
}

// fieldType returns the field type, DIMENSION when unset.
func fieldType(f spec.FieldSpec) spec.FieldType {
	if f.FieldType == "" {
		return spec.Dimension
	}
	return f.FieldType
}

// timeUnitOf derives segment.time.unit from a DATE_TIME field's format
// (colon form "1:MILLISECONDS:EPOCH", pipe form "EPOCH|MILLISECONDS|1",
// TIMESTAMP). SIMPLE_DATE_FORMAT time columns are not supported.
func timeUnitOf(f spec.FieldSpec) (string, error) {
	switch f.DataType {
	case spec.Timestamp:
		return "MILLISECONDS", nil
	case spec.Int, spec.Long:
	default:
		return "", fmt.Errorf("time column must be INT, LONG or TIMESTAMP, not %s", f.DataType)
	}
	format := strings.TrimSpace(f.Format)
	var kind, unit string
	if format != "" && format[0] >= '0' && format[0] <= '9' {
		parts := strings.SplitN(format, ":", 4)
		if len(parts) < 3 {
			return "", fmt.Errorf("bad format %q", format)
		}
		unit, kind = parts[1], parts[2]
	} else {
		parts := strings.Split(format, "|")
		kind = parts[0]
		if len(parts) > 1 {
			unit = parts[1]
		}
	}
	switch strings.ToUpper(kind) {
	case "TIMESTAMP":
		return "MILLISECONDS", nil
	case "EPOCH":
	default:
		return "", fmt.Errorf("format %q: only EPOCH and TIMESTAMP time columns are supported", format)
	}
	switch u := strings.ToUpper(unit); u {
	case "NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS":
		return u, nil
	}
	return "", fmt.Errorf("format %q: unknown time unit %q", format, unit)
}

// unitMillis is the length of one time unit in milliseconds (0 for sub-ms units).
func unitMillis(unit string) int64 {
	switch unit {
	case "SECONDS":
		return 1000
	case "MINUTES":
		return 60_000
	case "HOURS":
		return 3_600_000
	case "DAYS":
		return 86_400_000
	case "MILLISECONDS":
		return 1
	}
	return 0
}
