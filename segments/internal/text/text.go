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

// JavaFloat renders a float as Java's Float.toString (bits 32) or
// Double.toString (bits 64) does: shortest round-trip digits, at least
// two significant ones; plain in [1e-3, 1e7), else d.dddE±n.
func JavaFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(v, 'e', -1, bits) // -1.2345e+06
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	ei := strings.IndexByte(e, 'e')
	digits := strings.Replace(e[:ei], ".", "", 1)
	exp, _ := strconv.Atoi(e[ei+1:])
	if len(digits) == 1 {
		// Java prints at least two significant digits and picks the
		// two-digit decimal closest to v (4.9E-324, not 5.0E-324).
		e2 := strconv.FormatFloat(math.Abs(v), 'e', 1, bits)
		ei2 := strings.IndexByte(e2, 'e')
		digits = strings.TrimRight(strings.Replace(e2[:ei2], ".", "", 1), "0")
		exp, _ = strconv.Atoi(e2[ei2+1:])
		if digits == "" {
			digits = "0"
		}
	}
	abs := math.Abs(v)
	if abs >= 1e-3 && abs < 1e7 {
		if exp >= 0 {
			for len(digits) < exp+1 {
				digits += "0"
			}
			frac := digits[exp+1:]
			if frac == "" {
				frac = "0"
			}
			return sign + digits[:exp+1] + "." + frac
		}
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
