//go:build integration

package matrix_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/pinot/spec"
)

// cell is one canonical value: text compares exactly; f is set for DOUBLE
// values, which approximate columns compare with a tolerance.
type cell struct {
	text  string
	f     float64
	float bool
}

// canon maps a value to its canonical form by the Pinot result type of its
// column, whichever engine answered it: Pinot (broker JSON) or the oracle.
func canon(typ string, v any) (cell, error) {
	if v == nil {
		return cell{text: "NULL"}, nil
	}
	if elem, ok := strings.CutSuffix(typ, "_ARRAY"); ok {
		list, ok := v.([]any)
		if !ok {
			return cell{}, fmt.Errorf("%s value %v is not a list", typ, v)
		}
		parts := make([]string, len(list))
		for i, x := range list {
			c, err := canon(elem, x)
			if err != nil {
				return cell{}, err
			}
			parts[i] = c.text
		}
		return cell{text: "[" + strings.Join(parts, ",") + "]"}, nil
	}
	s := fmt.Sprint(v)
	switch typ {
	case "INT", "LONG":
		n, ok := new(big.Rat).SetString(s)
		if !ok || !n.IsInt() {
			return cell{}, fmt.Errorf("%s value %q is not an integer", typ, s)
		}
		return cell{text: n.Num().String()}, nil
	case "FLOAT":
		f, err := parseFloat(s, 32)
		return cell{text: strconv.FormatFloat(f, 'g', -1, 32)}, err
	case "DOUBLE":
		f, err := parseFloat(s, 64)
		return cell{text: strconv.FormatFloat(f, 'g', -1, 64), f: f, float: true}, err
	case "BIG_DECIMAL":
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return cell{}, fmt.Errorf("BIG_DECIMAL value %q", s)
		}
		return cell{text: r.RatString()}, nil
	case "BOOLEAN":
		switch s {
		case "true", "1":
			return cell{text: "true"}, nil
		case "false", "0":
			return cell{text: "false"}, nil
		}
		return cell{}, fmt.Errorf("BOOLEAN value %q", s)
	case "TIMESTAMP":
		ms, err := timestampMillis(v)
		return cell{text: strconv.FormatInt(ms, 10)}, err
	}
	if typ == "JSON" {
		return canonJSON(v)
	}
	return cell{text: s}, nil // STRING, BYTES (hex)
}

// canonJSON re-encodes JSON text (Pinot's answer, the oracle's) with sorted
// object keys.
func canonJSON(v any) (cell, error) {
	s, ok := v.(string)
	if !ok {
		return cell{}, fmt.Errorf("JSON value %v is not text", v)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return cell{}, fmt.Errorf("JSON value %q: %w", s, err)
	}
	b, err := json.Marshal(x)
	return cell{text: string(b)}, err
}

// parseFloat reads a float from a number or the strings Java writes for
// non-finite values, rounded to the given bit size.
func parseFloat(s string, bits int) (float64, error) {
	switch s {
	case "Infinity", "inf":
		return math.Inf(1), nil
	case "-Infinity", "-inf":
		return math.Inf(-1), nil
	case "NaN", "nan":
		return math.NaN(), nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("float value %q", s)
	}
	if bits == 32 {
		f, _ := r.Float32()
		return float64(f), nil
	}
	f, _ := r.Float64()
	return f, nil
}

// timestampMillis reads epoch millis (the oracle) or the text of a Java
// Timestamp in UTC (Pinot's answer for TIMESTAMP columns).
func timestampMillis(v any) (int64, error) {
	if n, ok := v.(json.Number); ok {
		return strconv.ParseInt(n.String(), 10, 64)
	}
	s := fmt.Sprint(v)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		return 0, fmt.Errorf("TIMESTAMP value %q: %w", s, err)
	}
	if t.Before(gregorianStart) {
		// java.sql.Timestamp prints dates before 1582-10-15 in the Julian
		// calendar.
		y, m, d := t.Date()
		day := julianDay(y, int(m), d) - unixEpochJulianDay
		tod := t.Sub(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
		return int64(day)*86_400_000 + tod.Milliseconds(), nil
	}
	return t.UnixMilli(), nil
}

var gregorianStart = time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC)

const unixEpochJulianDay = 2_440_588

// julianDay is the Julian day number of a date in the Julian calendar.
func julianDay(y, m, d int) int {
	a := (14 - m) / 12
	y2 := y + 4800 - a
	m2 := m + 12*a - 3
	return d + (153*m2+2)/5 + 365*y2 + y2/4 - 32083
}

// canonRows canonicalises an answer with the Pinot column types; unordered
// answers are sorted.
func canonRows(types []string, rows [][]any, ordered bool) ([][]cell, error) {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		if len(r) != len(types) {
			return nil, fmt.Errorf("row %d has %d values, want %d", i, len(r), len(types))
		}
		out[i] = make([]cell, len(r))
		for j, v := range r {
			c, err := canon(types[j], v)
			if err != nil {
				return nil, fmt.Errorf("row %d column %d: %w", i, j, err)
			}
			out[i][j] = c
		}
	}
	if !ordered {
		slices.SortFunc(out, func(a, b []cell) int { return strings.Compare(rowText(a), rowText(b)) })
	}
	return out, nil
}

func rowText(r []cell) string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.text
	}
	return strings.Join(parts, " | ")
}

// withDefaults replaces nulls by the field's Pinot default null value: what
// Pinot without null handling answers for a null.
func withDefaults(types []string, rows [][]any, fields []spec.FieldSpec) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
		for j, v := range r {
			if v != nil || j >= len(fields) {
				continue
			}
			d := fields[j].DefaultNullValueString()
			switch {
			case strings.HasSuffix(types[j], "_ARRAY"):
				out[i][j] = []any{d}
			case types[j] == "BYTES":
				out[i][j] = d // "" is the hex of no bytes
			default:
				out[i][j] = d
			}
		}
	}
	return out
}

// diff compares two canonical answers; "" means equal.
func diff(want, got [][]cell, approx []int) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if len(want[i]) != len(got[i]) {
			return fmt.Sprintf("row %d has %d columns, want %d", i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			w, g := want[i][j], got[i][j]
			if w.text == g.text {
				continue
			}
			if slices.Contains(approx, j) && w.float && g.float && near(w.f, g.f) {
				continue
			}
			return fmt.Sprintf("row %d column %d: got %s, want %s", i, j, g.text, w.text)
		}
	}
	return ""
}

func near(a, b float64) bool {
	d := math.Abs(a - b)
	return d <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) || d < 1e-12
}

// show renders canonical rows for a failure message (at most 40 rows).
func show(rows [][]cell) string {
	var b strings.Builder
	for i, r := range rows {
		if i == 40 {
			fmt.Fprintf(&b, "    ... %d more rows\n", len(rows)-40)
			break
		}
		b.WriteString("    " + rowText(r) + "\n")
	}
	if len(rows) == 0 {
		b.WriteString("    (no rows)\n")
	}
	return b.String()
}

// Pinot answers TIMESTAMP values as java.sql.Timestamp text, which uses the
// Julian calendar before 1582-10-15.
func TestTimestampMillis_JavaTimestampText(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
	}{
		{"2023-11-14 22:13:20.123", 1_700_000_000_123},
		{"1969-12-31 23:59:59.999", -1},
		{"1970-01-01 00:00:00.0", 0},
		{"0001-01-03 00:00:00.0", -62_135_596_800_000}, // 0001-01-01 Gregorian
		{"1582-10-15 00:00:00.0", -12_219_292_800_000},
		{"1582-10-04 00:00:00.0", -12_219_379_200_000}, // the Julian day before
	} {
		got, err := timestampMillis(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("timestampMillis(%q) = %d, %v; want %d", tc.text, got, err, tc.want)
		}
	}
}
