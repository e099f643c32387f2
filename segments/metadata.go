package segments

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/floehq/floe/pinot/spec"
)

// properties builds a metadata.properties / index_map file the way Pinot's
// commons-configuration PropertiesConfiguration (legacy list delimiter ',')
// writes it: "key = value" lines, LF, pure ASCII.
type properties struct {
	b strings.Builder
}

// set writes one key with one value.
func (p *properties) set(key, value string) {
	p.b.WriteString(escapeKey(key))
	p.b.WriteString(" = ")
	p.b.WriteString(escapeValue(value))
	p.b.WriteByte('\n')
}

// setList writes a list value: items escaped one by one, joined by ','.
func (p *properties) setList(key string, items []string) {
	esc := make([]string, len(items))
	for i, it := range items {
		esc[i] = escapeValue(it)
	}
	p.b.WriteString(escapeKey(key))
	p.b.WriteString(" = ")
	p.b.WriteString(strings.Join(esc, ","))
	p.b.WriteByte('\n')
}

func (p *properties) bytes() []byte { return []byte(p.b.String()) }

// escapeValue applies commons-configuration's value escaping: '\' → "\\",
// Java control escapes (\b \t \n \f \r), other chars outside 0x20..0x7F →
// \uXXXX per UTF-16 code unit (uppercase hex), then ',' → "\,".
func escapeValue(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == ',':
			b.WriteString(`\,`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r > 0x7F:
			if r >= 0x10000 {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04X\u%04X`, hi, lo)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeKey backslash-escapes the characters a properties key cannot hold.
func escapeKey(s string) string {
	if !strings.ContainsAny(s, "=: \t\f\\#!") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("=: \t\f\\#!", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// maxMinMaxLength is the longest STRING min/max Pinot writes, in UTF-16
// units (METADATA_PROPERTY_LENGTH_LIMIT; format: never change).
const maxMinMaxLength = 512

// stringPropertyValue is Pinot's extra layer for STRING-typed values
// (CommonsConfigurationUtils.replaceSpecialCharacterInPropertyValue): a
// value with a supplementary character is invalid (ok=false); ',' becomes
// two NULs; a leading space gets a NUL before it, a trailing space a NUL
// after it. The caller then escapes the result with escapeValue.
func stringPropertyValue(s string) (string, bool) {
	for _, r := range s {
		if r >= 0x10000 {
			return "", false
		}
	}
	s = strings.ReplaceAll(s, ",", "\x00\x00")
	if strings.HasPrefix(s, " ") {
		s = "\x00" + s
	}
	if strings.HasSuffix(s, " ") {
		s += "\x00"
	}
	return s, true
}

// segmentProperties renders metadata.properties (doc.go, "metadata.properties")
// and fills the time fields of res.
func segmentProperties(cfg Config, rows int64, metas []columnMeta, res *Result) ([]byte, error) {
	var p properties
	var dims, mets, dts []string
	for _, m := range metas {
		switch fieldType(m.spec) {
		case spec.Metric:
			mets = append(mets, m.spec.Name)
		case spec.DateTime:
			dts = append(dts, m.spec.Name)
		default:
			dims = append(dims, m.spec.Name)
		}
	}
	p.set("segment.padding.character", "\x00")
	p.set("segment.name", cfg.SegmentName)
	p.set("segment.table.name", cfg.TableName)
	for _, l := range []struct {
		key  string
		cols []string
	}{{"segment.dimension.column.names", dims}, {"segment.metric.column.names", mets}, {"segment.datetime.column.names", dts}} {
		if len(l.cols) > 0 {
			p.setList(l.key, l.cols)
		}
	}
	p.set("segment.total.docs", strconv.FormatInt(rows, 10))
	if cfg.TimeColumn != "" {
		for _, m := range metas {
			if m.spec.Name != cfg.TimeColumn {
				continue
			}
			unit, err := timeUnitOf(m.spec)
			if err != nil {
				return nil, err
			}
			res.StartTime, res.EndTime, res.TimeUnit = m.timeMin, m.timeMax, unit
			p.set("segment.time.column.name", cfg.TimeColumn)
			p.set("segment.start.time", strconv.FormatInt(m.timeMin, 10))
			p.set("segment.end.time", strconv.FormatInt(m.timeMax, 10))
			p.set("segment.time.unit", unit)
		}
	}
	p.set("segment.index.version", "v3")
	p.set("creator.version", CreatorVersion)
	keys := make([]string, 0, len(cfg.CustomMap))
	for k := range cfg.CustomMap {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.set("custom."+k, cfg.CustomMap[k])
	}
	for _, m := range metas {
		columnProperties(&p, m, rows)
	}
	return p.bytes(), nil
}

func columnProperties(p *properties, m columnMeta, rows int64) {
	k := "column." + m.spec.Name + "."
	p.set(k+"cardinality", strconv.Itoa(m.cardinality))
	p.set(k+"totalDocs", strconv.FormatInt(rows, 10))
	p.set(k+"dataType", string(m.spec.DataType))
	p.set(k+"bitsPerElement", strconv.Itoa(m.bits))
	p.set(k+"lengthOfEachEntry", strconv.Itoa(m.entryLen))
	p.set(k+"columnType", string(fieldType(m.spec)))
	p.set(k+"isSorted", strconv.FormatBool(m.sorted))
	p.set(k+"hasDictionary", strconv.FormatBool(m.hasDict))
	p.set(k+"isSingleValues", strconv.FormatBool(m.spec.SingleValue))
	p.set(k+"maxNumberOfMultiValues", strconv.Itoa(m.maxMV))
	p.set(k+"totalNumberOfEntries", strconv.FormatInt(m.totalEntries, 10))
	p.set(k+"isAutoGenerated", "false")
	if m.minMaxOK {
		p.set(k+"minValue", m.min)
		p.set(k+"maxValue", m.max)
	} else {
		p.set(k+"minMaxValueInvalid", "true")
	}
	if def, err := parseDefault(m.spec); err == nil {
		text, ok := def.text, true
		if m.spec.DataType.StoredType() == spec.String {
			text, ok = stringPropertyValue(text)
		}
		if ok {
			p.set(k+"defaultNullValue", text)
		}
	}
	if fieldType(m.spec) == spec.DateTime {
		format := m.spec.Format
		if format == "" {
			format = "1:MILLISECONDS:TIMESTAMP"
		}
		gran := m.spec.Granularity
		if gran == "" {
			gran = "1:MILLISECONDS"
		}
		p.set(k+"datetimeFormat", format)
		p.set(k+"datetimeGranularity", gran)
	}
}
