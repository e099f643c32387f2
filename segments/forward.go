package segments

import (
	"encoding/binary"
	"io"
	"math"
	"math/bits"
)

// bitsPerElement is max(1, bitLength(cardinality-1)) (format: never change).
func bitsPerElement(cardinality int) int {
	if cardinality <= 1 {
		return 1
	}
	return bits.Len32(uint32(cardinality - 1))
}

// bitPacker writes values of b bits each as one MSB-first big-endian bit
// stream (PinotDataBitSet), buffering output.
type bitPacker struct {
	w     io.Writer
	b     uint
	acc   uint64
	nbits uint
	buf   []byte
	err   error
}

func newBitPacker(w io.Writer, b int) *bitPacker {
	return &bitPacker{w: w, b: uint(b), buf: make([]byte, 0, 64<<10)}
}

func (p *bitPacker) put(v uint32) {
	p.acc = p.acc<<p.b | uint64(v)
	p.nbits += p.b
	for p.nbits >= 8 {
		p.nbits -= 8
		p.buf = append(p.buf, byte(p.acc>>p.nbits))
	}
	if len(p.buf) >= cap(p.buf)-8 {
		p.flush()
	}
}

func (p *bitPacker) flush() {
	if p.err == nil && len(p.buf) > 0 {
		_, p.err = p.w.Write(p.buf)
	}
	p.buf = p.buf[:0]
}

// close writes the final partial byte (zero-padded) and flushes.
func (p *bitPacker) close() error {
	if p.nbits > 0 {
		p.buf = append(p.buf, byte(p.acc<<(8-p.nbits)))
		p.nbits = 0
	}
	p.flush()
	return p.err
}

// writeUnsortedSV writes <col>.sv.unsorted.fwd: ids fixed-bit packed.
func writeUnsortedSV(w io.Writer, ids []int32, b int) error {
	p := newBitPacker(w, b)
	for _, id := range ids {
		p.put(uint32(id))
	}
	return p.close()
}

// isNonDecreasing reports whether ids never go down.
func isNonDecreasing(ids []int32) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] < ids[i-1] {
			return false
		}
	}
	return true
}

// writeSortedSV writes <col>.sv.sorted.fwd: per dict id a BE (startDoc,
// endDoc inclusive) pair. ids must be non-decreasing and use every id.
func writeSortedSV(w io.Writer, ids []int32, cardinality int) error {
	buf := make([]byte, 0, 8*cardinality)
	start := 0
	for i := 1; i <= len(ids); i++ {
		if i == len(ids) || ids[i] != ids[start] {
			buf = binary.BigEndian.AppendUint32(buf, uint32(start))
			buf = binary.BigEndian.AppendUint32(buf, uint32(i-1))
			start = i
		}
	}
	_, err := w.Write(buf)
	return err
}

// mvDocsPerChunk is FixedBitMVForwardIndexWriter's chunking:
// ceil(float32(2048) / float32(totalEntries / numDocs)) with integer
// division inside (format: never change).
func mvDocsPerChunk(numDocs int, totalEntries int64) int {
	avg := totalEntries / int64(numDocs)
	return int(math.Ceil(float64(float32(2048) / float32(avg))))
}

// writeMV writes <col>.mv.fwd: chunk offsets, doc-start bitmap, packed ids.
// counts[r] is the number of values of row r (>= 1), ids all values.
func writeMV(w io.Writer, counts []int32, ids []int32, b int) error {
	numDocs := len(counts)
	total := int64(len(ids))
	dpc := mvDocsPerChunk(numDocs, total)
	numChunks := (numDocs + dpc - 1) / dpc
	buf := make([]byte, 0, 4*numChunks)
	var pos int64
	for r, c := range counts {
		if r%dpc == 0 {
			buf = binary.BigEndian.AppendUint32(buf, uint32(pos))
		}
		pos += int64(c)
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	// Doc-start bitmap: one bit per value, set on each row's first value.
	bm := newBitPacker(w, 1)
	for _, c := range counts {
		bm.put(1)
		for i := int32(1); i < c; i++ {
			bm.put(0)
		}
	}
	if err := bm.close(); err != nil {
		return err
	}
	return writeUnsortedSV(w, ids, b)
}
