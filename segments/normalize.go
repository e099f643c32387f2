package segments

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments/internal/text"
)

// This file holds Pinot's ingestion rules (doc.go, "Normalization"): what a
// value becomes before it reaches a dictionary or a forward index.

const defaultMaxLength = 512 // FieldSpec.DEFAULT_MAX_LENGTH (format: never change)

// maxLengthOf returns the field's maxLength in UTF-16 units (STRING, JSON)
// or bytes (BYTES), 512 when unset.
func maxLengthOf(f spec.FieldSpec) int {
	if f.MaxLength > 0 {
		return f.MaxLength
	}
	return defaultMaxLength
}

// sanitizeString applies what Pinot does to a STRING value read from a
// file: invalid UTF-8 is replaced the way Java's UTF-8 decoder does it (one
// U+FFFD per maximal invalid subpart, one per encoded surrogate), the value
// is cut at the first NUL, and values longer than maxLen UTF-16 code units
// are cut to maxLen units (String.substring; a surrogate pair split by the
// cut leaves a lone high surrogate that Java's encoder writes as '?').
// With trimLen false (JSON) a value without NUL is never cut; with a NUL it
// is cut at min(NUL, maxLen) like Pinot's NO_ACTION strategy.
// It returns src itself when nothing changes; otherwise the result is built in
// scratch (which it may grow) and aliases it.
func sanitizeString(src []byte, maxLen int, trimLen bool, scratch *[]byte) []byte {
	valid := utf8.Valid(src)
	nul := bytes.IndexByte(src, 0)
	if valid && nul < 0 && (!trimLen || len(src) <= maxLen) {
		return src // fast path: bytes >= UTF-16 units
	}
	s := src
	if !valid {
		s = javaDecodeUTF8(src, (*scratch)[:0])
		*scratch = s
	}
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
		trimLen = true
	} else if !trimLen {
		return s
	}
	if len(s) <= maxLen {
		return s
	}
	units := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > maxLen {
			if w == 2 && units+1 == maxLen {
				// substring kept the high surrogate only; Java encodes it as '?'.
				out := append(append([]byte(nil), s[:i]...), '?')
				return out
			}
			return s[:i]
		}
		units += w
		i += n
	}
	return s
}

// javaDecodeUTF8 appends src to dst with invalid sequences replaced as
// java.lang.String(byte[], UTF_8) does.
func javaDecodeUTF8(src, dst []byte) []byte {
	const repl = "\uFFFD"
	cont := func(b byte) bool { return b&0xC0 == 0x80 }
	n := len(src)
	for i := 0; i < n; {
		b1 := src[i]
		switch {
		case b1 < 0x80:
			dst = append(dst, b1)
			i++
		case b1 >= 0xC2 && b1 <= 0xDF:
			if i+1 < n && cont(src[i+1]) {
				dst = append(dst, src[i:i+2]...)
				i += 2
			} else {
				dst = append(dst, repl...)
				i++
			}
		case b1 >= 0xE0 && b1 <= 0xEF:
			bad2 := func(b2 byte) bool { return (b1 == 0xE0 && b2&0xE0 == 0x80) || !cont(b2) }
			switch {
			case i+2 < n && !bad2(src[i+1]) && cont(src[i+2]):
				if b1 == 0xED && src[i+1] >= 0xA0 { // encoded surrogate: one U+FFFD for 3 bytes
					dst = append(dst, repl...)
				} else {
					dst = append(dst, src[i:i+3]...)
				}
				i += 3
			case i+1 < n && !bad2(src[i+1]):
				dst = append(dst, repl...)
				i += 2
			default:
				dst = append(dst, repl...)
				i++
			}
		case b1 >= 0xF0 && b1 <= 0xF4:
			bad2 := func(b2 byte) bool {
				return (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && b2&0xF0 != 0x80) || !cont(b2)
			}
			k := 1
			if i+1 < n && !bad2(src[i+1]) {
				k = 2
				if i+2 < n && cont(src[i+2]) {
					k = 3
					if i+3 < n && cont(src[i+3]) {
						k = 4
					}
				}
			}
			if k == 4 {
				dst = append(dst, src[i:i+4]...)
			} else {
				dst = append(dst, repl...)
			}
			i += k
		default:
			dst = append(dst, repl...)
			i++
		}
	}
	return dst
}

// compareUTF16 compares two valid UTF-8 strings in UTF-16 code unit order
// (Java String.compareTo). It differs from byte order only where a
// supplementary character meets one in U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmpInt(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if ra >= 0x10000 && rb >= 0xE000 && rb <= 0xFFFF {
		return -1
	}
	if rb >= 0x10000 && ra >= 0xE000 && ra <= 0xFFFF {
		return 1
	}
	if a[i] < b[i] {
		return -1
	}
	return 1
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// utf16Len counts UTF-16 code units of valid UTF-8.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// ---- BIG_DECIMAL ----

var bigTen = big.NewInt(10)

// decimalKey returns the BigDecimalUtils.serialize bytes of d after
// stripTrailingZeros (Pinot 1.5+ ingestion): 2-byte BE scale, then the
// unscaled value as minimal two's complement BE (Java BigInteger.toByteArray).
func decimalKey(d Decimal, dst []byte) ([]byte, error) {
	if d.Unscaled == nil {
		return nil, errors.New("BIG_DECIMAL with nil Unscaled")
	}
	u, scale := stripTrailingZeros(d.Unscaled, int64(d.Scale))
	if scale < math.MinInt16 || scale > math.MaxInt16 {
		return nil, fmt.Errorf("BIG_DECIMAL scale %d out of the 16-bit range Pinot stores", scale)
	}
	dst = append(dst[:0], byte(uint16(scale)>>8), byte(uint16(scale)))
	return appendTwosComplement(dst, u), nil
}

func stripTrailingZeros(u *big.Int, scale int64) (*big.Int, int64) {
	if u.Sign() == 0 {
		return u, 0
	}
	if u.Bit(0) != 0 { // odd: no trailing zero (fast path)
		return u, scale
	}
	x := new(big.Int).Set(u)
	q, r := new(big.Int), new(big.Int)
	for {
		q.QuoRem(x, bigTen, r)
		if r.Sign() != 0 {
			return x, scale
		}
		x, q = q, x
		scale--
	}
}

func appendTwosComplement(dst []byte, u *big.Int) []byte {
	switch u.Sign() {
	case 0:
		return append(dst, 0)
	case 1:
		b := u.Bytes()
		if b[0]&0x80 != 0 {
			dst = append(dst, 0)
		}
		return append(dst, b...)
	}
	m := new(big.Int).Neg(u)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		dst = append(dst, 0xFF)
	}
	for _, c := range b {
		dst = append(dst, ^c)
	}
	return dst
}

// decodeDecimalKey reverses decimalKey.
func decodeDecimalKey(k []byte) (*big.Int, int) {
	scale := int(int16(uint16(k[0])<<8 | uint16(k[1])))
	b := k[2:]
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u, scale
}

// parseDecimal parses BigDecimal syntax: [-+]digits[.digits][e[-+]digits].
func parseDecimal(s string) (Decimal, error) {
	t := strings.TrimSpace(s)
	exp := int64(0)
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.ParseInt(t[i+1:], 10, 32)
		if err != nil {
			return Decimal{}, fmt.Errorf("bad decimal %q", s)
		}
		exp, t = e, t[:i]
	}
	scale := int64(0)
	if i := strings.IndexByte(t, '.'); i >= 0 {
		scale = int64(len(t) - i - 1)
		t = t[:i] + t[i+1:]
	}
	u, ok := new(big.Int).SetString(t, 10)
	if !ok || t == "" {
		return Decimal{}, fmt.Errorf("bad decimal %q", s)
	}
	scale -= exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		return Decimal{}, fmt.Errorf("decimal %q: exponent out of range", s)
	}
	return Decimal{Unscaled: u, Scale: int32(scale)}, nil
}

// ---- Java number text ----

// javaDouble formats like Java's Double.toString.
func javaDouble(v float64) string { return text.JavaFloat(v, 64) }

// javaFloat formats like Java's Float.toString.
func javaFloat(v float32) string { return text.JavaFloat(float64(v), 32) }

// ---- default null values ----

// defaultValue is a field's default null value in its stored type.
type defaultValue struct {
	i32  int32
	i64  int64
	f32  float32
	f64  float64
	b    []byte // STRING/JSON UTF-8, BYTES, BIG_DECIMAL key
	text string // the metadata text (FieldSpec.getDefaultNullValueString)
}

func parseDefault(f spec.FieldSpec) (defaultValue, error) {
	s := f.DefaultNullValueString()
	var d defaultValue
	switch f.DataType {
	case spec.Int:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return d, errors.New("not an INT")
		}
		d.i32, d.text = int32(v), strconv.FormatInt(v, 10)
	case spec.Boolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1":
			d.i32 = 1
		case "false", "0", "":
		default:
			return d, errors.New("not a BOOLEAN")
		}
		d.text = strconv.Itoa(int(d.i32))
	case spec.Long:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return d, errors.New("not a LONG")
		}
		d.i64, d.text = v, strconv.FormatInt(v, 10)
	case spec.Timestamp:
		t := strings.TrimSpace(s)
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			ts, terr := time.Parse(time.RFC3339Nano, t)
			if terr != nil {
				return d, errors.New("not epoch millis or RFC 3339")
			}
			v = ts.UnixMilli()
		}
		d.i64, d.text = v, strconv.FormatInt(v, 10)
	case spec.Float:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil || math.IsNaN(v) {
			return d, errors.New("not a FLOAT")
		}
		d.f32 = float32(v)
		if d.f32 == 0 {
			d.f32 = 0
		}
		d.text = javaFloat(d.f32)
	case spec.Double:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) {
			return d, errors.New("not a DOUBLE")
		}
		if v == 0 {
			v = 0
		}
		d.f64, d.text = v, javaDouble(v)
	case spec.String, spec.JSON:
		if !utf8.ValidString(s) {
			return d, errors.New("not valid UTF-8")
		}
		d.b, d.text = []byte(s), s
	case spec.Bytes:
		b, err := hex.DecodeString(strings.TrimSpace(s))
		if err != nil {
			return d, errors.New("not hex")
		}
		d.b, d.text = b, hex.EncodeToString(b)
	case spec.BigDecimal:
		dec, err := parseDecimal(s)
		if err != nil {
			return d, err
		}
		k, err := decimalKey(dec, nil)
		if err != nil {
			return d, err
		}
		u, sc := decodeDecimalKey(k)
		d.b, d.text = k, text.Decimal(u, int32(sc))
	default:
		return d, fmt.Errorf("unsupported data type %s", f.DataType)
	}
	return d, nil
}
