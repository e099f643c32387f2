package segments

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Raw (no-dictionary) forward indexes (doc.go, "Raw forward indexes").

const (
	fixedChunkVersion  = 4    // fixed-width SV chunk format (format: never change)
	fixedDocsPerChunk  = 1024 // power of two, as Pinot 1.5 writes it
	varByteVersion     = 4    // var-byte chunk format V4 (read by Pinot 1.2+)
	varByteMinChunk    = 4096
	varByteMaxChunk    = 1 << 20
	varByteHugeFlag    = 0x80000000
	fixedHeaderSize    = 28
	varByteHeaderFixed = 16
)

// spill is a temporary file that compressed chunks go to before the
// header that precedes them is known.
type spill struct {
	f *os.File
	w *bufio.Writer
	n int64
}

func newSpill(dir string) (*spill, error) {
	f, err := os.CreateTemp(dir, "chunks-*")
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *spill) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	return n, err
}

// copyTo flushes and copies the spilled bytes to w, then removes the file.
func (s *spill) copyTo(w io.Writer) error {
	defer s.remove()
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, bufio.NewReaderSize(s.f, 1<<20))
	return err
}

// readInto flushes and reads the spilled bytes into p (len(p) = bytes written).
func (s *spill) readInto(p []byte) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.ReadFull(s.f, p)
	return err
}

func (s *spill) remove() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
}

// writeFixedChunks writes <col>.sv.raw.fwd in chunk format v4: a 28-byte BE
// header, numChunks BE long absolute chunk offsets, then the chunks.
// put appends the BE bytes of rows [from, to) to dst.
func writeFixedChunks(w io.Writer, dir string, numDocs, size, compID int,
	put func(dst []byte, from, to int) []byte) error {
	numChunks := (numDocs + fixedDocsPerChunk - 1) / fixedDocsPerChunk
	dataStart := int64(fixedHeaderSize + 8*numChunks)
	hdr := make([]byte, 0, dataStart)
	for _, v := range []int{fixedChunkVersion, numChunks, fixedDocsPerChunk, size, numDocs, compID, fixedHeaderSize} {
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(v))
	}
	comp, err := newCompressor(compID)
	if err != nil {
		return err
	}
	defer comp.close()
	raw := make([]byte, 0, fixedDocsPerChunk*size)
	if compID == compPassThrough { // offsets are known up front
		for k := 0; k < numChunks; k++ {
			hdr = binary.BigEndian.AppendUint64(hdr, uint64(dataStart+int64(k*fixedDocsPerChunk*size)))
		}
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		for from := 0; from < numDocs; from += fixedDocsPerChunk {
			raw = put(raw[:0], from, min(from+fixedDocsPerChunk, numDocs))
			if _, err := w.Write(raw); err != nil {
				return err
			}
		}
		return nil
	}
	sp, err := newSpill(dir)
	if err != nil {
		return err
	}
	defer sp.remove()
	for from := 0; from < numDocs; from += fixedDocsPerChunk {
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(dataStart+sp.n))
		raw = put(raw[:0], from, min(from+fixedDocsPerChunk, numDocs))
		c, err := comp.compress(raw)
		if err != nil {
			return err
		}
		if _, err := sp.Write(c); err != nil {
			return err
		}
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	return sp.copyTo(w)
}

// varByteChunkSize is Pinot's dynamic target chunk size:
// max(min(maxLen*1000, 1 MiB), 4096).
func varByteChunkSize(maxLen int) int {
	return max(min(maxLen*1000, varByteMaxChunk), varByteMinChunk)
}

// varByteWriter writes the var-byte chunk format V4 (all chunk contents LE).
type varByteWriter struct {
	chunkSize int
	comp      *compressor
	compID    int
	sp        *spill
	hdr       []byte // LE (firstDocId|huge, offset) pairs
	lens      []int  // value lengths of the open chunk
	data      []byte // value bytes of the open chunk
	used      int    // bytes of the open chunk as Pinot counts them (4 + Σ(4+len))
	docID     int    // next doc id
	firstDoc  int    // first doc of the open chunk
	chunk     []byte
}

func newVarByteWriter(dir string, chunkSize, compID int) (*varByteWriter, error) {
	if compID == compLZ4 {
		compID = compLZ4LengthPrefixed // Pinot upgrades LZ4 in V4
	}
	comp, err := newCompressor(compID)
	if err != nil {
		return nil, err
	}
	sp, err := newSpill(dir)
	if err != nil {
		comp.close()
		return nil, err
	}
	return &varByteWriter{chunkSize: chunkSize, comp: comp, compID: compID, sp: sp, used: 4}, nil
}

// put adds the next row's bytes.
func (v *varByteWriter) put(b []byte) error {
	need := 4 + len(b)
	if v.used > v.chunkSize-need {
		if err := v.flush(); err != nil {
			return err
		}
		if need > v.chunkSize-4 {
			return v.writeChunk(b, true)
		}
	}
	v.lens = append(v.lens, len(b))
	v.data = append(v.data, b...)
	v.used += need
	v.docID++
	return nil
}

func (v *varByteWriter) flush() error {
	if len(v.lens) == 0 {
		return nil
	}
	n := len(v.lens)
	c := v.chunk[:0]
	c = binary.LittleEndian.AppendUint32(c, uint32(n))
	off := 4 * (n + 1)
	for _, l := range v.lens {
		c = binary.LittleEndian.AppendUint32(c, uint32(off))
		off += l
	}
	c = append(c, v.data...)
	v.chunk = c
	err := v.writeChunk(c, false)
	v.lens, v.data, v.used = v.lens[:0], v.data[:0], 4
	return err
}

func (v *varByteWriter) writeChunk(raw []byte, huge bool) error {
	first := uint32(v.firstDoc)
	if huge {
		first |= varByteHugeFlag
		v.docID++
	}
	if v.sp.n >= 1<<32 {
		return fmt.Errorf("var-byte forward index exceeds 4 GiB of compressed chunks")
	}
	v.hdr = binary.LittleEndian.AppendUint32(v.hdr, first)
	v.hdr = binary.LittleEndian.AppendUint32(v.hdr, uint32(v.sp.n))
	c, err := v.comp.compress(raw)
	if err != nil {
		return err
	}
	_, err = v.sp.Write(c)
	v.firstDoc = v.docID
	return err
}

// close writes the header and all chunks to w.
func (v *varByteWriter) close(w io.Writer) error {
	defer v.abort()
	if err := v.flush(); err != nil {
		return err
	}
	chunksStart := varByteHeaderFixed + len(v.hdr)
	h := make([]byte, 0, varByteHeaderFixed)
	for _, x := range []int{varByteVersion, v.chunkSize, v.compID, chunksStart} {
		h = binary.BigEndian.AppendUint32(h, uint32(x))
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	if _, err := w.Write(v.hdr); err != nil {
		return err
	}
	return v.sp.copyTo(w)
}

func (v *varByteWriter) abort() {
	v.sp.remove()
	v.comp.close()
}
