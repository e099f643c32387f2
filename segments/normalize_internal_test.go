package segments

import (
	"encoding/hex"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments/internal/text"
)

func TestSanitizeString(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		trim bool
		want string
	}{
		{"ascii unchanged", "hello", 512, true, "hello"},
		{"cut at NUL", "a\x00b", 512, true, "a"},
		{"invalid bytes one each", "\xff\xfeok", 512, true, "\uFFFD\uFFFDok"},
		{"truncated 3-byte is one", "x\xe2\x82", 512, true, "x\uFFFD"},
		{"truncated 3-byte then ascii", "\xe2\x82A", 512, true, "\uFFFDA"},
		{"encoded surrogate is one", "\xed\xa0\x80z", 512, true, "\uFFFDz"},
		{"overlong E0 80 80 is three", "\xe0\x80\x80", 512, true, "\uFFFD\uFFFD\uFFFD"},
		{"truncated 4-byte is one", "\xf0\x9f\x98", 512, true, "\uFFFD"},
		{"F4 90 is out of range", "\xf4\x90\x80\x80", 512, true, "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"trim ascii", strings.Repeat("x", 600), 512, true, strings.Repeat("x", 512)},
		{"trim counts UTF-16 units", strings.Repeat("é", 600), 512, true, strings.Repeat("é", 512)},
		{"split pair leaves ?", strings.Repeat("a", 511) + "😀", 512, true, strings.Repeat("a", 511) + "?"},
		{"pair fits", strings.Repeat("a", 510) + "😀", 512, true, strings.Repeat("a", 510) + "😀"},
		{"JSON not trimmed", strings.Repeat("x", 600), 512, false, strings.Repeat("x", 600)},
		{"JSON cut at NUL", `{"a":1}` + "\x00zz", 512, false, `{"a":1}`},
		{"JSON NUL beyond max trims to max", strings.Repeat("x", 600) + "\x00", 512, false, strings.Repeat("x", 512)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scratch []byte
			if got := string(sanitizeString([]byte(c.in), c.max, c.trim, &scratch)); got != c.want {
				t.Errorf("sanitizeString(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestCompareUTF16(t *testing.T) {
	ordered := []string{"", "A", "AB", "B", "a", "é", "日本", "😀", "\uE000", "\uFFFD"}
	for i := range ordered {
		for j := range ordered {
			want := cmpInt(i, j)
			if got := compareUTF16(ordered[i], ordered[j]); got != want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestDecimalKey(t *testing.T) {
	cases := []struct{ in, hex, plain string }{
		{"0", "000000", "0"},
		{"0.000", "000000", "0"},
		{"128", "00000080", "128"},
		{"-1", "0000ff", "-1"},
		{"-128", "000080", "-128"},
		{"-129", "0000ff7f", "-129"},
		{"1.50", "00010f", "1.5"},
		{"100", "fffe01", "100"},
		{"1E+5", "fffb01", "100000"},
		{"-0.0012300", "0005" + "85", "-0.00123"},
	}
	for _, c := range cases {
		d, err := parseDecimal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		k, err := decimalKey(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(k); got != c.hex {
			t.Errorf("decimalKey(%s) = %s, want %s", c.in, got, c.hex)
		}
		u, s := decodeDecimalKey(k)
		if got := text.Decimal(u, int32(s)); got != c.plain {
			t.Errorf("plain(%s) = %s, want %s", c.in, got, c.plain)
		}
	}
	if _, err := decimalKey(Decimal{Unscaled: big.NewInt(1), Scale: 40000}, nil); err == nil {
		t.Error("scale 40000 accepted, want error (Pinot stores a 16-bit scale)")
	}
}

func TestJavaDouble(t *testing.T) {
	cases := map[float64]string{
		0: "0.0", 1: "1.0", 1.5: "1.5", -2.5: "-2.5", 100: "100.0", 1e7: "1.0E7", 9999999: "9999999.0",
		0.001: "0.001", 0.0001: "1.0E-4", 1e10: "1.0E10", 123456789.125: "1.23456789125E8",
		math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", math.MaxFloat64: "1.7976931348623157E308",
		math.SmallestNonzeroFloat64: "4.9E-324",
	}
	for v, want := range cases {
		if got := javaDouble(v); got != want {
			t.Errorf("javaDouble(%v) = %s, want %s", v, got, want)
		}
	}
	if got := javaFloat(float32(0.1)); got != "0.1" {
		t.Errorf("javaFloat(0.1) = %s", got)
	}
	if got := javaFloat(math.MaxFloat32); got != "3.4028235E38" {
		t.Errorf("javaFloat(max) = %s", got)
	}
}

func TestParseDefault(t *testing.T) {
	cases := []struct {
		f    spec.FieldSpec
		text string
	}{
		{spec.FieldSpec{DataType: spec.Int, FieldType: spec.Dimension}, "-2147483648"},
		{spec.FieldSpec{DataType: spec.Float, FieldType: spec.Dimension}, "-Infinity"},
		{spec.FieldSpec{DataType: spec.Double, FieldType: spec.Metric}, "0.0"},
		{spec.FieldSpec{DataType: spec.Double, FieldType: spec.Metric, DefaultNullValue: "1"}, "1.0"},
		{spec.FieldSpec{DataType: spec.Boolean, FieldType: spec.Dimension, DefaultNullValue: "true"}, "1"},
		{spec.FieldSpec{DataType: spec.BigDecimal, FieldType: spec.Metric, DefaultNullValue: "2.50"}, "2.5"},
		{spec.FieldSpec{DataType: spec.Bytes, FieldType: spec.Dimension, DefaultNullValue: "00FF"}, "00ff"},
		{spec.FieldSpec{DataType: spec.String, FieldType: spec.Dimension}, "null"},
	}
	for _, c := range cases {
		d, err := parseDefault(c.f)
		if err != nil || d.text != c.text {
			t.Errorf("parseDefault(%s %q) = %q, %v; want %q", c.f.DataType, c.f.DefaultNullValue, d.text, err, c.text)
		}
	}
	if _, err := parseDefault(spec.FieldSpec{DataType: spec.Int, DefaultNullValue: "x"}); err == nil {
		t.Error("INT default x accepted")
	}
}
