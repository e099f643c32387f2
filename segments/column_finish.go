package segments

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"math"
	"strconv"
	"unsafe"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments/internal/text"
)

// Encodings reported in ColumnResult.Encoding.
const (
	EncodingDictionary = "DICTIONARY"
	EncodingRaw        = "RAW"
)

// columnPlan is what the config asks of a column.
type columnPlan struct {
	forceRaw    bool
	forceDict   bool
	inverted    bool
	mustSort    bool
	compression string // explicit codec, "" for the default
	tmpDir      string
	partPath    string
}

// columnMeta is what metadata.properties says about a column.
type columnMeta struct {
	spec         spec.FieldSpec
	cardinality  int
	bits         int
	entryLen     int
	sorted       bool
	hasDict      bool
	maxMV        int
	totalEntries int64
	min, max     string
	minMaxOK     bool
	timeMin      int64 // numeric min/max for the time column
	timeMax      int64
}

// finish sorts the dictionary, picks the encoding and writes the column's
// index buffers to its part file.
func (c *column) finish(p columnPlan) (ColumnResult, columnMeta, []psfEntry, error) {
	if c.rows2 != nil {
		rs := c.rows2
		m := columnMeta{spec: c.spec, cardinality: rs.cardinality(), totalEntries: int64(c.entries), maxMV: c.maxMV}
		m.bits = bitsPerElement(m.cardinality)
		m.sorted = c.sv && rs.sorted
		c.bytesMinMax(&m, bytesStr(rs.min), bytesStr(rs.max))
		if !c.useDictionary(p, m) {
			defer rs.remove()
			return c.finishRaw(p, m, c.writeRawFromSpill)
		}
		if err := c.rebuildDictionary(); err != nil {
			return ColumnResult{}, m, nil, c.vectorError("%v", err)
		}
	}
	var card int
	var remap []int32
	switch {
	case c.rowMode():
		nr := c.numRows()
		inOrder, err := nr.distinctRows()
		if err != nil {
			return ColumnResult{}, columnMeta{}, nil, c.vectorError("read spilled values: %v", err)
		}
		card = nr.distinct()
		if c.sv {
			m := columnMeta{spec: c.spec, cardinality: card, bits: bitsPerElement(card),
				totalEntries: int64(c.entries), maxMV: c.maxMV, sorted: inOrder}
			if !c.useDictionary(p, m) { // raw: straight from the spill, no ids
				c.minMax(&m)
				return c.finishRaw(p, m, nr.writeRawRows)
			}
		}
		if c.ids, err = nr.rowIDs(); err != nil {
			return ColumnResult{}, columnMeta{}, nil, c.vectorError("read spilled values: %v", err)
		}
	case c.ints != nil:
		remap, card = c.ints.sort(), len(c.ints.vals)
	case c.longs != nil:
		remap, card = c.longs.sort(), len(c.longs.vals)
	case c.floats != nil:
		remap, card = c.floats.sort(), len(c.floats.vals)
	case c.doubles != nil:
		remap, card = c.doubles.sort(), len(c.doubles.vals)
	default:
		remap, card = c.bytes.sort(c.spec.DataType), len(c.bytes.vals)
	}
	if remap != nil {
		for i, id := range c.ids {
			c.ids[i] = remap[id]
		}
		remap = nil
	}
	m := columnMeta{spec: c.spec, cardinality: card, bits: bitsPerElement(card), totalEntries: int64(len(c.ids)), maxMV: c.maxMV}
	m.sorted = c.sv && isNonDecreasing(c.ids)
	c.minMax(&m)
	name := c.spec.Name
	if p.mustSort && !m.sorted {
		return ColumnResult{}, m, nil, c.vectorError("SortedColumn: values are not sorted in row order")
	}
	m.hasDict = c.useDictionary(p, m)
	if !m.hasDict {
		m.sorted = false
	}
	res := ColumnResult{Name: name, DataType: c.spec.DataType, SingleValue: c.sv, Cardinality: card,
		Sorted: m.sorted, Nulls: c.nullCount}
	pw, err := newPartWriter(p.partPath)
	if err != nil {
		return res, m, nil, err
	}
	defer pw.close()
	if m.hasDict {
		res.Encoding = EncodingDictionary
		if c.bytes != nil {
			m.entryLen = c.bytes.maxLen
		}
		if err := pw.entry(name, idxDictionary, name+".dict", c.writeDictionary); err != nil {
			return res, m, nil, err
		}
		fwd, write := name+".sv.unsorted.fwd", func(w io.Writer) error { return writeUnsortedSV(w, c.ids, m.bits) }
		switch {
		case !c.sv:
			fwd, write = name+".mv.fwd", func(w io.Writer) error { return writeMV(w, c.counts, c.ids, m.bits) }
		case m.sorted:
			fwd, write = name+".sv.sorted.fwd", func(w io.Writer) error { return writeSortedSV(w, c.ids, card) }
		}
		if err := pw.entry(name, idxForward, fwd, write); err != nil {
			return res, m, nil, err
		}
		if p.inverted && !m.sorted {
			res.Inverted = true
			if err := pw.entry(name, idxInverted, name+".bitmap.inv", func(w io.Writer) error {
				return writeInverted(w, c.ids, c.counts, card)
			}); err != nil {
				return res, m, nil, err
			}
		}
	} else {
		res.Encoding = EncodingRaw
		res.Compression = c.compressionName(p)
		if err := c.writeRawForward(pw, p, res.Compression, c.writeRaw); err != nil {
			return res, m, nil, err
		}
	}
	entries, err := c.closePart(pw, &res)
	return res, m, entries, err
}

// autoRawMinEntries: below this many values the automatic rule keeps the
// dictionary (Pinot's default encoding).
const autoRawMinEntries = 1024

// useDictionary is the encoding rule documented in doc.go ("Encoding choice").
func (c *column) useDictionary(p columnPlan, m columnMeta) bool {
	switch {
	case p.forceRaw:
		return false
	case p.forceDict, p.inverted, p.mustSort, m.sorted:
		return true
	}
	entries := m.totalEntries
	if entries < autoRawMinEntries {
		return true
	}
	if w := c.spec.DataType.FixedWidth(); w > 0 {
		if fieldType(c.spec) != spec.Metric || !c.sv {
			return true
		}
		dictBytes := float64(m.cardinality*w) + math.Ceil(float64(entries)*float64(m.bits)/8)
		return dictBytes <= 0.85*float64(entries)*float64(w)
	}
	return int64(m.cardinality)*2 <= entries
}

// minMax fills the metadata min/max text (doc.go, "metadata.properties").
func (c *column) minMax(m *columnMeta) {
	card := m.cardinality
	if card == 0 {
		return
	}
	m.minMaxOK = true
	switch {
	case c.ints != nil:
		v := c.ints.vals
		m.min, m.max = strconv.Itoa(int(v[0])), strconv.Itoa(int(v[card-1]))
		m.timeMin, m.timeMax = int64(v[0]), int64(v[card-1])
	case c.longs != nil:
		v := c.longs.vals
		m.min, m.max = strconv.FormatInt(v[0], 10), strconv.FormatInt(v[card-1], 10)
		m.timeMin, m.timeMax = v[0], v[card-1]
	case c.floats != nil:
		m.min, m.max = javaFloat(c.floats.vals[0]), javaFloat(c.floats.vals[card-1])
	case c.doubles != nil:
		m.min, m.max = javaDouble(c.doubles.vals[0]), javaDouble(c.doubles.vals[card-1])
	default:
		c.bytesMinMax(m, c.bytes.vals[0], c.bytes.vals[card-1])
	}
}

// bytesMinMax fills min/max text for a variable-width column.
func (c *column) bytesMinMax(m *columnMeta, lo, hi string) {
	m.minMaxOK = true
	switch c.stored {
	case spec.Bytes:
		m.min, m.max = hex.EncodeToString([]byte(lo)), hex.EncodeToString([]byte(hi))
	case spec.BigDecimal:
		u, s := decodeDecimalKey([]byte(lo))
		m.min = text.Decimal(u, int32(s))
		u, s = decodeDecimalKey([]byte(hi))
		m.max = text.Decimal(u, int32(s))
	default: // STRING, JSON
		a, okA := stringPropertyValue(lo)
		b, okB := stringPropertyValue(hi)
		m.minMaxOK = okA && okB && utf16Len(lo) <= maxMinMaxLength && utf16Len(hi) <= maxMinMaxLength
		m.min, m.max = a, b
	}
}

// finishRaw writes a row-mode column: raw forward index from the spill
// (write), plus the null vector.
func (c *column) finishRaw(p columnPlan, m columnMeta,
	write func(w io.Writer, dir string, compID int) error) (ColumnResult, columnMeta, []psfEntry, error) {
	name := c.spec.Name
	res := ColumnResult{Name: name, DataType: c.spec.DataType, SingleValue: c.sv, Cardinality: m.cardinality,
		Nulls: c.nullCount, Encoding: EncodingRaw, Compression: c.compressionName(p)}
	m.sorted = false
	pw, err := newPartWriter(p.partPath)
	if err != nil {
		return res, m, nil, err
	}
	defer pw.close()
	if err := c.writeRawForward(pw, p, res.Compression, write); err != nil {
		return res, m, nil, err
	}
	entries, err := c.closePart(pw, &res)
	return res, m, entries, err
}

// writeRawForward writes the raw forward index entry with write.
func (c *column) writeRawForward(pw *partWriter, p columnPlan, compression string,
	write func(w io.Writer, dir string, compID int) error) error {
	fwd := c.spec.Name + ".sv.raw.fwd"
	if !c.sv {
		fwd = c.spec.Name + ".mv.raw.fwd"
	}
	return pw.entry(c.spec.Name, idxForward, fwd, func(w io.Writer) error {
		return write(w, p.tmpDir, compressionIDs[compression])
	})
}

// closePart writes the null vector entry, closes the column's part file
// and returns its entries.
func (c *column) closePart(pw *partWriter, res *ColumnResult) ([]psfEntry, error) {
	if err := c.writeNullEntry(pw, res); err != nil {
		return nil, err
	}
	if err := pw.close(); err != nil {
		return nil, err
	}
	res.Bytes = pw.n
	return pw.entries, nil
}

func (c *column) writeNullEntry(pw *partWriter, res *ColumnResult) error {
	if !c.trackNulls || c.nulls.IsEmpty() {
		return nil
	}
	res.NullVector = true
	return pw.entry(c.spec.Name, idxNull, c.spec.Name+".bitmap.nullvalue", func(w io.Writer) error {
		return writeNullVector(w, c.nulls)
	})
}

// compressionName is the raw codec: the configured one, else PASS_THROUGH
// for METRIC columns and LZ4 for the others.
func (c *column) compressionName(p columnPlan) string {
	if p.compression != "" {
		return p.compression
	}
	if fieldType(c.spec) == spec.Metric {
		return PassThrough
	}
	return LZ4
}

func (c *column) writeDictionary(w io.Writer) error {
	switch {
	case c.ints != nil:
		return writeNumDict(w, c.ints.vals)
	case c.longs != nil:
		return writeNumDict(w, c.longs.vals)
	case c.floats != nil:
		return writeNumDict(w, c.floats.vals)
	case c.doubles != nil:
		return writeNumDict(w, c.doubles.vals)
	}
	d := c.bytes
	if c.useFixedBytesDict() {
		return writeFixedBytesDict(w, d.vals, d.maxLen)
	}
	return writeVarBytesDict(w, d.vals)
}

// useFixedBytesDict: STRING/JSON use the fixed NUL-padded form unless it
// would be more than twice the var-length form (or zero-width); BYTES and
// BIG_DECIMAL use fixed only when every value has the same length.
func (c *column) useFixedBytesDict() bool {
	d := c.bytes
	if d.maxLen == 0 {
		return false
	}
	if c.stored != spec.String {
		return d.minLen == d.maxLen
	}
	if d.minLen == d.maxLen {
		return true
	}
	fixed := int64(len(d.vals)) * int64(d.maxLen)
	return fixed <= 2*varDictSize(len(d.vals), d.ar.size)
}

// strBytes views a string as bytes without copying (read-only use).
func strBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// bytesStr views bytes as a string without copying (b must not change while in use).
func bytesStr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// writeRaw writes the raw forward index from the sorted values and ids.
func (c *column) writeRaw(w io.Writer, dir string, compID int) error {
	if c.sv && c.bytes == nil {
		size := c.spec.DataType.FixedWidth()
		return writeFixedChunks(w, dir, len(c.ids), size, compID, func(dst []byte, from, to int) []byte {
			for _, id := range c.ids[from:to] {
				dst = c.appendFixed(dst, id)
			}
			return dst
		})
	}
	rows := len(c.ids)
	if !c.sv {
		rows = len(c.counts)
	}
	row := func(r, pos int, dst []byte) ([]byte, int) {
		if c.sv {
			return append(dst, c.bytes.vals[c.ids[r]]...), pos + 1
		}
		n := int(c.counts[r])
		vals := c.ids[pos : pos+n]
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
		if c.bytes == nil {
			for _, id := range vals {
				dst = c.appendFixed(dst, id)
			}
			return dst, pos + n
		}
		for _, id := range vals {
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.bytes.vals[id])))
		}
		for _, id := range vals {
			dst = append(dst, c.bytes.vals[id]...)
		}
		return dst, pos + n
	}
	maxLen, pos := 0, 0
	if c.sv {
		maxLen = c.bytes.maxLen
	} else {
		var buf []byte
		for r := 0; r < rows; r++ {
			buf, pos = row(r, pos, buf[:0])
			maxLen = max(maxLen, len(buf))
		}
	}
	vw, err := newVarByteWriter(dir, varByteChunkSize(maxLen), compID)
	if err != nil {
		return err
	}
	var buf []byte
	pos = 0
	for r := 0; r < rows; r++ {
		if c.sv {
			err = vw.put(strBytes(c.bytes.vals[c.ids[r]]))
		} else {
			buf, pos = row(r, pos, buf[:0])
			err = vw.put(buf)
		}
		if err != nil {
			vw.abort()
			return err
		}
	}
	return vw.close(w)
}

// appendFixed appends the BE bytes of dictionary value id.
func (c *column) appendFixed(dst []byte, id int32) []byte {
	switch {
	case c.ints != nil:
		return binary.BigEndian.AppendUint32(dst, uint32(c.ints.vals[id]))
	case c.longs != nil:
		return binary.BigEndian.AppendUint64(dst, uint64(c.longs.vals[id]))
	case c.floats != nil:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(c.floats.vals[id]))
	}
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(c.doubles.vals[id]))
}
