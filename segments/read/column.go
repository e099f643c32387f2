package read

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// ColumnData is one column of a segment, decoded.
type ColumnData struct {
	Column *Column
	// Forward describes the forward index format.
	Forward string
	// Values holds one value per doc in the stored type: int32, int64,
	// float32, float64, segments.Decimal, string or []byte; []any per doc for
	// multi-value columns. A null doc holds the stored default.
	Values []any
	// Nulls marks the docs in the null value vector (nil: no vector).
	Nulls     []bool
	NullCount int
	// Dictionary holds the sorted distinct values (nil: raw column).
	Dictionary []any
}

// ReadColumn decodes every doc of a column.
func (s *Segment) ReadColumn(name string) (*ColumnData, error) {
	c, ok := s.Column(name)
	if !ok {
		return nil, fmt.Errorf("read column %s: %w in segment %s", name, ErrNoColumn, s.Name)
	}
	d, err := s.readColumn(c)
	if err != nil {
		return nil, fmt.Errorf("read column %s of segment %s: %w", name, s.Name, err)
	}
	return d, nil
}

func (s *Segment) readColumn(c *Column) (*ColumnData, error) {
	if s.missing != "" {
		return nil, fmt.Errorf("%w %s", ErrMissingFile, s.missing)
	}
	d := &ColumnData{Column: c}
	fwd, ok := s.buffer(c.Name, rdForward)
	if !ok {
		return nil, fmt.Errorf("%w: no forward index", ErrCorrupt)
	}
	var err error
	if c.HasDictionary {
		err = s.readDictColumn(d, fwd)
	} else {
		err = s.readRawColumn(d, fwd)
	}
	if err != nil {
		return nil, err
	}
	if nv, ok := s.buffer(c.Name, rdNullVector); ok {
		bm := roaring.New()
		if err := bm.UnmarshalBinary(nv); err != nil {
			return nil, fmt.Errorf("%w: null value vector: %v", ErrCorrupt, err)
		}
		d.Nulls = make([]bool, s.TotalDocs)
		it := bm.Iterator()
		for it.HasNext() {
			doc := int(it.Next())
			if doc >= s.TotalDocs {
				return nil, fmt.Errorf("%w: null value vector marks doc %d of %d", ErrCorrupt, doc, s.TotalDocs)
			}
			d.Nulls[doc] = true
			d.NullCount++
		}
	}
	return d, nil
}

func (s *Segment) readDictColumn(d *ColumnData, fwd []byte) error {
	c := d.Column
	db, ok := s.buffer(c.Name, rdDictionary)
	if !ok {
		return fmt.Errorf("%w: no dictionary", ErrCorrupt)
	}
	dict, err := readDictionary(db, c, s.padding)
	if err != nil {
		return err
	}
	ids, format, err := readDictForward(fwd, c, s.TotalDocs)
	if err != nil {
		return err
	}
	if isVarLength(db) {
		format = strings.Replace(format, "dictionary", "var-length dictionary", 1)
	}
	d.Dictionary, d.Forward = dict, format
	d.Values = make([]any, s.TotalDocs)
	for doc, list := range ids {
		vals := make([]any, len(list))
		for i, id := range list {
			if int(id) >= len(dict) {
				return fmt.Errorf("%w: doc %d has dictionary id %d of %d", ErrCorrupt, doc, id, len(dict))
			}
			vals[i] = dict[id]
		}
		if c.SingleValue {
			if len(vals) != 1 {
				return fmt.Errorf("%w: doc %d has no value", ErrCorrupt, doc)
			}
			d.Values[doc] = vals[0]
		} else {
			d.Values[doc] = vals
		}
	}
	return nil
}

// clpMagic starts every CLP-encoded forward index Pinot writes ("CLP1",
// "CLP.v0", "CLP.v2"; format: never change).
var clpMagic = []byte("CLP")

// clpVersion is the CLP magic a forward index starts with.
func clpVersion(fwd []byte) string {
	n := len("CLP.v0")
	if len(fwd) < n || fwd[3] != '.' {
		n = 4
	}
	return string(fwd[:n])
}

func (s *Segment) readRawColumn(d *ColumnData, fwd []byte) error {
	c := d.Column
	stored := c.DataType.StoredType()
	if len(fwd) < 4 {
		return fmt.Errorf("%w: raw forward index too short", ErrCorrupt)
	}
	if bytes.HasPrefix(fwd, clpMagic) {
		return fmt.Errorf("%w: CLP-encoded forward index (Pinot's log compression, %q): floe does not decode it",
			ErrUnsupported, clpVersion(fwd))
	}
	version := int(binary.BigEndian.Uint32(fwd))
	var err error
	if c.SingleValue && stored.FixedWidth() > 0 {
		d.Values, d.Forward, err = readRawFixed(fwd, stored, s.TotalDocs)
		return err
	}
	var rows [][]byte
	if version == 4 || version == 5 {
		rows, d.Forward, err = readRawVarV45(fwd, s.TotalDocs)
	} else {
		rows, d.Forward, err = readRawVarV23(fwd, s.TotalDocs)
	}
	if err != nil {
		return err
	}
	d.Values = make([]any, len(rows))
	for doc, row := range rows {
		if c.SingleValue {
			d.Values[doc], err = bytesValue(stored, row)
		} else {
			d.Values[doc], err = decodeMVPayload(row, stored, version == 5)
		}
		if err != nil {
			return fmt.Errorf("doc %d: %w", doc, err)
		}
	}
	return nil
}

// ReadAll decodes every column, in metadata order.
func (s *Segment) ReadAll() ([]*ColumnData, error) {
	out := make([]*ColumnData, 0, len(s.Columns))
	for i := range s.Columns {
		d, err := s.ReadColumn(s.Columns[i].Name)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
