package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// errThrift reports a footer floe's walker cannot follow; parquet-go then
// reads the footer as it is and says what is wrong.
var errThrift = errors.New("malformed thrift")

// keyValueLists are the footer fields (thrift field-id paths) that hold
// KeyValue lists: FileMetaData.key_value_metadata and
// RowGroup.columns[].meta_data.key_value_metadata.
var keyValueLists = map[string]bool{"5": true, "4.1.3.8": true}

// repairFooter gives a KeyValue entry that has a key but no value (valid
// for writers that treat the value as optional, refused by parquet-go as a
// missing required field) an empty value. It returns r unchanged when the
// footer needs nothing, else a reader of the same file with the repaired
// footer.
func repairFooter(r io.ReaderAt, size int64) (io.ReaderAt, int64) {
	if size < 12 {
		return r, size
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil || string(tail[4:]) != "PAR1" {
		return r, size
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n <= 0 || n > size-12 {
		return r, size
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return r, size
	}
	w := &footerWalker{in: footer}
	if err := w.structBody(""); err != nil || !w.changed {
		return r, size
	}
	fixed := binary.LittleEndian.AppendUint32(w.out, uint32(len(w.out)))
	fixed = append(fixed, "PAR1"...)
	return &overlayReader{base: r, at: size - 8 - n, tail: fixed}, size - 8 - n + int64(len(fixed))
}

// overlayReader reads base up to at, then tail.
type overlayReader struct {
	base io.ReaderAt
	at   int64
	tail []byte
}

func (o *overlayReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < o.at {
		k := min(int64(len(p)), o.at-off)
		m, err := o.base.ReadAt(p[:k], off)
		if n += m; err != nil {
			return n, err
		}
		p, off = p[k:], o.at
	}
	if len(p) == 0 {
		return n, nil
	}
	i := off - o.at
	if i >= int64(len(o.tail)) {
		return n, io.EOF
	}
	m := copy(p, o.tail[i:])
	if n += m; m < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// footerWalker copies a thrift compact-protocol struct, adding empty values
// to KeyValue entries that lack one.
type footerWalker struct {
	in, out []byte
	pos     int
	changed bool
}

func (w *footerWalker) byte() (byte, error) {
	if w.pos >= len(w.in) {
		return 0, errThrift
	}
	b := w.in[w.pos]
	w.pos++
	w.out = append(w.out, b)
	return b, nil
}

func (w *footerWalker) varint() (uint64, error) {
	v, k := binary.Uvarint(w.in[w.pos:])
	if k <= 0 {
		return 0, errThrift
	}
	w.out = append(w.out, w.in[w.pos:w.pos+k]...)
	w.pos += k
	return v, nil
}

func (w *footerWalker) skip(n int) error {
	if n < 0 || w.pos+n > len(w.in) {
		return errThrift
	}
	w.out = append(w.out, w.in[w.pos:w.pos+n]...)
	w.pos += n
	return nil
}

// structBody copies a struct's fields up to its stop byte; ctx is the
// dotted field-id path of the field that holds the struct.
func (w *footerWalker) structBody(ctx string) error {
	id, has1, has2 := 0, false, false
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == 0 {
			if keyValueLists[ctx] && has1 && !has2 {
				w.out = append(w.out[:len(w.out)-1], 0x18, 0x00, 0x00) // field 2 (binary, delta 1): ""; stop
				w.changed = true
			}
			return nil
		}
		if delta := int(h >> 4); delta != 0 {
			id += delta
		} else {
			v, err := w.varint()
			if err != nil {
				return err
			}
			id = int(int16(v>>1) ^ -int16(v&1))
		}
		has1, has2 = has1 || id == 1, has2 || id == 2
		child := strconv.Itoa(id)
		if ctx != "" {
			child = ctx + "." + child
		}
		if err := w.value(h&0x0f, child); err != nil {
			return err
		}
	}
}

// value copies one value of compact type t.
func (w *footerWalker) value(t byte, ctx string) error {
	switch t {
	case 1, 2: // bool in a field header
		return nil
	case 3:
		return w.skip(1)
	case 4, 5, 6:
		_, err := w.varint()
		return err
	case 7:
		return w.skip(8)
	case 8:
		n, err := w.varint()
		if err != nil {
			return err
		}
		return w.skip(int(n))
	case 9, 10:
		return w.list(ctx)
	case 11:
		return w.mapValue(ctx)
	case 12:
		return w.structBody(ctx)
	}
	return fmt.Errorf("%w: type %d", errThrift, t)
}

func (w *footerWalker) list(ctx string) error {
	h, err := w.byte()
	if err != nil {
		return err
	}
	n, et := uint64(h>>4), h&0x0f
	if n == 15 {
		if n, err = w.varint(); err != nil {
			return err
		}
	}
	for ; n > 0; n-- {
		if et == 1 || et == 2 { // bools in a list take a byte each
			err = w.skip(1)
		} else {
			err = w.value(et, ctx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *footerWalker) mapValue(ctx string) error {
	n, err := w.varint()
	if err != nil || n == 0 {
		return err
	}
	kv, err := w.byte()
	if err != nil {
		return err
	}
	for ; n > 0; n-- {
		for _, t := range []byte{kv >> 4, kv & 0x0f} {
			if t == 1 || t == 2 {
				err = w.skip(1)
			} else {
				err = w.value(t, ctx)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
