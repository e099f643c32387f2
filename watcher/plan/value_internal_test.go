package plan

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// P9: every partition value type iceberg-go decodes survives encoding.
func TestEncodeValue_RoundTrip(t *testing.T) {
	dec := iceberg.DecimalLiteral{Val: decimal128.FromBigInt(big.NewInt(-123456)), Scale: 3}
	for _, v := range []any{nil, true, int32(-7), int64(1) << 40, float32(1.5), 2.25, "a,b=\"c\"", []byte{0, 255},
		iceberg.Date(19000), iceberg.Time(3600e6), iceberg.Timestamp(1700000000000000),
		iceberg.TimestampNano(1700000000000000001), dec, uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")} {
		ev, err := encodeValue(v)
		if err != nil {
			t.Fatalf("encode %T %v: %v", v, v, err)
		}
		got, err := decodeValue(ev)
		if err != nil {
			t.Fatalf("decode %+v: %v", ev, err)
		}
		if fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", v, v) {
			t.Fatalf("%T %v came back as %T %v", v, v, got, got)
		}
	}
}

func TestEncodeValue_Errors(t *testing.T) {
	if _, err := encodeValue(struct{}{}); err == nil {
		t.Fatal("want an error for an unsupported type")
	}
	for _, v := range []value{{T: "int", V: "x"}, {T: "decimal", V: "12"}, {T: "geometry", V: "POINT"}} {
		if _, err := decodeValue(v); err == nil {
			t.Fatalf("want an error decoding %+v", v)
		}
	}
}

// P3: partition keys name the spec and every field with its type.
func TestEncodePartitionKey(t *testing.T) {
	spec := iceberg.NewPartitionSpecID(3,
		iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1000, Name: "d", Transform: iceberg.DayTransform{}},
		iceberg.PartitionField{SourceIDs: []int{2}, FieldID: 1001, Name: "s", Transform: iceberg.IdentityTransform{}})
	got, err := encodePartitionKey(spec, map[int]any{1000: iceberg.Date(19000), 1001: "x,y"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `3/1000=date:"19000",1001=string:"x,y"`; got != want {
		t.Fatalf("key %s, want %s", got, want)
	}
}
