//go:build integration

package matrix_test

import (
	"encoding/hex"
	"math/big"

	"github.com/apache/iceberg-go"
)

// stdSchema is the schema most matrix tables share: a unique id, a
// low-cardinality city, nullable numbers of each kind, a required
// timestamptz (the Pinot time column), a boolean and a date.
func stdSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "qty", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 4, Name: "price", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "amount", Type: iceberg.DecimalTypeOf(10, 2)},
		iceberg.NestedField{ID: 6, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		iceberg.NestedField{ID: 7, Name: "flag", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 8, Name: "day", Type: iceberg.PrimitiveTypes.Date},
	)
}

// stdSchemaSpec is stdSchema for oracle.py's "create".
func stdSchemaSpec() []map[string]any {
	return []map[string]any{
		{"id": 1, "name": "id", "type": "long", "required": true},
		{"id": 2, "name": "city", "type": "string"},
		{"id": 3, "name": "qty", "type": "int"},
		{"id": 4, "name": "price", "type": "double"},
		{"id": 5, "name": "amount", "type": "decimal(10,2)"},
		{"id": 6, "name": "ts", "type": "timestamptz", "required": true},
		{"id": 7, "name": "flag", "type": "boolean"},
		{"id": 8, "name": "day", "type": "date"},
	}
}

var cities = []string{"Lisbon", "Oslo", "Tallinn", "Vienna", "Zürich"}

// stdRow is row i of stdSchema: nulls at fixed strides, prices that are
// not exact binary fractions, timestamps with sub-millisecond parts.
func stdRow(i int64) row {
	r := row{
		"id":     i,
		"amount": i*137 - 500, // unscaled, scale 2
		"ts":     int64(1_700_000_000_000_000) + i*3_600_123_457,
		"day":    int32(19000 + i%40),
	}
	if i%7 != 3 {
		r["city"] = cities[i%int64(len(cities))]
	}
	if i%5 != 4 {
		r["qty"] = int32(i%13 - 3)
	}
	if i%6 != 5 {
		r["price"] = float64(i) / 10
	}
	if i%4 != 2 {
		r["flag"] = i%3 == 0
	}
	return r
}

func stdRows(from, to int64) []row {
	out := make([]row, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, stdRow(i))
	}
	return out
}

// pyRows renders rows for oracle.py: decimals as text (scale 2), bytes as
// hex; timestamps stay epoch microseconds and dates epoch days.
func pyRows(rows []row) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		m := map[string]any{}
		for k, v := range r {
			switch k {
			case "amount":
				m[k] = new(big.Rat).SetFrac64(v.(int64), 100).FloatString(2)
			default:
				if b, ok := v.([]byte); ok {
					m[k] = hex.EncodeToString(b)
				} else {
					m[k] = v
				}
			}
		}
		out[i] = m
	}
	return out
}
