package read

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/floehq/floe/pinot/spec"
)

// readBits reads the i-th b-bit value of an MSB-first bit stream.
func readBits(buf []byte, i, b int) (uint32, error) {
	pos := i * b
	first := pos >> 3
	if (pos+b+7)>>3 > len(buf) {
		return 0, fmt.Errorf("%w: bit-packed index too short", ErrCorrupt)
	}
	var word uint64
	for k := 0; k < 8; k++ {
		word <<= 8
		if first+k < len(buf) {
			word |= uint64(buf[first+k])
		}
	}
	return uint32((word << uint(pos&7)) >> uint(64-b)), nil
}

// readDictForward decodes a dictionary-encoded forward index to dict ids:
// one id per doc (SV) or a list per doc (MV).
func readDictForward(b []byte, c *Column, docs int) (ids [][]uint32, format string, err error) {
	bits := max(c.BitsPerElement, 1)
	ids = make([][]uint32, docs)
	switch {
	case c.SingleValue && c.Sorted:
		if len(b) < 8*c.Cardinality {
			return nil, "", fmt.Errorf("%w: sorted forward index too short", ErrCorrupt)
		}
		for id := 0; id < c.Cardinality; id++ {
			start, end := int(int32(binary.BigEndian.Uint32(b[8*id:]))), int(int32(binary.BigEndian.Uint32(b[8*id+4:])))
			if start < 0 || end >= docs || start > end+1 {
				return nil, "", fmt.Errorf("%w: sorted forward index range %d..%d", ErrCorrupt, start, end)
			}
			for d := start; d <= end; d++ {
				ids[d] = []uint32{uint32(id)}
			}
		}
		return ids, "dictionary, sorted", nil
	case c.SingleValue:
		for d := 0; d < docs; d++ {
			v, err := readBits(b, d, bits)
			if err != nil {
				return nil, "", err
			}
			ids[d] = []uint32{v}
		}
		return ids, fmt.Sprintf("dictionary, fixed-bit (%d bits)", bits), nil
	}
	return readDictMV(b, c, docs, bits)
}

// readDictMV decodes the bitmap-headed fixed-bit MV format.
func readDictMV(b []byte, c *Column, docs, bits int) ([][]uint32, string, error) {
	total := c.TotalEntries
	if docs == 0 || total < docs {
		return nil, "", fmt.Errorf("%w: MV index with %d values for %d docs", ErrCorrupt, total, docs)
	}
	avg := total / docs
	perChunk := int(math.Ceil(float64(float32(2048) / float32(avg))))
	numChunks := (docs + perChunk - 1) / perChunk
	bitmapOff := 4 * numChunks
	valuesOff := bitmapOff + (total+7)/8
	if valuesOff > len(b) {
		return nil, "", fmt.Errorf("%w: MV index too short", ErrCorrupt)
	}
	ids := make([][]uint32, docs)
	doc := -1
	for j := 0; j < total; j++ {
		if b[bitmapOff+j>>3]&(0x80>>uint(j&7)) != 0 {
			doc++
		}
		if doc < 0 || doc >= docs {
			return nil, "", fmt.Errorf("%w: MV doc-start bitmap", ErrCorrupt)
		}
		v, err := readBits(b[valuesOff:], j, bits)
		if err != nil {
			return nil, "", err
		}
		ids[doc] = append(ids[doc], v)
	}
	if doc != docs-1 {
		return nil, "", fmt.Errorf("%w: MV doc-start bitmap marks %d docs, want %d", ErrCorrupt, doc+1, docs)
	}
	return ids, fmt.Sprintf("dictionary, multi-value fixed-bit (%d bits)", bits), nil
}

// rawHeader is the 28-byte header of chunk formats v2/v3/v4 (fixed) and
// v2/v3 (var-byte).
type rawHeader struct {
	version, numChunks, docsPerChunk, sizeOfEntry, totalDocs, codec, dataStart int
}

func parseRawHeader(b []byte) (rawHeader, []int, error) {
	if len(b) < 28 {
		return rawHeader{}, nil, fmt.Errorf("%w: raw forward index header", ErrCorrupt)
	}
	f := func(i int) int { return int(int32(binary.BigEndian.Uint32(b[4*i:]))) }
	h := rawHeader{f(0), f(1), f(2), f(3), f(4), f(5), f(6)}
	width := 8
	if h.version == 2 {
		width = 4
	}
	if h.numChunks < 0 || h.dataStart < 28 || h.dataStart+width*h.numChunks > len(b) || h.docsPerChunk <= 0 {
		return h, nil, fmt.Errorf("%w: raw forward index header", ErrCorrupt)
	}
	offs := make([]int, h.numChunks+1)
	for k := 0; k < h.numChunks; k++ {
		p := h.dataStart + width*k
		if width == 4 {
			offs[k] = int(binary.BigEndian.Uint32(b[p:]))
		} else {
			offs[k] = int(binary.BigEndian.Uint64(b[p:]))
		}
	}
	offs[h.numChunks] = len(b)
	for k := 0; k < h.numChunks; k++ {
		if offs[k] > offs[k+1] || offs[k] < h.dataStart {
			return h, nil, fmt.Errorf("%w: raw forward index chunk offsets", ErrCorrupt)
		}
	}
	return h, offs, nil
}

// readRawFixed decodes raw SV fixed-width chunks (format v2/v3/v4).
func readRawFixed(b []byte, stored spec.DataType, docs int) ([]any, string, error) {
	h, offs, err := parseRawHeader(b)
	if err != nil {
		return nil, "", err
	}
	w := stored.FixedWidth()
	if h.sizeOfEntry != w {
		return nil, "", fmt.Errorf("%w: raw entries of %d bytes for %s", ErrCorrupt, h.sizeOfEntry, stored)
	}
	dec, err := newChunkDecoder(h.codec, h.docsPerChunk*w, binary.BigEndian)
	if err != nil {
		return nil, "", err
	}
	defer dec.close()
	out := make([]any, 0, docs)
	for k := 0; k < h.numChunks && len(out) < docs; k++ {
		chunk, err := dec.decode(b[offs[k]:offs[k+1]])
		if err != nil {
			return nil, "", fmt.Errorf("chunk %d: %w", k, err)
		}
		n := min(h.docsPerChunk, docs-len(out))
		if len(chunk) < n*w {
			return nil, "", fmt.Errorf("%w: chunk %d holds %d bytes, want %d", ErrCorrupt, k, len(chunk), n*w)
		}
		for i := 0; i < n; i++ {
			out = append(out, fixedValue(stored, chunk[i*w:]))
		}
	}
	if len(out) != docs {
		return nil, "", fmt.Errorf("%w: raw index holds %d docs, want %d", ErrCorrupt, len(out), docs)
	}
	return out, fmt.Sprintf("raw, fixed-width chunks v%d, %s", h.version, codecName(h.codec)), nil
}

// readRawVarV23 splits var-byte chunk format v2/v3 into per-doc bytes.
func readRawVarV23(b []byte, docs int) ([][]byte, string, error) {
	h, offs, err := parseRawHeader(b)
	if err != nil {
		return nil, "", err
	}
	dec, err := newChunkDecoder(h.codec, h.docsPerChunk*(4+h.sizeOfEntry), binary.BigEndian)
	if err != nil {
		return nil, "", err
	}
	defer dec.close()
	out := make([][]byte, 0, docs)
	for k := 0; k < h.numChunks && len(out) < docs; k++ {
		chunk, err := dec.decode(b[offs[k]:offs[k+1]])
		if err != nil {
			return nil, "", fmt.Errorf("chunk %d: %w", k, err)
		}
		n := min(h.docsPerChunk, docs-len(out))
		if len(chunk) < 4*h.docsPerChunk {
			return nil, "", fmt.Errorf("%w: chunk %d header", ErrCorrupt, k)
		}
		for i := 0; i < n; i++ {
			start := int(binary.BigEndian.Uint32(chunk[4*i:]))
			end := len(chunk)
			if i+1 < h.docsPerChunk {
				if next := int(binary.BigEndian.Uint32(chunk[4*i+4:])); next != 0 {
					end = next
				}
			}
			if start > end || end > len(chunk) {
				return nil, "", fmt.Errorf("%w: chunk %d row offsets", ErrCorrupt, k)
			}
			out = append(out, chunk[start:end])
		}
	}
	if len(out) != docs {
		return nil, "", fmt.Errorf("%w: raw index holds %d docs, want %d", ErrCorrupt, len(out), docs)
	}
	return out, fmt.Sprintf("raw, var-byte chunks v%d, %s", h.version, codecName(h.codec)), nil
}

// readRawVarV45 splits var-byte format V4/V5 into per-doc bytes.
func readRawVarV45(b []byte, docs int) ([][]byte, string, error) {
	if len(b) < 16 {
		return nil, "", fmt.Errorf("%w: var-byte V4 header", ErrCorrupt)
	}
	version := int(binary.BigEndian.Uint32(b))
	target := int(binary.BigEndian.Uint32(b[4:]))
	codec := int(binary.BigEndian.Uint32(b[8:]))
	start := int(binary.BigEndian.Uint32(b[12:]))
	if start < 16 || start > len(b) || (start-16)%8 != 0 {
		return nil, "", fmt.Errorf("%w: var-byte V4 chunks start", ErrCorrupt)
	}
	dec, err := newChunkDecoder(codec, target, binary.LittleEndian)
	if err != nil {
		return nil, "", err
	}
	defer dec.close()
	numChunks := (start - 16) / 8
	out := make([][]byte, 0, docs)
	for k := 0; k < numChunks; k++ {
		meta := b[16+8*k:]
		first := binary.LittleEndian.Uint32(meta)
		lo, hi := start+int(binary.LittleEndian.Uint32(meta[4:])), len(b)
		if k+1 < numChunks {
			hi = start + int(binary.LittleEndian.Uint32(meta[12:]))
		}
		if lo > hi || hi > len(b) {
			return nil, "", fmt.Errorf("%w: var-byte V4 chunk %d offsets", ErrCorrupt, k)
		}
		chunk, err := dec.decode(b[lo:hi])
		if err != nil {
			return nil, "", fmt.Errorf("chunk %d: %w", k, err)
		}
		if first&0x80000000 != 0 {
			out = append(out, chunk)
			continue
		}
		if out, err = splitV4Chunk(chunk, out); err != nil {
			return nil, "", fmt.Errorf("chunk %d: %w", k, err)
		}
	}
	if len(out) != docs {
		return nil, "", fmt.Errorf("%w: raw index holds %d docs, want %d", ErrCorrupt, len(out), docs)
	}
	return out, fmt.Sprintf("raw, var-byte V%d, %s", version, codecName(codec)), nil
}

// splitV4Chunk appends the values of a regular V4 chunk (little-endian
// count and offsets).
func splitV4Chunk(chunk []byte, out [][]byte) ([][]byte, error) {
	if len(chunk) < 4 {
		return nil, fmt.Errorf("%w: short chunk", ErrCorrupt)
	}
	n := int(binary.LittleEndian.Uint32(chunk))
	if n < 0 || 4+4*n > len(chunk) {
		return nil, fmt.Errorf("%w: chunk of %d docs", ErrCorrupt, n)
	}
	for i := 0; i < n; i++ {
		lo, hi := int(binary.LittleEndian.Uint32(chunk[4+4*i:])), len(chunk)
		if i+1 < n {
			hi = int(binary.LittleEndian.Uint32(chunk[8+4*i:]))
		}
		if lo > hi || hi > len(chunk) {
			return nil, fmt.Errorf("%w: chunk value offsets", ErrCorrupt)
		}
		out = append(out, chunk[lo:hi])
	}
	return out, nil
}

// decodeMVPayload decodes one raw multi-value row (big-endian): a count
// (absent in V5 for fixed-width types), then values; variable-width types
// carry a length per value.
func decodeMVPayload(b []byte, stored spec.DataType, v5 bool) ([]any, error) {
	if w := stored.FixedWidth(); w > 0 {
		body, n := b, len(b)/w
		if !v5 {
			if len(b) < 4 {
				return nil, fmt.Errorf("%w: MV row", ErrCorrupt)
			}
			n, body = int(binary.BigEndian.Uint32(b)), b[4:]
		}
		if n < 0 || n*w > len(body) {
			return nil, fmt.Errorf("%w: MV row of %d values", ErrCorrupt, n)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = fixedValue(stored, body[i*w:])
		}
		return out, nil
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: MV row", ErrCorrupt)
	}
	n := int(binary.BigEndian.Uint32(b))
	if n < 0 || 4+4*n > len(b) {
		return nil, fmt.Errorf("%w: MV row of %d values", ErrCorrupt, n)
	}
	out := make([]any, n)
	pos := 4 + 4*n
	for i := range out {
		l := int(binary.BigEndian.Uint32(b[4+4*i:]))
		if l < 0 || pos+l > len(b) {
			return nil, fmt.Errorf("%w: MV row value length", ErrCorrupt)
		}
		v, err := bytesValue(stored, b[pos:pos+l])
		if err != nil {
			return nil, err
		}
		out[i], pos = v, pos+l
	}
	return out, nil
}
