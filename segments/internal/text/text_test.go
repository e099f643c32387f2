package text

import (
	"math"
	"math/big"
	"testing"
)

func TestDecimal(t *testing.T) {
	tests := []struct {
		unscaled int64
		scale    int32
		want     string
	}{
		{12345, 2, "123.45"}, {-5, 2, "-0.05"}, {0, 3, "0.000"}, {7, 0, "7"}, {682, -1, "6820"},
		{-1, 5, "-0.00001"}, {100, 2, "1.00"},
	}
	for _, tt := range tests {
		if got := Decimal(big.NewInt(tt.unscaled), tt.scale); got != tt.want {
			t.Errorf("Decimal(%d, %d) = %q, want %q", tt.unscaled, tt.scale, got, tt.want)
		}
	}
}

func TestJavaFloat(t *testing.T) {
	tests := []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1.5, 64, "1.5"}, {1e10, 64, "1.0E10"}, {1.25e-5, 64, "1.25E-5"}, {0.001, 64, "0.001"},
		{-1234567.5, 64, "-1234567.5"}, {math.Inf(-1), 64, "-Infinity"}, {0.1, 32, "0.1"}, {12345678, 64, "1.2345678E7"},
		{4.9e-324, 64, "4.9E-324"}, {math.Copysign(0, -1), 64, "-0.0"}, {math.NaN(), 32, "NaN"},
	}
	for _, tt := range tests {
		if got := JavaFloat(tt.f, tt.bits); got != tt.want {
			t.Errorf("JavaFloat(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}
