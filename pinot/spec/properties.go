package spec

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// UnescapeProperty undoes the escapes of a key or value of a segment's
// metadata.properties (Java properties syntax): \uXXXX (UTF-16 units,
// surrogate pairs joined), \t \n \r \f \b, and \x → x for any other x.
func UnescapeProperty(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var units []uint16
	var b strings.Builder
	flush := func() {
		if len(units) > 0 {
			b.WriteString(string(utf16.Decode(units)))
			units = units[:0]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			flush()
			b.WriteByte(c)
			continue
		}
		i++
		if s[i] == 'u' && i+4 < len(s) {
			if u, err := strconv.ParseUint(s[i+1:i+5], 16, 16); err == nil {
				units = append(units, uint16(u))
				i += 4
				continue
			}
		}
		flush()
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'b':
			b.WriteByte('\b')
		default:
			b.WriteByte(s[i])
		}
	}
	flush()
	return b.String()
}
