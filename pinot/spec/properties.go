package spec

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// ParseProperties reads a segment's metadata.properties (or index_map):
// commons-configuration syntax, "key = value" (or ':' or white space),
// '#'/'!' comments, backslash line continuations. It calls fn with each
// key, unescaped, and its value as written (a list value's escaped commas
// can then be told from its separators; UnescapeProperty undoes the
// rest), in file order.
func ParseProperties(data []byte, fn func(key, value string)) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1) // a line is never longer than the file
	var pending string
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if pending == "" && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		line = pending + line
		if trailingBackslashes(line)%2 == 1 {
			pending = line[:len(line)-1]
			continue
		}
		pending = ""
		key, value := splitProperty(line)
		fn(UnescapeProperty(key), value)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read properties: %w", err)
	}
	return nil
}

func trailingBackslashes(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n
}

// splitProperty splits at the first unescaped '=', ':' or whitespace.
func splitProperty(line string) (key, value string) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '=', ':', ' ', '\t', '\f':
			key, rest := line[:i], strings.TrimLeft(line[i:], " \t\f")
			if rest != "" && (rest[0] == '=' || rest[0] == ':') && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f') {
				rest = strings.TrimLeft(rest[1:], " \t\f")
			} else if line[i] == '=' || line[i] == ':' {
				rest = strings.TrimLeft(line[i+1:], " \t\f")
			}
			return key, strings.TrimRight(rest, " \t\f")
		}
	}
	return line, ""
}

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
