package read

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/text"
)

// WriteSummary prints a segment's metadata and, per column, its type,
// encoding, cardinality, min/max and null count. The metadata is printed
// even when a column's data cannot be read (an unsupported codec, a missing
// columns.psf): that column's data cells show "?", and the first such
// error is returned after the table.
func WriteSummary(w io.Writer, s *Segment) error {
	fmt.Fprintf(w, "segment:   %s\n", s.Name)
	fmt.Fprintf(w, "table:     %s\n", s.Table)
	fmt.Fprintf(w, "version:   %s\n", s.Version)
	fmt.Fprintf(w, "rows:      %d\n", s.TotalDocs)
	if s.TimeColumn != "" {
		fmt.Fprintf(w, "time:      %s [%s, %s] %s\n", s.TimeColumn, s.StartTime, s.EndTime, s.TimeUnit)
	}
	if s.CreationTime != 0 {
		fmt.Fprintf(w, "created:   %s\n", time.UnixMilli(s.CreationTime).UTC().Format(time.RFC3339Nano))
	}
	fmt.Fprintf(w, "crc:       %d\n", s.CRC)
	if v, ok := s.Metadata["creator.version"]; ok {
		fmt.Fprintf(w, "creator:   %s\n", v)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COLUMN\tTYPE\tFIELD\tVALUES\tENCODING\tCARDINALITY\tSORTED\tNULLS\tMIN\tMAX\tINDEXES")
	var first error
	for i := range s.Columns {
		c := &s.Columns[i]
		forward, nulls := "?", "?"
		if d, err := s.ReadColumn(c.Name); err != nil {
			first = cmp.Or(first, err)
		} else {
			forward, nulls = d.Forward, strconv.Itoa(d.NullCount)
		}
		sv := "single"
		if !c.SingleValue {
			sv = fmt.Sprintf("multi (max %d)", c.MaxMultiValues)
		}
		min, max := "-", "-"
		if c.HasMinMax {
			min, max = clip(c.Min), clip(c.Max)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%t\t%s\t%s\t%s\t%v\n", c.Name, c.DataType, c.FieldType, sv,
			forward, c.Cardinality, c.Sorted, nulls, min, max, c.Indexes)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return first
}

// clip shortens long values for the summary table.
func clip(s string) string {
	const max = 40
	s = strconv.Quote(s)
	s = s[1 : len(s)-1]
	if len(s) > max {
		return s[:max-3] + "..."
	}
	return s
}

// WriteRowsJSON prints up to limit rows (all when limit < 0) as JSON
// lines, keys in column order: null for null docs, BOOLEAN as true/false,
// numbers as JSON numbers (non-finite floats as strings), BIG_DECIMAL as
// a plain-notation string, BYTES as lowercase hex, multi-value as arrays.
func WriteRowsJSON(w io.Writer, s *Segment, limit int) error {
	cols, err := s.ReadAll()
	if err != nil {
		return err
	}
	n := s.TotalDocs
	if limit >= 0 && limit < n {
		n = limit
	}
	var line []byte
	for doc := 0; doc < n; doc++ {
		line = append(line[:0], '{')
		for i, d := range cols {
			if i > 0 {
				line = append(line, ',')
			}
			line = text.AppendJSONString(line, d.Column.Name)
			line = append(line, ':')
			if d.Nulls != nil && d.Nulls[doc] {
				line = append(line, "null"...)
				continue
			}
			line = appendCellJSON(line, d.Column, d.Values[doc])
		}
		line = append(line, '}', '\n')
		if _, err := w.Write(line); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
	}
	return nil
}

// appendCellJSON renders one stored value (or a multi-value list).
func appendCellJSON(dst []byte, c *Column, v any) []byte {
	switch x := v.(type) {
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCellJSON(dst, c, e)
		}
		return append(dst, ']')
	case int32:
		if c.DataType == spec.Boolean {
			return strconv.AppendBool(dst, x != 0)
		}
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float32:
		return appendFloatCell(dst, float64(x), 32)
	case float64:
		return appendFloatCell(dst, x, 64)
	case segments.Decimal:
		return text.AppendJSONString(dst, x.String())
	case string:
		return text.AppendJSONString(dst, x)
	case []byte:
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, x)
		return append(dst, '"')
	}
	return append(dst, "null"...)
}

func appendFloatCell(dst []byte, f float64, bits int) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return text.AppendJSONString(dst, text.JavaFloat(f, bits))
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}
