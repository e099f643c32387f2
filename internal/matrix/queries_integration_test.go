//go:build integration

package matrix_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// column is one Pinot column the matrix compares, with how the oracle maps
// the Iceberg value to Pinot's (oracle.py's KIND).
type column struct {
	name   string
	source string // top-level Iceberg field (the Arrow column of a scan)
	kind   string
	typ    spec.DataType
	sv     bool
	field  spec.FieldSpec
}

// oracleKind is floe's documented value mapping (schema/doc.go) for the
// default inference; "" means the column is not compared (variant, geo,
// lists of decimals). JSON columns are compared in the row dump only.
func oracleKind(c schema.Column) string {
	if len(c.Path) != 1 {
		return ""
	}
	if c.Field.DataType == spec.JSON {
		switch c.Type.(type) {
		case *iceberg.StructType, *iceberg.MapType, *iceberg.ListType:
			return "json"
		}
		return "" // variant, geo: not compared
	}
	switch t := c.Type.(type) {
	case *iceberg.ListType:
		if _, ok := t.Element.(iceberg.DecimalType); ok {
			return "" // MV STRING of decimal text: not compared
		}
		inner := scalarKind(t.Element)
		if inner == "" || c.Field.SingleValue {
			return ""
		}
		return "mv:" + inner
	default:
		return scalarKind(c.Type)
	}
}

func scalarKind(t iceberg.Type) string {
	switch t.(type) {
	case iceberg.BooleanType, iceberg.Int32Type, iceberg.Int64Type, iceberg.Float32Type, iceberg.Float64Type,
		iceberg.StringType:
		return "same"
	case iceberg.DecimalType:
		return "same"
	case iceberg.DateType:
		return "date_days"
	case iceberg.TimeType:
		return "time_us"
	case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return "ts_ms"
	case iceberg.UUIDType:
		return "uuid_str"
	case iceberg.FixedType, iceberg.BinaryType:
		return "hex"
	}
	return ""
}

// compared returns the columns of an inferred schema the matrix compares.
func compared(res *schema.Result) []column {
	var out []column
	for _, c := range res.Columns {
		kind := oracleKind(c)
		if kind == "" {
			continue
		}
		out = append(out, column{name: c.Field.Name, source: c.Path[0], kind: kind, typ: c.Field.DataType,
			sv: c.Field.SingleValue, field: c.Field})
	}
	return out
}

// query is one SQL text run on every engine that applies.
type query struct {
	sql string
	// only15: only Pinot 1.5.1 (null handling on) and the oracle answer it:
	// the query needs SQL null semantics, which Pinot 0.11 lacks (or the
	// cluster's sync failed this step).
	only15 bool
	// approx lists result columns compared with a relative tolerance (sums:
	// the engines add in different orders).
	approx []int
	// ordered: rows compare in order (the query orders by a unique key);
	// otherwise as sorted multisets.
	ordered bool
	// defaults: Pinot 0.11 answers Pinot's default null value where the
	// oracle answers null (a plain row dump without null handling).
	defaults []spec.FieldSpec
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// literal renders a value the oracle returned for column c as SQL that
// Pinot and DuckDB both read as the same value.
func literal(c column, v any) string {
	switch c.typ {
	case spec.String, spec.Bytes:
		return "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "''") + "'"
	case spec.Boolean:
		if b, ok := v.(bool); ok && b {
			return "true"
		}
		return "false"
	}
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return fmt.Sprint(v)
}

func isNumeric(t spec.DataType) bool {
	switch t {
	case spec.Int, spec.Long, spec.Float, spec.Double, spec.BigDecimal, spec.Timestamp:
		return true
	}
	return false
}

// probe holds what the oracle says about the table's data, for choosing
// literals and skipping queries that have nothing to aggregate.
type probe struct {
	nonNull  map[string]int64
	median   map[string]any // a non-null value of each SV column
	frequent map[string]any // the most frequent non-null value of each SV column
}

// querySet is the fixed query set of a table (see the package doc).
func querySet(tbl string, cols []column, key, group string, p probe) []query {
	qs := []query{{sql: "SELECT count(*) FROM " + tbl}}
	var firstNum *column
	for i, c := range cols {
		if !c.sv || c.typ == spec.JSON {
			continue
		}
		q := quote(c.name)
		qs = append(qs, query{sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", tbl, q)},
			query{sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NOT NULL", tbl, q)})
		if p.nonNull[c.name] == 0 {
			continue
		}
		if isNumeric(c.typ) {
			qs = append(qs, numericQueries(tbl, c, p)...)
			if firstNum == nil && c.typ != spec.Timestamp {
				firstNum = &cols[i]
			}
		} else {
			qs = append(qs, discreteQueries(tbl, c, p)...)
		}
	}
	if group != "" {
		g := quote(group)
		qs = append(qs, query{sql: fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s IS NOT NULL GROUP BY %s LIMIT 10000",
			g, tbl, g, g)})
		if firstNum != nil {
			n := quote(firstNum.name)
			qs = append(qs, query{only15: true, approx: []int{2},
				sql: fmt.Sprintf("SELECT %s, count(*), sum(%s), min(%s), max(%s) FROM %s GROUP BY %s LIMIT 10000",
					g, n, n, n, tbl, g)})
		}
	}
	return append(qs, dumpQuery(tbl, cols, key))
}

func numericQueries(tbl string, c column, p probe) []query {
	q := quote(c.name)
	lit := literal(c, p.median[c.name])
	// Filters exclude nulls explicitly on every engine: Pinot 0.11 compares
	// a null's default value, and Pinot 1.5.1 with null handling counts null
	// rows when a range or NOT_EQ filter uses a sorted column's index (seen
	// with Pinot-built segments too: a Pinot bug, not floe's).
	qs := []query{
		{sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE %s >= %s AND %s IS NOT NULL", tbl, q, lit, q)},
		{sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE %s < %s AND %s IS NOT NULL", tbl, q, lit, q)},
	}
	if c.typ == spec.Timestamp {
		return append(qs, query{sql: fmt.Sprintf("SELECT min(%s), max(%s) FROM %s WHERE %s IS NOT NULL", q, q, tbl, q)},
			query{only15: true, sql: fmt.Sprintf("SELECT min(%s), max(%s), count(%s) FROM %s", q, q, q, tbl)})
	}
	return append(qs,
		query{approx: []int{0}, sql: fmt.Sprintf("SELECT sum(%s), min(%s), max(%s) FROM %s WHERE %s IS NOT NULL",
			q, q, q, tbl, q)},
		query{only15: true, approx: []int{0},
			sql: fmt.Sprintf("SELECT sum(%s), min(%s), max(%s), count(%s) FROM %s", q, q, q, q, tbl)})
}

func discreteQueries(tbl string, c column, p probe) []query {
	q := quote(c.name)
	lit := literal(c, p.frequent[c.name])
	return []query{
		{sql: fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s WHERE %s IS NOT NULL", q, tbl, q)},
		{sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = %s AND %s IS NOT NULL", tbl, q, lit, q)},
		{only15: true, sql: fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s", q, tbl)},
	}
}

// dumpQuery selects every compared column of every row, ordered by the
// table's unique key.
func dumpQuery(tbl string, cols []column, key string) query {
	names := make([]string, len(cols))
	fields := make([]spec.FieldSpec, len(cols))
	for i, c := range cols {
		names[i] = quote(c.name)
		fields[i] = c.field
	}
	return query{ordered: true, defaults: fields,
		sql: fmt.Sprintf("SELECT %s FROM %s ORDER BY %s LIMIT 100000", strings.Join(names, ", "), tbl, quote(key))}
}
