package segments

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"os"
	"slices"
	"strconv"
)

// v3Magic precedes every index buffer in columns.psf (format: never change).
const v3Magic uint64 = 0xDEADBEEFDEAFBEAD

// Index ids in index_map (StandardIndexes; format: never change).
const (
	idxDictionary = "dictionary"
	idxForward    = "forward_index"
	idxInverted   = "inverted_index"
	idxNull       = "nullvalue_vector"
)

// psfEntry is one index buffer of a column: where it sits in the column's
// part file and what Pinot's v1 file for it would be called.
type psfEntry struct {
	column  string
	indexID string
	v1Name  string // e.g. "city.sv.unsorted.fwd" (dataCrc order and filter)
	offset  int64  // of the marker, within the part file
	size    int64  // marker + content
	adler   uint32 // Adler-32 of the content (no marker)
}

// partWriter writes one column's entries (marker + content each) to a part
// file that is later appended to columns.psf as is.
type partWriter struct {
	f       *os.File
	w       *bufio.Writer
	n       int64
	h       hash.Hash32
	entries []psfEntry
}

func newPartWriter(path string) (*partWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create part file: %w", err)
	}
	return &partWriter{f: f, w: bufio.NewWriterSize(f, 1<<20), h: adler32.New()}, nil
}

func (p *partWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	p.h.Write(b[:n])
	return n, err
}

// entry writes the marker, runs write for the content, and records the entry.
func (p *partWriter) entry(column, indexID, v1Name string, write func(w io.Writer) error) error {
	start := p.n
	var m [8]byte
	binary.BigEndian.PutUint64(m[:], v3Magic)
	if _, err := p.w.Write(m[:]); err != nil {
		return err
	}
	p.n += 8
	p.h.Reset()
	if err := write(p); err != nil {
		return fmt.Errorf("write %s: %w", v1Name, err)
	}
	p.entries = append(p.entries, psfEntry{column: column, indexID: indexID, v1Name: v1Name,
		offset: start, size: p.n - start, adler: p.h.Sum32()})
	return nil
}

func (p *partWriter) close() error {
	if err := p.w.Flush(); err != nil {
		p.f.Close()
		return err
	}
	return p.f.Close()
}

// assembleV3 concatenates the parts (in the given column order) into
// columns.psf and writes index_map. It returns the entries with absolute
// offsets and the Adler-32 of columns.psf then index_map (file-name order),
// combined from the entries' checksums so the copy stays in the kernel.
func assembleV3(v3dir string, parts []string, entries [][]psfEntry) ([]psfEntry, uint32, error) {
	f, err := os.Create(v3dir + "/columns.psf")
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var all []psfEntry
	var base int64
	for i, part := range parts {
		n, err := appendFile(f, part)
		if err != nil {
			return nil, 0, fmt.Errorf("append %s to columns.psf: %w", part, err)
		}
		for _, e := range entries[i] {
			e.offset += base
			all = append(all, e)
		}
		base += n
	}
	if err := f.Close(); err != nil {
		return nil, 0, err
	}
	var im properties
	for _, e := range all {
		im.set(e.column+"."+e.indexID+".startOffset", strconv.FormatInt(e.offset, 10))
		im.set(e.column+"."+e.indexID+".size", strconv.FormatInt(e.size, 10))
	}
	b := im.bytes()
	if err := os.WriteFile(v3dir+"/index_map", b, 0o644); err != nil {
		return nil, 0, err
	}
	sum := adler32Combine(entriesAdler(all), adler32.Checksum(b), int64(len(b)))
	return all, sum, nil
}

// appendFile appends the file at path to f (copy_file_range where the
// kernel has it) and returns the bytes copied.
func appendFile(f *os.File, path string) (int64, error) {
	pf, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer pf.Close()
	return io.Copy(f, pf)
}

// entriesAdler is the Adler-32 of the entries laid end to end, each its
// 8-byte marker then its content.
func entriesAdler(entries []psfEntry) uint32 {
	var m [8]byte
	binary.BigEndian.PutUint64(m[:], v3Magic)
	marker := adler32.Checksum(m[:])
	sum := uint32(1) // Adler-32 of nothing
	for _, e := range entries {
		sum = adler32Combine(sum, marker, 8)
		sum = adler32Combine(sum, e.adler, e.size-8)
	}
	return sum
}

// dataCRC is Adler-32 over the would-be v1 forward and dictionary files
// (names ending .fwd or .dict) in file-name order, without markers.
func dataCRC(entries []psfEntry) uint32 {
	var sel []psfEntry
	for _, e := range entries {
		if hasSuffix(e.v1Name, ".fwd") || hasSuffix(e.v1Name, ".dict") {
			sel = append(sel, e)
		}
	}
	slices.SortFunc(sel, func(a, b psfEntry) int { return compareUTF16(a.v1Name, b.v1Name) })
	sum := uint32(1)
	for _, e := range sel {
		sum = adler32Combine(sum, e.adler, e.size-8)
	}
	return sum
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// adler32Combine returns the Adler-32 of A||B from adler(A), adler(B) and
// len(B) (zlib's adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint64(len2 % base)
	sum1 := uint64(a1 & 0xffff)
	sum2 := (rem * sum1) % base
	sum1 += uint64(a2&0xffff) + base - 1
	sum2 += uint64(a1>>16) + uint64(a2>>16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return uint32(sum1 | sum2<<16)
}
