package convert

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/floehq/floe/pinot/spec"
)

func TestSrcToMillis(t *testing.T) {
	tests := []struct {
		v    int64
		unit TimeUnit
	}{
		{1_700_000_000_123_456, Micros}, {-1, Micros}, {-1_000_001, Micros}, {999, Micros},
		{-1, Nanos}, {1_700_000_000_123_456_789, Nanos}, {-5, Millis}, {-3, Seconds},
	}
	for _, tt := range tests {
		want := time.Unix(0, tt.v*int64(tt.unit)).UnixMilli()
		// time.Time.UnixMilli rounds instants down, as floe must.
		if got := ToMillis(tt.v, tt.unit); got != want {
			t.Errorf("ToMillis(%d, %d) = %d, want %d", tt.v, tt.unit, got, want)
		}
	}
}

func TestSrcInt96Millis(t *testing.T) {
	at := time.Date(2009, 2, 13, 23, 31, 30, 123_456_789, time.UTC)
	days := at.Unix()/86400 + srcJulianEpochDay
	nanos := uint64(at.Sub(time.Date(2009, 2, 13, 0, 0, 0, 0, time.UTC)).Nanoseconds())
	got := int96Millis([3]uint32{uint32(nanos), uint32(nanos >> 32), uint32(days)})
	if got != at.UnixMilli() {
		t.Fatalf("int96Millis = %d, want %d", got, at.UnixMilli())
	}
}

func TestSrcDecimalFromBE(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 127, 128, -128, -129, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64} {
		n := big.NewInt(v)
		b := make([]byte, 16)
		if v < 0 {
			n.Add(n, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		n.FillBytes(b)
		if got := DecimalFromBE(b, 3); got.Unscaled.Int64() != v || got.Scale != 3 {
			t.Errorf("DecimalFromBE(%x) = %v, want %d", b, got.Unscaled, v)
		}
	}
}

func TestCheckConversion(t *testing.T) {
	ok := []struct {
		src Type
		to  spec.DataType
	}{
		{Type{Kind: KindInt, Bits: 32}, spec.Long}, {Type{Kind: KindInt, Bits: 64}, spec.Timestamp},
		{Type{Kind: KindDate}, spec.Timestamp}, {Type{Kind: KindUUID}, spec.String},
		{Type{Kind: KindDecimal}, spec.BigDecimal}, {Type{Kind: KindNested}, spec.JSON},
		{Type{Kind: KindInt96}, spec.Timestamp}, {Type{Kind: KindGeo}, spec.Bytes},
	}
	for _, tt := range ok {
		if err := Check(tt.src, spec.FieldSpec{Name: "c", DataType: tt.to, SingleValue: true}); err != nil {
			t.Errorf("kind %d → %s: %v", tt.src.Kind, tt.to, err)
		}
	}
	bad := []struct {
		src Type
		to  spec.DataType
	}{
		{Type{Kind: KindInt, Bits: 64}, spec.Int}, {Type{Kind: KindInt, Bits: 32}, spec.Timestamp},
		{Type{Kind: KindString}, spec.Long}, {Type{Kind: KindBinary}, spec.String},
		{Type{Kind: KindTimestamp}, spec.Int}, {Type{Kind: KindNested}, spec.Bytes},
		{Type{Kind: KindUint, Bits: 32}, spec.Int},
	}
	for _, tt := range bad {
		if err := Check(tt.src, spec.FieldSpec{Name: "c", DataType: tt.to, SingleValue: true}); err == nil {
			t.Errorf("kind %d → %s: accepted", tt.src.Kind, tt.to)
		}
	}
}

func TestFloat16(t *testing.T) {
	tests := []struct {
		bits uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.33325195}, {0x7bff, 65504}, {0x0001, 5.9604645e-08},
		{0x03ff, 6.097555e-05}, {0x0000, 0}, {0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	}
	for _, tt := range tests {
		if got := Float16([]byte{byte(tt.bits), byte(tt.bits >> 8)}); got != tt.want {
			t.Errorf("Float16(%#04x) = %v, want %v", tt.bits, got, tt.want)
		}
	}
	if got := Float16([]byte{0x01, 0x7e}); !math.IsNaN(float64(got)) {
		t.Errorf("Float16(NaN) = %v", got)
	}
	if got := Float16([]byte{0x00, 0x80}); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("Float16(-0) = %v", got)
	}
}
