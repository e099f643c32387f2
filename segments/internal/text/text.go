// Package text renders values as text the way Pinot, Java and JSON spell
// them. The writer, the sources and the reader share it so that a value has
// one spelling everywhere.
package text

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendUUID appends the canonical 8-4-4-4-12 lowercase text of a 16-byte UUID.
func AppendUUID(dst, u []byte) []byte {
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[b>>4], hexDigits[b&0x0f])
	}
	return dst
}

// AppendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			default:
				dst = append(dst, b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// Decimal renders unscaled × 10^-scale in plain notation (Java's
// BigDecimal.toPlainString); a nil unscaled value is 0.
func Decimal(unscaled *big.Int, scale int32) string {
	if unscaled == nil {
		return "0"
	}
	s := unscaled.String()
	if scale <= 0 {
		if unscaled.Sign() == 0 {
			return "0"
		}
		return s + strings.Repeat("0", int(-scale))
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= int(scale) {
		s = strings.Repeat("0", int(scale)-len(s)+1) + s
	}
	point := len(s) - int(scale)
	s = s[:point] + "." + s[point:]
	if neg {
		s = "-" + s
	}
	return s
}

// JavaFloat renders a float the way Java's Float/Double.toString does
// for the common cases: plain between 1e-3 and 1e7, else computerized
// scientific notation, always with a fractional digit.
func JavaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	return mant + "E" + exp
}
