package pinottest

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/floehq/floe/pinot/spec"
)

func TestDecodeValue(t *testing.T) {
	tests := []struct {
		name   string
		stored spec.DataType
		raw    string
		want   Value
	}{
		{"int", spec.Int, `-2147483648`, Value{V: int32(math.MinInt32)}},
		{"long beyond float precision", spec.Long, `"9007199254740993"`, Value{V: int64(9007199254740993)}},
		{"float bits", spec.Float, `{"s":"0.1","bits":"3dcccccd"}`, Value{V: float32(0.1), Text: "0.1"}},
		{"double bits", spec.Double, `{"s":"-0.0","bits":"8000000000000000"}`,
			Value{V: math.Copysign(0, -1), Text: "-0.0"}},
		{"bytes", spec.Bytes, `"00ff10"`, Value{V: []byte{0, 0xff, 0x10}}},
		{"string", spec.String, `"zürich ☃"`, Value{V: "zürich ☃"}},
		{"mv int", spec.Int, `[3,1]`, Value{V: []any{int32(3), int32(1)}}},
		{"null", spec.String, `null`, Value{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeValue(tt.stored, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("decodeValue(%s, %s): %v", tt.stored, tt.raw, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decodeValue(%s, %s) = %#v, want %#v", tt.stored, tt.raw, got, tt.want)
			}
		})
	}
}

func TestDecodeValue_BigDecimal(t *testing.T) {
	tests := []struct {
		raw   string
		want  *big.Rat
		scale int32
	}{
		{`{"s":"-12.50","unscaled":"-1250","scale":2}`, big.NewRat(-25, 2), 2},
		{`{"s":"1200","unscaled":"12","scale":-2}`, big.NewRat(1200, 1), -2},
		{`{"s":"0.000000000000000000000000000001","unscaled":"1","scale":30}`,
			new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)), 30},
	}
	for _, tt := range tests {
		got, err := decodeValue(spec.BigDecimal, json.RawMessage(tt.raw))
		if err != nil {
			t.Fatalf("decodeValue(%s): %v", tt.raw, err)
		}
		r, ok := got.V.(*big.Rat)
		if !ok || r.Cmp(tt.want) != 0 || got.Scale != tt.scale {
			t.Fatalf("decodeValue(%s) = %v scale %d, want %v scale %d", tt.raw, got.V, got.Scale, tt.want, tt.scale)
		}
	}
}

func TestDecodeValue_Errors(t *testing.T) {
	tests := []struct {
		name   string
		stored spec.DataType
		raw    string
	}{
		{"long as number", spec.Long, `12`},
		{"bad hex", spec.Bytes, `"zz"`},
		{"bad bits", spec.Double, `{"s":"1","bits":"xyz"}`},
		{"bad unscaled", spec.BigDecimal, `{"s":"1","unscaled":"1.5","scale":0}`},
		{"int overflow", spec.Int, `2147483648`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeValue(tt.stored, json.RawMessage(tt.raw)); err == nil {
				t.Fatalf("decodeValue(%s, %s) succeeded, want an error", tt.stored, tt.raw)
			}
		})
	}
}

func TestParseDumps(t *testing.T) {
	out := strings.Join([]string{
		`{"kind":"segment","index":0,"path":"s0","segmentName":"seg","version":"v3","totalDocs":2,"crc":"1",` +
			`"metadata":{"segment.total.docs":"2","segment.dimension.column.names":["a","b"]},` +
			`"columns":{"a":{"dataType":"TIMESTAMP","storedType":"LONG","singleValue":true,"minValue":"5"}}}`,
		`{"kind":"row","index":0,"doc":0,"values":{"a":"5"},"nulls":[]}`,
		`{"kind":"row","index":0,"doc":1,"values":{"a":"0"},"nulls":["a"]}`,
		`{"kind":"end","index":0,"path":"s0","rows":2,"errors":[]}`,
		`{"kind":"end","index":1,"path":"s1","loadFailed":true,"errors":["load segment s1: boom"]}`,
	}, "\n")
	dumps, err := parseDumps(strings.NewReader(out), 2)
	if err != nil {
		t.Fatal(err)
	}
	d := dumps[0]
	if d.Metadata["segment.dimension.column.names"] != "a,b" ||
		!reflect.DeepEqual(d.MetadataLists["segment.dimension.column.names"], []string{"a", "b"}) {
		t.Errorf("metadata = %v / %v", d.Metadata, d.MetadataLists)
	}
	if d.Columns["a"].Min.V != int64(5) || len(d.Rows) != 2 {
		t.Fatalf("dump = %+v", d)
	}
	if d.Rows[0]["a"].Null || !d.Rows[1]["a"].Null || d.Rows[1]["a"].V != int64(0) {
		t.Errorf("rows = %+v", d.Rows)
	}
	if len(dumps[1].Errors) != 1 || dumps[1].Path != "s1" {
		t.Errorf("failed segment dump = %+v", dumps[1])
	}
}

func TestParseDumps_Truncated(t *testing.T) {
	out := `{"kind":"segment","index":0,"path":"s0","columns":{}}`
	if _, err := parseDumps(strings.NewReader(out), 1); err == nil || !strings.Contains(err.Error(), "segment 0") {
		t.Fatalf("parseDumps(truncated) error = %v, want one naming segment 0", err)
	}
}
