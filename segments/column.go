package segments

import (
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/floehq/floe/pinot/spec"
)

// column accumulates one column while the source is read: the distinct
// values (typed hash maps, strings copied into an arena) and one provisional
// dictionary id per value. Final ids are assigned once, at finish.
type column struct {
	spec       spec.FieldSpec
	stored     spec.DataType
	sv         bool
	trackNulls bool // write a null vector if a null occurs
	maxLen     int
	def        defaultValue
	defID      int32

	ints    *numDict[int32]
	longs   *numDict[int64]
	floats  *numDict[float32]
	doubles *numDict[float64]
	bytes   *bytesDict

	ids       []int32 // SV: one per row; MV: one per value (nil in row mode until finish)
	entries   int     // values so far (SV: rows)
	counts    []int32 // MV: values per row
	maxMV     int
	rows      int
	nulls     *roaring.Bitmap
	nullCount int
	scratch   []byte
	keyBuf    []byte

	// Row mode (column_spill.go): a variable-width column whose values go
	// to a spill file instead of a dictionary.
	rows2    *rowSpill
	spillDir string // "" disables row mode
	keepDict bool   // Dictionary/Inverted/SortedColumn: never row mode
	noDict   bool   // NoDictionary: row mode from the first batch
	err      error  // sticky spill write error
}

func newColumn(f spec.FieldSpec, nullHandling bool) (*column, error) {
	def, err := parseDefault(f)
	if err != nil {
		return nil, fmt.Errorf("column %q: defaultNullValue: %w", f.Name, err)
	}
	c := &column{
		spec: f, stored: f.DataType.StoredType(), sv: f.SingleValue, def: def, defID: -1,
		trackNulls: nullHandling && !f.NotNull, maxLen: maxLengthOf(f), nulls: roaring.New(),
	}
	switch c.stored {
	case spec.Int:
		c.ints = newNumDict[int32]()
	case spec.Long:
		c.longs = newNumDict[int64]()
	case spec.Float:
		c.floats = newNumDict[float32]()
	case spec.Double:
		c.doubles = newNumDict[float64]()
	default:
		c.bytes = newBytesDict()
	}
	return c, nil
}

// defaultID is the provisional id of the default null value.
func (c *column) defaultID() int32 {
	if c.rows2 != nil {
		return c.addBytes(c.def.b)
	}
	if c.rowMode() {
		c.defID = -1 // ids are assigned at finish; record the value itself
	}
	if c.defID < 0 {
		switch {
		case c.ints != nil:
			c.defID = c.ints.id(c.def.i32)
		case c.longs != nil:
			c.defID = c.longs.id(c.def.i64)
		case c.floats != nil:
			c.defID = c.floats.id(c.def.f32)
		case c.doubles != nil:
			c.defID = c.doubles.id(c.def.f64)
		default:
			c.defID = c.bytes.id(c.def.b)
		}
	}
	return c.defID
}

// vectorError names the column and what is wrong with its vector.
func (c *column) vectorError(format string, args ...any) error {
	return fmt.Errorf("column %q (%s): %s", c.spec.Name, c.spec.DataType, fmt.Sprintf(format, args...))
}

// add appends a batch's vector of n rows.
func (c *column) add(v *Vector, n int) error {
	if v.Nulls != nil && len(v.Nulls) < n {
		return c.vectorError("Nulls has %d entries for %d rows", len(v.Nulls), n)
	}
	count := n // values needed in the typed slice
	if !c.sv {
		if len(v.Offsets) != n+1 {
			return c.vectorError("multi-value column needs Offsets of length rows+1 = %d, got %d", n+1, len(v.Offsets))
		}
		for r := 0; r < n; r++ {
			if v.Offsets[r+1] < v.Offsets[r] || v.Offsets[r] < 0 {
				return c.vectorError("Offsets decrease at row %d", r)
			}
		}
		count = int(v.Offsets[n])
	}
	var have int
	var fn func(i int) (int32, bool, error)
	switch c.spec.DataType {
	case spec.Int:
		have, fn = len(v.Ints), func(i int) (int32, bool, error) { return c.ints.id(v.Ints[i]), true, nil }
	case spec.Boolean:
		have, fn = len(v.Ints), func(i int) (int32, bool, error) {
			b := int32(0)
			if v.Ints[i] != 0 {
				b = 1
			}
			return c.ints.id(b), true, nil
		}
	case spec.Long, spec.Timestamp:
		have, fn = len(v.Longs), func(i int) (int32, bool, error) { return c.longs.id(v.Longs[i]), true, nil }
	case spec.Float:
		have, fn = len(v.Floats), func(i int) (int32, bool, error) {
			x := v.Floats[i]
			if x != x {
				return 0, false, nil // NaN → null
			}
			if x == 0 {
				x = 0 // -0.0 → 0.0
			}
			return c.floats.id(x), true, nil
		}
	case spec.Double:
		have, fn = len(v.Doubles), func(i int) (int32, bool, error) {
			x := v.Doubles[i]
			if math.IsNaN(x) {
				return 0, false, nil
			}
			if x == 0 {
				x = 0
			}
			return c.doubles.id(x), true, nil
		}
	case spec.String, spec.JSON:
		trim := c.spec.DataType == spec.String
		have, fn = len(v.Bytes), func(i int) (int32, bool, error) {
			return c.addBytes(sanitizeString(v.Bytes[i], c.maxLen, trim, &c.scratch)), true, nil
		}
	case spec.Bytes:
		have, fn = len(v.Bytes), func(i int) (int32, bool, error) { return c.addBytes(v.Bytes[i]), true, nil }
	case spec.BigDecimal:
		have, fn = len(v.Decimals), func(i int) (int32, bool, error) {
			k, err := decimalKey(v.Decimals[i], c.keyBuf)
			if err != nil {
				return 0, false, err
			}
			c.keyBuf = k
			return c.addBytes(k), true, nil
		}
	default:
		return c.vectorError("unsupported data type")
	}
	if have < count {
		return c.vectorError("needs %d values in %s, got %d", count, vectorField(c.spec.DataType), have)
	}
	var err error
	if c.sv {
		err = c.addSV(v, n, fn)
	} else {
		err = c.addMV(v, n, fn)
	}
	if err == nil {
		err = c.err
	}
	if err == nil {
		err = c.maybeRowMode()
	}
	return err
}

func vectorField(t spec.DataType) string {
	switch t {
	case spec.Int, spec.Boolean:
		return "Ints"
	case spec.Long, spec.Timestamp:
		return "Longs"
	case spec.Float:
		return "Floats"
	case spec.Double:
		return "Doubles"
	case spec.BigDecimal:
		return "Decimals"
	}
	return "Bytes"
}

func (c *column) addSV(v *Vector, n int, fn func(int) (int32, bool, error)) error {
	for r := 0; r < n; r++ {
		if v.Nulls != nil && v.Nulls[r] {
			c.addNull(c.rows + r)
			continue
		}
		id, ok, err := fn(r)
		if err != nil {
			return c.vectorError("row %d: %v", c.rows+r, err)
		}
		if !ok {
			c.addNull(c.rows + r)
			continue
		}
		c.appendID(id)
	}
	c.rows += n
	return nil
}

func (c *column) addMV(v *Vector, n int, fn func(int) (int32, bool, error)) error {
	for r := 0; r < n; r++ {
		cnt := 0
		if v.Nulls == nil || !v.Nulls[r] {
			for i := v.Offsets[r]; i < v.Offsets[r+1]; i++ {
				id, ok, err := fn(int(i))
				if err != nil {
					return c.vectorError("row %d: %v", c.rows+r, err)
				}
				if ok {
					c.appendID(id)
					cnt++
				}
			}
		}
		if cnt == 0 { // null or empty row → [default]
			c.addNull(c.rows + r)
			cnt = 1
		}
		c.counts = append(c.counts, int32(cnt))
		c.maxMV = max(c.maxMV, cnt)
	}
	c.rows += n
	return nil
}

// addBytes adds a variable-width value: its provisional id, or -1 in row mode.
func (c *column) addBytes(b []byte) int32 {
	if c.rows2 == nil {
		return c.bytes.id(b)
	}
	if err := c.rows2.add(b); err != nil && c.err == nil {
		c.err = err
	}
	return -1
}

// rowMode reports whether a column keeps values in row order.
func (c *column) rowMode() bool {
	switch {
	case c.rows2 != nil:
		return true
	case c.ints != nil:
		return c.ints.rowMode
	case c.longs != nil:
		return c.longs.rowMode
	case c.floats != nil:
		return c.floats.rowMode
	case c.doubles != nil:
		return c.doubles.rowMode
	}
	return false
}

// appendID records one value; row mode (id -1) keeps no per-value id.
func (c *column) appendID(id int32) {
	if id >= 0 {
		if len(c.ids) == cap(c.ids) {
			c.ids = growIDs(c.ids)
		}
		c.ids = append(c.ids, id)
	}
	c.entries++
}

// growIDs doubles the id slice's capacity: append's gentler growth for
// large slices copies the ids several times over on the way to millions.
func growIDs(ids []int32) []int32 {
	return slices.Grow(ids, max(cap(ids), 1024))
}

func (c *column) addNull(row int) {
	c.appendID(c.defaultID())
	c.nullCount++
	if c.trackNulls {
		c.nulls.Add(uint32(row))
	}
}
