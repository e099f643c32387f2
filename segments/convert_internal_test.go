package segments

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
)

func TestSrcToMillis(t *testing.T) {
	tests := []struct {
		v    int64
		unit timeUnit
	}{
		{1_700_000_000_123_456, tuMicros}, {-1, tuMicros}, {-1_000_001, tuMicros}, {999, tuMicros},
		{-1, tuNanos}, {1_700_000_000_123_456_789, tuNanos}, {-5, tuMillis}, {-3, tuSeconds},
	}
	for _, tt := range tests {
		want := time.Unix(0, tt.v*int64(tt.unit)).UnixMilli()
		// time.Time.UnixMilli rounds instants down, as floe must.
		if got := srcToMillis(tt.v, tt.unit); got != want {
			t.Errorf("srcToMillis(%d, %d) = %d, want %d", tt.v, tt.unit, got, want)
		}
	}
}

func TestSrcInt96Millis(t *testing.T) {
	at := time.Date(2009, 2, 13, 23, 31, 30, 123_456_789, time.UTC)
	days := at.Unix()/86400 + srcJulianEpochDay
	nanos := uint64(at.Sub(time.Date(2009, 2, 13, 0, 0, 0, 0, time.UTC)).Nanoseconds())
	got := srcInt96Millis([3]uint32{uint32(nanos), uint32(nanos >> 32), uint32(days)})
	if got != at.UnixMilli() {
		t.Fatalf("srcInt96Millis = %d, want %d", got, at.UnixMilli())
	}
}

func TestSrcDecimalText(t *testing.T) {
	tests := []struct {
		unscaled int64
		scale    int32
		want     string
	}{
		{12345, 2, "123.45"}, {-5, 2, "-0.05"}, {0, 3, "0.000"}, {7, 0, "7"}, {682, -1, "6820"},
		{-1, 5, "-0.00001"}, {100, 2, "1.00"},
	}
	for _, tt := range tests {
		if got := srcDecimalText(Decimal{Unscaled: big.NewInt(tt.unscaled), Scale: tt.scale}); got != tt.want {
			t.Errorf("srcDecimalText(%d, %d) = %q, want %q", tt.unscaled, tt.scale, got, tt.want)
		}
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
		if got := srcDecimalFromBE(b, 3); got.Unscaled.Int64() != v || got.Scale != 3 {
			t.Errorf("srcDecimalFromBE(%x) = %v, want %d", b, got.Unscaled, v)
		}
	}
}

func TestSrcJavaFloat(t *testing.T) {
	tests := []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1.5, 64, "1.5"}, {1e10, 64, "1.0E10"}, {1.25e-5, 64, "1.25E-5"}, {0.001, 64, "0.001"},
		{-1234567.5, 64, "-1234567.5"}, {math.Inf(-1), 64, "-Infinity"}, {0.1, 32, "0.1"}, {12345678, 64, "1.2345678E7"},
	}
	for _, tt := range tests {
		if got := srcJavaFloat(tt.f, tt.bits); got != tt.want {
			t.Errorf("srcJavaFloat(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestCheckConversion(t *testing.T) {
	ok := []struct {
		src srcType
		to  pinot.DataType
	}{
		{srcType{kind: kindInt, bits: 32}, pinot.Long}, {srcType{kind: kindInt, bits: 64}, pinot.Timestamp},
		{srcType{kind: kindDate}, pinot.Timestamp}, {srcType{kind: kindUUID}, pinot.String},
		{srcType{kind: kindDecimal}, pinot.BigDecimal}, {srcType{kind: kindNested}, pinot.JSON},
		{srcType{kind: kindInt96}, pinot.Timestamp}, {srcType{kind: kindGeo}, pinot.Bytes},
	}
	for _, tt := range ok {
		if err := checkConversion(tt.src, pinot.FieldSpec{Name: "c", DataType: tt.to, SingleValue: true}); err != nil {
			t.Errorf("kind %d → %s: %v", tt.src.kind, tt.to, err)
		}
	}
	bad := []struct {
		src srcType
		to  pinot.DataType
	}{
		{srcType{kind: kindInt, bits: 64}, pinot.Int}, {srcType{kind: kindInt, bits: 32}, pinot.Timestamp},
		{srcType{kind: kindString}, pinot.Long}, {srcType{kind: kindBinary}, pinot.String},
		{srcType{kind: kindTimestamp}, pinot.Int}, {srcType{kind: kindNested}, pinot.Bytes},
		{srcType{kind: kindUint, bits: 32}, pinot.Int},
	}
	for _, tt := range bad {
		if err := checkConversion(tt.src, pinot.FieldSpec{Name: "c", DataType: tt.to, SingleValue: true}); err == nil {
			t.Errorf("kind %d → %s: accepted", tt.src.kind, tt.to)
		}
	}
}
