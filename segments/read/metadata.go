package read

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/floehq/floe/pinot/spec"
)

// segProperties is a parsed Java properties file (metadata.properties,
// index_map): values keep their escapes until read, so unescaped commas
// (list separators) can be told from escaped ones. Repeated keys are
// joined with ",".
type segProperties struct {
	keys   []string
	values map[string]string
}

// parseSegProperties reads the commons-configuration properties syntax:
// "key = value" (or ':' or whitespace), '#'/'!' comments, backslash line
// continuations.
func parseSegProperties(data []byte) (*segProperties, error) {
	p := &segProperties{values: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64<<20)
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
		k := unescapeJava(key)
		if old, ok := p.values[k]; ok {
			p.values[k] = old + "," + value
		} else {
			p.keys = append(p.keys, k)
			p.values[k] = value
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read properties: %w", err)
	}
	return p, nil
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

// get returns the unescaped value of key.
func (p *segProperties) get(key string) (string, bool) {
	v, ok := p.values[key]
	if !ok {
		return "", false
	}
	return unescapeJava(v), true
}

// list returns the value of key split at unescaped commas.
func (p *segProperties) list(key string) []string {
	v, ok := p.values[key]
	if !ok || strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			i++
			continue
		}
		if v[i] == ',' {
			out = append(out, unescapeJava(strings.TrimSpace(v[start:i])))
			start = i + 1
		}
	}
	return append(out, unescapeJava(strings.TrimSpace(v[start:])))
}

func (p *segProperties) getInt(key string) (int, error) {
	s, ok := p.get(key)
	if !ok {
		return 0, fmt.Errorf("%w: metadata key %s missing", ErrCorrupt, key)
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%w: metadata key %s: %v", ErrCorrupt, key, err)
	}
	return n, nil
}

func (p *segProperties) getBool(key string, def bool) bool {
	s, ok := p.get(key)
	if !ok {
		return def
	}
	return strings.EqualFold(strings.TrimSpace(s), "true")
}

// unescapeJava undoes properties escapes: \uXXXX (UTF-16, pairs joined),
// \t \n \r \f \b, and \x → x for any other x.
func unescapeJava(s string) string {
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
		if s[i] == 'u' && i+4 < len(s)+0 && i+4 <= len(s)-1 {
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

// recoverPinotString undoes Pinot's extra encoding of STRING min/max and
// default values: "\0\0" stands for ',', and a NUL guards a leading or
// trailing space.
func recoverPinotString(s string) string {
	s = strings.ReplaceAll(s, "\x00\x00", ",")
	if strings.HasPrefix(s, "\x00 ") {
		s = s[1:]
	}
	if strings.HasSuffix(s, " \x00") {
		s = s[:len(s)-1]
	}
	return s
}

// Column is a column's metadata as a segment records it.
type Column struct {
	Name              string
	DataType          spec.DataType
	FieldType         spec.FieldType
	SingleValue       bool
	Cardinality       int
	BitsPerElement    int
	LengthOfEachEntry int
	MaxMultiValues    int
	TotalEntries      int
	Sorted            bool
	HasDictionary     bool
	AutoGenerated     bool
	// Min, Max and DefaultNull are the metadata's text (STRING values
	// decoded); HasMinMax is false when the segment records none.
	Min, Max, DefaultNull string
	HasMinMax             bool
	DateTimeFormat        string
	// Indexes lists the index ids present for the column.
	Indexes []string
}

// parseSegmentColumn reads the column.<name>.* keys.
func parseSegmentColumn(p *segProperties, name string) (Column, error) {
	k := func(s string) string { return "column." + name + "." + s }
	c := Column{Name: name}
	dt, ok := p.get(k("dataType"))
	if !ok || !spec.DataType(dt).Valid() {
		return c, fmt.Errorf("%w: column %s: dataType %q", ErrCorrupt, name, dt)
	}
	c.DataType = spec.DataType(dt)
	ft, _ := p.get(k("columnType"))
	c.FieldType = spec.FieldType(ft)
	c.SingleValue = p.getBool(k("isSingleValues"), true)
	c.Sorted = p.getBool(k("isSorted"), false)
	c.HasDictionary = p.getBool(k("hasDictionary"), true)
	c.AutoGenerated = p.getBool(k("isAutoGenerated"), false)
	var err error
	ints := []struct {
		key string
		dst *int
	}{{"cardinality", &c.Cardinality}, {"bitsPerElement", &c.BitsPerElement}, {"lengthOfEachEntry", &c.LengthOfEachEntry},
		{"maxNumberOfMultiValues", &c.MaxMultiValues}, {"totalNumberOfEntries", &c.TotalEntries}}
	for _, it := range ints {
		if *it.dst, err = p.getInt(k(it.key)); err != nil {
			return c, fmt.Errorf("column %s: %w", name, err)
		}
	}
	min, okMin := p.get(k("minValue"))
	max, okMax := p.get(k("maxValue"))
	c.HasMinMax = okMin && okMax
	c.DefaultNull, _ = p.get(k("defaultNullValue"))
	if c.DataType.StoredType() == spec.String {
		min, max, c.DefaultNull = recoverPinotString(min), recoverPinotString(max), recoverPinotString(c.DefaultNull)
	}
	c.Min, c.Max = min, max
	c.DateTimeFormat, _ = p.get(k("datetimeFormat"))
	return c, nil
}
