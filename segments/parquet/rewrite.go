package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/floehq/floe/segments"
)

// Two kinds of valid page parquet-go cannot read:
//   - pages in Parquet's deprecated LZ4 codec (format.Lz4), either
//     Hadoop-framed blocks (each: uncompressed size, compressed size, both
//     4-byte big-endian, then an LZ4 block; parquet-mr) or one raw LZ4
//     block (older parquet-cpp);
//   - an empty data page v2 flagged compressed: its zero-length body is no
//     valid compressed stream and must not be decompressed.
// A file holding either is rewritten once into a temporary file where LZ4
// column chunks are uncompressed and empty v2 pages are flagged
// uncompressed, and read from there. Other column chunks are copied as
// they are.

// needsRewrite reports whether a file holds pages parquet-go cannot read.
func needsRewrite(r io.ReaderAt, md *format.FileMetaData) bool {
	for _, rg := range md.RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.Codec == format.Lz4 || hasEmptyCompressedV2(r, &c.MetaData) {
				return true
			}
		}
	}
	return false
}

// emptyCompressedV2 reports a data page v2 with no value bytes that is
// flagged compressed.
func emptyCompressedV2(h *format.PageHeader) bool {
	v2, ok := h.DataPageHeaderV2.Get()
	if !ok {
		return false
	}
	compressed, set := v2.IsCompressed.Get()
	return (compressed || !set) && h.CompressedPageSize == v2.RepetitionLevelsByteLength+v2.DefinitionLevelsByteLength
}

// hasEmptyCompressedV2 walks a compressed chunk's page headers (reading
// only the headers) for an empty data page v2 flagged compressed.
func hasEmptyCompressedV2(r io.ReaderAt, m *format.ColumnMetaData) bool {
	if m.Codec == format.Uncompressed {
		return false
	}
	start, end := chunkStart(m), chunkStart(m)+m.TotalCompressedSize
	proto := new(thrift.CompactProtocol)
	for pos := start; pos < end; {
		h, n, ok := readHeader(r, proto, pos, end)
		if !ok {
			return false // parquet-go reports what is wrong
		}
		if emptyCompressedV2(&h) {
			return true
		}
		pos += n + int64(h.CompressedPageSize)
	}
	return false
}

// readHeader decodes the page header at pos, reading a small window first
// and a larger one when the header (with its statistics) does not fit.
func readHeader(r io.ReaderAt, proto *thrift.CompactProtocol, pos, end int64) (format.PageHeader, int64, bool) {
	for window := int64(256); ; window *= 8 {
		buf := make([]byte, min(window, end-pos))
		k, _ := r.ReadAt(buf, pos)
		br := bytes.NewReader(buf[:k])
		var h format.PageHeader
		if err := thrift.NewDecoder(proto.NewReader(br)).Decode(&h); err == nil {
			return h, int64(k - br.Len()), h.CompressedPageSize >= 0
		}
		if int64(k) < window || window >= 1<<24 {
			return h, 0, false
		}
	}
}

// walkPages calls fn with each page of a column chunk's bytes: its header,
// the header's offset and its body; fn returns false to stop.
func walkPages(chunk []byte, fn func(h *format.PageHeader, pos int, body []byte) (bool, error)) error {
	proto := new(thrift.CompactProtocol)
	for pos := 0; pos < len(chunk); {
		br := bytes.NewReader(chunk[pos:])
		var h format.PageHeader
		if err := thrift.NewDecoder(proto.NewReader(br)).Decode(&h); err != nil {
			return fmt.Errorf("%w: page header: %v", segments.ErrCorruptSource, err)
		}
		body := len(chunk) - br.Len()
		end := body + int(h.CompressedPageSize)
		if h.CompressedPageSize < 0 || end > len(chunk) {
			return fmt.Errorf("%w: page of %d bytes past the column chunk", segments.ErrCorruptSource, h.CompressedPageSize)
		}
		if more, err := fn(&h, pos, chunk[body:end]); err != nil || !more {
			return err
		}
		pos = end
	}
	return nil
}

// chunkStart is the offset of a column chunk's first page.
func chunkStart(m *format.ColumnMetaData) int64 {
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < m.DataPageOffset {
		return m.DictionaryPageOffset
	}
	return m.DataPageOffset
}

// decodeLZ4 decompresses a page body of the deprecated LZ4 codec into n
// bytes: Hadoop framing when the frames account for every byte, else one
// raw block.
func decodeLZ4(src []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	rest := src
	for len(rest) >= 8 {
		dlen, clen := int(binary.BigEndian.Uint32(rest)), int(binary.BigEndian.Uint32(rest[4:]))
		if clen > len(rest)-8 || len(out)+dlen > n {
			break
		}
		k, err := lz4.UncompressBlock(rest[8:8+clen], out[len(out):len(out)+dlen])
		if err != nil || k != dlen {
			break
		}
		out, rest = out[:len(out)+dlen], rest[8+clen:]
	}
	if len(rest) == 0 && len(out) == n {
		return out, nil
	}
	out = out[:n]
	k, err := lz4.UncompressBlock(src, out)
	if err != nil || k != n {
		return nil, fmt.Errorf("%w: LZ4 page is neither Hadoop-framed nor a raw block of %d bytes (%v)", segments.ErrCorruptSource, n, err)
	}
	return out, nil
}

// rewriteFile writes the file with its LZ4 column chunks uncompressed and
// its empty v2 pages flagged uncompressed to a temporary file in dir and
// returns it (the caller closes and removes it).
func rewriteFile(r io.ReaderAt, size int64, md *format.FileMetaData, dir string) (*os.File, error) {
	out, err := os.CreateTemp(dir, "floe-rewrite-*.parquet")
	if err != nil {
		return nil, fmt.Errorf("rewrite Parquet file: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		out.Close()
		os.Remove(out.Name())
		return nil, err
	}
	w := &offsetWriter{w: out}
	w.write([]byte("PAR1"))
	md2 := *md
	md2.RowGroups = slices.Clone(md.RowGroups)
	for i := range md2.RowGroups {
		rg := &md2.RowGroups[i]
		rg.Columns = slices.Clone(rg.Columns)
		for j := range rg.Columns {
			if err := copyChunk(r, w, &rg.Columns[j], hasEmptyCompressedV2(r, &rg.Columns[j].MetaData)); err != nil {
				return fail(fmt.Errorf("rewrite Parquet file: row group %d, column %d: %w", i, j, err))
			}
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md2)
	if err != nil {
		return fail(fmt.Errorf("rewrite Parquet file: footer: %w", err))
	}
	w.write(footer)
	w.write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	w.write([]byte("PAR1"))
	if w.err != nil {
		return fail(fmt.Errorf("rewrite Parquet file: %w", w.err))
	}
	return out, nil
}

// offsetWriter writes sequentially, keeping the offset and the first error.
type offsetWriter struct {
	w   io.Writer
	off int64
	err error
}

func (o *offsetWriter) write(b []byte) {
	if o.err == nil {
		var n int
		n, o.err = o.w.Write(b)
		o.off += int64(n)
	}
}

// copyChunk copies one column chunk, decompressing LZ4 pages and flagging
// empty v2 pages uncompressed (fixV2), and points its metadata at the new
// bytes.
func copyChunk(r io.ReaderAt, w *offsetWriter, cc *format.ColumnChunk, fixV2 bool) error {
	m := &cc.MetaData
	start := chunkStart(m)
	chunk := make([]byte, m.TotalCompressedSize)
	if _, err := r.ReadAt(chunk, start); err != nil {
		return fmt.Errorf("%w: read column chunk: %v", segments.ErrCorruptSource, err)
	}
	newStart := w.off
	cc.FileOffset, cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0, 0, 0, 0
	if m.Codec != format.Lz4 && !fixV2 {
		w.write(chunk)
		shiftChunk(m, newStart-start)
		return nil
	}
	proto := new(thrift.CompactProtocol)
	dict, data := m.DictionaryPageOffset, m.DataPageOffset
	err := walkPages(chunk, func(h *format.PageHeader, pos int, body []byte) (bool, error) {
		if int64(pos)+start == dict {
			m.DictionaryPageOffset = w.off
		}
		if int64(pos)+start == data {
			m.DataPageOffset = w.off
		}
		out, err := rewritePage(h, body, m.Codec)
		if err != nil {
			return false, err
		}
		hb, err := thrift.Marshal(proto, h)
		if err != nil {
			return false, err
		}
		w.write(hb)
		w.write(out)
		return true, nil
	})
	if err != nil {
		return err
	}
	if m.Codec == format.Lz4 {
		m.Codec = format.Uncompressed
	}
	m.TotalCompressedSize = w.off - newStart
	return nil
}

// rewritePage returns a page's new body, fixing its header to match.
func rewritePage(h *format.PageHeader, body []byte, codec format.CompressionCodec) ([]byte, error) {
	if codec == format.Lz4 {
		return uncompressPage(h, body)
	}
	if emptyCompressedV2(h) {
		v2, _ := h.DataPageHeaderV2.Get()
		v2.IsCompressed = thrift.New(false)
		h.DataPageHeaderV2 = thrift.New(v2)
	}
	return body, nil
}

// uncompressPage decompresses an LZ4 page body and fixes its header.
func uncompressPage(h *format.PageHeader, body []byte) ([]byte, error) {
	h.CRC = 0
	levels := 0
	if v2, ok := h.DataPageHeaderV2.Get(); ok {
		levels = int(v2.RepetitionLevelsByteLength + v2.DefinitionLevelsByteLength)
		if compressed, set := v2.IsCompressed.Get(); set && !compressed {
			return body, nil
		}
		v2.IsCompressed = thrift.New(false)
		h.DataPageHeaderV2 = thrift.New(v2)
	}
	if levels < 0 || levels > len(body) || int(h.UncompressedPageSize) < levels {
		return nil, fmt.Errorf("%w: page levels past the page", segments.ErrCorruptSource)
	}
	out := append([]byte{}, body[:levels]...)
	if rest := body[levels:]; len(rest) > 0 || int(h.UncompressedPageSize) > levels {
		data, err := decodeLZ4(rest, int(h.UncompressedPageSize)-levels)
		if err != nil {
			return nil, err
		}
		out = append(out, data...)
	}
	h.CompressedPageSize = int32(len(out))
	return out, nil
}

// shiftChunk moves a copied chunk's page offsets by d.
func shiftChunk(m *format.ColumnMetaData, d int64) {
	m.DataPageOffset += d
	if m.DictionaryPageOffset > 0 {
		m.DictionaryPageOffset += d
	}
	if m.IndexPageOffset > 0 {
		m.IndexPageOffset += d
	}
}
