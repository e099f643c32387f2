package segments

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/floehq/floe/pinot/spec"
)

// rowSpill is the row mode of a variable-width column: once a column is
// known to be high-cardinality (or is in Config.NoDictionary), its values go
// to a spill file in row order instead of a dictionary, and only small
// statistics stay in memory (a 64-bit hash per distinct value for the
// cardinality, min, max, lengths, sortedness).
type rowSpill struct {
	stored  spec.DataType
	sp      *spill
	hashes  *hashSet // xxh3 of each distinct value
	n       int64
	min     []byte
	max     []byte
	prev    []byte
	sorted  bool
	maxLen  int
	minLen  int
	lenBuf  [binary.MaxVarintLen64]byte
	decKeys bool
}

func newRowSpill(dir string, stored spec.DataType) (*rowSpill, error) {
	sp, err := newSpill(dir)
	if err != nil {
		return nil, err
	}
	return &rowSpill{stored: stored, sp: sp, hashes: newHashSet(), sorted: true,
		minLen: int(^uint(0) >> 1), decKeys: stored == spec.BigDecimal}, nil
}

// cmp orders two values the way the column's dictionary would.
func (r *rowSpill) cmp(x, y []byte) int {
	a, b := bytesStr(x), bytesStr(y)
	switch r.stored {
	case spec.String:
		return compareUTF16(a, b)
	case spec.BigDecimal:
		var x, y decKey
		x.u, x.scale = decodeDecimalKey([]byte(a))
		y.u, y.scale = decodeDecimalKey([]byte(b))
		return compareDecimal(&x, &y)
	}
	return strings.Compare(a, b)
}

// add appends one value.
func (r *rowSpill) add(b []byte) error {
	n := binary.PutUvarint(r.lenBuf[:], uint64(len(b)))
	if _, err := r.sp.Write(r.lenBuf[:n]); err != nil {
		return err
	}
	if _, err := r.sp.Write(b); err != nil {
		return err
	}
	r.hashes.add(xxh3.Hash(b))
	if r.n == 0 {
		r.min, r.max, r.prev = append(r.min[:0], b...), append(r.max[:0], b...), append(r.prev[:0], b...)
	} else {
		if r.sorted && r.cmp(r.prev, b) > 0 {
			r.sorted = false
		}
		if r.sorted {
			r.prev = append(r.prev[:0], b...)
		}
		if r.cmp(b, r.min) < 0 {
			r.min = append(r.min[:0], b...)
		}
		if r.cmp(b, r.max) > 0 {
			r.max = append(r.max[:0], b...)
		}
	}
	r.n++
	r.maxLen = max(r.maxLen, len(b))
	r.minLen = min(r.minLen, len(b))
	return nil
}

// cardinality is the number of distinct values (64-bit hashes).
func (r *rowSpill) cardinality() int { return r.hashes.len() }

// reader returns a reader over the spilled values; next returns each value
// (valid until the following call).
func (r *rowSpill) reader() (func() ([]byte, error), error) {
	if err := r.sp.w.Flush(); err != nil {
		return nil, err
	}
	f, err := os.Open(r.sp.f.Name())
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var buf []byte
	return func() ([]byte, error) {
		l, err := binary.ReadUvarint(br)
		if err != nil {
			f.Close()
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("read spill: %w", err)
		}
		if cap(buf) < int(l) {
			buf = make([]byte, l)
		}
		buf = buf[:l]
		if _, err := io.ReadFull(br, buf); err != nil {
			f.Close()
			return nil, fmt.Errorf("read spill: %w", err)
		}
		return buf, nil
	}, nil
}

func (r *rowSpill) remove() { r.sp.remove() }

// toRowMode moves a variable-width column's values from the dictionary to
// a spill file. ids are the provisional ids of the entries so far.
func (c *column) toRowMode(dir string) error {
	d := c.bytes
	rs, err := newRowSpill(dir, c.stored)
	if err != nil {
		return err
	}
	for _, id := range c.ids {
		if err := rs.add(strBytes(d.vals[id])); err != nil {
			rs.remove()
			return err
		}
	}
	c.rows2 = rs
	c.bytes, c.ids = nil, nil
	c.defID = -1
	return nil
}

// maybeRowMode switches a column to row mode when its plan allows it and
// the dictionary doesn't pay off: always for NoDictionary columns, else
// above rowModeMin distinct values when more than half the values are
// distinct (the automatic raw rule would pick raw anyway).
func (c *column) maybeRowMode() error {
	if c.keepDict || c.spillDir == "" || c.rowMode() {
		return nil
	}
	switched, err := false, error(nil)
	switch {
	case c.bytes != nil:
		if c.noDict || (len(c.bytes.vals) > rowModeMin && 2*len(c.bytes.vals) > len(c.ids)) {
			return c.toRowMode(c.spillDir)
		}
	case c.ints != nil:
		switched, err = c.ints.maybeToRows(c.ids, c.noDict, c.spillDir)
	case c.longs != nil:
		switched, err = c.longs.maybeToRows(c.ids, c.noDict, c.spillDir)
	case c.floats != nil:
		switched, err = c.floats.maybeToRows(c.ids, c.noDict, c.spillDir)
	case c.doubles != nil:
		switched, err = c.doubles.maybeToRows(c.ids, c.noDict, c.spillDir)
	}
	if err != nil {
		return err
	}
	if switched {
		c.ids = nil // ids are assigned at finish
	}
	return nil
}

// writeRawFromSpill writes the var-byte V4 forward index from the spill.
func (c *column) writeRawFromSpill(w io.Writer, dir string, compID int) error {
	rs := c.rows2
	next, err := rs.reader()
	if err != nil {
		return err
	}
	maxRow := rs.maxLen
	if !c.sv { // longest MV row payload: count + lengths + bytes
		maxRow = 0
		next2, err := rs.reader()
		if err != nil {
			return err
		}
		for _, cnt := range c.counts {
			size := 4
			for k := int32(0); k < cnt; k++ {
				b, err := next2()
				if err != nil {
					return err
				}
				size += 4 + len(b)
			}
			maxRow = max(maxRow, size)
		}
	}
	vw, err := newVarByteWriter(dir, varByteChunkSize(maxRow), compID)
	if err != nil {
		return err
	}
	if c.sv {
		for range c.entries {
			b, err := next()
			if err == nil {
				err = vw.put(b)
			}
			if err != nil {
				vw.abort()
				return err
			}
		}
		return vw.close(w)
	}
	var lens []int
	var data, row []byte
	for _, cnt := range c.counts {
		lens, data = lens[:0], data[:0]
		for k := int32(0); k < cnt; k++ {
			b, err := next()
			if err != nil {
				vw.abort()
				return err
			}
			lens = append(lens, len(b))
			data = append(data, b...)
		}
		row = binary.BigEndian.AppendUint32(row[:0], uint32(cnt))
		for _, l := range lens {
			row = binary.BigEndian.AppendUint32(row, uint32(l))
		}
		row = append(row, data...)
		if err := vw.put(row); err != nil {
			vw.abort()
			return err
		}
	}
	return vw.close(w)
}
